//! `plan --stats`: the API requests a run sent, on stderr.

use std::fmt::Write as _;

use dnscron_api::StatsSnapshot;

/// Requests by route, then the totals, pages, retries, 429s, replays and time waited: the
/// wall-clock time some request waited for the rate limit (what the run lost to it), then the
/// sum over requests (concurrent waits each counted).
pub(crate) fn stats(s: &StatsSnapshot) -> String {
    let mut out = String::from("API requests by route:\n");
    let width = s.requests.keys().map(String::len).max().unwrap_or(0);
    for (route, n) in &s.requests {
        let _ = writeln!(out, "  {route:<width$}  {n}");
    }
    let _ = writeln!(
        out,
        "requests: {}, pages: {}, retries: {}, 429s: {}, replays: {}, rate-limit wait: {:.1}s \
         of wall clock ({:.1}s summed over the requests that waited)",
        s.total_requests(),
        s.pages,
        s.retries,
        s.rate_limited,
        s.replays,
        s.rate_limit_wall.as_secs_f64(),
        s.rate_limit_wait.as_secs_f64()
    );
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;

    #[test]
    fn routes_aligned_then_the_totals() {
        let s = StatsSnapshot {
            requests: BTreeMap::from([
                ("GET /dns/{zone}/records".to_string(), 2),
                ("POST /dns/{zone}/records".to_string(), 1),
            ]),
            pages: 1,
            retries: 1,
            rate_limited: 1,
            replays: 1,
            rate_limit_wait: Duration::from_millis(12_000),
            rate_limit_wall: Duration::from_millis(1500),
        };
        assert_eq!(
            stats(&s),
            "API requests by route:\n  GET /dns/{zone}/records   2\n  POST /dns/{zone}/records  1\n\
             requests: 3, pages: 1, retries: 1, 429s: 1, replays: 1, rate-limit wait: 1.5s of wall \
             clock (12.0s summed over the requests that waited)\n"
        );
    }
}
