//! What one server serves for an RRset against what the files declare.
//!
//! Values are compared as sets of canonical contents (`dns::RecordData`'s form, the one the
//! API diff compares), so case, final dots, TXT chunking and order never count. TTLs are
//! compared per value present on both sides and reported as their own, lesser difference
//! ([`Difference::is_minor`]): the data resolvers get is right, only how long they keep it
//! differs.

use serde::Serialize;

use super::answer::{Outcome, Served};
use crate::config::model::IgnoreRule;
use crate::dns::RecordType;

/// One value the files declare for an RRset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// `dns::canonical_content` of the declared content (`RecordSpec::canonical`).
    pub value: String,
    pub ttl: u32,
}

/// How a server's answer differs from the files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Difference {
    /// The server serves nothing of that type at that name (NXDOMAIN or NODATA, in `answer`).
    Missing {
        expected: Vec<String>,
        answer: String,
    },
    /// The served values are not the declared ones: `missing` are declared but not served,
    /// `extra` served but not declared (other types at the name, e.g. a CNAME, are listed as
    /// `TYPE value`). Server text: escape before printing.
    Values {
        missing: Vec<String>,
        extra: Vec<String>,
    },
    /// A value served with another TTL than declared.
    Ttl {
        value: String,
        expected: u32,
        served: u32,
    },
    /// The server answered without the AA bit: it does not serve the zone itself.
    NotAuthoritative,
    /// An answer code that is no answer (REFUSED, SERVFAIL, …).
    Refused { rcode: String },
    /// The server could not be asked (timeout, network error, unusable answer): `outcome`
    /// says which, for whoever words the report (its JSON `reason` too).
    Unreachable {
        #[serde(skip)]
        outcome: Outcome,
    },
}

impl Difference {
    /// A TTL difference: reported after the others, still a difference (exit 2).
    pub fn is_minor(&self) -> bool {
        matches!(self, Difference::Ttl { .. })
    }

    /// The check did not run against this server (exit 1 in `check`).
    pub fn is_failure(&self) -> bool {
        matches!(self, Difference::Unreachable { .. })
    }
}

/// The differences between `expected` (the files' values of one `rtype` RRset; empty when the
/// files declare none) and what a server answered; empty when it is in sync.
pub(crate) fn compare(
    expected: &[Expected],
    rtype: RecordType,
    outcome: &Outcome,
) -> Vec<Difference> {
    if let Some(difference) = failure(outcome) {
        return vec![difference];
    }
    let mut differences = Vec::new();
    if outcome.authoritative() == Some(false) {
        differences.push(Difference::NotAuthoritative);
    }
    let served = outcome.values_of(rtype.as_str());
    let others: Vec<String> = outcome
        .records()
        .iter()
        .filter(|r| !r.rtype.eq_ignore_ascii_case(rtype.as_str()))
        .map(|r| format!("{} {}", r.rtype, r.value))
        .collect();
    if served.is_empty() && others.is_empty() {
        if !expected.is_empty() {
            differences.push(Difference::Missing {
                expected: sorted(expected.iter().map(|e| e.value.clone())),
                answer: outcome_word(outcome),
            });
        }
        return differences;
    }
    let missing = sorted(
        expected
            .iter()
            .filter(|e| !served.iter().any(|s| s.value == e.value))
            .map(|e| e.value.clone()),
    );
    let mut extra = sorted(
        served
            .iter()
            .filter(|s| !expected.iter().any(|e| e.value == s.value))
            .map(|s| s.value.clone()),
    );
    extra.extend(others);
    if !missing.is_empty() || !extra.is_empty() {
        differences.push(Difference::Values { missing, extra });
    }
    differences.extend(ttl_differences(expected, &served));
    differences
}

/// [`compare`] for the RRset `name` of a zone, after leaving out the served values the zone's
/// `ignore` rules cover: what a plan ignores is no extra value here either. `check` and apply's
/// check before a nameserver switch both compare through it, so they never disagree.
pub(crate) fn compare_rrset(
    expected: &[Expected],
    rtype: RecordType,
    name: &str,
    ignore: &[IgnoreRule],
    outcome: &Outcome,
) -> Vec<Difference> {
    compare(expected, rtype, &without_ignored(outcome, name, ignore))
}

/// The answer without the records the `ignore` rules cover.
fn without_ignored(outcome: &Outcome, name: &str, ignore: &[IgnoreRule]) -> Outcome {
    let Outcome::Records {
        authoritative,
        records,
    } = outcome
    else {
        return outcome.clone();
    };
    let kept: Vec<_> = records
        .iter()
        .filter(|r| {
            let Ok(rtype) = r.rtype.parse::<RecordType>() else {
                return true;
            };
            !ignore
                .iter()
                .any(|rule| rule.matches(name, rtype, &r.value))
        })
        .cloned()
        .collect();
    if kept.is_empty() {
        Outcome::NoData {
            authoritative: *authoritative,
        }
    } else {
        Outcome::Records {
            authoritative: *authoritative,
            records: kept,
        }
    }
}

/// Whether a server is authoritative for the zone, from its answer to the zone's SOA.
pub(crate) fn authority(outcome: &Outcome) -> Option<Difference> {
    if let Some(difference) = failure(outcome) {
        return Some(difference);
    }
    match outcome {
        Outcome::Records { authoritative, .. } if !outcome.values_of("SOA").is_empty() => {
            (!authoritative).then_some(Difference::NotAuthoritative)
        }
        // No SOA in the answer: whatever it was, this server does not hold the zone.
        Outcome::Records { .. }
        | Outcome::NoData { .. }
        | Outcome::NxDomain { .. }
        | Outcome::Rcode(_)
        | Outcome::Timeout
        | Outcome::Network(_)
        | Outcome::Malformed(_) => Some(Difference::NotAuthoritative),
    }
}

fn failure(outcome: &Outcome) -> Option<Difference> {
    match outcome {
        Outcome::Rcode(rcode) => Some(Difference::Refused {
            rcode: rcode.clone(),
        }),
        Outcome::Timeout | Outcome::Network(_) | Outcome::Malformed(_) => {
            Some(Difference::Unreachable {
                outcome: outcome.clone(),
            })
        }
        Outcome::Records { .. } | Outcome::NoData { .. } | Outcome::NxDomain { .. } => None,
    }
}

fn ttl_differences(expected: &[Expected], served: &[&Served]) -> Vec<Difference> {
    let mut out: Vec<Difference> = expected
        .iter()
        .filter_map(|e| {
            let s = served.iter().find(|s| s.value == e.value)?;
            (s.ttl != e.ttl).then(|| Difference::Ttl {
                value: e.value.clone(),
                expected: e.ttl,
                served: s.ttl,
            })
        })
        .collect();
    out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    out.dedup();
    out
}

fn outcome_word(outcome: &Outcome) -> String {
    match outcome {
        Outcome::NxDomain { .. } => "NXDOMAIN".into(),
        Outcome::Records { .. }
        | Outcome::NoData { .. }
        | Outcome::Rcode(_)
        | Outcome::Timeout
        | Outcome::Network(_)
        | Outcome::Malformed(_) => "NODATA".into(),
    }
}

fn sorted(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut values: Vec<String> = values.collect();
    values.sort();
    values.dedup();
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(values: &[(&str, u32)]) -> Vec<Expected> {
        values
            .iter()
            .map(|(v, ttl)| Expected {
                value: (*v).into(),
                ttl: *ttl,
            })
            .collect()
    }

    fn records(authoritative: bool, values: &[(&str, &str, u32)]) -> Outcome {
        Outcome::Records {
            authoritative,
            records: values
                .iter()
                .map(|(t, v, ttl)| Served {
                    rtype: (*t).into(),
                    value: (*v).into(),
                    ttl: *ttl,
                })
                .collect(),
        }
    }

    #[test]
    fn the_same_set_in_another_order_is_in_line() {
        let files = expected(&[("192.0.2.1", 300), ("192.0.2.2", 300)]);
        let served = records(true, &[("A", "192.0.2.2", 300), ("A", "192.0.2.1", 300)]);
        assert_eq!(compare(&files, RecordType::A, &served), vec![]);
    }

    #[test]
    fn different_values_name_the_missing_and_the_extra() {
        let files = expected(&[("192.0.2.1", 300), ("192.0.2.2", 300)]);
        let served = records(true, &[("A", "192.0.2.9", 300), ("A", "192.0.2.1", 60)]);
        assert_eq!(
            compare(&files, RecordType::A, &served),
            vec![
                Difference::Values {
                    missing: vec!["192.0.2.2".into()],
                    extra: vec!["192.0.2.9".into()],
                },
                Difference::Ttl {
                    value: "192.0.2.1".into(),
                    expected: 300,
                    served: 60,
                },
            ]
        );
    }

    #[test]
    fn nothing_served_is_missing_with_the_answer_and_an_alias_is_extra() {
        let files = expected(&[("192.0.2.1", 300)]);
        let nx = Outcome::NxDomain {
            authoritative: true,
        };
        assert_eq!(
            compare(&files, RecordType::A, &nx),
            vec![Difference::Missing {
                expected: vec!["192.0.2.1".into()],
                answer: "NXDOMAIN".into(),
            }]
        );
        assert_eq!(compare(&[], RecordType::A, &nx), vec![]);
        let alias = records(true, &[("CNAME", "elsewhere.example.net.", 300)]);
        assert_eq!(
            compare(&files, RecordType::A, &alias),
            vec![Difference::Values {
                missing: vec!["192.0.2.1".into()],
                extra: vec!["CNAME elsewhere.example.net.".into()],
            }]
        );
    }

    #[test]
    fn not_authoritative_refused_and_unreachable() {
        let files = expected(&[("192.0.2.1", 300)]);
        let lame = records(false, &[("A", "192.0.2.1", 300)]);
        assert_eq!(
            compare(&files, RecordType::A, &lame),
            vec![Difference::NotAuthoritative]
        );
        assert_eq!(
            compare(&files, RecordType::A, &Outcome::Rcode("REFUSED".into())),
            vec![Difference::Refused {
                rcode: "REFUSED".into()
            }]
        );
        let timeout = compare(&files, RecordType::A, &Outcome::Timeout);
        assert_eq!(
            timeout,
            vec![Difference::Unreachable {
                outcome: Outcome::Timeout
            }]
        );
        assert!(timeout[0].is_failure());
    }

    #[test]
    fn authority_comes_from_the_soa_answer() {
        let soa = "ns1.example.net. hostmaster.example.com. 1 3600 600 604800 60";
        assert_eq!(authority(&records(true, &[("SOA", soa, 3600)])), None);
        assert_eq!(
            authority(&records(false, &[("SOA", soa, 3600)])),
            Some(Difference::NotAuthoritative)
        );
        assert_eq!(
            authority(&Outcome::NoData {
                authoritative: true
            }),
            Some(Difference::NotAuthoritative)
        );
        assert_eq!(
            authority(&Outcome::Rcode("SERVFAIL".into())),
            Some(Difference::Refused {
                rcode: "SERVFAIL".into()
            })
        );
    }

    #[test]
    fn values_the_ignore_rules_cover_are_no_difference() {
        use crate::config::model::{IgnoreRule, Location};
        let rule = IgnoreRule {
            name: "@".into(),
            rtype: Some(RecordType::TXT),
            content: Some("google-site-verification=*".into()),
            location: Location {
                file: std::path::Path::new("z.yaml").into(),
                line: 3,
                col: 5,
            },
        };
        let spf = expected(&[("v=spf1 -all", 3600)]);
        let served = records(
            true,
            &[
                ("TXT", "v=spf1 -all", 3600),
                ("TXT", "google-site-verification=abc", 3600),
            ],
        );
        let rules = [rule];
        assert_eq!(
            compare_rrset(&spf, RecordType::TXT, "@", &rules, &served),
            vec![]
        );
        assert_eq!(
            compare_rrset(&spf, RecordType::TXT, "www", &rules, &served),
            vec![Difference::Values {
                missing: vec![],
                extra: vec!["google-site-verification=abc".into()],
            }],
            "the rule covers the apex only"
        );
        let only_ignored = records(true, &[("TXT", "google-site-verification=abc", 3600)]);
        assert_eq!(
            compare_rrset(&spf, RecordType::TXT, "@", &rules, &only_ignored),
            vec![Difference::Missing {
                expected: vec!["v=spf1 -all".into()],
                answer: "NODATA".into(),
            }]
        );
    }
}
