//! The core's rounds and waits as metrics (the names are `metrics::METRIC_NAMES`).

use std::time::Duration;

use dnscron_core::controller::{
    Pending, RevisionSource, RoundOutcome, RoundReport, Status, Trigger, WaitReason,
};
use dnscron_core::plan::{Severity, TargetKind};

use super::metrics::{self, DriftKind, Metrics};

pub fn trigger(trigger: Trigger) -> metrics::Trigger {
    match trigger {
        Trigger::Start => metrics::Trigger::Start,
        Trigger::Interval => metrics::Trigger::Interval,
        Trigger::Revision => metrics::Trigger::Revision,
        // Until the metric has a label of its own: someone asked, through the file.
        Trigger::Signal | Trigger::SuspendFile => metrics::Trigger::Signal,
        Trigger::Retry => metrics::Trigger::Retry,
    }
}

fn outcome(outcome: &RoundOutcome) -> metrics::RoundOutcome {
    match outcome {
        RoundOutcome::Converged => metrics::RoundOutcome::Converged,
        RoundOutcome::Drift => metrics::RoundOutcome::Drift,
        // A base taken is no proof of anything in effect; until the metric has a label of its
        // own (`RoundOutcome::name`), it counts with the rounds that left something to do.
        RoundOutcome::Baseline => metrics::RoundOutcome::Drift,
        RoundOutcome::Pending(_) => metrics::RoundOutcome::Pending,
        // A refused mass change, or a conflicted revision, is kept out like a held one.
        RoundOutcome::Held(_) | RoundOutcome::Refused(_) | RoundOutcome::Conflicted => {
            metrics::RoundOutcome::Held
        }
        RoundOutcome::Failed(_) => metrics::RoundOutcome::Error,
    }
}

pub fn round(metrics: &Metrics, report: &RoundReport, status: &Status) {
    metrics.round_finished(outcome(&report.outcome), report.duration);
    if !matches!(report.outcome, RoundOutcome::Failed(_)) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        metrics.succeeded_at(now.as_secs_f64());
    }
    // Under observe nothing is applied: the revision shown is the one the files are at.
    if let Some(converged) = status.converged.as_ref().or(status.revision.as_ref()) {
        let source = match converged.source {
            RevisionSource::Git => metrics::RevisionSource::Git,
            RevisionSource::Digest => metrics::RevisionSource::Digest,
        };
        metrics.set_revision(&converged.id, source);
    }
    metrics.set_drift(&drift(status));
    let (mut errors, mut warnings, mut infos) = (0, 0, 0);
    for finding in status.open_findings() {
        let count = match finding.severity {
            Severity::Error => &mut errors,
            Severity::Warning | Severity::Blocked | Severity::NeedsPortalStep => &mut warnings,
            Severity::Info => &mut infos,
        };
        *count += 1;
    }
    metrics.set_findings(errors, warnings, infos);
    metrics.set_suspended(status.suspended);
    metrics.set_sweep_progress(status.sweep_done, status.sweep_total);
    metrics.set_pending_portal_step(matches!(status.pending, Some(Pending::PortalStep { .. })));
}

/// Pending drift by target and kind: a zone's records, a domain's nameservers, a site's cron
/// jobs, and what the account holds that no file declares.
fn drift(status: &Status) -> Vec<(String, DriftKind, u64)> {
    let mut out: Vec<(String, DriftKind, u64)> = status
        .drift
        .iter()
        .map(|(target, changes)| {
            let kind = match target.kind {
                TargetKind::Zone => DriftKind::Record,
                TargetKind::Domain => DriftKind::Nameservers,
                TargetKind::Site => DriftKind::Cron,
            };
            (target.name.clone(), kind, changes.len() as u64)
        })
        .collect();
    for finding in &status.account_findings {
        if finding.code.is_undeclared() && finding.accepted.is_none() {
            out.push((finding.target.name.clone(), DriftKind::Undeclared, 1));
        }
    }
    out
}

pub fn waiting(metrics: &Metrics, wait: Duration, reason: WaitReason, failures: u32) {
    let next = match reason {
        WaitReason::Backoff => wait,
        WaitReason::Interval | WaitReason::Budget => Duration::ZERO,
    };
    metrics.set_backoff(u64::from(failures), next);
}
