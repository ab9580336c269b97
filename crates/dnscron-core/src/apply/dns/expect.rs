//! What each changed RRset must look like after the writes: the values it must hold (with
//! their TTL) and those it must no longer hold; and whether a server's answer shows that.

use std::collections::BTreeMap;

use crate::dns::RecordType;
use crate::dnscheck::{Expected, Outcome};
use crate::plan::{Action, Change, Resource, TargetKind, Value};

use super::{Finding, RrsetKey};

/// One changed RRset: the values it must hold now (with their TTL) and those it must no longer
/// hold (deleted, or replaced by an update).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rrset {
    pub name: String,
    pub rtype: RecordType,
    pub present: Vec<Expected>,
    pub absent: Vec<String>,
}

/// The RRsets the written record changes touched, per zone, in zone order. `written` are the
/// record changes the server took (done, replayed, already absent), in the order they ran.
pub(crate) fn changed_rrsets(written: &[Change]) -> BTreeMap<String, Vec<Rrset>> {
    let mut zones: BTreeMap<String, Vec<Rrset>> = BTreeMap::new();
    for change in written {
        let (TargetKind::Zone, Resource::Record { name, rtype, .. }) =
            (change.target.kind, &change.resource)
        else {
            continue;
        };
        let rrsets = zones.entry(change.target.name.clone()).or_default();
        let index = match rrsets
            .iter()
            .position(|r| r.name == *name && r.rtype == *rtype)
        {
            Some(index) => index,
            None => {
                rrsets.push(Rrset {
                    name: name.clone(),
                    rtype: *rtype,
                    present: Vec::new(),
                    absent: Vec::new(),
                });
                rrsets.len() - 1
            }
        };
        apply_change(&mut rrsets[index], change);
    }
    zones
}

fn apply_change(rrset: &mut Rrset, change: &Change) {
    let content = |value: &Option<Value>| match value {
        Some(Value::Record { ttl, content }) => Some((*ttl, content.clone())),
        _ => None,
    };
    let before = content(&change.before);
    let after = content(&change.after);
    if let Some((_, old)) = &before
        && (change.action == Action::Delete || after.as_ref().is_some_and(|(_, new)| new != old))
    {
        rrset.present.retain(|e| e.value != *old);
        if !rrset.absent.contains(old) {
            rrset.absent.push(old.clone());
        }
    }
    if change.action != Action::Delete
        && let Some((ttl, new)) = after
    {
        rrset.absent.retain(|a| *a != new);
        rrset.present.retain(|e| e.value != new);
        rrset.present.push(Expected { value: new, ttl });
    }
}

impl Rrset {
    fn key(&self) -> RrsetKey {
        RrsetKey {
            name: self.name.clone(),
            rtype: self.rtype,
        }
    }
}

/// Why `outcome` is not yet the new data of `rrset`; `None` when it is.
pub(crate) fn judge(rrset: &Rrset, outcome: &Outcome) -> Option<Finding> {
    if matches!(outcome, Outcome::Rcode(_)) || outcome.unreachable() {
        return Some(Finding::Failed {
            rrset: rrset.key(),
            outcome: outcome.clone(),
        });
    }
    if outcome.authoritative() == Some(false) {
        return Some(Finding::NoAuthority { rrset: rrset.key() });
    }
    let served = outcome.values_of(rrset.rtype.as_str());
    let missing = rrset
        .present
        .iter()
        .any(|e| !served.iter().any(|s| s.value == e.value && s.ttl == e.ttl));
    let lingering: Vec<String> = rrset
        .absent
        .iter()
        .filter(|a| served.iter().any(|s| s.value == **a))
        .cloned()
        .collect();
    if !missing && lingering.is_empty() {
        return None;
    }
    Some(Finding::NotLive {
        rrset: rrset.key(),
        served: outcome.clone(),
        wanted: rrset.present.clone(),
        lingering,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dnscheck::Served;

    fn record(action: Action, before: Option<&str>, after: Option<&str>) -> Change {
        crate::plan::model::record_change(action, Some(7), before, after)
    }

    fn expected(value: &str, ttl: u32) -> Expected {
        Expected {
            value: value.into(),
            ttl,
        }
    }

    fn www_a() -> RrsetKey {
        RrsetKey {
            name: "www".into(),
            rtype: RecordType::A,
        }
    }

    fn not_live(served: Outcome, wanted: Vec<Expected>, lingering: &[&str]) -> Option<Finding> {
        Some(Finding::NotLive {
            rrset: www_a(),
            served,
            wanted,
            lingering: lingering.iter().map(|s| (*s).to_string()).collect(),
        })
    }

    fn served(values: &[&str]) -> Outcome {
        Outcome::Records {
            authoritative: true,
            records: values
                .iter()
                .map(|v| Served {
                    rtype: "A".into(),
                    value: (*v).into(),
                    ttl: 300,
                })
                .collect(),
        }
    }

    #[test]
    fn an_update_wants_the_new_value_and_not_the_old_one() {
        let zones = changed_rrsets(&[record(Action::Update, Some("192.0.2.1"), Some("192.0.2.2"))]);
        let rrsets: Vec<&Rrset> = zones.values().flatten().collect();
        assert_eq!(rrsets.len(), 1);
        assert_eq!(rrsets[0].present, vec![expected("192.0.2.2", 300)]);
        assert_eq!(rrsets[0].absent, vec!["192.0.2.1".to_string()]);
        assert_eq!(judge(rrsets[0], &served(&["192.0.2.2", "192.0.2.9"])), None);
        assert_eq!(
            judge(rrsets[0], &served(&["192.0.2.1"])),
            not_live(
                served(&["192.0.2.1"]),
                vec![expected("192.0.2.2", 300)],
                &["192.0.2.1"]
            )
        );
    }

    #[test]
    fn a_delete_is_live_once_the_value_is_gone() {
        let zones = changed_rrsets(&[record(Action::Delete, Some("192.0.2.1"), None)]);
        let rrset = &zones.values().flatten().collect::<Vec<_>>()[0].clone();
        assert_eq!(
            judge(
                rrset,
                &Outcome::NxDomain {
                    authoritative: true
                }
            ),
            None
        );
        assert_eq!(
            judge(
                rrset,
                &Outcome::NoData {
                    authoritative: true
                }
            ),
            None
        );
        assert_eq!(judge(rrset, &served(&["192.0.2.7"])), None);
        assert_eq!(
            judge(rrset, &served(&["192.0.2.1"])),
            not_live(served(&["192.0.2.1"]), Vec::new(), &["192.0.2.1"])
        );
        let refused = Outcome::Rcode("REFUSED".into());
        assert_eq!(
            judge(rrset, &refused),
            Some(Finding::Failed {
                rrset: www_a(),
                outcome: refused.clone()
            })
        );
    }

    #[test]
    fn a_create_needs_its_ttl_too() {
        let zones = changed_rrsets(&[record(Action::Create, None, Some("192.0.2.2"))]);
        let rrset = &zones.values().flatten().collect::<Vec<_>>()[0].clone();
        let stale_ttl = Outcome::Records {
            authoritative: true,
            records: vec![Served {
                rtype: "A".into(),
                value: "192.0.2.2".into(),
                ttl: 3600,
            }],
        };
        assert_eq!(
            judge(rrset, &stale_ttl),
            not_live(stale_ttl.clone(), vec![expected("192.0.2.2", 300)], &[])
        );
        let lame = Outcome::Records {
            authoritative: false,
            records: Vec::new(),
        };
        assert_eq!(
            judge(rrset, &lame),
            Some(Finding::NoAuthority { rrset: www_a() })
        );
    }
}
