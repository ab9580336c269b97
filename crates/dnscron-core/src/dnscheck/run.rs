//! Checking the files' zones against their nameservers: find each zone's nameservers, ask each
//! for the zone's SOA, then the servers that answer it authoritatively for every RRset the
//! files declare, and compare.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::PathBuf;

use super::address::{AddressBook, ResolveError};
use super::answer::{Answer, QueryType, Question};
use super::batch::{DEFAULT_CONCURRENCY, ask_all, queries_sent};
use super::compare::{Expected, authority, compare_rrset};
use super::discover::{DiscoverError, RESOLV_CONF, system_resolvers, zone_nameservers};
use super::report::{CheckReport, NameserverSource, RrsetDifference, ServerReport, ZoneReport};
use super::transport::QueryOptions;
use crate::config::model::{Desired, Location, NameserverMode, ZoneSpec};
use crate::dns::RecordType;

/// How `check` asks.
#[derive(Clone, Debug)]
pub struct CheckSettings {
    pub query: QueryOptions,
    pub book: AddressBook,
    /// `--resolver`: asked for the NS RRset of zones whose files don't list custom hosts.
    pub resolver: Option<SocketAddr>,
    /// The system's resolver configuration, read when there is no `resolver`.
    pub resolv_conf: PathBuf,
    pub concurrency: usize,
}

impl CheckSettings {
    pub fn new(book: AddressBook, resolver: Option<SocketAddr>, query: QueryOptions) -> Self {
        CheckSettings {
            query,
            book,
            resolver,
            resolv_conf: PathBuf::from(RESOLV_CONF),
            concurrency: DEFAULT_CONCURRENCY,
        }
    }
}

/// One RRset the files declare: the question and the declared values.
struct Rrset {
    name: String,
    rtype: RecordType,
    expected: Vec<Expected>,
    location: Location,
}

/// A nameserver address to ask for one zone.
struct Target {
    zone: usize,
    server: usize,
    addr: SocketAddr,
}

/// Checks every zone of `desired`; never fails: what could not be asked is in the report.
pub async fn check_zones(desired: &Desired, settings: &CheckSettings) -> CheckReport {
    let mut queries = 0;
    let mut zones = Vec::new();
    // Zones usually share their nameservers: each host is looked up once.
    let mut addresses = HashMap::new();
    for spec in &desired.zones {
        let (zone, spent) = zone_servers(spec, settings, &mut addresses).await;
        queries += spent;
        zones.push(zone);
    }
    let (serving, spent) = ask_soas(desired, &mut zones, settings).await;
    queries += spent;
    let rrsets: Vec<Vec<Rrset>> = desired.zones.iter().map(declared_rrsets).collect();
    queries += ask_rrsets(desired, &rrsets, &serving, &mut zones, settings).await;
    for (zone, sets) in zones.iter_mut().zip(&rrsets) {
        zone.rrsets = sets.len();
        for server in &mut zone.nameservers {
            server.differences.sort_by_key(|d| d.difference.is_minor());
        }
    }
    let mut report = CheckReport { zones, queries };
    report.settle();
    report
}

/// Every zone's SOA on each of its servers, first: a server that does not serve the zone is
/// reported once, not once per RRset. Returns the servers that do, and the queries sent.
async fn ask_soas(
    desired: &Desired,
    zones: &mut [ZoneReport],
    settings: &CheckSettings,
) -> (Vec<Target>, u64) {
    let targets = targets(zones);
    let jobs = targets
        .iter()
        .map(|t| (t.addr, Question::soa(desired.zones[t.zone].zone.clone())))
        .collect();
    let answers = ask_all(jobs, &settings.query, settings.concurrency).await;
    let mut serving = Vec::new();
    for (target, answer) in targets.into_iter().zip(&answers) {
        match authority(&answer.outcome) {
            Some(difference) => zones[target.zone].nameservers[target.server]
                .differences
                .push(RrsetDifference::new("@", "SOA", None, difference)),
            None => serving.push(target),
        }
    }
    (serving, queries_sent(&answers))
}

/// Each declared RRset on each serving server, compared with the files; returns the queries
/// sent.
async fn ask_rrsets(
    desired: &Desired,
    rrsets: &[Vec<Rrset>],
    serving: &[Target],
    zones: &mut [ZoneReport],
    settings: &CheckSettings,
) -> u64 {
    let mut jobs = Vec::new();
    let mut asked = Vec::new();
    for target in serving {
        for (index, rrset) in rrsets[target.zone].iter().enumerate() {
            let zone = desired.zones[target.zone].zone.clone();
            let question = Question::new(zone, &rrset.name, QueryType::Record(rrset.rtype));
            jobs.push((target.addr, question));
            asked.push((target.zone, target.server, index));
        }
    }
    let answers = ask_all(jobs, &settings.query, settings.concurrency).await;
    for ((zone, server, index), answer) in asked.into_iter().zip(&answers) {
        let rrset = &rrsets[zone][index];
        let ignore = &desired.zones[zone].ignore;
        let outcome = &answer.outcome;
        for difference in compare_rrset(&rrset.expected, rrset.rtype, &rrset.name, ignore, outcome)
        {
            zones[zone].nameservers[server]
                .differences
                .push(RrsetDifference::new(
                    &rrset.name,
                    rrset.rtype.as_str(),
                    Some(rrset.location.clone()),
                    difference,
                ));
        }
    }
    queries_sent(&answers)
}

/// The zone's nameservers and their addresses; the NS discovery's queries are counted.
async fn zone_servers(
    spec: &ZoneSpec,
    settings: &CheckSettings,
    addresses: &mut HashMap<String, Result<Vec<SocketAddr>, ResolveError>>,
) -> (ZoneReport, u64) {
    let mut report = ZoneReport::new(spec.zone.as_str());
    let (hosts, spent) = match spec.nameservers.as_ref().map(|n| &n.mode) {
        Some(NameserverMode::Custom(hosts)) => {
            report.nameservers_from = NameserverSource::Files;
            (Ok(hosts.clone()), 0)
        }
        _ => discover(spec, settings, &mut report).await,
    };
    match hosts {
        Err(error) => report.error = Some(error),
        Ok(hosts) => {
            for host in hosts {
                let resolved = match addresses.get(&host) {
                    Some(known) => known.clone(),
                    None => {
                        let found = settings.book.resolve(&host).await;
                        addresses.insert(host.clone(), found.clone());
                        found
                    }
                };
                match resolved {
                    Ok(addrs) => report
                        .nameservers
                        .extend(addrs.into_iter().map(|a| ServerReport::new(&host, Some(a)))),
                    Err(e) => {
                        let mut server = ServerReport::new(&host, None);
                        server.error = Some(e);
                        report.nameservers.push(server);
                    }
                }
            }
        }
    }
    (report, spent)
}

async fn discover(
    spec: &ZoneSpec,
    settings: &CheckSettings,
    report: &mut ZoneReport,
) -> (Result<Vec<String>, DiscoverError>, u64) {
    let resolvers = match settings.resolver {
        Some(resolver) => vec![resolver],
        None if !settings.book.system_resolver_allowed() => {
            let off = DiscoverError::SystemResolverOff {
                zone: spec.zone.as_str().to_string(),
            };
            return (Err(off), 0);
        }
        None => match system_resolvers(&settings.resolv_conf, &spec.zone) {
            Ok(found) => found,
            Err(e) => return (Err(e), 0),
        },
    };
    let (hosts, answers) = zone_nameservers(&spec.zone, &resolvers, &settings.query).await;
    if let Some(address) = answered_by(&answers) {
        report.nameservers_from = NameserverSource::Resolver { address };
    }
    (hosts, queries_sent(&answers))
}

fn answered_by(answers: &[Answer]) -> Option<SocketAddr> {
    answers
        .iter()
        .find(|a| !a.outcome.values_of("NS").is_empty())
        .map(|a| a.server)
}

fn targets(zones: &[ZoneReport]) -> Vec<Target> {
    let mut out = Vec::new();
    for (zone, report) in zones.iter().enumerate() {
        for (server, s) in report.nameservers.iter().enumerate() {
            if let Some(addr) = s.address {
                out.push(Target { zone, server, addr });
            }
        }
    }
    out
}

/// The files' RRsets, in file order of their first record.
fn declared_rrsets(spec: &ZoneSpec) -> Vec<Rrset> {
    let mut index: BTreeMap<(String, RecordType), usize> = BTreeMap::new();
    let mut out: Vec<Rrset> = Vec::new();
    for record in &spec.records {
        let key = (record.name.clone(), record.rtype);
        let at = *index.entry(key).or_insert_with(|| {
            out.push(Rrset {
                name: record.name.clone(),
                rtype: record.rtype,
                expected: Vec::new(),
                location: record.location.clone(),
            });
            out.len() - 1
        });
        out[at].expected.push(Expected {
            value: record.canonical.clone(),
            ttl: record.ttl,
        });
    }
    out
}
