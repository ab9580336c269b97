//! Live records that are each declarable but not together: a file can't hold them as they are,
//! so they become exact `ignore` rules (plan leaves them alone) instead of records the validator
//! would refuse.

use std::collections::{BTreeSet, HashMap};

use crate::dns::RecordType;
use crate::dns::rules;

use super::zone::{Imported, Unrepresentable};

/// A CNAME must be alone at its name; if the live zone breaks that rule, the CNAME is ignored
/// rather than declared (the validator would refuse the file).
pub(super) fn move_cname_clashes(records: &mut Vec<Imported>, ignore: &mut Vec<Unrepresentable>) {
    let mut types: HashMap<&str, BTreeSet<RecordType>> = HashMap::new();
    for r in records.iter() {
        types.entry(r.name.as_str()).or_default().insert(r.rtype);
    }
    let clashing: BTreeSet<String> = types
        .into_iter()
        .filter(|(_, t)| rules::types_clash(t))
        .map(|(name, _)| name.to_string())
        .collect();
    let (bad, good): (Vec<_>, Vec<_>) = std::mem::take(records)
        .into_iter()
        .partition(|r| rules::must_be_alone(r.rtype) && clashing.contains(&r.name));
    *records = good;
    ignore.extend(bad.into_iter().map(|r| Unrepresentable {
        reason: format!(
            "a CNAME beside other records at `{}` can't be declared",
            r.name
        ),
        name: r.name,
        rtype: r.rtype,
        canonical: r.canonical,
    }));
}

/// One name and type is one RRset with one TTL (RFC 2181 §5.2), which the validator enforces;
/// a live RRset whose records have different TTLs is ignored as a whole rather than guessed at.
pub(super) fn move_mixed_ttl_rrsets(
    records: &mut Vec<Imported>,
    ignore: &mut Vec<Unrepresentable>,
) {
    let mut mixed: BTreeSet<(String, RecordType)> = BTreeSet::new();
    for (later, _) in
        rules::rrset_ttl_conflicts(records.iter().map(|r| (r.name.as_str(), r.rtype, r.ttl)))
    {
        mixed.insert((records[later].name.clone(), records[later].rtype));
    }
    let (bad, good): (Vec<_>, Vec<_>) = std::mem::take(records)
        .into_iter()
        .partition(|r| mixed.contains(&(r.name.clone(), r.rtype)));
    *records = good;
    ignore.extend(bad.into_iter().map(|r| Unrepresentable {
        reason: format!(
            "the {} records at `{}` have different TTLs, and a file declares one TTL per name and \
             type (RFC 2181 §5.2)",
            r.rtype, r.name
        ),
        name: r.name,
        rtype: r.rtype,
        canonical: r.canonical,
    }));
}
