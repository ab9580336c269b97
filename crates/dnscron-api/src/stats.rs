//! Request statistics shared by every clone of a client (`plan --stats`, benchmarks, tests).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

/// A shared handle; clones count into the same totals.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    inner: Arc<Mutex<Counters>>,
}

#[derive(Debug, Default)]
struct Counters {
    snapshot: StatsSnapshot,
    waiting: WaitClock,
}

/// The wall-clock time during which at least one request waited for the rate limit: eight
/// workers waiting the same 5 s are 5 s of the run, not 40.
#[derive(Debug, Default)]
struct WaitClock {
    /// Requests waiting now.
    waiting: u32,
    /// When the current stretch with someone waiting began.
    since: Option<Instant>,
    /// Stretches already over.
    total: Duration,
}

impl WaitClock {
    fn begin(&mut self, at: Instant) {
        if self.waiting == 0 {
            self.since = Some(at);
        }
        self.waiting += 1;
    }

    fn end(&mut self, at: Instant) {
        self.waiting = self.waiting.saturating_sub(1);
        if self.waiting == 0
            && let Some(since) = self.since.take()
        {
            self.total += at.saturating_duration_since(since);
        }
    }

    /// Up to `now`, the current stretch included.
    fn total_at(&self, now: Instant) -> Duration {
        self.total
            + self
                .since
                .map_or(Duration::ZERO, |since| now.saturating_duration_since(since))
    }
}

/// One request's rate-limit wait, counted in the wall clock until dropped (a cancelled wait
/// ends too).
pub(super) struct Waiting {
    stats: Stats,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.stats.lock().waiting.end(Instant::now());
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StatsSnapshot {
    /// HTTP requests actually sent (every attempt), by route template (`GET /dns/{zone}/records`).
    pub requests: BTreeMap<String, u64>,
    /// List pages read.
    pub pages: u64,
    /// Attempts beyond the first, whatever the cause (including 429).
    pub retries: u64,
    /// 429 responses received.
    pub rate_limited: u64,
    /// Responses with `Idempotent-Replayed: true`.
    pub replays: u64,
    /// Time spent waiting for the rate limit, summed over concurrent requests (eight requests
    /// waiting the same second count eight).
    pub rate_limit_wait: Duration,
    /// Wall-clock time during which at least one request waited for the rate limit.
    pub rate_limit_wall: Duration,
}

impl Stats {
    pub fn snapshot(&self) -> StatsSnapshot {
        let counters = self.lock();
        StatsSnapshot {
            rate_limit_wall: counters.waiting.total_at(Instant::now()),
            ..counters.snapshot.clone()
        }
    }

    fn lock(&self) -> MutexGuard<'_, Counters> {
        // A panic elsewhere can't leave counters inconsistent enough to matter.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn request(&self, route: &str) {
        *self
            .lock()
            .snapshot
            .requests
            .entry(route.to_string())
            .or_default() += 1;
    }

    pub(super) fn page(&self) {
        self.lock().snapshot.pages += 1;
    }

    pub(super) fn retry(&self) {
        self.lock().snapshot.retries += 1;
    }

    pub(super) fn rate_limited(&self) {
        self.lock().snapshot.rate_limited += 1;
    }

    pub(super) fn replay(&self) {
        self.lock().snapshot.replays += 1;
    }

    /// A request starts waiting for the rate limit; the wait ends when the guard is dropped.
    pub(super) fn waiting(&self) -> Waiting {
        self.lock().waiting.begin(Instant::now());
        Waiting {
            stats: self.clone(),
        }
    }

    pub(super) fn waited(&self, wait: Duration) {
        self.lock().snapshot.rate_limit_wait += wait;
    }
}

impl StatsSnapshot {
    pub fn total_requests(&self) -> u64 {
        self.requests.values().sum()
    }

    /// Requests that were not GETs (plan must send none).
    pub fn non_get_requests(&self) -> u64 {
        self.requests
            .iter()
            .filter(|(route, _)| !route.starts_with("GET "))
            .map(|(_, n)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_counters() {
        let a = Stats::default();
        let b = a.clone();
        a.request("GET /dns/{zone}/records");
        b.request("GET /dns/{zone}/records");
        b.request("POST /dns/{zone}/records");
        a.page();
        b.retry();
        a.rate_limited();
        a.replay();
        b.waited(Duration::from_millis(1500));
        let s = a.snapshot();
        assert_eq!(s.total_requests(), 3);
        assert_eq!(s.non_get_requests(), 1);
        assert_eq!(
            (s.pages, s.retries, s.rate_limited, s.replays),
            (1, 1, 1, 1)
        );
        assert_eq!(s.rate_limit_wait, Duration::from_millis(1500));
    }

    /// Eight workers wait 5 s from t = 0 and one more 2 s from t = 10 s: 7 s of wall clock
    /// (42 s summed), and a wait still under way counts up to the moment asked.
    #[test]
    fn the_wall_clock_counts_overlapping_waits_once() {
        let t0 = Instant::now();
        let at = |secs: u64| t0 + Duration::from_secs(secs);
        let mut clock = WaitClock::default();
        for _ in 0..8 {
            clock.begin(at(0));
        }
        for worker in 0..8 {
            clock.end(at(if worker < 4 { 4 } else { 5 }));
        }
        assert_eq!(clock.total_at(at(9)), Duration::from_secs(5));
        clock.begin(at(10));
        assert_eq!(clock.total_at(at(11)), Duration::from_secs(6));
        clock.begin(at(11));
        clock.end(at(12));
        assert_eq!(clock.total_at(at(12)), Duration::from_secs(7));
        clock.end(at(12));
        assert_eq!(clock.total_at(at(30)), Duration::from_secs(7));
    }
}
