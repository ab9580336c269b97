//! The execution order of a plan (documented in docs/plan.md):
//!
//! 1. Deletes that must come first: at a name where a CNAME replaces other records or other
//!    records replace a CNAME (a name never holds both), and the cron deletes needed so a site
//!    never holds more than 5 jobs.
//! 2. Creates and updates.
//! 3. The other deletes (so an interrupted apply leaves extra records rather than missing ones).
//! 4. Nameserver changes (the zone is complete before the delegation moves).
//!
//! Changes that are not `ready` (blocked, needing a portal step) go after all ready ones, in the
//! same phase order: apply stops at a portal step, so everything it can do is done first. A
//! change held by a finding keeps the place of its kind: `plan::held` marks it once every
//! finding is known, and a plan that holds a change is not executed at all.
//! Within a phase: by target (zones, domains, sites; then name), then record name and type (or
//! cron schedule and command), then content, so the same inputs always give the same order.

use std::collections::BTreeSet;

use crate::dns::{RecordType, rules};

use super::model::{Action, Change, Resource, Status, TargetKind, Value};

/// A change before ordering; `early` marks a delete that must precede the creates (set by the
/// cron diff for the 5-job limit; CNAME conflicts are found here).
#[derive(Clone, Debug)]
pub(crate) struct Draft {
    pub change: Change,
    pub early: bool,
}

impl Draft {
    pub(crate) fn new(change: Change) -> Draft {
        Draft {
            change,
            early: false,
        }
    }
}

/// Orders the drafts and numbers the changes 1, 2, … in that order.
pub(crate) fn order(mut drafts: Vec<Draft>) -> Vec<Change> {
    mark_cname_replacements(&mut drafts);
    drafts.sort_by_cached_key(sort_key);
    drafts
        .into_iter()
        .enumerate()
        .map(|(i, d)| Change {
            id: i + 1,
            ..d.change
        })
        .collect()
}

type SortKey = (u8, u8, TargetKind, String, String, String, String, i64);

fn sort_key(d: &Draft) -> SortKey {
    let c = &d.change;
    let status = match c.status {
        Status::Ready => 0,
        Status::Blocked => 1,
        Status::NeedsPortalStep => 2,
        // Held after ordering (`plan::held`), once the mail findings are known; a plan with a
        // held change is never executed, so its place only matters to a reader.
        Status::HeldByFinding => 3,
    };
    let phase = match (&c.resource, c.action) {
        (Resource::Nameservers, _) => 3,
        (_, Action::Delete) if d.early => 0,
        (_, Action::Delete) => 2,
        (Resource::Record { .. } | Resource::CronJob { .. }, Action::Create | Action::Update) => 1,
    };
    let (k1, k2, tie) = match &c.resource {
        Resource::Record {
            name,
            rtype,
            record_id,
        } => (
            name.clone(),
            rtype.as_str().to_string(),
            record_id.unwrap_or(-1),
        ),
        Resource::CronJob {
            schedule,
            command,
            occurrence,
        } => (schedule.clone(), command.clone(), i64::from(*occurrence)),
        Resource::Nameservers => (String::new(), String::new(), 0),
    };
    let content = match c.after.as_ref().or(c.before.as_ref()) {
        Some(Value::Record { content, .. }) => content.clone(),
        _ => String::new(),
    };
    (
        status,
        phase,
        c.target.kind,
        c.target.name.clone(),
        k1,
        k2,
        content,
        tie,
    )
}

/// Marks as early the deletes at a name where the plan brings in a CNAME (delete the others
/// first) or brings in other records while deleting a CNAME (delete the CNAME first).
fn mark_cname_replacements(drafts: &mut [Draft]) {
    let mut incoming_cname = BTreeSet::new();
    let mut incoming_other = BTreeSet::new();
    for d in drafts.iter() {
        if let (Some((zone, name, t)), true) =
            (record_at(&d.change), d.change.action != Action::Delete)
        {
            if rules::must_be_alone(t) {
                incoming_cname.insert((zone, name));
            } else {
                incoming_other.insert((zone, name));
            }
        }
    }
    for d in drafts.iter_mut() {
        if d.change.action != Action::Delete {
            continue;
        }
        if let Some((zone, name, t)) = record_at(&d.change) {
            let key = (zone, name);
            let clears_way = if rules::must_be_alone(t) {
                incoming_other.contains(&key)
            } else {
                incoming_cname.contains(&key)
            };
            d.early |= clears_way;
        }
    }
}

fn record_at(c: &Change) -> Option<(String, String, RecordType)> {
    match &c.resource {
        Resource::Record { name, rtype, .. } if c.target.kind == TargetKind::Zone => {
            Some((c.target.name.clone(), name.clone(), *rtype))
        }
        Resource::Record { .. } | Resource::CronJob { .. } | Resource::Nameservers => None,
    }
}
