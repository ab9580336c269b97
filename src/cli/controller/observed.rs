//! The core's rounds, conditions and waits as metrics (the names are `metrics::METRIC_NAMES`).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use dnscron_core::controller::{
    KeptOutReason, Pending, Revision, RevisionSource, RoundOutcome, RoundReport, Status, Trigger,
    WaitReason,
};
use dnscron_core::plan::{Severity, TargetKind};

use super::metrics::{self, DriftKind, Metrics};

pub(crate) fn round(metrics: &Metrics, report: &RoundReport, status: &Status) {
    metrics.round_finished(report.outcome.name(), report.duration);
    if !matches!(report.outcome, RoundOutcome::Failed(_)) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        metrics.succeeded_at(now.as_secs_f64());
    }
    // Under observe nothing is applied: the revision shown is the one the files are at.
    if let Some(converged) = status.converged.as_ref().or(status.revision.as_ref()) {
        metrics.set_revision(&converged.id, source(converged));
    }
    if let Some(desired) = desired(status) {
        metrics.set_desired_revision(&desired.id, source(desired));
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
    let (portal_step, nameservers) = match &status.pending {
        Some(Pending::PortalStep { .. }) => (true, false),
        Some(Pending::Nameservers) => (false, true),
        None => (false, false),
    };
    metrics.set_pending_portal_step(portal_step);
    metrics.set_pending_nameservers(nameservers);
    kept_out(metrics, status);
}

/// Why the folder's newest revision is not the one applied, as `/status` says it
/// (`broken_revision`, `kept_out.reason`): each reason's series is 1 while it holds.
fn kept_out(metrics: &Metrics, status: &Status) {
    metrics.set_kept_out(metrics::BROKEN, status.broken.is_some());
    let kept_out = status.kept_out.as_ref().map(|k| k.reason);
    for reason in KeptOutReason::ALL {
        metrics.set_kept_out(reason.name(), kept_out == Some(reason));
    }
}

fn source(revision: &Revision) -> metrics::RevisionSource {
    match revision.source {
        RevisionSource::Git => metrics::RevisionSource::Git,
        RevisionSource::Digest => metrics::RevisionSource::Digest,
    }
}

/// The revision the folder holds now: a broken one is newer than the last that loaded.
fn desired(status: &Status) -> Option<&Revision> {
    status
        .broken
        .as_ref()
        .map(|b| &b.revision)
        .or(status.revision.as_ref())
}

/// How long revisions take to go live: when each revision not yet converged was first read.
///
/// The clock starts at the round that first read the revision, which the probe of DIR starts
/// within a second of the swap; not at the commit's time. That time is the committer's clock
/// (hours before the merge after a fast-forward push), and the image has no git to read it from
/// a shallow clone's pack; git-sync's own metrics show how long the fetch took. A revision first
/// read by the first round of the process is not measured: it was committed before the process
/// started, so no start time of ours means anything for it.
#[derive(Debug, Default)]
pub(crate) struct Latency {
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    /// Each revision read and not yet converged, with the start of the round that first read
    /// it (`None`: read by the first round of the process).
    first_read: BTreeMap<String, Option<Instant>>,
    converged: Option<String>,
}

/// More revisions than this read and never converged (each superseded by the next) are
/// forgotten, by id order: the map stays small whatever the repository does.
const REMEMBERED: usize = 32;

impl Latency {
    /// After each round: `now` is when it finished.
    pub(crate) fn round(
        &self,
        metrics: &Metrics,
        report: &RoundReport,
        status: &Status,
        now: Instant,
    ) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let started = now.checked_sub(report.duration).unwrap_or(now);
        if let Some(desired) = desired(status) {
            let first = match report.trigger {
                Trigger::Start => None,
                Trigger::Interval
                | Trigger::Revision
                | Trigger::Signal
                | Trigger::SuspendFile
                | Trigger::Retry => Some(started),
            };
            if seen.converged.as_deref() != Some(desired.id.as_str()) {
                seen.first_read.entry(desired.id.clone()).or_insert(first);
            }
        }
        let converged = status.converged.as_ref().map(|r| r.id.clone());
        if converged.is_some() && converged != seen.converged {
            let id = converged.clone().unwrap_or_default();
            if let Some(Some(first)) = seen.first_read.get(&id) {
                metrics.revision_live(now.saturating_duration_since(*first));
            }
            seen.first_read.remove(&id);
            seen.converged = converged;
        }
        while seen.first_read.len() > REMEMBERED {
            seen.first_read.pop_first();
        }
    }
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

pub(crate) fn waiting(metrics: &Metrics, wait: Duration, reason: WaitReason, failures: u32) {
    let next = match reason {
        WaitReason::Backoff => wait,
        WaitReason::Interval | WaitReason::Budget => Duration::ZERO,
    };
    metrics.set_backoff(u64::from(failures), next);
}

#[cfg(test)]
mod tests {
    use dnscron_core::controller::Work;

    use super::*;

    fn revision(id: &str) -> Revision {
        Revision {
            id: id.to_owned(),
            source: RevisionSource::Git,
        }
    }

    fn status(files: &str, converged: Option<&str>) -> Status {
        Status {
            revision: Some(revision(files)),
            converged: converged.map(revision),
            ..Status::default()
        }
    }

    fn report(trigger: Trigger, duration: Duration) -> RoundReport {
        RoundReport {
            trigger,
            work: Work::Nothing,
            outcome: RoundOutcome::Converged,
            duration,
            finished_at: "2026-01-02T03:04:05Z".to_owned(),
        }
    }

    /// The histogram's `_count` and `_sum` samples.
    fn observed(metrics: &Metrics) -> (String, String) {
        let exposition = metrics.encode();
        let sample = |name: &str| {
            exposition
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        (
            sample("dnscron_controller_revision_live_seconds_count"),
            sample("dnscron_controller_revision_live_seconds_sum"),
        )
    }

    #[test]
    fn a_revision_is_measured_from_the_round_that_first_read_it_to_its_converge() {
        let (metrics, latency) = (Metrics::new(), Latency::default());
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        // The first round of the process: the state file's revision, not measured.
        latency.round(
            &metrics,
            &report(Trigger::Start, ms(5)),
            &status("a", Some("a")),
            t0,
        );
        // B read by a round that began 2 ms before t0 + 10 s, and waiting (a portal step).
        let waiting = status("b", Some("a"));
        latency.round(
            &metrics,
            &report(Trigger::Revision, ms(2)),
            &waiting,
            t0 + ms(10_000),
        );
        latency.round(
            &metrics,
            &report(Trigger::Interval, ms(3)),
            &waiting,
            t0 + ms(12_000),
        );
        assert_eq!(observed(&metrics), ("0".to_owned(), "0.0".to_owned()));
        latency.round(
            &metrics,
            &report(Trigger::Signal, ms(4)),
            &status("b", Some("b")),
            t0 + ms(15_000),
        );
        assert_eq!(observed(&metrics), ("1".to_owned(), "5.002".to_owned()));
        // A round that converges nothing new observes nothing more.
        latency.round(
            &metrics,
            &report(Trigger::Interval, ms(4)),
            &status("b", Some("b")),
            t0 + ms(16_000),
        );
        assert_eq!(observed(&metrics).0, "1");
    }

    #[test]
    fn a_revision_first_read_when_the_process_started_is_not_measured() {
        let (metrics, latency) = (Metrics::new(), Latency::default());
        let t0 = Instant::now();
        // Merged while the pod was down: read by the first round, applied by a retry.
        latency.round(
            &metrics,
            &report(Trigger::Start, Duration::from_millis(5)),
            &status("b", Some("a")),
            t0,
        );
        latency.round(
            &metrics,
            &report(Trigger::Retry, Duration::from_millis(5)),
            &status("b", Some("b")),
            t0 + Duration::from_secs(2),
        );
        assert_eq!(observed(&metrics).0, "0");
    }

    fn kept_out_gauge(metrics: &Metrics) -> Vec<String> {
        info(metrics, "dnscron_controller_revision_kept_out")
    }

    /// The gauge says what `/status` says: `broken_revision`, and `kept_out` with its reason,
    /// a conflicted revision included.
    #[test]
    fn the_kept_out_gauge_follows_the_status() {
        let metrics = Metrics::new();
        let report = report(Trigger::Revision, Duration::from_millis(3));
        let kept = |reason| Status {
            kept_out: Some(dnscron_core::controller::KeptOut {
                revision: revision("bbbb"),
                reason,
            }),
            broken: Some(dnscron_core::controller::Broken {
                revision: revision("cccc"),
                diagnostics: Box::default(),
            }),
            ..status("bbbb", Some("aaaa"))
        };
        round(&metrics, &report, &kept(KeptOutReason::Conflicted));
        assert_eq!(
            kept_out_gauge(&metrics),
            [
                "dnscron_controller_revision_kept_out{reason=\"broken\"} 1",
                "dnscron_controller_revision_kept_out{reason=\"conflicted\"} 1",
                "dnscron_controller_revision_kept_out{reason=\"held\"} 0",
                "dnscron_controller_revision_kept_out{reason=\"refused\"} 0",
            ]
        );
        round(&metrics, &report, &kept(KeptOutReason::Held));
        assert_eq!(
            kept_out_gauge(&metrics)[1..],
            [
                "dnscron_controller_revision_kept_out{reason=\"conflicted\"} 0",
                "dnscron_controller_revision_kept_out{reason=\"held\"} 1",
                "dnscron_controller_revision_kept_out{reason=\"refused\"} 0",
            ]
        );
        // Settled: the next revision converged.
        round(&metrics, &report, &status("dddd", Some("dddd")));
        assert!(
            kept_out_gauge(&metrics).iter().all(|l| l.ends_with(" 0")),
            "{:?}",
            kept_out_gauge(&metrics)
        );
    }

    /// The outcome and trigger labels are the names `/status` and the webhook use.
    #[test]
    fn outcomes_and_triggers_are_counted_by_the_cores_names() {
        let metrics = Metrics::new();
        metrics.round_started(Trigger::SuspendFile.name());
        let baseline = RoundReport {
            outcome: RoundOutcome::Baseline,
            ..report(Trigger::Start, Duration::from_millis(1))
        };
        round(&metrics, &baseline, &status("aaaa", None));
        let conflicted = RoundReport {
            outcome: RoundOutcome::Conflicted,
            ..report(Trigger::Revision, Duration::from_millis(1))
        };
        round(&metrics, &conflicted, &status("bbbb", Some("aaaa")));
        let counted: Vec<String> = info(&metrics, "dnscron_controller_rounds_total")
            .into_iter()
            .filter(|l| l.ends_with(" 1"))
            .collect();
        assert_eq!(
            counted,
            [
                "dnscron_controller_rounds_total{outcome=\"baseline\"} 1",
                "dnscron_controller_rounds_total{outcome=\"conflicted\"} 1",
            ]
        );
        let outcomes: Vec<String> = info(&metrics, "dnscron_controller_rounds_total")
            .iter()
            .filter_map(|l| l.split('"').nth(1).map(str::to_owned))
            .collect();
        let mut names = RoundOutcome::NAMES.map(str::to_owned).to_vec();
        names.sort();
        assert_eq!(outcomes, names);
        assert!(
            info(&metrics, "dnscron_controller_round_triggers_total").contains(
                &"dnscron_controller_round_triggers_total{trigger=\"suspend_file\"} 1".to_owned()
            )
        );
    }

    fn info(metrics: &Metrics, family: &str) -> Vec<String> {
        metrics
            .encode()
            .lines()
            .filter(|l| l.starts_with(&format!("{family}{{")))
            .map(str::to_owned)
            .collect()
    }

    /// The checked-out revision beside the applied one: the folder's newest, a broken one
    /// included, while the applied one stays the last converged.
    #[test]
    fn the_desired_revision_is_the_folders_newest_even_broken() {
        let metrics = Metrics::new();
        let report = RoundReport {
            trigger: Trigger::Revision,
            work: Work::Nothing,
            outcome: RoundOutcome::Converged,
            duration: Duration::from_millis(3),
            finished_at: "2026-01-02T03:04:05Z".to_owned(),
        };
        let status = Status {
            revision: Some(revision("aaaa")),
            converged: Some(revision("aaaa")),
            broken: Some(dnscron_core::controller::Broken {
                revision: revision("bbbb"),
                diagnostics: Box::default(),
            }),
            ..Status::default()
        };
        round(&metrics, &report, &status);
        assert_eq!(
            info(&metrics, "dnscron_controller_desired_revision_info"),
            ["dnscron_controller_desired_revision_info{revision=\"bbbb\",source=\"git\"} 1"]
        );
        assert_eq!(
            info(&metrics, "dnscron_controller_revision_info"),
            ["dnscron_controller_revision_info{revision=\"aaaa\",source=\"git\"} 1"]
        );
        // Fixed: the newest loads, and is the one desired.
        let fixed = Status {
            revision: Some(revision("cccc")),
            converged: Some(revision("aaaa")),
            ..Status::default()
        };
        round(&metrics, &report, &fixed);
        assert_eq!(
            info(&metrics, "dnscron_controller_desired_revision_info"),
            ["dnscron_controller_desired_revision_info{revision=\"cccc\",source=\"git\"} 1"]
        );
    }
}
