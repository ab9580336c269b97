//! When the next round is due: the requeue policy of the controller, in one place (as a
//! kube-rs reconciler returns its `Action`). After a failed round, the backoff (a revision's
//! own, when its writes failed); else the earliest of the next part of a sweep under way (at once when the budget has room), the next
//! sweep (an interval after the last ended, with jitter), and the turn of a revision that
//! waits (pending: the interval; failed: its own backoff). A new revision or SIGHUP starts a
//! round before any of these.

use std::time::Duration;

use tokio::time::Instant;

use super::report::{RoundOutcome, RoundReport, WaitReason, Work};
use super::round::{Controller, Until};

/// The loop waits this long, unless a new revision or a signal comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requeue {
    pub wait: Duration,
    pub reason: WaitReason,
}

/// Waits while the budget has no room for the next part of a sweep: short, so the part starts
/// soon after room frees, and a new revision is looked for meanwhile anyway.
const BUDGET_RECHECK: Duration = Duration::from_secs(5);

impl Controller {
    pub(super) fn requeue(&mut self, report: &RoundReport) -> Requeue {
        let now = Instant::now();
        if self.sweep_ended(report) {
            let jitter = 0.9 + 0.2 * fastrand::f64();
            self.sweep_due = now + self.settings.interval.mul_f64(jitter);
        }
        // A revision that failed waits for its own backoff (`Controller::retry_later`) while
        // the sweep goes on; any other failure (the folder, the account's reads) holds every
        // round back.
        let failed = matches!(report.outcome, RoundOutcome::Failed(_));
        match (failed, &report.work) {
            (true, Work::Applied { .. }) => {}
            (true, Work::Adopted | Work::Swept { .. } | Work::Nothing) => {
                return Requeue {
                    wait: self.backoff.failed(fastrand::f64()),
                    reason: WaitReason::Backoff,
                };
            }
            (false, _) => self.backoff.succeeded(),
        }
        let sweep = match (self.sweeping(), self.room_for_part()) {
            (true, true) => (Duration::ZERO, WaitReason::Budget),
            (true, false) => (BUDGET_RECHECK, WaitReason::Budget),
            (false, _) => (
                self.sweep_due.saturating_duration_since(now),
                WaitReason::Interval,
            ),
        };
        let turn = match &self.waiting {
            Some(waiting) => match waiting.until {
                Until::Due(due) => {
                    let reason = match waiting.failures {
                        0 => WaitReason::Interval,
                        _ => WaitReason::Backoff,
                    };
                    Some((due.saturating_duration_since(now), reason))
                }
                Until::Asked => None,
            },
            None => None,
        };
        let (wait, reason) = match turn {
            Some(turn) if turn.0 < sweep.0 => turn,
            Some(_) | None => sweep,
        };
        Requeue { wait, reason }
    }

    /// The round read the last part of a sweep.
    pub(super) fn sweep_ended(&self, report: &RoundReport) -> bool {
        matches!(report.work, Work::Swept { .. })
            && self.status.sweep_done >= self.status.sweep_total
    }
}
