//! Request statistics shared by every clone of a client (`plan --stats`, benchmarks, tests).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;

/// A shared handle; clones count into the same totals.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    inner: Arc<Mutex<StatsSnapshot>>,
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
    /// Total time spent waiting for the rate limit, across concurrent requests.
    pub rate_limit_wait: Duration,
}

impl Stats {
    pub fn snapshot(&self) -> StatsSnapshot {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, StatsSnapshot> {
        // A panic elsewhere can't leave counters inconsistent enough to matter.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn request(&self, route: &str) {
        *self.lock().requests.entry(route.to_string()).or_default() += 1;
    }

    pub(super) fn page(&self) {
        self.lock().pages += 1;
    }

    pub(super) fn retry(&self) {
        self.lock().retries += 1;
    }

    pub(super) fn rate_limited(&self) {
        self.lock().rate_limited += 1;
    }

    pub(super) fn replay(&self) {
        self.lock().replays += 1;
    }

    pub(super) fn waited(&self, wait: Duration) {
        self.lock().rate_limit_wait += wait;
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
}
