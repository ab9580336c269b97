//! A share of the API's bucket for a long-running client (the controller): at most `limit`
//! requests in any rolling minute, so the user's other jobs (a pull request's plan, a CI apply)
//! find the rest of the bucket whatever this client does. A window of send times, not a second
//! token bucket: a bucket of depth N refilling N a minute lets 2N through in a minute (a full
//! burst, then a minute's refill), which is twice the share promised.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// The window every share is counted over.
pub(super) const WINDOW: Duration = Duration::from_secs(60);

/// The most requests a client may send in any rolling minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub per_minute: u32,
}

impl Budget {
    /// `percent` of a bucket of `limit_per_minute` (the spec's 120), at least one request.
    pub fn share(percent: u8, limit_per_minute: u32) -> Budget {
        let per_minute = u64::from(limit_per_minute) * u64::from(percent.min(100)) / 100;
        Budget {
            per_minute: u32::try_from(per_minute).unwrap_or(u32::MAX).max(1),
        }
    }
}

/// The send times still inside the window.
#[derive(Debug)]
pub(super) struct Window {
    budget: Budget,
    sent: VecDeque<Instant>,
}

impl Window {
    pub(super) fn new(budget: Budget) -> Window {
        Window {
            budget,
            sent: VecDeque::new(),
        }
    }

    fn forget_before(&mut self, now: Instant) {
        while let Some(first) = self.sent.front() {
            if now.saturating_duration_since(*first) < WINDOW {
                break;
            }
            self.sent.pop_front();
        }
    }

    /// How long until one more request fits (zero: now).
    pub(super) fn wait(&mut self, now: Instant) -> Duration {
        self.forget_before(now);
        if self.sent.len() < self.budget.per_minute as usize {
            return Duration::ZERO;
        }
        match self.sent.front() {
            Some(first) => (*first + WINDOW).saturating_duration_since(now),
            None => Duration::ZERO,
        }
    }

    pub(super) fn budget(&self) -> Budget {
        self.budget
    }

    pub(super) fn record(&mut self, now: Instant) {
        self.sent.push_back(now);
    }

    /// Requests that could be sent now without waiting.
    pub(super) fn room(&mut self, now: Instant) -> u32 {
        self.forget_before(now);
        let used = u32::try_from(self.sent.len()).unwrap_or(u32::MAX);
        self.budget.per_minute.saturating_sub(used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_a_percentage_of_the_bucket_and_never_nothing() {
        assert_eq!(Budget::share(50, 120).per_minute, 60);
        assert_eq!(Budget::share(100, 120).per_minute, 120);
        assert_eq!(Budget::share(0, 120).per_minute, 1);
        assert_eq!(Budget::share(250, 120).per_minute, 120);
    }

    /// A burst of the whole share at once, then nothing until the first of them is a minute
    /// old: never more than the share in any 60 s.
    #[test]
    fn the_window_holds_the_share_over_any_rolling_minute() {
        let t0 = Instant::now();
        let mut window = Window::new(Budget { per_minute: 3 });
        for _ in 0..3 {
            assert_eq!(window.wait(t0), Duration::ZERO);
            window.record(t0);
        }
        assert_eq!(window.room(t0), 0);
        // The refused form: a fourth request waits until the first leaves the window.
        let later = t0 + Duration::from_secs(20);
        assert_eq!(window.wait(later), Duration::from_secs(40));
        let minute = t0 + WINDOW;
        assert_eq!(window.wait(minute), Duration::ZERO);
        assert_eq!(window.room(minute), 3);
    }
}
