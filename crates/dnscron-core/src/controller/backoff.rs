//! How long the controller waits after a failed round: Flux's bounds, 750 ms doubling to 15
//! minutes, each wait drawn with jitter so that many controllers behind one failing API don't
//! retry in step, and reset by the first round that succeeds.

use std::time::Duration;

pub(crate) const FIRST_WAIT: Duration = Duration::from_millis(750);
pub const LONGEST_WAIT: Duration = Duration::from_secs(15 * 60);

/// Rounds failed in a row and the wait they earn.
#[derive(Clone, Debug, Default)]
pub(crate) struct Backoff {
    failures: u32,
}

impl Backoff {
    /// Rounds in a row that ended in an error (the unit tests read it).
    #[cfg(test)]
    pub(crate) fn failures(&self) -> u32 {
        self.failures
    }

    /// Counts one more failure and returns the wait before the next round: the bound for this
    /// many failures, scaled by `jitter` in `[0, 1)` into its upper half (never less than half
    /// the bound, never more than it).
    pub(crate) fn failed(&mut self, jitter: f64) -> Duration {
        self.failures = self.failures.saturating_add(1);
        let bound = bound(self.failures);
        bound.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }

    pub(crate) fn succeeded(&mut self) {
        self.failures = 0;
    }
}

/// The longest wait after `failures` failures in a row.
pub(super) fn bound(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(20);
    FIRST_WAIT
        .saturating_mul(1u32 << doublings)
        .min(LONGEST_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_from_750_ms_to_15_minutes_and_reset_on_success() {
        let bounds: Vec<u128> = (1..=12).map(|n| bound(n).as_millis()).collect();
        assert_eq!(
            bounds,
            [
                750, 1500, 3000, 6000, 12000, 24000, 48000, 96000, 192000, 384000, 768000, 900000
            ]
        );
        assert_eq!(bound(u32::MAX), LONGEST_WAIT);
        let mut backoff = Backoff::default();
        assert_eq!(backoff.failed(1.0), Duration::from_millis(750));
        assert_eq!(backoff.failed(0.0), Duration::from_millis(750));
        assert_eq!(backoff.failures(), 2);
        backoff.succeeded();
        assert_eq!(backoff.failures(), 0);
        assert_eq!(backoff.failed(0.5), Duration::from_micros(562_500));
    }
}
