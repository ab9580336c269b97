//! The rounds of an apply as a small state machine, so that every way an apply can end is one
//! named [`Step::Done`] reached from one named step rather than a `break` deep in a loop:
//!
//! ```text
//! Run(0) ──► Verify ──► judge ──► Repair(1) ──► Run(1) ──► Verify ──► judge ──► … ──► Done
//!  │ stop,      │ read failed,      │ converged, not ready,
//!  │ interrupt  │ interrupt,        │ overwritten, differs
//!  ▼            ▼ not visible       ▼ after the last round
//! Done         Done                Done
//! ```
//!
//! [`Rounds`] is what the steps share: the plan's changes with what their last write gave (the
//! only changes ever sent), the writes to check, what someone else moved, and every report.
//! The deciding steps ([`after_round`], [`Rounds::judge`], [`Rounds::next_round`]) touch no
//! server, so their unit tests hold each transition.

use std::time::Duration;

use crate::plan::{Change, Plan};
use dnscron_api::WriteClient;

use super::executor::{Executor, Stop, execution_order};
use super::outcome::{ApplyResult, ChangeOutcome, ChangeReport, ErrorInfo, Moved};
use super::progress::{Note, Progress};
use super::verify::{self, FreshWrite, Planned};
use super::{ApplyOptions, Interrupt};

/// Where an apply is between its rounds.
#[derive(Debug)]
pub(super) enum Step {
    /// Send `changes` (in execution order) as round `round`.
    Run {
        round: u32,
        changes: Vec<Change>,
    },
    /// Re-read the plan's targets after round `round` and judge the re-plan.
    Verify {
        round: u32,
    },
    /// Send again, as round `round`, the changes of the plan whose write did not take (each
    /// with its index into the planned changes).
    Repair {
        round: u32,
        repairs: Vec<(usize, Change)>,
    },
    Done(ApplyResult),
}

/// What the rounds of one apply share.
pub(super) struct Rounds {
    /// The plan's changes, each with what its last write gave: the only changes ever sent.
    planned: Vec<Planned>,
    /// Which planned change each change of the current round is.
    of_planned: Vec<usize>,
    /// The writes the server answered with a fresh 2xx: never sent again (`verify::settle`).
    fresh: Vec<FreshWrite>,
    /// The changes the server took, for the DNS check.
    pub(super) written: Vec<Change>,
    /// What someone else changed during the apply, as the last verification found it.
    pub(super) moved: Vec<Moved>,
    pub(super) reports: Vec<ChangeReport>,
    pub(super) rounds_run: u32,
}

/// What the steps run with.
struct Context<'a> {
    exec: Executor<'a>,
    plan: &'a Plan,
    opts: &'a ApplyOptions<'a>,
}

/// Runs `plan`'s changes, verifies and repairs them until a step ends the apply.
pub(super) async fn drive(
    client: &WriteClient,
    plan: &Plan,
    opts: &ApplyOptions<'_>,
) -> (ApplyResult, Rounds) {
    let ctx = Context {
        exec: Executor {
            client,
            plan_id: &plan.plan_id,
            options: &plan.options,
            desired: &plan.desired,
            progress: opts.progress,
            interrupt: opts.interrupt,
            visibility_waits: &opts.visibility_waits,
            cron_listings: Default::default(),
            dns: opts.dns.as_ref(),
        },
        plan,
        opts,
    };
    let changes = execution_order(&plan.changes);
    let mut rounds = Rounds::new(&changes);
    let mut step = Step::Run { round: 0, changes };
    loop {
        step = match step {
            Step::Run { round, changes } => rounds.run(&ctx, round, &changes).await,
            Step::Verify { round } => rounds.verify(&ctx, round).await,
            Step::Repair { round, repairs } => rounds.repair(opts.progress, round, &repairs),
            Step::Done(result) => return (result, rounds),
        };
    }
}

impl Rounds {
    /// Before round 0: `changes` (the plan's, in execution order), none attempted yet.
    fn new(changes: &[Change]) -> Rounds {
        Rounds {
            planned: changes
                .iter()
                .map(|c| Planned {
                    change: c.clone(),
                    outcome: ChangeOutcome::NotAttempted,
                })
                .collect(),
            of_planned: (0..changes.len()).collect(),
            fresh: Vec::new(),
            written: Vec::new(),
            moved: Vec::new(),
            reports: Vec::new(),
            rounds_run: 0,
        }
    }

    /// Sends round `round` and says what comes after it.
    async fn run(&mut self, ctx: &Context<'_>, round: u32, changes: &[Change]) -> Step {
        let first = self.reports.len();
        let stop = ctx.exec.run_round(changes, round, &mut self.reports).await;
        self.record(changes, first);
        let interrupted = ctx.opts.interrupt.is_some_and(Interrupt::is_raised);
        after_round(stop, interrupted, round)
    }

    /// Takes in the reports of the round just run (from `first` on): each planned change's
    /// outcome, the fresh writes and what the server took.
    fn record(&mut self, changes: &[Change], first: usize) {
        self.rounds_run += 1;
        let this_round = &self.reports[first..];
        for (report, &i) in this_round.iter().zip(&self.of_planned) {
            self.planned[i].outcome = report.outcome;
        }
        self.fresh.extend(verify::fresh_writes(changes, this_round));
        self.written.extend(taken(changes, this_round));
    }

    /// Re-reads the plan's targets until this run's fresh writes show, then judges the re-plan.
    async fn verify(&mut self, ctx: &Context<'_>, round: u32) -> Step {
        ctx.opts.progress.note(&Note::Verifying);
        let (replan, waited) = match ctx.settle(&self.fresh).await {
            Some(Ok(settled)) => settled,
            Some(Err(error)) => return Step::Done(ApplyResult::VerifyFailed { error }),
            None => return Step::Done(ApplyResult::Interrupted),
        };
        let unseen = verify::unseen(&replan.changes, &self.fresh);
        if !unseen.is_empty() {
            return Step::Done(ApplyResult::NotVisible {
                unseen,
                waited_secs: waited.as_secs_f64(),
            });
        }
        self.judge(&replan.changes, round, ctx.opts.max_rounds)
    }

    /// What `replan` (made after round `round`) leaves to do: nothing, a repair round while
    /// fewer than `max_rounds` have run, or an end.
    fn judge(&mut self, replan: &[Change], round: u32, max_rounds: u32) -> Step {
        let verdict = verify::judge(&self.planned, replan);
        self.moved = verdict.moved;
        if !verdict.overwritten.is_empty() {
            return Step::Done(ApplyResult::ChangedDuringApply {
                overwritten: verdict.overwritten,
            });
        }
        if verdict.repairs.is_empty() {
            return Step::Done(self.nothing_to_repair());
        }
        let next = round + 1;
        if next >= max_rounds {
            return Step::Done(ApplyResult::Differs {
                remaining: verdict.repairs.into_iter().map(|(_, c)| c).collect(),
            });
        }
        Step::Repair {
            round: next,
            repairs: verdict.repairs,
        }
    }

    /// Converged, unless switches to custom nameservers were refused as not ready: those are
    /// still needed, and verification leaves them to this.
    fn nothing_to_repair(&self) -> ApplyResult {
        let refused: Vec<usize> = self
            .planned
            .iter()
            .filter(|p| p.outcome == ChangeOutcome::NotReady)
            .map(|p| p.change.id)
            .collect();
        if refused.is_empty() {
            ApplyResult::Converged
        } else {
            ApplyResult::NameserversNotReady {
                change_ids: refused,
            }
        }
    }

    /// Says the repair round, then runs it.
    fn repair(&mut self, progress: &dyn Progress, round: u32, repairs: &[(usize, Change)]) -> Step {
        progress.note(&Note::Repairing {
            count: repairs.len(),
            round,
        });
        let changes = self.next_round(repairs);
        Step::Run { round, changes }
    }

    /// The changes of a repair round, in execution order, each remembered as the planned
    /// change it repairs.
    fn next_round(&mut self, repairs: &[(usize, Change)]) -> Vec<Change> {
        let again: Vec<Change> = repairs.iter().map(|(_, c)| c.clone()).collect();
        let changes = execution_order(&again);
        self.of_planned = changes
            .iter()
            .filter_map(|c| repairs.iter().find(|(_, r)| r.id == c.id))
            .map(|(i, _)| *i)
            .collect();
        changes
    }
}

impl Context<'_> {
    /// Re-plans the plan's targets until the fresh writes show (`verify::settle`); `None`: an
    /// interrupt came first: verification only reads, so it need not finish.
    async fn settle(&self, fresh: &[FreshWrite]) -> Option<Result<(Plan, Duration), ErrorInfo>> {
        let scope = verify::restrict(&self.plan.desired, &verify::touched(&self.plan.changes));
        let settle = verify::settle(
            self.exec.client.read(),
            &scope,
            &self.opts.diff,
            fresh,
            &self.opts.visibility_waits,
            self.opts.progress,
        );
        match self.opts.interrupt {
            Some(interrupt) => tokio::select! {
                settled = settle => Some(settled),
                () = interrupt.raised() => None,
            },
            None => Some(settle.await),
        }
    }
}

/// After a round: its early stop ends the apply, so does an interrupt; otherwise verify.
fn after_round(stop: Option<Stop>, interrupted: bool, round: u32) -> Step {
    match stop {
        Some(stop) => Step::Done(stopped(stop)),
        None if interrupted => Step::Done(ApplyResult::Interrupted),
        None => Step::Verify { round },
    }
}

/// How an apply ends when a round stopped early.
fn stopped(stop: Stop) -> ApplyResult {
    match stop {
        Stop::NeedsPortalStep {
            change_id,
            continue_url,
        } => ApplyResult::NeedsPortalStep {
            change_id,
            continue_url,
        },
        Stop::Failed { change_id, error } => ApplyResult::Failed { change_id, error },
        Stop::Interrupted => ApplyResult::Interrupted,
        Stop::CronIndexMoved { change_id } => ApplyResult::CronIndexMoved { change_id },
    }
}

/// The record changes of one round the server took (done, replayed, already absent).
fn taken(changes: &[Change], reports: &[ChangeReport]) -> Vec<Change> {
    reports
        .iter()
        .filter(|r| {
            matches!(
                r.outcome,
                ChangeOutcome::Done | ChangeOutcome::Replayed | ChangeOutcome::AlreadyAbsent
            )
        })
        .filter_map(|r| changes.iter().find(|c| c.id == r.id).cloned())
        .collect()
}

#[cfg(test)]
#[path = "rounds_tests.rs"]
mod tests;
