//! Before a domain is switched to custom nameservers: ask each of them for the zone's SOA (is
//! it authoritative?) and, if it is, for every RRset the zone's file declares. A server that
//! can't be asked, is not authoritative or serves other data would take the domain dark (or
//! wrong) the moment resolvers follow the delegation, so apply refuses that switch. Served
//! values the zone's `ignore` rules cover don't count, as in `check`.

use std::net::SocketAddr;

use serde::Serialize;

use crate::config::model::ZoneSpec;
use crate::dns::RecordType;
use crate::dnscheck::{self, Answer, Expected, QueryType, Question};

use super::{DnsOptions, Finding, Problem, RrsetKey};

/// Lines kept per server; a zone served from the wrong data would otherwise list every RRset.
const MAX_PROBLEMS: usize = 10;

/// What the new nameservers of one switch answered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Readiness {
    pub zone: String,
    pub servers: Vec<ServerReadiness>,
    /// DNS messages sent.
    pub queries: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServerReadiness {
    pub host: String,
    pub addresses: Vec<SocketAddr>,
    /// Why it is not ready; empty: it serves the zone as the files declare it. Data for
    /// whoever words the report.
    #[serde(skip)]
    pub problems: Vec<Problem>,
}

impl Readiness {
    pub fn is_ready(&self) -> bool {
        self.servers.iter().all(|s| s.problems.is_empty())
    }
}

/// The RRsets `zone` declares, each with its values, apex NS left out (the nameservers
/// serve their own).
fn declared(zone: &ZoneSpec) -> Vec<(String, RecordType, Vec<Expected>)> {
    let mut rrsets: Vec<(String, RecordType, Vec<Expected>)> = Vec::new();
    for record in &zone.records {
        if record.name == "@" && record.rtype == RecordType::NS {
            continue;
        }
        let value = Expected {
            value: record.canonical.clone(),
            ttl: record.ttl,
        };
        match rrsets
            .iter_mut()
            .find(|(n, t, _)| *n == record.name && *t == record.rtype)
        {
            Some((_, _, values)) => values.push(value),
            None => rrsets.push((record.name.clone(), record.rtype, vec![value])),
        }
    }
    rrsets
}

/// Asks `hosts` (the switch's new nameservers) about `zone`: the SOA from every address,
/// then the declared RRsets from the addresses that are authoritative. Each host is asked for
/// itself, even when two share an address: an answer belongs to the (host, address) asked.
pub(crate) async fn check(zone: &ZoneSpec, hosts: &[String], opts: &DnsOptions) -> Readiness {
    let name = zone.zone.as_str().to_string();
    let mut servers = Vec::new();
    for host in hosts {
        let mut server = ServerReadiness {
            host: host.clone(),
            addresses: Vec::new(),
            problems: Vec::new(),
        };
        match opts.book.resolve(host).await {
            Ok(addresses) => server.addresses = addresses,
            Err(e) => server.problems.push(e.into()),
        }
        servers.push(server);
    }
    let soa = Question::soa(zone.zone.clone());
    let targets: Vec<Target> = servers
        .iter()
        .enumerate()
        .flat_map(|(server, s)| {
            s.addresses.iter().map(move |addr| Target {
                server,
                addr: *addr,
            })
        })
        .collect();
    let jobs = targets.iter().map(|t| (t.addr, soa.clone())).collect();
    let soa_answers = ask(jobs, opts).await;
    let mut queries = dnscheck::queries_sent(&soa_answers);
    let mut authoritative = Vec::new();
    for (target, answer) in targets.into_iter().zip(&soa_answers) {
        match dnscheck::authority(&answer.outcome) {
            Some(difference) => note(
                &mut servers,
                &target,
                Finding::NotServing {
                    zone: name.clone(),
                    difference,
                },
            ),
            None => authoritative.push(target),
        }
    }
    let rrsets = declared(zone);
    let mut asked = Vec::new();
    let mut jobs = Vec::new();
    for target in &authoritative {
        for (index, (n, t, _)) in rrsets.iter().enumerate() {
            let question = Question::new(zone.zone.clone(), n.clone(), QueryType::Record(*t));
            jobs.push((target.addr, question));
            asked.push((target, index));
        }
    }
    let answers = ask(jobs, opts).await;
    queries += dnscheck::queries_sent(&answers);
    for ((target, index), answer) in asked.into_iter().zip(&answers) {
        let (rrset_name, rtype, expected) = &rrsets[index];
        let differs =
            dnscheck::compare_rrset(expected, *rtype, rrset_name, &zone.ignore, &answer.outcome)
                .iter()
                .any(|d| !d.is_minor());
        if differs {
            let finding = Finding::Differs {
                rrset: RrsetKey {
                    name: rrset_name.clone(),
                    rtype: *rtype,
                },
                served: answer.outcome.clone(),
                declared: expected.clone(),
            };
            note(&mut servers, target, finding);
        }
    }
    for server in &mut servers {
        if server.problems.len() > MAX_PROBLEMS {
            let more = server.problems.len() - MAX_PROBLEMS;
            server.problems.truncate(MAX_PROBLEMS);
            server.problems.push(Problem::More { count: more });
        }
    }
    Readiness {
        zone: name,
        servers,
        queries,
    }
}

/// One address of one new nameserver: `server` indexes the check's [`ServerReadiness`] list.
struct Target {
    server: usize,
    addr: SocketAddr,
}

async fn ask(jobs: Vec<(SocketAddr, Question)>, opts: &DnsOptions) -> Vec<Answer> {
    dnscheck::ask_all(jobs, &opts.query, dnscheck::DEFAULT_CONCURRENCY).await
}

/// Adds `finding` to the server asked (with the address when it has several).
fn note(servers: &mut [ServerReadiness], target: &Target, finding: Finding) {
    if let Some(server) = servers.get_mut(target.server) {
        let at = (server.addresses.len() > 1).then_some(target.addr);
        server.problems.push(Problem::Answered { at, finding });
    }
}

/// The new nameservers of `change` when it switches its domain to custom nameservers.
pub(crate) fn switch_hosts(change: &crate::plan::Change) -> Option<&[String]> {
    use crate::plan::{Resource, TargetKind, Value};
    match (&change.target.kind, &change.resource, &change.after) {
        (
            TargetKind::Domain,
            Resource::Nameservers,
            Some(Value::Nameservers { mode, nameservers }),
        ) if mode == "custom" => Some(nameservers),
        _ => None,
    }
}

/// The `type` of a refusal's [`ErrorInfo`](crate::apply::ErrorInfo).
pub(crate) const NOT_READY: &str = "nameservers_not_ready";

/// The refusal as data: what happened; the change's report keeps the [`Readiness`], what each
/// server answered, for whoever words the report (its `details` in the JSON too).
pub fn refusal(readiness: &Readiness) -> crate::apply::ErrorInfo {
    let mut error = crate::apply::ErrorInfo::internal(format!(
        "the new nameservers don't serve {} as the files declare it, so the switch was not sent (resolvers following it would get no answer or other data)",
        readiness.zone
    ));
    error.kind = Some(NOT_READY.into());
    error
}
