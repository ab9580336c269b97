//! The controller's loop (docs/controller.md, "How it runs"): round after round until told to
//! stop. Between rounds it waits for the first of: a new revision in the folder (looked at every
//! `poll`), a request for a round (SIGHUP), the interval, the backoff after a failure, or room
//! in the API budget for the next part of a sweep. Nothing the API or the files do ends it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::Notify;

use super::alerts::{Alerts, about};
use super::report::{
    AlertKind, Event, KeptOutReason, RoundError, RoundOutcome, RoundReport, Trigger, WaitReason,
};
use super::requeue::Requeue;
use super::round::Controller;

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Told to stop (the write in flight, if any, finished first).
    Stopped,
    /// `once`: one revision round if one was due, then one whole sweep.
    Once(OnceOutcome),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnceOutcome {
    /// Nothing differs and no unaccepted error finding is left.
    Converged,
    /// Drift, a revision not applied, or unaccepted error findings are left.
    Left,
    /// A round failed.
    Failed,
}

impl Controller {
    /// Runs rounds until `interrupt` (see [`Controller::interrupt`]) is raised, or with `once`
    /// until one whole sweep is done. `round_now` asks for a round at once. Every round, wait
    /// and alert is told to `observe`.
    pub async fn run(
        mut self,
        once: bool,
        round_now: &Notify,
        observe: &(dyn Fn(Event<'_>) + Send + Sync),
    ) -> RunEnd {
        let mut alerts = Alerts::default();
        let mut trigger = Trigger::Start;
        loop {
            if self.interrupt.is_raised() {
                return RunEnd::Stopped;
            }
            observe(Event::RoundStarted { trigger });
            let Some((report, requeue)) = self.round_unless_stopped(trigger).await else {
                return RunEnd::Stopped;
            };
            if self.interrupt.is_raised() {
                // A round the stop cut short is said, but raises no condition: the stop is the
                // expected end, not a failure to tell a chat channel about.
                observe(Event::RoundFinished {
                    report: &report,
                    status: &self.status,
                });
                return RunEnd::Stopped;
            }
            self.tell(&report, &mut alerts, observe);
            let failed = matches!(report.outcome, RoundOutcome::Failed(_));
            if once && (failed || self.status.sweeps > 0) {
                return RunEnd::Once(self.once_outcome(failed));
            }
            let Requeue { wait, reason } = requeue;
            observe(Event::Waiting { wait, reason });
            trigger = match self.wait(wait, reason, round_now).await {
                Some(trigger) => trigger,
                None => return RunEnd::Stopped,
            };
        }
    }

    /// A round; dropped (nothing sent) when a stop comes before its writes begin, finished
    /// when they have (the executor stops after the change in flight).
    async fn round_unless_stopped(&mut self, trigger: Trigger) -> Option<(RoundReport, Requeue)> {
        let interrupt = self.interrupt();
        let writing = std::sync::Arc::clone(&self.writing);
        let stop_before_writing = async {
            interrupt.raised().await;
            if writing.load(Ordering::SeqCst) {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            report = self.round(trigger) => Some(report),
            () = stop_before_writing => None,
        }
    }

    fn tell(
        &mut self,
        report: &RoundReport,
        alerts: &mut Alerts,
        observe: &(dyn Fn(Event<'_>) + Send + Sync),
    ) {
        observe(Event::RoundFinished {
            report,
            status: &self.status,
        });
        for (kind, about) in self.conditions(report) {
            if let Some(transition) = alerts.set(kind, about) {
                observe(Event::Alert {
                    kind,
                    transition,
                    status: &self.status,
                    report,
                });
            }
        }
    }

    /// Each condition's state after `report`. Drift and findings are judged only when a sweep
    /// has just ended: they are about the whole account.
    fn conditions(&self, report: &RoundReport) -> Vec<(AlertKind, Option<u64>)> {
        let status = &self.status;
        let kept_out = |reason: KeptOutReason| {
            status
                .kept_out
                .as_ref()
                .filter(|k| k.reason == reason)
                .map(|k| about(&k.revision.id))
        };
        let mut out = vec![
            (
                AlertKind::Failing,
                // Told again when the kind of failure changes, not for every new request id. A
                // revision that does not load is told as such, once (`BrokenRevision`).
                match &report.outcome {
                    RoundOutcome::Failed(RoundError::Files { .. }) => None,
                    RoundOutcome::Failed(error) => Some(about(error.kind())),
                    RoundOutcome::Converged
                    | RoundOutcome::Drift
                    | RoundOutcome::Baseline
                    | RoundOutcome::Pending(_)
                    | RoundOutcome::Held(_)
                    | RoundOutcome::Refused(_)
                    | RoundOutcome::Conflicted => None,
                },
            ),
            (
                AlertKind::BrokenRevision,
                status.broken.as_ref().map(|b| about(&b.revision.id)),
            ),
            (
                AlertKind::Pending,
                status.pending.as_ref().map(|p| about(format!("{p:?}"))),
            ),
            (AlertKind::Suspended, status.suspended.then_some(0)),
            (AlertKind::Held, kept_out(KeptOutReason::Held)),
            (AlertKind::Refused, kept_out(KeptOutReason::Refused)),
            (AlertKind::Conflicted, kept_out(KeptOutReason::Conflicted)),
        ];
        if self.sweep_ended(report) {
            let drift: Vec<String> = status
                .drift
                .iter()
                .flat_map(|(t, changes)| changes.iter().map(move |c| format!("{t} {c:?}")))
                .collect();
            out.push((AlertKind::Drift, (!drift.is_empty()).then(|| about(&drift))));
            let errors: Vec<String> = status
                .open_findings()
                .filter(|f| f.severity == crate::plan::Severity::Error)
                .map(|f| format!("{:?} {} {}", f.code, f.target, f.message))
                .collect();
            out.push((
                AlertKind::Findings,
                (!errors.is_empty()).then(|| about(&errors)),
            ));
        }
        out
    }

    fn once_outcome(&self, failed: bool) -> OnceOutcome {
        let errors = self
            .status
            .open_findings()
            .any(|f| f.severity == crate::plan::Severity::Error);
        let applied = self.status.converged == self.status.revision || !self.mode_writes();
        if failed {
            OnceOutcome::Failed
        } else if self.status.drift.is_empty()
            && self.status.unapplied.is_empty()
            && self.status.broken.is_none()
            && !errors
            && applied
        {
            OnceOutcome::Converged
        } else {
            OnceOutcome::Left
        }
    }

    fn mode_writes(&self) -> bool {
        match self.mode {
            super::round::Mode::Observe(_) => false,
            super::round::Mode::ApplyMerged(_) | super::round::Mode::Heal(_) => true,
        }
    }

    /// Waits up to `wait`; `None` when told to stop.
    async fn wait(
        &self,
        wait: Duration,
        reason: WaitReason,
        round_now: &Notify,
    ) -> Option<Trigger> {
        let deadline = tokio::time::Instant::now() + wait;
        let when_due = match reason {
            WaitReason::Backoff => Trigger::Retry,
            WaitReason::Interval | WaitReason::Budget => Trigger::Interval,
        };
        loop {
            if self.folder_moved() {
                return Some(Trigger::Revision);
            }
            // Removing the file resumes writes within a poll, not an interval later.
            if self.suspended() != self.status.suspended {
                return Some(Trigger::SuspendFile);
            }
            let tick = (tokio::time::Instant::now() + self.settings.poll).min(deadline);
            tokio::select! {
                () = self.interrupt.raised() => return None,
                () = round_now.notified() => return Some(Trigger::Signal),
                () = tokio::time::sleep_until(tick) => {
                    if tokio::time::Instant::now() >= deadline {
                        return Some(when_due);
                    }
                }
            }
        }
    }
}
