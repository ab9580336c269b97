//! Live records → the records of a zone file that reloads to the same canonical state.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::str::FromStr;

use crate::config::fmt::order::{self, name_order};
use crate::config::model::NameserverMode;
use crate::dns::rules::{self, NameRule};
use crate::dns::{self, RecordType, ZoneName};
use dnscron_api::payload;

use super::ephemeral::{Ephemeral, ephemeral};

/// `defaults.ttl` wins a tie when it is among the most frequent TTLs (it is the API's default).
const PREFERRED_TTL: u32 = rules::DEFAULT_TTL;

/// One zone document to write.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneFile {
    pub zone: ZoneName,
    /// Comment lines (without `# `) after the schema line.
    pub header: Vec<String>,
    pub nameservers: NsChoice,
    /// `defaults.ttl`: the most frequent TTL; `None` for a zone without records.
    pub default_ttl: Option<u32>,
    /// Sorted: apex first, then by name, type, content.
    pub records: Vec<Imported>,
    /// Live records automation writes by itself (`import::EPHEMERAL`): kept out of management
    /// by one `ignore:` rule per kind.
    pub ephemeral: Vec<KeptOut>,
    /// Live records the file format can't declare: kept out of reach of the plan by these rules.
    pub ignore: Vec<Unrepresentable>,
    /// Live records left out because dnscron never plans them (shown as comments).
    pub left_out: Vec<LeftOut>,
    /// Record sets (`sets::extract_sets`) holding the rest of its records.
    pub uses: Vec<String>,
    /// `ignore:` rules another tool's files state (DNSControl's `IGNORE`).
    pub rules: Vec<SourceIgnore>,
    /// `false` writes `prune: false` (DNSControl's `NO_PURGE`).
    pub prune: bool,
}

/// An `ignore:` rule as another tool's files state it, globs kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceIgnore {
    /// Glob over the relative name.
    pub name: String,
    /// `None`: every type.
    pub rtype: Option<RecordType>,
    /// Glob over the content; `None`: any content.
    pub content: Option<String>,
    /// Where the source says it, for the comment above the rule.
    pub origin: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NsChoice {
    /// Write `nameservers:` with this mode.
    Managed(NameserverMode),
    /// No `nameservers:` key; the reason goes into a comment (`None`: say nothing, e.g. the zone's
    /// domain is not registered in this account).
    Unmanaged(Option<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    /// Relative (`@`, `www`).
    pub name: String,
    pub rtype: RecordType,
    pub ttl: u32,
    /// `dns::canonical_content`; written as `dns::wire_content` so it reloads to the same.
    pub canonical: String,
}

/// A live record the planner sees but a file can't declare (content the validator refuses, a
/// TTL out of range, a CNAME beside other records …): an exact `ignore` rule keeps plan off it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrepresentable {
    pub name: String,
    pub rtype: RecordType,
    /// The planner's canonical form of the live content (for the rule's content glob).
    pub canonical: String,
    pub reason: String,
}

/// A live record of a kind automation rewrites, imported as an `ignore:` rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptOut {
    pub kind: &'static Ephemeral,
    /// Relative (`_acme-challenge.www`).
    pub name: String,
}

impl ZoneFile {
    /// The kinds of ephemeral records the zone holds, each once, in the list's order.
    pub fn ephemeral_kinds(&self) -> Vec<&'static Ephemeral> {
        super::EPHEMERAL
            .iter()
            .filter(|kind| self.ephemeral.iter().any(|k| k.kind == *kind))
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    pub name: String,
    pub rtype: String,
    pub content: String,
    pub reason: String,
}

/// The nameserver block for a registered domain: hosted when the registry lists the service's
/// own nameservers (the planner's rule), else custom with the registry's hosts when a file can
/// declare them.
pub(crate) fn nameserver_choice(
    zone: &ZoneName,
    registry: &[String],
    service: &[String],
) -> NsChoice {
    if crate::plan::registry_is_hosted(registry, service) {
        return NsChoice::Managed(NameserverMode::Hosted);
    }
    let mut hosts: Vec<String> = Vec::new();
    for host in registry {
        let host = dns::fold_host(host);
        if !host.is_empty() && !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    let problem = custom_hosts_problem(zone, &hosts);
    match problem {
        Some(why) => NsChoice::Unmanaged(Some(format!("nameservers left unmanaged: {why}"))),
        None => NsChoice::Managed(NameserverMode::Custom(hosts)),
    }
}

/// Why `hosts` can't be written as `mode: custom` (the validator's rules), if it can't.
fn custom_hosts_problem(zone: &ZoneName, hosts: &[String]) -> Option<String> {
    if hosts.is_empty() {
        return Some("the registry lists no nameservers".into());
    }
    let count = &rules::NAMESERVER_COUNT;
    if !count.contains(&hosts.len()) {
        return Some(format!(
            "the registry lists {} nameservers ({}); a file declares {} to {}",
            hosts.len(),
            hosts.join(", "),
            count.start(),
            count.end()
        ));
    }
    if let Some(inside) = hosts.iter().find(|h| zone.contains(h)) {
        return Some(format!(
            "the nameserver {inside} is inside the domain itself, which `hosts` can't declare"
        ));
    }
    hosts
        .iter()
        .find(|h| rules::check_nameserver_host(h).is_err())
        .map(|bad| format!("`{bad}` is not a host name a file can declare"))
}

/// Builds the zone file from every live record of the zone.
pub fn build_zone(zone: &ZoneName, live: &[payload::Record], nameservers: NsChoice) -> ZoneFile {
    let mut sorted: Vec<&payload::Record> = live.iter().collect();
    sorted.sort_by_key(|r| r.id);
    let mut records = Vec::new();
    let mut ephemeral_kept = Vec::new();
    let mut ignore = Vec::new();
    let mut left_out = Vec::new();
    let mut seen = HashSet::with_capacity(live.len());
    for raw in sorted {
        if let Some(kept) = kept_out(zone, raw) {
            ephemeral_kept.push(kept);
            continue;
        }
        match classify(zone, raw) {
            Class::Record(rec) => {
                let key = (rec.name.clone(), rec.rtype, rec.canonical.clone());
                if seen.insert(key) {
                    records.push(rec);
                } else {
                    left_out.push(left(raw, &rec.name, "a second copy of a record above (same name, type and content); `plan` will propose deleting it"));
                }
            }
            Class::Ignore(u) => ignore.push(u),
            Class::LeftOut(l) => left_out.push(l),
        }
    }
    super::together::move_cname_clashes(&mut records, &mut ignore);
    super::together::move_mixed_ttl_rrsets(&mut records, &mut ignore);
    records.sort_by(record_order);
    ignore.sort_by(|a, b| name_order(&a.name, &b.name).then(a.rtype.cmp(&b.rtype)));
    let default_ttl = most_frequent_ttl(&records);
    ZoneFile {
        zone: zone.clone(),
        header: Vec::new(),
        nameservers,
        default_ttl,
        records,
        ephemeral: ephemeral_kept,
        ignore,
        left_out,
        uses: Vec::new(),
        rules: Vec::new(),
        prune: true,
    }
}

/// A live record of a kind automation rewrites (its name and type decide; any content).
fn kept_out(zone: &ZoneName, raw: &payload::Record) -> Option<KeptOut> {
    let rtype = RecordType::from_str(&raw.rtype).ok()?;
    let name = dns::live_name_to_relative(&raw.name, zone);
    ephemeral(&name, rtype).map(|kind| KeptOut { kind, name })
}

enum Class {
    Record(Imported),
    Ignore(Unrepresentable),
    LeftOut(LeftOut),
}

fn left(raw: &payload::Record, name: &str, reason: &str) -> LeftOut {
    LeftOut {
        name: name.to_string(),
        rtype: raw.rtype.trim().to_ascii_uppercase(),
        content: raw.content.trim().to_string(),
        reason: reason.to_string(),
    }
}

/// Mirrors what the planner plans (`plan::records`): apex NS, the service's types and types
/// outside the nine are left out; everything else must be declared exactly, or ignored when it can't be.
fn classify(zone: &ZoneName, raw: &payload::Record) -> Class {
    let name = dns::live_name_to_relative(&raw.name, zone);
    let Ok(rtype) = RecordType::from_str(&raw.rtype) else {
        let reason = if dns::record::is_service_type(&raw.rtype) {
            "a system or DNSSEC type, which dnscron never plans"
        } else {
            "a type dnscron does not manage, left alone"
        };
        return Class::LeftOut(left(raw, &name, reason));
    };
    let broken = rules::broken_name_rule(rtype, &name);
    if broken == Some(NameRule::ServiceApexNs) {
        return Class::LeftOut(left(
            raw,
            &name,
            "apex NS records belong to the service; `nameservers:` chooses the domain's delegation",
        ));
    }
    let canonical = dns::canonical_live_content(rtype, &raw.content, zone);
    let unrepresentable = |reason: String| {
        Class::Ignore(Unrepresentable {
            name: name.clone(),
            rtype,
            canonical: canonical.clone(),
            reason,
        })
    };
    if let Err(err) = dns::record_name_to_relative(&name, zone) {
        return unrepresentable(format!("its name is not valid in a file: {err}"));
    }
    match broken {
        Some(NameRule::ApexCname) => {
            return unrepresentable("a CNAME at the apex can't be declared".into());
        }
        Some(NameRule::SrvOwner) => {
            return unrepresentable(format!(
                "an SRV record named `{name}` (not `_service._proto`) can't be declared"
            ));
        }
        Some(NameRule::ServiceApexNs) | None => {}
    }
    if !rules::TTL_RANGE.contains(&raw.ttl) {
        return unrepresentable(format!("its ttl {} is outside 60–604800", raw.ttl));
    }
    match dns::canonical_content(rtype, &raw.content, zone) {
        Ok(canonical) => Class::Record(Imported {
            name,
            rtype,
            ttl: raw.ttl,
            canonical,
        }),
        Err(err) => unrepresentable(format!("its content is not valid in a file: {err}")),
    }
}

fn record_order(a: &Imported, b: &Imported) -> Ordering {
    order::record_order(&a.key(), &b.key())
}

impl Imported {
    fn key(&self) -> order::RecordKey<'_> {
        order::RecordKey {
            name: &self.name,
            rtype: self.rtype,
            content: &self.canonical,
            ttl: Some(self.ttl),
        }
    }
}

fn most_frequent_ttl(records: &[Imported]) -> Option<u32> {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for r in records {
        *counts.entry(r.ttl).or_default() += 1;
    }
    let top = counts.values().copied().max()?;
    let tied: Vec<u32> = counts
        .into_iter()
        .filter(|(_, n)| *n == top)
        .map(|(ttl, _)| ttl)
        .collect();
    Some(if tied.contains(&PREFERRED_TTL) {
        PREFERRED_TTL
    } else {
        tied[0]
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rec(id: i64, name: &str, rtype: &str, ttl: u32, content: &str) -> payload::Record {
        payload::Record {
            id,
            name: name.into(),
            rtype: rtype.into(),
            ttl,
            content: content.into(),
        }
    }

    fn zone() -> ZoneName {
        ZoneName::parse("example.com").unwrap()
    }

    #[test]
    fn sorts_apex_first_then_names_types_and_numbers() {
        let live = [
            rec(1, "www", "A", 300, "192.0.2.2"),
            rec(2, "example.com.", "MX", 3600, "20 mx.example.com."),
            rec(3, "@", "MX", 3600, "5 mx.example.com."),
            rec(4, "@", "A", 3600, "192.0.2.1"),
            rec(5, "*", "A", 3600, "192.0.2.9"),
        ];
        let f = build_zone(&zone(), &live, NsChoice::Unmanaged(None));
        let order: Vec<String> = f
            .records
            .iter()
            .map(|r| format!("{} {} {}", r.name, r.rtype, r.canonical))
            .collect();
        assert_eq!(
            order,
            [
                "@ A 192.0.2.1",
                "@ MX 5 mx.example.com.",
                "@ MX 20 mx.example.com.",
                "* A 192.0.2.9",
                "www A 192.0.2.2"
            ]
        );
        assert_eq!(f.default_ttl, Some(3600));
    }

    #[test]
    fn ttl_ties_prefer_3600_else_the_smallest() {
        let a = [
            rec(1, "a", "A", 300, "192.0.2.1"),
            rec(2, "b", "A", 3600, "192.0.2.1"),
        ];
        assert_eq!(
            build_zone(&zone(), &a, NsChoice::Unmanaged(None)).default_ttl,
            Some(3600)
        );
        let b = [
            rec(1, "a", "A", 600, "192.0.2.1"),
            rec(2, "b", "A", 300, "192.0.2.1"),
        ];
        assert_eq!(
            build_zone(&zone(), &b, NsChoice::Unmanaged(None)).default_ttl,
            Some(300)
        );
        assert_eq!(
            build_zone(&zone(), &[], NsChoice::Unmanaged(None)).default_ttl,
            None
        );
    }

    #[test]
    fn system_records_are_left_out_and_odd_ones_ignored() {
        let live = [
            rec(1, "@", "NS", 86400, "ns1.veldhost.net."),
            rec(2, "@", "SOA", 3600, "ns1. host. 1 2 3 4 5"),
            rec(3, "sub", "NS", 3600, "ns1.other.net."),
            rec(4, "bad", "A", 3600, "not-an-ip"),
            rec(5, "low", "A", 5, "192.0.2.1"),
            rec(6, "x", "CNAME", 3600, "y.example.com."),
            rec(7, "x", "TXT", 3600, "beside"),
            rec(8, "@", "HTTPS", 3600, "1 . alpn=h2"),
        ];
        let f = build_zone(&zone(), &live, NsChoice::Unmanaged(None));
        let left: Vec<(&str, &str)> = f
            .left_out
            .iter()
            .map(|l| (l.rtype.as_str(), l.reason.as_str()))
            .collect();
        assert_eq!(
            left,
            [
                (
                    "NS",
                    "apex NS records belong to the service; `nameservers:` chooses the domain's delegation"
                ),
                ("SOA", "a system or DNSSEC type, which dnscron never plans"),
                ("HTTPS", "a type dnscron does not manage, left alone"),
            ]
        );
        let kept: Vec<&str> = f.records.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(kept, ["sub", "x"]);
        let ignored: Vec<&str> = f.ignore.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(ignored, ["bad", "low", "x"]);
    }

    #[test]
    fn nameserver_modes() {
        let z = zone();
        let svc = vec![
            "ns1.veldhost.net".to_string(),
            "ns2.veldhost.net".to_string(),
        ];
        let hosted = [
            "NS2.veldhost.net.".to_string(),
            "ns1.veldhost.net".to_string(),
        ];
        assert_eq!(
            nameserver_choice(&z, &hosted, &svc),
            NsChoice::Managed(NameserverMode::Hosted)
        );
        let custom = ["NS1.other.net.".to_string(), "ns2.other.net".to_string()];
        assert_eq!(
            nameserver_choice(&z, &custom, &svc),
            NsChoice::Managed(NameserverMode::Custom(vec![
                "ns1.other.net".into(),
                "ns2.other.net".into()
            ]))
        );
        for bad in [
            vec![],
            vec!["ns1.other.net".to_string()],
            vec!["ns1.example.com".into(), "ns2.example.com".into()],
        ] {
            assert!(
                matches!(
                    nameserver_choice(&z, &bad, &svc),
                    NsChoice::Unmanaged(Some(_))
                ),
                "{bad:?}"
            );
        }
    }
}
