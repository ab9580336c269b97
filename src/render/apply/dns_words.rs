//! The DNS checks' findings in words: what a nameserver serves instead of the written or
//! declared data, or why it could not be asked. Server text is escaped here.

use dnscron_api::untrusted::Untrusted as U;
use dnscron_core::apply::dns::{Finding, Problem, RrsetKey, SkipReason};
use dnscron_core::dns::RecordType;
use dnscron_core::dnscheck::{Difference, Expected, Outcome};

/// Why a nameserver is not live or not ready, in words: an unresolved host names the flag that
/// gives it an address.
pub(crate) fn problem_text(problem: &Problem) -> String {
    match problem {
        Problem::Unresolved(err) => crate::cli::error::unresolved(err),
        Problem::Answered {
            at: Some(addr),
            finding,
        } => {
            format!("at {addr}: {}", finding_text(finding))
        }
        Problem::Answered { at: None, finding } => finding_text(finding),
        Problem::More { count } => format!("… and {count} more"),
    }
}

/// `no record was written`: after `DNS check: skipped, `.
pub(crate) fn skip_reason(reason: SkipReason) -> &'static str {
    match reason {
        SkipReason::NoRecordWritten => "no record was written",
    }
}

fn finding_text(finding: &Finding) -> String {
    match finding {
        Finding::Failed { rrset, outcome } => about(rrset, &failure(outcome)),
        Finding::NoAuthority { rrset } => about(
            rrset,
            "answers without authority (not serving the zone itself)",
        ),
        Finding::NotLive {
            rrset,
            served: outcome,
            wanted,
            lingering,
        } => {
            let mut wanted = values(wanted);
            if !lingering.is_empty() {
                wanted = format!("{wanted}, no longer {}", lingering.join(", "));
            }
            let detail = format!("serves {}; wanted {wanted}", served(outcome, rrset.rtype));
            about(rrset, &detail)
        }
        Finding::Differs {
            rrset,
            served: outcome,
            declared,
        } => format!(
            "{} {}: serves {}; the files declare {}",
            rrset.name,
            rrset.rtype,
            served(outcome, rrset.rtype),
            values(declared)
        ),
        Finding::NotServing { zone, difference } => authority(zone, difference),
    }
}

/// `www A: <detail>`.
fn about(rrset: &RrsetKey, detail: &str) -> String {
    format!("{} {}: {detail}", rrset.name, rrset.rtype)
}

/// `192.0.2.1 (ttl 300), 192.0.2.2 (ttl 300)`, `nothing (NXDOMAIN)`, `REFUSED`: the answer to
/// a question of `rtype`; records of other types (an alias) carry their type.
fn served(outcome: &Outcome, rtype: RecordType) -> String {
    match outcome {
        Outcome::Records { records, .. } => records
            .iter()
            .map(|r| {
                let value = format!("{} (ttl {})", U(&r.value), r.ttl);
                if r.rtype.eq_ignore_ascii_case(rtype.as_str()) {
                    value
                } else {
                    format!("{} {value}", U(&r.rtype))
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        Outcome::NoData { .. } => "nothing (NODATA)".into(),
        Outcome::NxDomain { .. } => "nothing (NXDOMAIN)".into(),
        other @ (Outcome::Rcode(_)
        | Outcome::Timeout
        | Outcome::Network(_)
        | Outcome::Malformed(_)) => other.to_string(),
    }
}

/// `192.0.2.2 (ttl 300)`, or `nothing` for an RRset the files don't declare.
fn values(expected: &[Expected]) -> String {
    if expected.is_empty() {
        return "nothing".into();
    }
    expected
        .iter()
        .map(|e| format!("{} (ttl {})", e.value, e.ttl))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a server that could not answer a question didn't.
fn failure(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Rcode(code) => format!("answers {}", U(code)),
        other @ (Outcome::Records { .. }
        | Outcome::NoData { .. }
        | Outcome::NxDomain { .. }
        | Outcome::Timeout
        | Outcome::Network(_)
        | Outcome::Malformed(_)) => format!("could not be asked: {other}"),
    }
}

/// A server's answer to the zone's SOA that shows it does not serve the zone.
fn authority(zone: &str, difference: &Difference) -> String {
    match difference {
        Difference::NotAuthoritative => {
            format!("not authoritative for {zone} (no SOA answer with the AA bit)")
        }
        Difference::Refused { rcode } => format!("answers {} for {zone}", U(rcode)),
        // Escaped text stays as it is: escaping `Outcome`'s words (escaped already) is safe.
        Difference::Unreachable { outcome } => {
            format!("could not be asked: {}", U(&outcome.to_string()))
        }
        other @ (Difference::Missing { .. }
        | Difference::Values { .. }
        | Difference::Ttl { .. }) => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dnscron_core::dnscheck::Served;

    fn www_a() -> RrsetKey {
        RrsetKey {
            name: "www".into(),
            rtype: RecordType::A,
        }
    }

    fn served_a(value: &str, ttl: u32) -> Outcome {
        Outcome::Records {
            authoritative: true,
            records: vec![Served {
                rtype: "A".into(),
                value: value.into(),
                ttl,
            }],
        }
    }

    fn answered(finding: Finding) -> String {
        problem_text(&Problem::Answered { at: None, finding })
    }

    #[test]
    fn a_write_not_live_yet_names_what_is_served_and_wanted() {
        let update = Finding::NotLive {
            rrset: www_a(),
            served: served_a("192.0.2.1", 300),
            wanted: vec![Expected {
                value: "192.0.2.2".into(),
                ttl: 300,
            }],
            lingering: vec!["192.0.2.1".into()],
        };
        assert_eq!(
            answered(update),
            "www A: serves 192.0.2.1 (ttl 300); wanted 192.0.2.2 (ttl 300), no longer 192.0.2.1"
        );
        let delete = Finding::NotLive {
            rrset: www_a(),
            served: served_a("192.0.2.1", 300),
            wanted: Vec::new(),
            lingering: vec!["192.0.2.1".into()],
        };
        assert_eq!(
            answered(delete),
            "www A: serves 192.0.2.1 (ttl 300); wanted nothing, no longer 192.0.2.1"
        );
    }

    #[test]
    fn a_server_that_does_not_answer_says_why() {
        let refused = Finding::Failed {
            rrset: www_a(),
            outcome: Outcome::Rcode("REFUSED".into()),
        };
        assert_eq!(answered(refused), "www A: answers REFUSED");
        let lame = Finding::NoAuthority { rrset: www_a() };
        assert_eq!(
            answered(lame),
            "www A: answers without authority (not serving the zone itself)"
        );
        let more = problem_text(&Problem::More { count: 3 });
        assert_eq!(more, "… and 3 more");
    }

    #[test]
    fn a_server_with_several_addresses_names_the_one_that_answered() {
        let problem = Problem::Answered {
            at: Some("192.0.2.53:53".parse().expect("an address")),
            finding: Finding::NotServing {
                zone: "example.com".into(),
                difference: Difference::NotAuthoritative,
            },
        };
        assert_eq!(
            problem_text(&problem),
            "at 192.0.2.53:53: not authoritative for example.com (no SOA answer with the AA bit)"
        );
    }
}
