//! "Already in effect", decided in one place (docs/apply.md, "Already in effect"): a change is
//! in effect when what the account holds for its subject is the change's after-state. The
//! planner keeps a desired record, cron job or delegation the account already holds (a
//! delegation by its hosts alone: the registrar reads no mode), the executor takes a delete
//! answered 404 or a cron delete with no copy left to remove as done, verification asks
//! whether a re-read shows a write, and a review-bound apply whether a reviewed change the plan
//! made now does not need is done: each asks this module instead of comparing values itself, so
//! they can't drift apart.
//!
//! It is pure (no reading, no wording) and belongs to the plan stage, the first of the stages
//! that decide it, so that the planner and the applier both reach it.
//!
//! Who asks: the record diff (`plan/records.rs`, `diff_group`, through `record_in_effect`,
//! the rule on borrowed parts since it runs for every live record), the nameserver diff
//! (`plan/nameservers.rs`, through `delegation_in_effect`; `effect` compares delegations the
//! same way), the cron diff (`plan/cron_jobs.rs`, through `job_in_effect`); the executor's
//! 404 (`apply/executor.rs`, through `absent`); cron deletes of identical copies
//! (`apply/cron_delete.rs` through `copies_after` and `effect_on_copies`;
//! `apply/cron_removed.rs`, `still_there`); verification (`apply/verify.rs`, through
//! `held_per`, `unchanged_by`, `asks_again`); the review (`apply/review.rs`, through
//! `was_read` and `effect`); a bound apply with nothing to send (`apply/workflow/bind.rs`).
//! A replayed answer decides nothing here: the client only reads the header (the `api` stage
//! comes before `plan`), and verification judges the change.

use std::collections::BTreeSet;

use super::model::{Action, Change, TargetKind, TargetRef, Value};
use super::snapshot::LiveSnapshot;

/// Where a change stands against what the account holds for its subject.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(
    clippy::enum_variant_names,
    reason = "`Effect::InEffect` is the rule's own word: a change already in effect"
)]
pub(crate) enum Effect {
    /// The account holds the change's after-state: sending it would do nothing, or worse.
    InEffect,
    /// The account holds the change's before: its precondition holds, it is still to be sent.
    Pending,
    /// Neither: someone else changed the subject. `live` is a value it holds instead (`None`:
    /// none).
    Moved { live: Option<Value> },
}

impl Effect {
    pub(crate) fn is_in_effect(&self) -> bool {
        match self {
            Effect::InEffect => true,
            Effect::Pending | Effect::Moved { .. } => false,
        }
    }
}

/// The rule. `live` is what the account holds for the change's subject: the values of the
/// records of its name and type (an RRset holds several), the domain's nameservers, a copy of
/// the cron job per copy listed. A create or update is in effect when its value is held, a
/// delete when the value it removes is not. A create expects no such value (anything else at
/// the name is another record), an update or delete expects its `before`.
pub(crate) fn effect(change: &Change, live: &[Value]) -> Effect {
    let holds = |value: &Option<Value>| {
        value
            .as_ref()
            .is_some_and(|v| live.iter().any(|l| same_state(l, v)))
    };
    let (done, expected) = match change.action {
        Action::Create => (holds(&change.after), true),
        Action::Update => (holds(&change.after), holds(&change.before)),
        Action::Delete => (!holds(&change.before), true),
    };
    if done {
        Effect::InEffect
    } else if expected {
        Effect::Pending
    } else {
        Effect::Moved {
            live: live.first().cloned(),
        }
    }
}

/// Whether the account holding `live` holds `value`: the same value, except that a delegation
/// is its hosts alone ([`delegation_in_effect`]).
fn same_state(live: &Value, value: &Value) -> bool {
    match (live, value) {
        (
            Value::Nameservers {
                nameservers: held, ..
            },
            Value::Nameservers { nameservers, .. },
        ) => delegation_in_effect(
            &held.iter().cloned().collect(),
            &nameservers.iter().cloned().collect(),
        ),
        (Value::Record { .. } | Value::CronJob { .. } | Value::Nameservers { .. }, _) => {
            live == value
        }
    }
}

/// The rule when the server says the subject is not there at all (a 404 on the change's own
/// path): only a delete is then in effect.
pub(crate) fn absent(change: &Change) -> Effect {
    effect(change, &[])
}

/// What a change of a plan made against the account says the account holds for its subject:
/// its `before` (nothing for a create: no record with its value).
pub(crate) fn held_per(replanned: &Change) -> &[Value] {
    replanned.before.as_slice()
}

/// Whether `replanned` (a change of a plan made against the account) asks again for
/// `change`'s after-state, from whatever value: `change` is then not in effect there (it was
/// undone, never took, or someone changed it again).
pub(crate) fn asks_again(replanned: &Change, change: &Change) -> bool {
    let same_after_state = match change.action {
        Action::Delete => replanned.action == Action::Delete && replanned.before == change.before,
        Action::Create | Action::Update => {
            replanned.after.is_some() && replanned.after == change.after
        }
    };
    replanned.target == change.target
        && replanned.resource.same_subject(&change.resource)
        && same_after_state
}

/// Whether `replanned` is `change` itself, still pending: the same thing (record id included)
/// and action, asked again from the very value `change` started from. A write that got a fresh
/// 2xx and reads like this has not shown in the read yet.
pub(crate) fn unchanged_by(replanned: &Change, change: &Change) -> bool {
    replanned.resource.record_id() == change.resource.record_id()
        && replanned.action == change.action
        && asks_again(replanned, change)
        && effect(change, held_per(replanned)) == Effect::Pending
}

/// The rule for one record on borrowed parts (TTL, canonical content), for the diff, which
/// runs it for every live record of every zone: a desired record is in effect when a live
/// one holds it, which is [`effect`] of its create on the live value.
pub(crate) fn record_in_effect(live: (u32, &str), desired: (u32, &str)) -> bool {
    live == desired
}

/// The rule for a domain's delegation, on host sets (folded, no final dots): the registrar
/// state has no mode field, so the registry listing exactly the hosts a switch puts in place is
/// the switch in effect, whether it names them as `custom` or as the service's own (`hosted`).
/// An empty set is never in effect: a registry that lists nothing is delegated nowhere.
pub(crate) fn delegation_in_effect(registry: &BTreeSet<String>, after: &BTreeSet<String>) -> bool {
    !after.is_empty() && registry == after
}

/// The rule for one cron job copy, on normalized (schedule, command) (`plan::job_key`): a
/// desired job is in effect when a live copy holds it; identical copies pair one to one, so a
/// desired copy no live copy is left for is still to be created ([`copies_after`]).
pub(crate) fn job_in_effect(live: &(String, String), desired: &(String, String)) -> bool {
    live == desired
}

/// How many copies of a cron job the account holds once `action` on copy `occurrence` is
/// done, when the plan makes `planned` creates or deletes of identical copies to reach the
/// `declared` ones: deletes `0 … planned-1` start from `declared + planned` copies, so after
/// delete `o` there are `declared + planned - o - 1`; creates start from
/// `declared - planned`, so after create `o` there are `declared - planned + o + 1`.
pub(crate) fn copies_after(
    action: Action,
    declared: usize,
    planned: usize,
    occurrence: u32,
) -> usize {
    let occurrence = occurrence as usize;
    match action {
        Action::Delete => (declared + planned).saturating_sub(occurrence + 1),
        Action::Create => declared.saturating_sub(planned) + occurrence + 1,
        Action::Update => declared,
    }
}

/// The rule for one of identical cron job copies, which can't be told apart: its after-state
/// is a count ([`copies_after`]). A delete is in effect when no more than `after` copies are
/// held, a create when at least `after` are. Any other count is what the change starts from
/// (copies have no value of their own that could have moved).
pub(crate) fn effect_on_copies(action: Action, held: usize, after: usize) -> Effect {
    let done = match action {
        Action::Delete => held <= after,
        Action::Create => held >= after,
        Action::Update => held == after,
    };
    if done {
        Effect::InEffect
    } else {
        Effect::Pending
    }
}

/// Whether `live` read `target` with what its changes are about: only then can the account be
/// known to hold a change's after-state (a site read without its cron jobs holds nothing known).
pub(crate) fn was_read(live: &LiveSnapshot, target: &TargetRef) -> bool {
    match target.kind {
        TargetKind::Zone => live.zones.iter().any(|z| z.zone.as_str() == target.name),
        TargetKind::Domain => live
            .domains
            .iter()
            .any(|d| d.domain.as_str() == target.name),
        TargetKind::Site => live
            .sites
            .iter()
            .any(|s| s.slug == target.name && s.cron.is_some()),
    }
}

#[cfg(test)]
#[path = "in_effect_tests.rs"]
mod tests;
