//! What the emulator counts: requests per route, 429s, replays and injected faults.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Counters {
    /// API requests (under /api/v1), whatever their outcome.
    pub requests: u64,
    /// Keyed `METHOD /api/v1/route/{param}`; unmatched paths count under `unmatched`.
    pub per_route: BTreeMap<String, u64>,
    /// Keyed by status code.
    pub per_status: BTreeMap<u16, u64>,
    /// 429 answers, from the bucket and forced bursts together.
    pub rate_limited: u64,
    /// Idempotent replays (`Idempotent-Replayed: true`).
    pub replays: u64,
    pub idempotency_conflicts: u64,
    pub faults: FaultCounters,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct FaultCounters {
    /// Requests delayed by the latency setting.
    pub delayed: u64,
    /// Writes answered 502 before anything changed.
    pub upstream_errors: u64,
    /// Writes that committed and then lost their connection.
    pub dropped_after_commit: u64,
    /// 429s forced by a burst (also counted in `rate_limited`).
    pub forced_429: u64,
    /// Requests answered 503 during an outage.
    pub outage: u64,
}

impl Counters {
    pub fn route(&self, route: &str) -> u64 {
        self.per_route.get(route).copied().unwrap_or(0)
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "requests: {}", self.requests)?;
        for (route, n) in &self.per_route {
            writeln!(f, "  {route}: {n}")?;
        }
        let statuses: Vec<String> = self
            .per_status
            .iter()
            .map(|(s, n)| format!("{s}={n}"))
            .collect();
        writeln!(f, "statuses: {}", statuses.join(" "))?;
        writeln!(f, "rate limited (429): {}", self.rate_limited)?;
        writeln!(f, "idempotent replays: {}", self.replays)?;
        writeln!(f, "idempotency conflicts: {}", self.idempotency_conflicts)?;
        write!(
            f,
            "faults: delayed={} upstream_errors={} dropped_after_commit={} forced_429={}",
            self.faults.delayed,
            self.faults.upstream_errors,
            self.faults.dropped_after_commit,
            self.faults.forced_429
        )
    }
}
