//! Every retry of the process, summed up: the log has a line per retry only with `-v`, and the
//! command ends (or reports its error) after one line that says how many requests were retried,
//! how often, why and over how long (docs/api-client.md, "Retries").

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dnscron_api::{RetryCause, RetryEvent, RetryHook};

use crate::render::retries::{RetrySummary, summary_line};

/// Each client's tally, in the order first seen: the flags' client (`None`) or an account's, so
/// a summary over several accounts says whose requests were retried (and request ids, which
/// each client numbers from 1, are never counted together).
static TALLIES: Mutex<Vec<(Option<String>, Tally)>> = Mutex::new(Vec::new());

struct Tally {
    requests: BTreeSet<u64>,
    retries: u64,
    /// In the order first seen.
    causes: Vec<RetryCause>,
    first: Instant,
    /// When the latest retry's attempt was due (its pause over).
    last: Instant,
}

/// The hook the flags' API client reports its retries to.
pub(crate) fn hook() -> RetryHook {
    hook_of(None)
}

/// The hook of account `name`'s client, in a repository of several.
pub(crate) fn account_hook(name: &str) -> RetryHook {
    hook_of(Some(name.to_owned()))
}

fn hook_of(whose: Option<String>) -> RetryHook {
    Arc::new(move |event: &RetryEvent| record(whose.as_deref(), event, Instant::now()))
}

fn record(whose: Option<&str>, event: &RetryEvent, now: Instant) {
    let mut tallies = TALLIES.lock().unwrap_or_else(|e| e.into_inner());
    let index = match tallies.iter().position(|(w, _)| w.as_deref() == whose) {
        Some(index) => index,
        None => {
            let tally = Tally {
                requests: BTreeSet::new(),
                retries: 0,
                causes: Vec::new(),
                first: now,
                last: now,
            };
            tallies.push((whose.map(str::to_owned), tally));
            tallies.len() - 1
        }
    };
    let tally = &mut tallies[index].1;
    tally.requests.insert(event.request);
    tally.retries += 1;
    if !tally.causes.contains(&event.cause) {
        tally.causes.push(event.cause);
    }
    tally.last = tally.last.max(now + event.delay);
}

/// What each client retried so far, if anything; the tallies start again, so each summary goes
/// out once (a command that ends with a hint of its own logs them before the hint).
fn summaries() -> Vec<(Option<String>, RetrySummary)> {
    let mut tallies = TALLIES.lock().unwrap_or_else(|e| e.into_inner());
    std::mem::take(&mut *tallies)
        .into_iter()
        .map(|(whose, t)| {
            let summary = RetrySummary {
                requests: t.requests.len() as u64,
                retries: t.retries,
                causes: t.causes,
                over: t.last.saturating_duration_since(t.first),
            };
            (whose, summary)
        })
        .collect()
}

/// Logs one summary line per client that retried (a warning: `-q` hides it, `--log-format json`
/// makes it JSON), an account's named.
pub(crate) fn log_summary() {
    for (whose, summary) in summaries() {
        match whose {
            Some(name) => tracing::warn!("account {name}: {}", summary_line(&summary)),
            None => tracing::warn!("{}", summary_line(&summary)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn requests_are_counted_once_per_client_and_causes_in_the_order_seen() {
        let t0 = Instant::now();
        let event = |request, cause, delay_ms| RetryEvent {
            request,
            cause,
            delay: Duration::from_millis(delay_ms),
        };
        record(None, &event(7, RetryCause::ConnectionRefused, 200), t0);
        record(
            None,
            &event(7, RetryCause::Status(503), 400),
            t0 + Duration::from_secs(1),
        );
        record(
            None,
            &event(9, RetryCause::ConnectionRefused, 300),
            t0 + Duration::from_secs(2),
        );
        // Another account's client numbers its requests from 1 too: its 7 is another request.
        record(Some("shop"), &event(7, RetryCause::Status(429), 100), t0);
        let got = summaries();
        let whose: Vec<Option<&str>> = got.iter().map(|(w, _)| w.as_deref()).collect();
        assert_eq!(whose, [None, Some("shop")]);
        let (_, flags) = &got[0];
        assert_eq!(flags.requests, 2);
        assert_eq!(flags.retries, 3);
        assert_eq!(
            flags.causes,
            [RetryCause::ConnectionRefused, RetryCause::Status(503)]
        );
        assert_eq!(flags.over, Duration::from_millis(2300));
        let (_, shop) = &got[1];
        assert_eq!((shop.requests, shop.retries), (1, 1));
        assert!(summaries().is_empty(), "said once");
    }
}
