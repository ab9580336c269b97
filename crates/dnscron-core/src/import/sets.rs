//! Record sets factored out of imported zones: RRsets that are identical in 3 or more zones
//! (name, type, TTL and every content, the zone's own name replaced by `{zone}`) go into a
//! `record_set:` file that those zones `use:`.
//!
//! The unit is a whole RRset, never a single record: a set then never holds part of a name and
//! type that a zone also declares itself, which the loader refuses (a set record and a zone
//! record of one name and type). RRsets shared by the same zones form one set; other groups of
//! zones get sets of their own, so no zone uses a set holding records it does not have.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::config::ZONE_PLACEHOLDER as PLACEHOLDER;
use crate::config::fmt::order;
use crate::config::fmt::text::{RecordItem, record_item};
use crate::dns::{self, RecordType, ZoneName};

use super::render::SCHEMA_COMMENT;
use super::yaml::scalar;
use super::zone::{Imported, ZoneFile};

/// Fewer zones sharing an RRset than this leave it in each zone.
pub(crate) const MIN_ZONES: usize = 3;

/// A record set to write to `sets/<name>.yaml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetFile {
    /// `shared`, then `shared-2`, `shared-3`, … (most zones first).
    pub name: String,
    pub records: Vec<SetRecord>,
    /// The zones that use it, sorted.
    pub zones: Vec<ZoneName>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetRecord {
    pub name: String,
    pub rtype: RecordType,
    pub ttl: u32,
    /// The wire form of the content with the zone's name written `{zone}`.
    pub content: String,
}

impl SetRecord {
    fn key(&self) -> order::RecordKey<'_> {
        order::RecordKey {
            name: &self.name,
            rtype: self.rtype,
            content: &self.content,
            ttl: Some(self.ttl),
        }
    }
}

/// One RRset of one zone as it would read in a set: the key zones are compared on.
type Key = (String, RecordType, u32, Vec<String>);

/// Takes the RRsets shared by at least `MIN_ZONES` zones out of `zones` into sets, and adds
/// the sets to each using zone's `uses`. `zones` keep their order; the sets are returned.
pub fn extract_sets(zones: &mut [ZoneFile]) -> Vec<SetFile> {
    let mut sharing: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for (i, zone) in zones.iter().enumerate() {
        for key in rrset_keys(zone) {
            sharing.entry(key).or_default().push(i);
        }
    }
    // RRsets shared by exactly the same zones belong in one set.
    let mut groups: BTreeMap<Vec<usize>, Vec<Key>> = BTreeMap::new();
    for (key, users) in sharing {
        if users.len() >= MIN_ZONES {
            groups.entry(users).or_default().push(key);
        }
    }
    let mut groups: Vec<(Vec<usize>, Vec<Key>)> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
    let mut sets = Vec::with_capacity(groups.len());
    for (n, (users, keys)) in groups.into_iter().enumerate() {
        let name = if n == 0 {
            "shared".to_string()
        } else {
            format!("shared-{}", n + 1)
        };
        for &i in &users {
            let zone = &mut zones[i];
            zone.records.retain(|r| {
                !keys
                    .iter()
                    .any(|(n, t, _, _)| *n == r.name && *t == r.rtype)
            });
            zone.uses.push(name.clone());
        }
        let mut zone_names: Vec<ZoneName> = users.iter().map(|&i| zones[i].zone.clone()).collect();
        zone_names.sort();
        let records = keys
            .into_iter()
            .flat_map(|(name, rtype, ttl, contents)| {
                contents.into_iter().map(move |content| SetRecord {
                    name: name.clone(),
                    rtype,
                    ttl,
                    content,
                })
            })
            .collect();
        sets.push(SetFile {
            name,
            records,
            zones: zone_names,
        });
    }
    sets
}

/// The zone's RRsets as set keys; an RRset whose content can't be written with `{zone}` (it
/// holds the text `{zone}` itself) is left out, staying in the zone.
fn rrset_keys(zone: &ZoneFile) -> Vec<Key> {
    let mut rrsets: BTreeMap<(&str, RecordType), Vec<&Imported>> = BTreeMap::new();
    for r in &zone.records {
        rrsets
            .entry((r.name.as_str(), r.rtype))
            .or_default()
            .push(r);
    }
    rrsets
        .into_iter()
        .filter_map(|((name, rtype), records)| {
            let ttl = records[0].ttl;
            let mut contents = Vec::with_capacity(records.len());
            for r in records {
                let wire = dns::wire_content(rtype, &r.canonical);
                if wire.contains(PLACEHOLDER) || r.ttl != ttl {
                    return None;
                }
                contents.push(template(&wire, zone.zone.as_str()));
            }
            contents.sort();
            Some((name.to_string(), rtype, ttl, contents))
        })
        .collect()
}

/// `content` with each whole occurrence of the zone's name (between label boundaries:
/// `mail.example.com.`, `dmarc@example.com`, not `notexample.com`) written `{zone}`.
fn template(content: &str, zone: &str) -> String {
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'));
    let mut out = String::with_capacity(content.len());
    let mut done = 0;
    for (at, _) in content.match_indices(zone) {
        let before = content[..at].chars().last();
        let after = content[at + zone.len()..].chars().next();
        if at >= done && boundary(before) && boundary(after) {
            out.push_str(&content[done..at]);
            out.push_str(PLACEHOLDER);
            done = at + zone.len();
        }
    }
    out.push_str(&content[done..]);
    out
}

/// The set's file: every record with its TTL (zones may have other `defaults.ttl`).
pub fn render_set(set: &SetFile) -> String {
    let mut out = String::from(SCHEMA_COMMENT);
    let zones: Vec<&str> = set.zones.iter().map(ZoneName::as_str).collect();
    let _ = writeln!(
        out,
        "# Records identical in {} zones, factored out by `dnscron import`: {}.\n# `{{zone}}` stands for the name of the zone that uses the set.",
        zones.len(),
        zones.join(", ")
    );
    let _ = writeln!(out, "record_set: {}", scalar(&set.name));
    out.push_str("records:\n");
    // In `fmt`'s order, so that the file is already in its form.
    let mut records: Vec<&SetRecord> = set.records.iter().collect();
    records.sort_by(|a, b| order::record_order(&a.key(), &b.key()));
    for r in records {
        let item = RecordItem {
            name: &r.name,
            rtype: r.rtype,
            content: &r.content,
            ttl: Some(r.ttl),
            override_sets: None,
        };
        record_item(&mut out, "  ", &item, None);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zone_name_becomes_a_placeholder_at_label_boundaries_only() {
        let t = |c: &str| template(c, "example.com");
        assert_eq!(t("mail.example.com."), "mail.{zone}.");
        assert_eq!(
            t("v=DMARC1; rua=mailto:d@example.com"),
            "v=DMARC1; rua=mailto:d@{zone}"
        );
        assert_eq!(t("example.com"), "{zone}");
        assert_eq!(t("notexample.com."), "notexample.com.");
        assert_eq!(t("example.community"), "example.community");
        assert_eq!(t("a.example.com b.example.com"), "a.{zone} b.{zone}");
        for c in [
            "notexample.com.",
            "x example.com-y",
            "example.com.example.com",
        ] {
            assert_eq!(t(c).replace(PLACEHOLDER, "example.com"), c);
        }
    }
}
