//! A plan's changes as adoption units: one per name and type of a zone (an RRset), each change
//! of it a member to write, or left with its reason. Cron jobs and nameservers are left here.

use std::collections::{BTreeMap, HashMap};

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::{self, RecordType, ZoneName, rules};
use crate::plan::{Action, Change, Plan, Resource, Value};

use super::{AdoptOptions, Left, LeftReason};

/// One RRset's changes, every one of them to write.
pub(super) struct Group {
    pub zone: usize,
    pub name: String,
    pub rtype: RecordType,
    pub members: Vec<Member>,
    /// The live values of this RRset's undeclared records left without `undeclared`: the plan
    /// of the adopted files still deletes them, and only them.
    pub left_live: Vec<Value>,
}

pub(super) struct Member {
    pub change: Change,
    pub kind: MemberKind,
}

pub(super) enum MemberKind {
    /// The declaration gets the live value.
    Update { spec: RecordSpec, live: LiveValue },
    /// Deleted live: the declaration goes.
    Remove { spec: RecordSpec },
    /// Declared nowhere: added to the zone's file.
    Add { live: LiveValue },
}

/// A live value the files can hold: its canonical content and TTL.
#[derive(Clone)]
pub(super) struct LiveValue {
    pub canonical: String,
    pub ttl: u32,
}

impl Member {
    /// The member as left, for `reason`.
    pub(super) fn left(&self, reason: LeftReason) -> Left {
        left_of(&self.change, reason)
    }
}

pub(super) fn left_of(change: &Change, reason: LeftReason) -> Left {
    let (live, declared) = match change.action {
        Action::Update | Action::Delete => (change.before.clone(), change.after.clone()),
        Action::Create => (None, change.after.clone()),
    };
    Left {
        target: change.target.clone(),
        resource: change.resource.clone(),
        live,
        declared,
        declared_at: change.declared_at.clone(),
        reason,
    }
}

/// The plan's changes as groups to write, and the changes left at once.
pub(super) fn groups(plan: &Plan, opts: &AdoptOptions) -> (Vec<Group>, Vec<Left>) {
    let mut left = Vec::new();
    let mut by_rrset: BTreeMap<(usize, String, RecordType), Vec<&Change>> = BTreeMap::new();
    for change in &plan.changes {
        match &change.resource {
            Resource::Record { name, rtype, .. } => {
                let zone = plan
                    .desired
                    .zones
                    .iter()
                    .position(|z| z.zone.as_str() == change.target.name);
                match zone {
                    Some(zone) => by_rrset
                        .entry((zone, name.clone(), *rtype))
                        .or_default()
                        .push(change),
                    // A plan's record changes are of the zones it declares: nothing to write.
                    None => left.push(left_of(change, LeftReason::StillDiffers)),
                }
            }
            Resource::CronJob { .. } => left.push(left_of(change, LeftReason::CronJob)),
            Resource::Nameservers => left.push(left_of(change, LeftReason::Nameservers)),
        }
    }
    let mut groups = Vec::new();
    let mut zones_of_set: HashMap<&str, usize> = HashMap::new();
    let mut indexes: HashMap<usize, ZoneIndex> = HashMap::new();
    for ((zone, name, rtype), changes) in by_rrset {
        let spec = &plan.desired.zones[zone];
        let index = indexes.entry(zone).or_insert_with(|| ZoneIndex::of(spec));
        if let Some(set) = index.sets.get(&(name.as_str(), rtype)).copied() {
            let zones = *zones_of_set.entry(set).or_insert_with(|| {
                plan.desired
                    .zones
                    .iter()
                    .filter(|z| z.records.iter().any(|r| r.set.as_deref() == Some(set)))
                    .count()
            });
            for change in changes {
                let reason = LeftReason::RecordSet {
                    set: set.to_string(),
                    zones,
                };
                left.push(left_of(change, reason));
            }
            continue;
        }
        if let Some(group) = group(spec, index, (zone, name, rtype), &changes, opts, &mut left) {
            groups.push(group);
        }
    }
    (groups, left)
}

/// A zone's declarations looked up by what a change names: its own records by place, and the
/// names and types its record sets bring. Built once per drifted zone, so that adopting is
/// linear in the zone's records, not their product with the changes.
struct ZoneIndex<'z> {
    own: HashMap<String, &'z RecordSpec>,
    sets: HashMap<(&'z str, RecordType), &'z str>,
}

impl<'z> ZoneIndex<'z> {
    fn of(spec: &'z ZoneSpec) -> ZoneIndex<'z> {
        let mut own = HashMap::new();
        let mut sets = HashMap::new();
        for r in &spec.records {
            match r.set.as_deref() {
                Some(set) => {
                    sets.entry((r.name.as_str(), r.rtype)).or_insert(set);
                }
                None => {
                    own.insert(r.location.to_string(), r);
                }
            }
        }
        ZoneIndex { own, sets }
    }
}

fn group(
    spec: &ZoneSpec,
    index: &ZoneIndex<'_>,
    (zone, name, rtype): (usize, String, RecordType),
    changes: &[&Change],
    opts: &AdoptOptions,
    left: &mut Vec<Left>,
) -> Option<Group> {
    let mut members = Vec::new();
    let mut left_live = Vec::new();
    let mut refused: Option<String> = None;
    let mut refused_members = Vec::new();
    for change in changes {
        let change = (*change).clone();
        let declared = || {
            let at = change.declared_at.as_deref()?;
            index.own.get(at).map(|r| (*r).clone())
        };
        let kind = match change.action {
            Action::Update | Action::Create => {
                let Some(declared) = declared() else {
                    left.push(left_of(&change, LeftReason::StillDiffers));
                    continue;
                };
                match change.action {
                    Action::Create => MemberKind::Remove { spec: declared },
                    Action::Update | Action::Delete => match live_value(&change, &spec.zone) {
                        Ok(live) => MemberKind::Update {
                            spec: declared,
                            live,
                        },
                        Err(problem) => {
                            refused.get_or_insert(problem.clone());
                            refused_members
                                .push(left_of(&change, LeftReason::LiveValueRefused { problem }));
                            continue;
                        }
                    },
                }
            }
            Action::Delete if !opts.undeclared => {
                left_live.extend(change.before.clone());
                left.push(left_of(&change, LeftReason::Undeclared));
                continue;
            }
            Action::Delete => match live_value(&change, &spec.zone) {
                Ok(live) => MemberKind::Add { live },
                Err(problem) => {
                    refused.get_or_insert(problem.clone());
                    refused_members
                        .push(left_of(&change, LeftReason::LiveValueRefused { problem }));
                    continue;
                }
            },
        };
        members.push(Member { change, kind });
    }
    left.extend(refused_members);
    if let Some(problem) = refused {
        let reason = LeftReason::WithItsRrset { problem };
        left.extend(members.iter().map(|m| m.left(reason.clone())));
        return None;
    }
    (!members.is_empty()).then_some(Group {
        zone,
        name,
        rtype,
        members,
        left_live,
    })
}

/// The change's live side, if the files can hold it: content the loader reads in this zone,
/// a TTL in the loader's range. The server is untrusted: what it holds is checked as a file's
/// value is.
fn live_value(change: &Change, zone: &ZoneName) -> Result<LiveValue, String> {
    let (Resource::Record { rtype, .. }, Some(Value::Record { ttl, content })) =
        (&change.resource, &change.before)
    else {
        return Err("the live record has no value".into());
    };
    let canonical = dns::canonical_content(*rtype, content, zone)
        .map_err(|e| format!("invalid {rtype} content: {e}"))?;
    if !(rules::TTL_MIN..=rules::TTL_MAX).contains(ttl) {
        return Err(format!(
            "TTL {ttl} is outside {}–{}",
            rules::TTL_MIN,
            rules::TTL_MAX
        ));
    }
    Ok(LiveValue {
        canonical,
        ttl: *ttl,
    })
}
