//! Executes a plan: idempotent, crash-safe, verified (docs/apply.md).
//!
//! [`apply`] runs the plan's changes in order (ready ones first, then the ones the plan expects
//! a human step for), each write with `Change::idempotency_key(plan_id, round)`; stops at the
//! first change that fails or needs the portal; then re-reads the touched targets and re-plans
//! them. Only the plan is repaired (`verify::judge`): a change of it whose write did not take
//! (a stale replay) runs again as round 1, 2, … with new keys, up to [`MAX_ROUNDS`] rounds in
//! all, while the live value still is its `before`; anything else that moved during the apply
//! is reported, never reverted. A write that got a fresh 2xx is never sent again
//! (`verify::settle`): if re-reading after short waits still doesn't show it, apply stops with
//! `NotVisible`.

mod cron_delete;
mod cron_removed;
pub mod dns;
mod executor;
mod interrupt;
mod outcome;
mod progress;
pub mod review;
pub mod review_union;
pub mod saved;
mod verify;
pub mod workflow;

use std::time::Duration;

use crate::api::WriteClient;
use crate::plan::{Change, DiffOptions, Plan};

pub use executor::{Executor, Stop, execution_order};
pub use interrupt::Interrupt;
pub use outcome::{
    ApplyReport, ApplyResult, ChangeOutcome, ChangeReport, Counts, ErrorInfo, Moved,
};
pub use outcome::{CronMixUp, ListedJob, Recreate};
pub use progress::{Note, Progress, Silent};
pub use review::Review;
pub use verify::{LastRead, Unseen};

/// Rounds in all: the plan's own (0) plus up to two repairs after verification.
pub const MAX_ROUNDS: u32 = 3;

pub struct ApplyOptions<'a> {
    /// How the verification re-plan is made (the same options as the plan).
    pub diff: DiffOptions,
    pub max_rounds: u32,
    pub progress: &'a dyn Progress,
    /// Raise it (SIGINT, SIGTERM) to stop after the change in flight.
    pub interrupt: Option<&'a Interrupt>,
    /// Waits before re-reading when a write that got a fresh 2xx is not visible yet
    /// (`verify::VISIBILITY_WAITS`).
    pub visibility_waits: Vec<Duration>,
    /// Apply's DNS checks (`apply::dns`); `None`: neither runs.
    pub dns: Option<dns::DnsOptions>,
}

impl<'a> ApplyOptions<'a> {
    /// Options that re-plan the way `plan` was made (see [`diff_options_for`]).
    pub fn new(plan: &Plan, progress: &'a dyn Progress) -> Self {
        ApplyOptions {
            diff: diff_options_for(plan),
            max_rounds: MAX_ROUNDS,
            progress,
            interrupt: None,
            visibility_waits: verify::VISIBILITY_WAITS.to_vec(),
            dns: None,
        }
    }
}

/// The diff options to re-plan `plan`'s targets with: its API URL, the safety limits unless
/// the plan records that it was made with them lifted (a saved plan's re-plan must not lift
/// limits its reviewer never saw lifted), and the hosted nameserver mode's wire value the plan records
/// (`plan::make_plan` reads it from /openapi.json when needed).
pub fn diff_options_for(plan: &Plan) -> DiffOptions {
    DiffOptions {
        api_url: plan.api_url.clone(),
        allow_mass_changes: plan.options.allow_mass_changes,
        hosted_mode_wire_value: plan.options.hosted_mode_wire_value.clone(),
        ..DiffOptions::default()
    }
}

/// Applies `plan` (made from its embedded desired state) and verifies the result.
pub async fn apply(client: &WriteClient, plan: &Plan, opts: &ApplyOptions<'_>) -> ApplyReport {
    let desired = &plan.desired;
    if plan.is_empty() {
        return ApplyReport::new(plan, ApplyResult::NoChanges, 0, Vec::new());
    }
    let exec = Executor {
        client,
        plan_id: &plan.plan_id,
        options: &plan.options,
        desired,
        progress: opts.progress,
        interrupt: opts.interrupt,
        visibility_waits: &opts.visibility_waits,
        cron_listings: Default::default(),
        dns: opts.dns.as_ref(),
    };
    let mut reports = Vec::new();
    let mut changes = execution_order(&plan.changes);
    // The plan's changes, each with what its last write gave: the only changes ever sent.
    let mut planned: Vec<verify::Planned> = changes
        .iter()
        .map(|c| verify::Planned {
            change: c.clone(),
            outcome: ChangeOutcome::NotAttempted,
        })
        .collect();
    // Which planned change each change of the round is.
    let mut of_planned: Vec<usize> = (0..planned.len()).collect();
    let mut fresh = Vec::new();
    let mut written = Vec::new();
    let mut moved = Vec::new();
    let mut round = 0;
    let mut rounds_run = 0;
    let result = loop {
        let first = reports.len();
        let stop = exec.run_round(&changes, round, &mut reports).await;
        rounds_run += 1;
        for (r, &i) in reports[first..].iter().zip(&of_planned) {
            planned[i].outcome = r.outcome;
        }
        fresh.extend(verify::fresh_writes(&changes, &reports[first..]));
        written.extend(taken(&changes, &reports[first..]));
        if let Some(stop) = stop {
            break match stop {
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
            };
        }
        if opts.interrupt.is_some_and(Interrupt::is_raised) {
            break ApplyResult::Interrupted;
        }
        opts.progress.note(&Note::Verifying);
        let scope = verify::restrict(desired, &verify::touched(&plan.changes));
        let settle = verify::settle(
            client.read(),
            &scope,
            &opts.diff,
            &fresh,
            &opts.visibility_waits,
            opts.progress,
        );
        let settled = match opts.interrupt {
            Some(interrupt) => tokio::select! {
                settled = settle => Some(settled),
                () = interrupt.raised() => None,
            },
            None => Some(settle.await),
        };
        let (replan, waited) = match settled {
            Some(Ok(p)) => p,
            Some(Err(error)) => break ApplyResult::VerifyFailed { error },
            None => break ApplyResult::Interrupted,
        };
        let unseen = verify::unseen(&replan.changes, &fresh);
        if !unseen.is_empty() {
            break ApplyResult::NotVisible {
                unseen,
                waited_secs: waited.as_secs_f64(),
            };
        }
        let verdict = verify::judge(&planned, &replan.changes);
        moved = verdict.moved;
        if !verdict.overwritten.is_empty() {
            break ApplyResult::ChangedDuringApply {
                overwritten: verdict.overwritten,
            };
        }
        if verdict.repairs.is_empty() {
            let refused: Vec<usize> = planned
                .iter()
                .filter(|p| p.outcome == ChangeOutcome::NotReady)
                .map(|p| p.change.id)
                .collect();
            break match refused.is_empty() {
                true => ApplyResult::Converged,
                false => ApplyResult::NameserversNotReady {
                    change_ids: refused,
                },
            };
        }
        round += 1;
        if round >= opts.max_rounds {
            break ApplyResult::Differs {
                remaining: verdict.repairs.into_iter().map(|(_, c)| c).collect(),
            };
        }
        opts.progress.note(&Note::Repairing {
            count: verdict.repairs.len(),
            round,
        });
        let repairs: Vec<Change> = verdict.repairs.iter().map(|(_, c)| c.clone()).collect();
        changes = execution_order(&repairs);
        of_planned = changes
            .iter()
            .filter_map(|c| verdict.repairs.iter().find(|(_, r)| r.id == c.id))
            .map(|(i, _)| *i)
            .collect();
    };
    let interrupted = matches!(result, ApplyResult::Interrupted);
    let mut report = ApplyReport::new(plan, result, rounds_run, reports);
    report.changed_during_apply = moved;
    if let Some(dns) = opts
        .dns
        .as_ref()
        .filter(|d| !d.wait.is_zero() && !interrupted)
    {
        if !dns::expect::changed_rrsets(&written).is_empty() {
            opts.progress.note(&Note::CheckingDns { wait: dns.wait });
        }
        report.dns_check = Some(dns::live::check(desired, &written, dns).await);
    }
    opts.progress.close();
    report
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
