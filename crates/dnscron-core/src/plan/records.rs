//! Record diff of one zone: normalize both sides, group by (name, type), keep identical content,
//! pair the rest into updates, create what is missing, delete what is extra (prune, ignore).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::str::FromStr;

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::{self, RecordType, ZoneName, rules};
use dnscron_api::RecordRef;

use super::in_effect;
use super::model::{Action, Change, Finding, Resource, Status, TargetKind, TargetRef, Value};
use super::order::Draft;
use super::safety::ZoneStats;
use super::snapshot::LiveZone;
use crate::finding::FindingCode;

mod group;
pub(super) use group::prefix_key;
use group::{Side, for_each_group};

/// A live record after normalization.
#[derive(Clone, Debug)]
pub(super) struct LiveRec<'a> {
    /// `prefix_key` of the name, for sorting.
    key: u64,
    id: i64,
    ttl: u32,
    /// Its relative name and type, kept once in the diff's list of places.
    place: &'a (Cow<'a, str>, RecordType),
    /// Borrowed from the listing when the server already sent the canonical form.
    canonical: Cow<'a, str>,
    ignored: bool,
}

/// A desired record after normalization.
#[derive(Clone, Debug)]
pub(super) struct WantRec<'a> {
    /// `prefix_key` of the name, for sorting.
    key: u64,
    spec: &'a RecordSpec,
    name: Cow<'a, str>,
}

/// Where a live record sits: its relative name (borrowed from the listing when already in that
/// form) and type; `None` for records the plan never touches (see `plannable_live_type`).
type LivePlace<'a> = Option<(Cow<'a, str>, RecordType)>;

pub(super) struct ZoneDiff {
    pub drafts: Vec<Draft>,
    pub findings: Vec<Finding>,
    pub stats: ZoneStats,
}

pub(super) fn diff_zone(spec: &ZoneSpec, live: &LiveZone) -> ZoneDiff {
    let target = TargetRef {
        kind: TargetKind::Zone,
        name: spec.zone.to_string(),
    };
    let mut findings = Vec::new();
    let mut left_alone = LeftAlone::default();
    let places: Vec<LivePlace> = live
        .records
        .iter()
        .map(|raw| live_place(raw, &spec.zone))
        .collect();

    let mut haves: Vec<LiveRec> = Vec::with_capacity(live.records.len());
    for (raw, place) in live.records.iter().zip(&places) {
        let Some(place) = place else {
            left_alone.add(raw.rtype);
            continue;
        };
        let (name, rtype) = (&place.0, place.1);
        // Server data never crashes the plan: content that doesn't canonicalize compares as
        // trimmed text, so it shows as an update to the declared form rather than an error.
        let canonical = dns::canonical_live_borrowed(rtype, raw.content, &spec.zone);
        let ignored = spec
            .ignore
            .iter()
            .any(|rule| rule.matches(name, rtype, &canonical));
        let rec = LiveRec {
            key: prefix_key(name.as_bytes()),
            id: raw.id,
            ttl: raw.ttl,
            place,
            canonical,
            ignored,
        };
        haves.push(rec);
    }
    let live_count = haves.len();
    findings.extend(left_alone.findings(&target));

    let mut wants: Vec<WantRec> = Vec::with_capacity(spec.records.len());
    for rec in &spec.records {
        let name = want_name(&rec.name, &spec.zone);
        if rules::is_service_owned(rec.rtype, &name) {
            findings.push(info(
                FindingCode::ApexNsNotPlanned,
                &target,
                format!(
                    "the apex NS record declared at {} is not planned: apex NS records belong to the service (use `nameservers:` to delegate the domain)",
                    rec.location
                ),
            ));
            continue;
        }
        wants.push(WantRec {
            key: prefix_key(name.as_bytes()),
            spec: rec,
            name,
        });
    }

    let mut drafts: Vec<Draft> = Vec::new();
    let mut ignored_kept = 0;
    let mut unpruned = 0;
    for_each_group(wants, haves, |(name, rtype), want, have| {
        let out = diff_group(&target, &name, rtype, want, have, spec.prune);
        ignored_kept += out.ignored_kept;
        unpruned += out.unpruned;
        drafts.extend(out.drafts);
    });
    block_cname_conflicts(&mut drafts, live, &places, spec.prune);

    if ignored_kept > 0 {
        findings.push(info(
            FindingCode::IgnoredRecordsKept,
            &target,
            format!("{ignored_kept} live record(s) not in the files match `ignore` rules and are left alone"),
        ));
    }
    if unpruned > 0 {
        findings.push(info(
            FindingCode::UnprunedRecordsKept,
            &target,
            format!("{unpruned} live record(s) not in the files are kept because `prune` is off"),
        ));
    }

    let stats = ZoneStats::of(drafts.iter().map(|d| &d.change), live_count);
    ZoneDiff {
        drafts,
        findings,
        stats,
    }
}

/// Live records the plan never touches, by type: the service's own (apex NS, SOA, DNSSEC) and
/// types outside the nine dnscron manages (HTTPS, SSHFP, ALIAS, …), told apart so that neither
/// is mistaken for the other.
#[derive(Default)]
struct LeftAlone {
    service: BTreeSet<String>,
    unmanaged: BTreeSet<String>,
}

impl LeftAlone {
    fn add(&mut self, rtype: &str) {
        let shown = rtype.trim().to_ascii_uppercase();
        if shown == "NS" {
            self.service.insert("apex NS".into());
        } else if dns::record::is_service_type(&shown) {
            self.service.insert(shown);
        } else {
            self.unmanaged.insert(shown);
        }
    }

    fn findings(self, target: &TargetRef) -> Vec<Finding> {
        let list = |set: BTreeSet<String>| set.into_iter().collect::<Vec<_>>().join(", ");
        let mut out = Vec::new();
        if !self.service.is_empty() {
            out.push(info(
                FindingCode::ServiceRecordsLeftAlone,
                target,
                format!(
                    "system and DNSSEC records ({}) are managed by the service and never planned",
                    list(self.service)
                ),
            ));
        }
        if !self.unmanaged.is_empty() {
            out.push(info(
                FindingCode::UnmanagedTypesLeftAlone,
                target,
                format!(
                    "records of types dnscron does not manage ({}) are left alone",
                    list(self.unmanaged)
                ),
            ));
        }
        out
    }
}

/// The relative name and type if the plan may touch this live record: not for apex NS records
/// (the service's own) nor types outside the nine (see `LeftAlone`).
fn live_place<'a>(raw: RecordRef<'a>, zone: &ZoneName) -> LivePlace<'a> {
    let rtype = RecordType::from_str(raw.rtype).ok()?;
    let name = dns::live_name_relative(raw.name, zone);
    (!rules::is_service_owned(rtype, &name)).then_some((name, rtype))
}

/// A declared record's relative name as `dns::record_name_to_relative` gives it (or, should it
/// refuse a name the loader let through, the name in lower case). The loader already stores
/// names in that form, so the name is borrowed whenever normalizing could not change it.
fn want_name<'a>(name: &'a str, zone: &ZoneName) -> Cow<'a, str> {
    let normal = name.trim().len() == name.len()
        && !name.ends_with('.')
        && !name.bytes().any(|b| b.is_ascii_uppercase());
    if normal {
        return Cow::Borrowed(name);
    }
    Cow::Owned(
        dns::record_name_to_relative(name, zone).unwrap_or_else(|_| name.to_ascii_lowercase()),
    )
}

struct GroupOut {
    drafts: Vec<Draft>,
    ignored_kept: usize,
    unpruned: usize,
}

fn diff_group(
    target: &TargetRef,
    name: &str,
    rtype: RecordType,
    mut want: Side<WantRec>,
    mut have: Side<LiveRec>,
    prune: bool,
) -> GroupOut {
    want.sort_by(|a, b| a.spec.canonical.cmp(&b.spec.canonical));
    have.sort_by_key(|h| h.id);
    let mut drafts = Vec::new();
    let mut unmatched_want = Vec::new();

    // 1. A record in effect is kept; identical content with another ttl makes it an update.
    for w in want {
        let same = |h: &LiveRec| h.canonical == w.spec.canonical;
        let held = |h: &LiveRec| {
            in_effect::record_in_effect(
                (h.ttl, h.canonical.as_ref()),
                (w.spec.ttl, w.spec.canonical.as_str()),
            )
        };
        let pick = have
            .iter()
            .position(held)
            .or_else(|| have.iter().position(same));
        match pick {
            Some(i) => {
                let h = have.remove(i);
                if !held(&h) {
                    drafts.push(update(target, &w, &h));
                }
            }
            None => unmatched_want.push(w),
        }
    }

    // 2. The rest pair into updates (sorted, so the pairing is deterministic); records matched by
    //    an ignore rule are never paired or deleted.
    let (ignored, mut candidates): (Vec<_>, Vec<_>) = have.into_iter().partition(|h| h.ignored);
    candidates.sort_by(|a, b| (&a.canonical, a.id).cmp(&(&b.canonical, b.id)));
    let mut candidates = candidates.into_iter();
    let mut unpruned = 0;
    for w in unmatched_want {
        match candidates.next() {
            Some(h) => drafts.push(update(target, &w, &h)),
            None => drafts.push(create(target, &w)),
        }
    }
    for h in candidates {
        if prune {
            drafts.push(delete(target, name, rtype, &h));
        } else {
            unpruned += 1;
        }
    }
    GroupOut {
        drafts,
        ignored_kept: ignored.len(),
        unpruned,
    }
}

fn want_value(w: &WantRec) -> Value {
    Value::Record {
        ttl: w.spec.ttl,
        content: w.spec.canonical.clone(),
    }
}

fn have_value(h: &LiveRec) -> Value {
    Value::Record {
        ttl: h.ttl,
        content: h.canonical.to_string(),
    }
}

fn create(target: &TargetRef, w: &WantRec) -> Draft {
    let resource = Resource::Record {
        name: w.name.to_string(),
        rtype: w.spec.rtype,
        record_id: None,
    };
    let after = Some(want_value(w));
    let c = Change::new(Action::Create, target.clone(), resource, None, after);
    Draft::new(c.declared(&w.spec.location).from_set(w.spec.set.as_deref()))
}

fn update(target: &TargetRef, w: &WantRec, h: &LiveRec) -> Draft {
    let resource = Resource::Record {
        name: w.name.to_string(),
        rtype: w.spec.rtype,
        record_id: Some(h.id),
    };
    let (before, after) = (Some(have_value(h)), Some(want_value(w)));
    let c = Change::new(Action::Update, target.clone(), resource, before, after);
    Draft::new(c.declared(&w.spec.location).from_set(w.spec.set.as_deref()))
}

fn delete(target: &TargetRef, name: &str, rtype: RecordType, h: &LiveRec) -> Draft {
    let resource = Resource::Record {
        name: name.to_string(),
        rtype,
        record_id: Some(h.id),
    };
    let before = Some(have_value(h));
    Draft::new(Change::new(
        Action::Delete,
        target.clone(),
        resource,
        before,
        None,
    ))
}

/// A name can't hold a CNAME beside other records. When the plan would end with both at a name
/// (the old side kept by `prune: false` or an ignore rule), the creates there are blocked: the
/// server would refuse them anyway, and the reviewer should decide what goes. Only the names
/// that get a create are looked at: without a new record there is nothing to block.
fn block_cname_conflicts(drafts: &mut [Draft], live: &LiveZone, places: &[LivePlace], prune: bool) {
    let mut final_types: HashMap<&str, BTreeSet<RecordType>> = HashMap::new();
    for d in drafts.iter() {
        if let Some((name, t, None)) = record_key(&d.change.resource) {
            final_types.entry(name).or_default().insert(t);
        }
    }
    if final_types.is_empty() {
        return;
    }
    let deleted: HashSet<i64> = drafts
        .iter()
        .filter(|d| d.change.action == Action::Delete)
        .filter_map(|d| record_key(&d.change.resource).and_then(|(_, _, id)| id))
        .collect();
    for (raw, place) in live.records.iter().zip(places) {
        if let Some((name, t)) = place
            && !deleted.contains(&raw.id)
            && let Some(types) = final_types.get_mut(name.as_ref())
        {
            types.insert(*t);
        }
    }
    let clashes: HashMap<String, BTreeSet<RecordType>> = final_types
        .into_iter()
        .filter(|(_, types)| rules::types_clash(types))
        .map(|(name, types)| (name.to_string(), types))
        .collect();
    for d in drafts.iter_mut() {
        let Some((name, _, None)) = record_key(&d.change.resource) else {
            continue;
        };
        if let Some(types) = clashes.get(name) {
            let others: Vec<&str> = types
                .iter()
                .filter(|t| **t != RecordType::CNAME)
                .map(|t| t.as_str())
                .collect();
            let why = if prune {
                "they match an `ignore` rule"
            } else {
                "`prune` is off"
            };
            d.change.status = Status::Blocked;
            d.change.reason = Some(format!(
                "`{name}` would hold a CNAME beside {} records, which DNS forbids; the live records are kept because {why}: remove them from the files' scope or delete them first",
                others.join("/")
            ));
        }
    }
}

fn record_key(resource: &Resource) -> Option<(&str, RecordType, Option<i64>)> {
    match resource {
        Resource::Record {
            name,
            rtype,
            record_id,
        } => Some((name, *rtype, *record_id)),
        Resource::CronJob { .. } | Resource::Nameservers => None,
    }
}

/// How many of a zone's live records the diff sees (`ZoneStats::live`): every one it may
/// touch, ignored ones included.
pub(super) fn plannable_count(live: &LiveZone) -> usize {
    live.records
        .iter()
        .filter(|raw| live_place(*raw, &live.zone).is_some())
        .count()
}

fn info(code: FindingCode, target: &TargetRef, message: String) -> Finding {
    Finding::new(code, target.clone(), message)
}

#[cfg(test)]
mod tests;
