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
//! `NotVisible`. The rounds are a state machine (`rounds`); [`apply`] drives it, then builds
//! the report and runs the DNS check.

mod cron_delete;
mod cron_removed;
// Deliberately public: apply's DNS checks (their options and the report the binary renders),
// and the one apply workflow every front end drives.
pub mod dns;
mod executor;
mod interrupt;
mod outcome;
mod progress;
pub(crate) mod review;
pub(crate) mod review_union;
mod rounds;
pub(crate) mod saved;
mod verify;
pub mod workflow;

use std::time::Duration;

use crate::plan::{DiffOptions, Plan};
use dnscron_api::WriteClient;

pub use interrupt::Interrupt;
pub use outcome::{
    ApplyReport, ApplyResult, ChangeOutcome, ChangeReport, Counts, ErrorInfo, Moved,
};
pub use outcome::{CronMixUp, ListedJob, Recreate};
pub use progress::{Note, Progress, Silent};
pub use review_union::UnionError;
pub(crate) use verify::VISIBILITY_WAITS;
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
    /// Options that re-plan the way `plan` was made (see `diff_options_for`).
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
pub(crate) fn diff_options_for(plan: &Plan) -> DiffOptions {
    DiffOptions {
        api_url: plan.api_url.clone(),
        allow_mass_changes: plan.options.allow_mass_changes,
        hosted_mode_wire_value: plan.options.hosted_mode_wire_value.clone(),
        ..DiffOptions::default()
    }
}

/// Applies `plan` (made from its embedded desired state) and verifies the result.
pub async fn apply(client: &WriteClient, plan: &Plan, opts: &ApplyOptions<'_>) -> ApplyReport {
    if plan.is_empty() {
        return ApplyReport::new(plan, ApplyResult::NoChanges, 0, Vec::new());
    }
    let (result, rounds) = rounds::drive(client, plan, opts).await;
    let interrupted = matches!(result, ApplyResult::Interrupted);
    let mut report = ApplyReport::new(plan, result, rounds.rounds_run, rounds.reports);
    report.changed_during_apply = rounds.moved;
    if let Some(dns) = opts
        .dns
        .as_ref()
        .filter(|d| !d.wait.is_zero() && !interrupted)
    {
        if !dns::expect::changed_rrsets(&rounds.written).is_empty() {
            opts.progress.note(&Note::CheckingDns { wait: dns.wait });
        }
        report.dns_check = Some(dns::live::check(&plan.desired, &rounds.written, dns).await);
    }
    opts.progress.close();
    report
}
