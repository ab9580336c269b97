//! SPF (RFC 7208): one `v=spf1` record per name, its syntax, and the DNS lookups a receiver
//! makes to evaluate it, following `include:` and `redirect=` (§4.6.4: more than 10 is a
//! permerror; more than 2 void lookups too). Includes in the account's zones are read from the
//! files, the others from the resolver when there is one.

mod parse;
mod tree;

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::RecordType;
use crate::plan::finding_code::FindingCode;
use crate::plan::model::{Finding, TargetKind, TargetRef};

use super::Out;
use super::account::by_name;

pub(crate) use parse::{Parsed, is_spf, parse};
use tree::State;
pub(crate) use tree::Walker;

/// RFC 7208 §4.6.4: the DNS-querying terms a receiver evaluates before it gives permerror.
const LOOKUP_LIMIT: usize = 10;
/// From this many lookups on, one more include breaks the record: a warning.
const LOOKUP_WARNING: usize = 9;
/// §4.6.4: lookups that find no name or no records, before permerror.
const VOID_LIMIT: usize = 2;

/// The SPF findings of one zone: per name, its records, then each record's evaluation.
pub(super) async fn findings(walker: &mut Walker<'_>, spec: &ZoneSpec, out: &mut Out<'_>) {
    for (name, records) in by_name(spec, RecordType::TXT, |r| is_spf(&r.canonical)) {
        if let [_, second, ..] = records.as_slice() {
            let at: Vec<String> = records.iter().map(|r| r.location.to_string()).collect();
            out.push(
                FindingCode::SpfMultiple,
                second,
                format!(
                    "{name} has {} SPF records ({}): receivers return permerror for every message and treat the mail as unauthenticated, so it is often rejected or junked; merge them into one `v=spf1` record",
                    records.len(),
                    at.join(", ")
                ),
            );
            continue;
        }
        let record = records[0];
        match parse(&record.canonical) {
            Ok(parsed) => evaluate(walker, &name, record, parsed, out).await,
            Err(why) => out.push(
                FindingCode::SpfInvalid,
                record,
                format!(
                    "the SPF record of {name} is invalid: {why}; receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; correct the term (RFC 7208 §5, §6)"
                ),
            ),
        }
    }
}

async fn evaluate(
    walker: &mut Walker<'_>,
    name: &str,
    record: &RecordSpec,
    parsed: Parsed,
    out: &mut Out<'_>,
) {
    let root = walker.walk(name, parsed).await;
    let total = root.total();
    let tree = root.render();
    let mut unfollowed = Vec::new();
    root.unfollowed(&mut unfollowed);
    let lookups = if total == 1 { "lookup" } else { "lookups" };
    let counted = if unfollowed.is_empty() {
        format!("{total} DNS {lookups}")
    } else {
        format!("at least {total} DNS {lookups}")
    };
    // Only includes nobody could ask for would a resolver count; a failed answer needs a
    // working one, which the reason already says.
    let ask = if root.needs_resolver() {
        "; a resolver would count them"
    } else {
        ""
    };
    if total > LOOKUP_LIMIT {
        out.push(
            FindingCode::SpfTooManyLookups,
            record,
            format!(
                "the SPF record of {name} needs {counted}, more than the {LOOKUP_LIMIT} receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated, so it is often rejected or junked; lookups per record: {tree}; replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used"
            ),
        );
    } else if total >= LOOKUP_WARNING {
        out.push(
            FindingCode::SpfLookupsNearLimit,
            record,
            format!(
                "the SPF record of {name} needs {counted} of the {LOOKUP_LIMIT} receivers allow: one more include (or a provider adding one to theirs) makes it a permerror, and the mail unauthenticated; lookups per record: {tree}; replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used"
            ),
        );
    } else if !unfollowed.is_empty() && !walker.has_resolver() && root.awaits_only_a_resolver() {
        for term in unfollowed {
            walker
                .unasked
                .entry(term)
                .or_default()
                .push(name.to_string());
        }
        let zone = out.spec.zone.to_string();
        walker.unasked_zone.get_or_insert(zone);
    } else if !unfollowed.is_empty() {
        out.push(
            FindingCode::SpfLookupsUncounted,
            record,
            format!(
                "the SPF record of {name} needs {counted} of the {LOOKUP_LIMIT} receivers allow; not followed: {}; lookups per record: {tree}{ask}",
                unfollowed.join(", ")
            ),
        );
    }
    let voids = root.voids();
    if voids > VOID_LIMIT {
        out.push(
            FindingCode::SpfTooManyVoidLookups,
            record,
            format!(
                "the SPF record of {name} makes {voids} void lookups (names without records), more than the {VOID_LIMIT} receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; lookups per record: {tree}; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone)"
            ),
        );
    }
    let mut broken = Vec::new();
    root.broken(&mut Vec::new(), &mut broken);
    for (chain, state) in broken {
        let what = match state {
            State::NoSpf { .. } => "finds no SPF record there".to_string(),
            State::Loop => "includes a record already being evaluated (a loop)".to_string(),
            State::Multiple => "finds several SPF records there".to_string(),
            State::Invalid(why) => format!("finds an invalid SPF record there ({why})"),
            _ => continue,
        };
        out.push(
            FindingCode::SpfIncludeBroken,
            record,
            format!(
                "the SPF record of {name} {what}: {chain}; receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; fix or remove that include"
            ),
        );
    }
}

/// The SPF terms no zone's count could follow for want of a resolver, said once for the account
/// (on the zone of the first record that holds one): the counts of the records that hold them are lower bounds, below the
/// warning, so this is information, not a finding about one zone.
pub(super) fn unasked_finding(walker: &Walker<'_>) -> Option<Finding> {
    let zone = walker.unasked_zone.clone()?;
    let terms: Vec<String> = walker
        .unasked
        .iter()
        .map(|(term, names)| format!("{term} in {}", some_of(names)))
        .collect();
    let target = TargetRef {
        kind: TargetKind::Zone,
        name: zone,
    };
    Some(Finding::new(
        FindingCode::SpfNotFollowed,
        target,
        format!(
            "SPF lookups not followed, so the counts of the records that hold them are lower bounds (each below the warning): {}; a resolver would count them",
            terms.join("; ")
        ),
    ))
}

/// `a, b, c and 47 more` (the names of the SPF records that hold a term).
fn some_of(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let head = names[..names.len().min(SHOWN)].join(", ");
    match names.len().saturating_sub(SHOWN) {
        0 => head,
        more => format!("{head} and {more} more"),
    }
}
