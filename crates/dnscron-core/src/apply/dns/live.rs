//! After apply wrote records: ask every nameserver of each zone (the service's own, as the
//! record listing names them) for each changed RRset, again and again with growing waits, until
//! each serves the new data or the deadline passes. What it finds is a warning, never a failure.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use crate::config::model::Desired;
use crate::dns::ZoneName;
use crate::dnscheck::{self, QueryOptions, QueryType, Question};
use crate::plan::Change;

use super::expect::{Rrset, changed_rrsets, judge};
use super::{DnsOptions, FIRST_POLL_WAIT, Finding, MAX_POLL_WAIT, Problem};

/// However little of the deadline is left, a question gets this long for its answer.
const MIN_QUERY_TIMEOUT: Duration = Duration::from_millis(200);

/// What the post-apply check found.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DnsCheck {
    /// Not run, and why (the binary words the reason in its JSON too).
    Skipped { reason: SkipReason },
    Ran {
        /// The deadline (`--dns-wait`), seconds.
        deadline_secs: f64,
        /// DNS messages sent in all.
        queries: u64,
        zones: Vec<ZoneCheck>,
    },
}

/// Why the post-apply check did not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The apply wrote no record: there is nothing new to ask for.
    NoRecordWritten,
}

/// One zone whose records were written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZoneCheck {
    pub zone: String,
    /// The changed RRsets asked for.
    pub rrsets: usize,
    /// Nameservers that serve every changed RRset, of `total`.
    pub live: usize,
    pub total: usize,
    pub nameservers: Vec<NameserverCheck>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NameserverCheck {
    pub host: String,
    pub addresses: Vec<SocketAddr>,
    /// Seconds from the first question until it served every change; absent when it did not
    /// by the deadline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_after_secs: Option<f64>,
    /// Rounds of questions it was asked.
    pub polls: u32,
    /// Why it is not live: what it serves instead, per RRset (and address), or why it could
    /// not be asked. Data for whoever words the report, which adds them to its JSON.
    #[serde(skip)]
    pub problems: Vec<Problem>,
}

impl NameserverCheck {
    pub fn is_live(&self) -> bool {
        self.live_after_secs.is_some()
    }
}

impl ZoneCheck {
    pub fn is_live(&self) -> bool {
        self.total > 0 && self.live == self.total
    }

    /// Seconds until the last nameserver was live, when some were not at the first question.
    pub fn waited_secs(&self) -> Option<f64> {
        if self.nameservers.iter().all(|n| n.polls <= 1) {
            return None;
        }
        self.nameservers
            .iter()
            .filter_map(|n| n.live_after_secs)
            .reduce(f64::max)
    }
}

impl DnsCheck {
    /// Every zone live on every nameserver (or nothing to check).
    pub fn all_live(&self) -> bool {
        match self {
            DnsCheck::Skipped { .. } => true,
            DnsCheck::Ran { zones, .. } => zones.iter().all(ZoneCheck::is_live),
        }
    }
}

/// One question to one address of one nameserver, until it is answered with the new data.
struct Job {
    zone: usize,
    host: usize,
    addr: SocketAddr,
    rrset: usize,
    question: Question,
    live_at: Option<Duration>,
    problem: Option<Finding>,
    polls: u32,
}

/// Runs the check for the `written` record changes of `desired`'s zones.
pub(crate) async fn check(desired: &Desired, written: &[Change], opts: &DnsOptions) -> DnsCheck {
    let zones = changed_rrsets(written);
    if zones.is_empty() {
        return DnsCheck::Skipped {
            reason: SkipReason::NoRecordWritten,
        };
    }
    let mut checks = Vec::new();
    let mut rrsets_of = Vec::new();
    let mut jobs = Vec::new();
    for (name, rrsets) in zones {
        let Some(zone) = desired
            .zones
            .iter()
            .find(|z| z.zone.as_str() == name)
            .map(|z| z.zone.clone())
        else {
            continue;
        };
        let hosts = opts
            .service_nameservers
            .get(&name)
            .cloned()
            .unwrap_or_default();
        let mut nameservers = Vec::new();
        for host in hosts {
            let mut ns = NameserverCheck {
                host: host.clone(),
                addresses: Vec::new(),
                live_after_secs: None,
                polls: 0,
                problems: Vec::new(),
            };
            match opts.book.resolve(&host).await {
                Ok(addresses) => ns.addresses = addresses,
                Err(e) => ns.problems.push(e.into()),
            }
            for addr in &ns.addresses {
                for (index, rrset) in rrsets.iter().enumerate() {
                    jobs.push(job(
                        checks.len(),
                        nameservers.len(),
                        *addr,
                        index,
                        &zone,
                        rrset,
                    ));
                }
            }
            nameservers.push(ns);
        }
        checks.push(ZoneCheck {
            zone: name,
            rrsets: rrsets.len(),
            live: 0,
            total: nameservers.len(),
            nameservers,
        });
        rrsets_of.push(rrsets);
    }
    let queries = poll(&mut jobs, &rrsets_of, opts).await;
    DnsCheck::Ran {
        deadline_secs: opts.wait.as_secs_f64(),
        queries,
        zones: settle(checks, &jobs),
    }
}

fn job(
    zone: usize,
    host: usize,
    addr: SocketAddr,
    rrset: usize,
    name: &ZoneName,
    r: &Rrset,
) -> Job {
    Job {
        zone,
        host,
        addr,
        rrset,
        question: Question::new(name.clone(), r.name.clone(), QueryType::Record(r.rtype)),
        live_at: None,
        problem: None,
        polls: 0,
    }
}

/// Asks every job not live yet, waits (100 ms, doubling up to 1 s) and asks again, until all
/// are live or the deadline passes; the last round asks at the deadline. Returns the messages
/// sent.
async fn poll(jobs: &mut [Job], rrsets: &[Vec<Rrset>], opts: &DnsOptions) -> u64 {
    let start = Instant::now();
    let deadline = start + opts.wait;
    let mut wait = FIRST_POLL_WAIT;
    let mut queries = 0;
    loop {
        let pending: Vec<usize> = (0..jobs.len())
            .filter(|i| jobs[*i].live_at.is_none())
            .collect();
        if pending.is_empty() {
            break;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        // A question may take its UDP attempts and a TCP try, each up to the timeout: split
        // what is left so the round ends near the deadline.
        let tries = opts.query.attempts.max(1) + 1;
        let options = QueryOptions {
            timeout: opts
                .query
                .timeout
                .min((left / tries).max(MIN_QUERY_TIMEOUT)),
            ..opts.query.clone()
        };
        let asked = pending
            .iter()
            .map(|i| (jobs[*i].addr, jobs[*i].question.clone()))
            .collect();
        let answers = dnscheck::ask_all(asked, &options, dnscheck::DEFAULT_CONCURRENCY).await;
        queries += dnscheck::queries_sent(&answers);
        let elapsed = start.elapsed();
        for (i, answer) in pending.iter().zip(answers) {
            let job = &mut jobs[*i];
            job.polls += 1;
            match judge(&rrsets[job.zone][job.rrset], &answer.outcome) {
                None => {
                    job.live_at = Some(elapsed);
                    job.problem = None;
                }
                Some(problem) => job.problem = Some(problem),
            }
        }
        let now = Instant::now();
        if jobs.iter().all(|j| j.live_at.is_some()) || now >= deadline {
            break;
        }
        tokio::time::sleep(wait.min(deadline - now)).await;
        wait = (wait * 2).min(MAX_POLL_WAIT);
    }
    queries
}

/// Folds the jobs' results into their nameservers and zones.
fn settle(mut checks: Vec<ZoneCheck>, jobs: &[Job]) -> Vec<ZoneCheck> {
    for (z, check) in checks.iter_mut().enumerate() {
        for (h, ns) in check.nameservers.iter_mut().enumerate() {
            let mine: Vec<&Job> = jobs.iter().filter(|j| j.zone == z && j.host == h).collect();
            ns.polls = mine.iter().map(|j| j.polls).max().unwrap_or(0);
            let several = ns.addresses.len() > 1;
            for j in &mine {
                if let Some(problem) = &j.problem
                    && j.live_at.is_none()
                {
                    ns.problems.push(Problem::Answered {
                        at: several.then_some(j.addr),
                        finding: problem.clone(),
                    });
                }
            }
            let live = !mine.is_empty() && mine.iter().all(|j| j.live_at.is_some());
            ns.live_after_secs = live
                .then(|| mine.iter().filter_map(|j| j.live_at).max())
                .flatten()
                .map(|d| d.as_secs_f64());
        }
        check.live = check.nameservers.iter().filter(|n| n.is_live()).count();
    }
    checks
}
