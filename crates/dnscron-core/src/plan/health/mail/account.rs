//! The account's names as the files declare them: which zone holds a host, and its records.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::config::model::{IgnoreRule, RecordSpec, ZoneSpec};
use crate::dns::RecordType;

/// Records of one zone by (lower-case relative name, type).
type Index<'a> = HashMap<(String, RecordType), Vec<&'a RecordSpec>>;

pub(super) struct Account<'a> {
    zones: &'a [ZoneSpec],
    /// Built on a zone's first look-up: most zones are never looked into, and a scan per
    /// look-up would cost a 100,000-record zone seconds.
    index: Vec<OnceLock<Index<'a>>>,
}

impl<'a> Account<'a> {
    pub(super) fn new(zones: &'a [ZoneSpec]) -> Account<'a> {
        Account {
            zones,
            index: zones.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The declared zone that holds `host` (lower case, no final dot): the longest one, so a
    /// delegated sub-zone declared in its own file answers for its names.
    pub(super) fn zone_of(&self, host: &str) -> Option<&'a ZoneSpec> {
        self.zone_at(host).map(|at| &self.zones[at])
    }

    fn zone_at(&self, host: &str) -> Option<usize> {
        (0..self.zones.len())
            .filter(|&i| self.zones[i].zone.contains(host))
            .max_by_key(|&i| self.zones[i].zone.as_str().len())
    }

    /// What the files say about `rtype` at `host`: nothing (outside the account), or the
    /// records they declare there, and whether those are all the zone will hold once applied.
    pub(super) fn records(&self, host: &str, rtype: RecordType) -> Held<'a> {
        let Some(at) = self.zone_at(host) else {
            return Held::Outside;
        };
        let zone = &self.zones[at];
        let name = relative(host, zone.zone.as_str());
        let index = self.index[at].get_or_init(|| {
            let mut index = Index::new();
            for r in &zone.records {
                let key = (r.name.to_ascii_lowercase(), r.rtype);
                index.entry(key).or_default().push(r);
            }
            index
        });
        let records = index
            .get(&(name.clone(), rtype))
            .cloned()
            .unwrap_or_default();
        // Live records the files don't declare survive an apply when the zone doesn't prune,
        // or when an `ignore` rule covers them: then a name without records in the files may
        // still have some.
        let complete = zone.prune
            && !zone
                .ignore
                .iter()
                .any(|rule| could_match(rule, &name, rtype));
        Held::Files { records, complete }
    }
}

pub(super) enum Held<'a> {
    Outside,
    Files {
        records: Vec<&'a RecordSpec>,
        complete: bool,
    },
}

/// `@` for the zone itself, else the labels in front of it.
pub(super) fn relative(host: &str, zone: &str) -> String {
    match host.strip_suffix(zone).and_then(|p| p.strip_suffix('.')) {
        Some(prefix) => prefix.to_string(),
        None => "@".to_string(),
    }
}

/// The absolute name (lower case, no final dot) of a record in `zone`.
pub(super) fn absolute(name: &str, zone: &str) -> String {
    match name {
        "@" | "" => zone.to_string(),
        name => {
            // One allocation: called for every record of a type the mail rules read.
            let mut out = String::with_capacity(name.len() + 1 + zone.len());
            out.extend(name.chars().map(|c| c.to_ascii_lowercase()));
            out.push('.');
            out.push_str(zone);
            out
        }
    }
}

/// A host as DNS compares it, or `None` when it is not a plain host name.
pub(super) fn host(text: &str) -> Option<String> {
    let folded = crate::dns::fold_host(text);
    crate::dns::name::check_host(&folded).ok()?;
    Some(folded)
}

/// The zone's records of `rtype` that `keep` accepts, grouped by absolute name, in the order
/// the file first declares each name (so findings follow the file).
pub(super) fn by_name<'z>(
    spec: &'z ZoneSpec,
    rtype: RecordType,
    keep: impl Fn(&RecordSpec) -> bool,
) -> Vec<(String, Vec<&'z RecordSpec>)> {
    let mut groups: Vec<(String, Vec<&'z RecordSpec>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for record in spec.records.iter().filter(|r| r.rtype == rtype && keep(r)) {
        let name = absolute(&record.name, spec.zone.as_str());
        match index.get(&name) {
            Some(&at) => groups[at].1.push(record),
            None => {
                index.insert(name.clone(), groups.len());
                groups.push((name, vec![record]));
            }
        }
    }
    groups
}

/// Whether some record of `rtype` at `name` could fall under `rule`, whatever its content.
fn could_match(rule: &IgnoreRule, name: &str, rtype: RecordType) -> bool {
    let any_content = IgnoreRule {
        content: None,
        ..rule.clone()
    };
    any_content.matches(name, rtype, "")
}
