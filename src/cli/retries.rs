//! Every retry of the process, summed up: the log has a line per retry only with `-v`, and the
//! command ends (or reports its error) after one line that says how many requests were retried,
//! how often, why and over how long (docs/api-client.md, "Retries").

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dnscron_api::{RetryCause, RetryEvent, RetryHook};

use crate::render::retries::{RetrySummary, summary_line};

static TALLY: Mutex<Option<Tally>> = Mutex::new(None);

struct Tally {
    requests: BTreeSet<u64>,
    retries: u64,
    /// In the order first seen.
    causes: Vec<RetryCause>,
    first: Instant,
    /// When the latest retry's attempt was due (its pause over).
    last: Instant,
}

/// The hook every API client of the process reports its retries to.
pub(crate) fn hook() -> RetryHook {
    Arc::new(|event: &RetryEvent| record(event, Instant::now()))
}

fn record(event: &RetryEvent, now: Instant) {
    let mut tally = TALLY.lock().unwrap_or_else(|e| e.into_inner());
    let tally = tally.get_or_insert_with(|| Tally {
        requests: BTreeSet::new(),
        retries: 0,
        causes: Vec::new(),
        first: now,
        last: now,
    });
    tally.requests.insert(event.request);
    tally.retries += 1;
    if !tally.causes.contains(&event.cause) {
        tally.causes.push(event.cause);
    }
    tally.last = tally.last.max(now + event.delay);
}

/// What was retried so far, if anything; the tally starts again, so the summary goes out
/// once (a command that ends with a hint of its own logs it before the hint).
fn summary() -> Option<RetrySummary> {
    let mut tally = TALLY.lock().unwrap_or_else(|e| e.into_inner());
    tally.take().map(|t| RetrySummary {
        requests: t.requests.len() as u64,
        retries: t.retries,
        causes: t.causes,
        over: t.last.saturating_duration_since(t.first),
    })
}

/// Logs the one summary line (a warning: `-q` hides it, `--log-format json` makes it JSON).
pub(crate) fn log_summary() {
    if let Some(summary) = summary() {
        tracing::warn!("{}", summary_line(&summary));
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn requests_are_counted_once_and_causes_in_the_order_seen() {
        let t0 = Instant::now();
        let event = |request, cause, delay_ms| RetryEvent {
            request,
            cause,
            delay: Duration::from_millis(delay_ms),
        };
        record(&event(7, RetryCause::ConnectionRefused, 200), t0);
        record(
            &event(7, RetryCause::Status(503), 400),
            t0 + Duration::from_secs(1),
        );
        record(
            &event(9, RetryCause::ConnectionRefused, 300),
            t0 + Duration::from_secs(2),
        );
        let got = summary().unwrap_or_else(|| panic!("retries were recorded"));
        assert_eq!(got.requests, 2);
        assert_eq!(got.retries, 3);
        assert_eq!(
            got.causes,
            [RetryCause::ConnectionRefused, RetryCause::Status(503)]
        );
        assert_eq!(got.over, Duration::from_millis(2300));
        assert_eq!(summary(), None, "said once");
    }
}
