//! The in-memory account: built from the seed, changed by the write endpoints, read by the
//! listings and by [`StateSnapshot`] (what tests assert on).

use std::collections::BTreeMap;

use serde::Serialize;

use super::seed::{ExternalZoneSeed, RecordSeed, Seed};
use dnscron_provider::RecordType;

#[derive(Clone, Debug)]
pub(crate) struct StoredRecord {
    /// Relative, lower case (`@`, `www`).
    pub name: String,
    /// Upper case.
    pub rtype: String,
    pub ttl: u32,
    /// As written.
    pub content: String,
    pub hidden: bool,
}

impl StoredRecord {
    /// The type as the API writes it; `None` for one only a seed stores (SOA, DNSKEY, …).
    pub(crate) fn api_type(&self) -> Option<RecordType> {
        RecordType::parse(&self.rtype)
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct ZoneState {
    /// Keyed by record id; ids only grow, so listing in key order is stable under inserts.
    pub records: BTreeMap<i64, StoredRecord>,
    /// Record writes so far: the DNS listener's SOA serial follows it.
    pub writes: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct CronEntry {
    pub schedule: String,
    pub command: String,
}

#[derive(Clone, Debug)]
pub(crate) struct SiteState {
    pub state: String,
    pub url: String,
    /// Keyed by slot: the job's stable position (used for cursors and stable indexes).
    pub cron: BTreeMap<u64, CronEntry>,
    pub next_slot: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct DomainState {
    pub expiry: String,
    pub auto_renew: bool,
    pub transfer_state: String,
    pub dnssec: bool,
    pub registry_ns: Vec<String>,
    pub resolver_ns: Vec<String>,
    pub lock: bool,
    pub whois_privacy: bool,
    /// A seeded nameserver `state` word; cleared by a nameserver write.
    pub ns_state: Option<String>,
    pub our_ds: Option<Vec<String>>,
    pub registry_ds: Option<Vec<String>>,
}

impl DomainState {
    /// Registry and resolvers delegate to the same nameservers: order, case, a final dot and
    /// duplicates are no difference, as no resolver sees one (the registrar's `synced`).
    pub(crate) fn nameservers_synced(&self) -> bool {
        same_hosts(&self.registry_ns, &self.resolver_ns)
    }
}

/// Two nameserver lists name the same hosts, whatever their order, case, final dots.
pub(crate) fn same_hosts(a: &[String], b: &[String]) -> bool {
    let set = |hosts: &[String]| -> std::collections::BTreeSet<String> {
        hosts
            .iter()
            .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
            .collect()
    };
    set(a) == set(b)
}

#[derive(Clone, Debug, Default)]
pub(crate) struct State {
    pub zones: BTreeMap<String, ZoneState>,
    pub sites: BTreeMap<String, SiteState>,
    pub domains: BTreeMap<String, DomainState>,
    pub external: BTreeMap<String, ExternalZoneSeed>,
    next_record_id: i64,
}

/// Types the service manages itself and never lists.
const SYSTEM_TYPES: [&str; 8] = [
    "SOA", "DNSKEY", "RRSIG", "NSEC", "NSEC3", "DS", "CDS", "CDNSKEY",
];

pub(crate) fn is_system_record(name: &str, rtype: &str) -> bool {
    SYSTEM_TYPES.contains(&rtype) || (rtype == RecordType::NS.as_str() && name == "@")
}

impl State {
    pub(crate) fn from_seed(seed: &Seed) -> State {
        let mut state = State {
            next_record_id: 1000,
            ..State::default()
        };
        for zone in &seed.zones {
            let name = zone.zone.trim_end_matches('.').to_ascii_lowercase();
            let mut zs = ZoneState::default();
            for record in &zone.records {
                let id = state.allocate_id();
                zs.records.insert(id, seed_record(record, &name));
            }
            state.zones.insert(name, zs);
        }
        for site in &seed.sites {
            let cron: BTreeMap<u64, CronEntry> = site
                .cron
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    (
                        i as u64,
                        CronEntry {
                            schedule: c.schedule.clone(),
                            command: c.command.clone(),
                        },
                    )
                })
                .collect();
            let url = site
                .url
                .clone()
                .unwrap_or_else(|| format!("https://{}.veldhost.example", site.slug));
            state.sites.insert(
                site.slug.clone(),
                SiteState {
                    state: site.state.clone(),
                    url,
                    next_slot: cron.len() as u64,
                    cron,
                },
            );
        }
        for domain in &seed.domains {
            let ns = domain
                .nameservers
                .clone()
                .unwrap_or_else(|| seed.service_nameservers.clone());
            state.domains.insert(
                domain.domain.trim_end_matches('.').to_ascii_lowercase(),
                DomainState {
                    expiry: domain.expiry.clone(),
                    auto_renew: domain.auto_renew,
                    transfer_state: domain.transfer_state.clone(),
                    dnssec: domain.dnssec,
                    resolver_ns: domain
                        .resolver_nameservers
                        .clone()
                        .unwrap_or_else(|| ns.clone()),
                    registry_ns: ns,
                    lock: domain.lock,
                    whois_privacy: domain.whois_privacy,
                    ns_state: domain.nameserver_state.clone(),
                    our_ds: domain.our_ds.clone(),
                    registry_ds: domain.registry_ds.clone(),
                },
            );
        }
        for ext in &seed.external_zones {
            state.external.insert(
                ext.domain.trim_end_matches('.').to_ascii_lowercase(),
                ext.clone(),
            );
        }
        state
    }

    pub(crate) fn allocate_id(&mut self) -> i64 {
        self.next_record_id += 1;
        self.next_record_id
    }

    pub(crate) fn snapshot(&self, cron_index: impl Fn(&SiteState, u64) -> i64) -> StateSnapshot {
        let zones = self
            .zones
            .iter()
            .map(|(zone, zs)| {
                let records = zs
                    .records
                    .iter()
                    .map(|(id, r)| RecordSnapshot {
                        id: *id,
                        name: r.name.clone(),
                        rtype: r.rtype.clone(),
                        ttl: r.ttl,
                        content: r.content.clone(),
                        hidden: r.hidden,
                    })
                    .collect();
                (zone.clone(), records)
            })
            .collect();
        let sites = self
            .sites
            .iter()
            .map(|(slug, site)| {
                let cron = site
                    .cron
                    .iter()
                    .map(|(slot, c)| CronSnapshot {
                        index: cron_index(site, *slot),
                        schedule: c.schedule.clone(),
                        command: c.command.clone(),
                    })
                    .collect();
                (
                    slug.clone(),
                    SiteSnapshot {
                        state: site.state.clone(),
                        cron,
                    },
                )
            })
            .collect();
        let domains = self
            .domains
            .iter()
            .map(|(name, d)| {
                (
                    name.clone(),
                    DomainSnapshot {
                        dnssec: d.dnssec,
                        registry_nameservers: d.registry_ns.clone(),
                    },
                )
            })
            .collect();
        StateSnapshot {
            zones,
            sites,
            domains,
        }
    }
}

fn seed_record(record: &RecordSeed, zone: &str) -> StoredRecord {
    let name = relative_name(&record.name, zone);
    let rtype = record.rtype.trim().to_ascii_uppercase();
    let hidden = record
        .hidden
        .unwrap_or_else(|| is_system_record(&name, &rtype));
    StoredRecord {
        name,
        rtype,
        ttl: record.ttl,
        content: record.content.clone(),
        hidden,
    }
}

/// `www`, `www.example.com.`, `@`, `example.com.` → `www` / `@` (lower case).
pub(crate) fn relative_name(input: &str, zone: &str) -> String {
    let lower = input.trim().to_ascii_lowercase();
    if lower == "@" || lower.is_empty() {
        return "@".into();
    }
    match lower.strip_suffix('.') {
        None => lower,
        Some(abs) if abs == zone => "@".into(),
        Some(abs) => abs
            .strip_suffix(zone)
            .and_then(|p| p.strip_suffix('.'))
            .map(str::to_string)
            .unwrap_or_else(|| abs.to_string()),
    }
}

/// What `state()` returns: the whole account, hidden records included and flagged.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StateSnapshot {
    pub zones: BTreeMap<String, Vec<RecordSnapshot>>,
    pub sites: BTreeMap<String, SiteSnapshot>,
    pub domains: BTreeMap<String, DomainSnapshot>,
}

impl StateSnapshot {
    /// The records a listing shows (hidden ones left out).
    pub fn visible_records(&self, zone: &str) -> Vec<&RecordSnapshot> {
        self.zones
            .get(zone)
            .map(|records| records.iter().filter(|r| !r.hidden).collect())
            .unwrap_or_default()
    }

    pub fn cron(&self, site: &str) -> &[CronSnapshot] {
        self.sites
            .get(site)
            .map(|s| s.cron.as_slice())
            .unwrap_or(&[])
    }

    pub fn registry_nameservers(&self, domain: &str) -> &[String] {
        self.domains
            .get(domain)
            .map(|d| d.registry_nameservers.as_slice())
            .unwrap_or(&[])
    }
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RecordSnapshot {
    pub id: i64,
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: String,
    pub ttl: u32,
    pub content: String,
    pub hidden: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SiteSnapshot {
    pub state: String,
    pub cron: Vec<CronSnapshot>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CronSnapshot {
    /// The index the API shows for this job now.
    pub index: i64,
    pub schedule: String,
    pub command: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct DomainSnapshot {
    pub dnssec: bool,
    pub registry_nameservers: Vec<String>,
}
