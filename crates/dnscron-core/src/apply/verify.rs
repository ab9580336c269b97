//! After the last change: read the touched targets again and re-plan them. An empty plan means
//! converged; anything left is either a stale replay (a stored success whose effect is not in
//! the live state now), a change someone else made meanwhile, or a stale read (a cache in front
//! of the API). A write that got a fresh 2xx was committed: if a read doesn't show it, the read
//! is what's stale, so such a write is never sent again (that would multiply it): the targets
//! are read again after short waits, and if it still doesn't show, apply stops (`Unseen`).
//!
//! Only the plan is repaired ([`judge`]): a change of the plan whose write did not take (a stale
//! replay) is sent again while its precondition still holds; a change of the plan someone undid
//! or changed again after it took is reported, not reverted; anything else that moved is
//! reported as changed during the apply and left as it is.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;

use crate::config::model::{Desired, Unmanaged};
use crate::plan::in_effect;
use crate::plan::{self, Action, Change, DiffOptions, Plan, TargetKind, TargetRef, Value};
use dnscron_api::ReadClient;

use super::outcome::{ChangeOutcome, ChangeReport, ErrorInfo, Moved};
use super::progress::{Note, Progress};

/// Waits before each re-read when a freshly written change is not visible yet: 7 s in all,
/// longer than the few seconds a caching proxy typically serves a GET from its cache.
pub(crate) const VISIBILITY_WAITS: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
];

/// A change the server answered with a fresh (not replayed) 2xx.
#[derive(Clone, Debug)]
pub(super) struct FreshWrite {
    pub change: Change,
    pub report: ChangeReport,
}

/// The fresh writes among one round's `reports` (of `changes`, the round's changes).
pub(super) fn fresh_writes(changes: &[Change], reports: &[ChangeReport]) -> Vec<FreshWrite> {
    reports
        .iter()
        .filter(|r| r.outcome == ChangeOutcome::Done)
        .filter_map(|r| {
            let change = changes.iter().find(|c| c.id == r.id)?;
            Some(FreshWrite {
                change: change.clone(),
                report: r.clone(),
            })
        })
        .collect()
}

/// A fresh write that reading again still does not show.
#[derive(Clone, Debug, Serialize)]
pub struct Unseen {
    /// The change's id in its round's plan, and the round.
    pub change_id: usize,
    pub round: u32,
    pub target: TargetRef,
    /// The change as sent (its JSON adds a `summary` here).
    #[serde(skip)]
    pub change: Change,
    pub request_id: Option<String>,
    /// What the last read shows instead (worded by the binary, in its JSON too).
    #[serde(skip)]
    pub read: LastRead,
}

/// What the last read shows of a write it does not show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LastRead {
    /// A created thing is not in the listing.
    NotListed,
    /// A deleted thing is still in the listing.
    StillListed,
    /// An updated thing still holds its value from before (`None`: the re-plan has none).
    StillBefore(Option<Value>),
}

/// Whether `a` (from a re-plan) asks for the very write `fresh` already made: same target,
/// action, thing, starting value and value (a live value that is neither the one before nor
/// the one written is someone else's, not a stale read).
fn repeats(a: &Change, fresh: &Change) -> bool {
    in_effect::unchanged_by(a, fresh)
}

/// Whether `a` (from a re-plan) would undo or redo what the planned change `p` does with
/// another starting value: put `p`'s value in place again, or delete again the value `p`
/// deleted.
fn about(a: &Change, p: &Change) -> bool {
    in_effect::asks_again(a, p)
}

/// A change of the plan and what its last write gave.
#[derive(Clone, Debug)]
pub(super) struct Planned {
    pub change: Change,
    pub outcome: ChangeOutcome,
}

/// What verification makes of a re-plan: what to send again, what of ours was undone, what
/// else moved.
#[derive(Clone, Debug, Default)]
pub(super) struct Verdict {
    /// Changes of the plan to send again (index into the planned changes, the change as the
    /// re-plan has it now).
    pub repairs: Vec<(usize, Change)>,
    /// Changes of the plan that took and were changed again by someone during the apply.
    pub overwritten: Vec<Moved>,
    /// Everything else the re-plan finds: someone else's edits during the apply.
    pub moved: Vec<Moved>,
}

/// Sorts each change of `replan` (the files against the live state after the writes): a
/// planned change whose write did not take (replayed from an earlier run, its effect gone) is
/// repaired when the live value still is its `before`; a planned change otherwise found again
/// was undone or changed by someone after it took; the rest is not the plan's to send.
/// Switches refused as not ready are still needed, by design: not judged.
pub(super) fn judge(planned: &[Planned], replan: &[Change]) -> Verdict {
    let mut verdict = Verdict::default();
    for a in replan {
        let ours = planned
            .iter()
            .position(|p| repeats(a, &p.change))
            .map(|i| (i, true))
            .or_else(|| {
                planned
                    .iter()
                    .position(|p| about(a, &p.change))
                    .map(|i| (i, false))
            });
        match ours {
            Some((i, _)) if planned[i].outcome == ChangeOutcome::NotReady => {}
            Some((i, true)) if planned[i].outcome == ChangeOutcome::Replayed => {
                verdict.repairs.push((i, a.clone()));
            }
            Some((i, _)) => {
                let p = &planned[i].change;
                let wrote = match p.action {
                    Action::Delete => None,
                    Action::Create | Action::Update => p.after.clone(),
                };
                verdict
                    .overwritten
                    .push(Moved::new(p, wrote, a.before.clone()));
            }
            None => verdict
                .moved
                .push(Moved::new(a, a.after.clone(), a.before.clone())),
        }
    }
    verdict
}

/// The fresh writes that `replan` asks for again.
pub(super) fn unseen(replan: &[Change], fresh: &[FreshWrite]) -> Vec<Unseen> {
    fresh
        .iter()
        .filter_map(|f| {
            let again = replan.iter().find(|c| repeats(c, &f.change))?;
            Some(Unseen {
                change_id: f.report.id,
                round: f.report.round,
                target: f.report.target.clone(),
                change: f.change.clone(),
                request_id: f.report.request_id.clone(),
                read: what_was_read(again),
            })
        })
        .collect()
}

/// What the read shows about a change it still asks for.
fn what_was_read(again: &Change) -> LastRead {
    match again.action {
        Action::Create => LastRead::NotListed,
        Action::Delete => LastRead::StillListed,
        Action::Update => LastRead::StillBefore(again.before.clone()),
    }
}

/// Re-plans `desired` and, while the result asks again for a write in `fresh`, waits each of
/// `waits` in turn and re-plans again (tokio's clock, so tests can pause it). Returns the last
/// re-plan and the time waited in all.
pub(super) async fn settle(
    client: &ReadClient,
    desired: &Desired,
    opts: &DiffOptions,
    fresh: &[FreshWrite],
    waits: &[Duration],
    progress: &dyn Progress,
) -> Result<(Plan, Duration), ErrorInfo> {
    let mut latest = replan(client, desired, opts).await?;
    let mut waited = Duration::ZERO;
    for wait in waits {
        let unseen = unseen(&latest.changes, fresh);
        if unseen.is_empty() {
            break;
        }
        progress.note(&Note::NotVisibleYet {
            count: unseen.len(),
            wait: *wait,
        });
        tokio::time::sleep(*wait).await;
        waited += *wait;
        latest = replan(client, desired, opts).await?;
    }
    Ok((latest, waited))
}

/// The part of `desired` that declares `targets` (a zone's document covers its zone and its
/// domain's nameservers).
pub(super) fn restrict(desired: &Desired, targets: &BTreeSet<TargetRef>) -> Desired {
    let has = |kind: TargetKind, name: &str| {
        targets
            .iter()
            .any(|t| t.kind == kind && t.name.eq_ignore_ascii_case(name))
    };
    Desired {
        zones: desired
            .zones
            .iter()
            .filter(|z| {
                has(TargetKind::Zone, z.zone.as_str()) || has(TargetKind::Domain, z.zone.as_str())
            })
            .cloned()
            .collect(),
        sites: desired
            .sites
            .iter()
            .filter(|s| has(TargetKind::Site, &s.slug))
            .cloned()
            .collect(),
        // An unmanaged list declares no target.
        unmanaged: Unmanaged::default(),
    }
}

/// The targets `changes` touch.
pub(super) fn touched(changes: &[Change]) -> BTreeSet<TargetRef> {
    changes.iter().map(|c| c.target.clone()).collect()
}

/// Re-reads the live state of `desired`'s targets and plans them again. Safety limits are off:
/// the plan being verified already passed them, and what remains is a subset of it.
pub(super) async fn replan(
    client: &ReadClient,
    desired: &Desired,
    opts: &DiffOptions,
) -> Result<Plan, ErrorInfo> {
    let live = plan::snapshot::fetch(client, desired)
        .await
        .map_err(|e| ErrorInfo::internal(e.to_string()))?;
    let opts = DiffOptions {
        allow_mass_changes: true,
        ..opts.clone()
    };
    plan::diff(desired, &live, &opts).map_err(|e| ErrorInfo::internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(record_id: i64, before: &str, after: &str) -> Change {
        crate::plan::model::record_change(
            Action::Update,
            Some(record_id),
            Some(before),
            Some(after),
        )
    }

    #[test]
    fn only_the_very_same_write_counts_as_repeated() {
        let sent = update(7, "192.0.2.1", "192.0.2.2");
        assert!(repeats(&update(7, "192.0.2.1", "192.0.2.2"), &sent));
        // Another value, or another record, is a different write: repaired as before.
        assert!(!repeats(&update(7, "192.0.2.1", "192.0.2.3"), &sent));
        assert!(!repeats(&update(8, "192.0.2.1", "192.0.2.2"), &sent));
        let mut delete = sent.clone();
        delete.action = Action::Delete;
        assert!(!repeats(&delete, &sent));
    }

    fn planned(change: Change, outcome: ChangeOutcome) -> Planned {
        Planned { change, outcome }
    }

    #[test]
    fn only_a_planned_change_whose_write_did_not_take_is_repaired_from_its_before() {
        let ours = update(7, "192.0.2.1", "192.0.2.2");
        // Accepted: replayed, its effect gone, the live value still its `before`.
        let verdict = judge(
            &[planned(ours.clone(), ChangeOutcome::Replayed)],
            std::slice::from_ref(&ours),
        );
        assert_eq!(verdict.repairs, vec![(0, ours.clone())]);
        assert!(verdict.overwritten.is_empty() && verdict.moved.is_empty());
        // Refused: someone set another value meanwhile; not sent, reported as ours overwritten.
        let moved = update(7, "192.0.2.9", "192.0.2.2");
        let verdict = judge(&[planned(ours.clone(), ChangeOutcome::Replayed)], &[moved]);
        assert!(verdict.repairs.is_empty());
        assert_eq!(verdict.overwritten.len(), 1);
        // Refused: a done write found again with another value is overwritten, not repaired.
        let verdict = judge(
            &[planned(ours.clone(), ChangeOutcome::Done)],
            &[update(7, "192.0.2.9", "192.0.2.2")],
        );
        assert!(verdict.repairs.is_empty());
        assert_eq!(verdict.overwritten.len(), 1);
        // Anything else is someone else's: never sent, reported as moved.
        let other = update(8, "192.0.2.5", "192.0.2.6");
        let verdict = judge(&[planned(ours, ChangeOutcome::Done)], &[other]);
        assert!(verdict.repairs.is_empty() && verdict.overwritten.is_empty());
        assert_eq!(verdict.moved.len(), 1);
    }

    #[test]
    fn an_update_still_read_holds_its_value_from_before() {
        assert_eq!(
            what_was_read(&update(7, "192.0.2.1", "192.0.2.2")),
            LastRead::StillBefore(Some(Value::Record {
                ttl: 300,
                content: "192.0.2.1".into()
            }))
        );
    }
}
