//! Which failures are retried, and how long to back off between attempts.

use std::time::Duration;

use reqwest::header::HeaderMap;

use super::answer::header_str;
use super::pacer::RateHeaders;
use super::payload::headers as h;

/// The log target of the line each retry gets: the binary shows those lines only when asked
/// (it sums retries up from [`RetryEvent`]s otherwise).
pub const LOG_TARGET: &str = "dnscron_api::retry";

/// Retry-After assumed for a 429 that doesn't say.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);
const MAX_RETRY_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// Bounded, jittered exponential backoff. 429s are paced by their Retry-After instead and
/// counted separately (another client of the same user can cause several in a row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total for network errors, timeouts and retryable 5xx (first one included).
    pub max_attempts: u32,
    /// 429 responses tolerated for one request before giving up.
    pub max_rate_limited: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            max_rate_limited: 20,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    /// Delay before retry number `retry` (1-based): `base · 2^(retry-1)`, capped, then a
    /// uniformly random point in its upper half so concurrent clients don't retry in lockstep.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        let full = self.base_delay.saturating_mul(factor).min(self.max_delay);
        full.mul_f64(0.5 + fastrand::f64() * 0.5)
    }
}

/// Why an attempt is repeated: typed, so the caller can sum retries up in its own words
/// (the binary's one summary line) instead of a log line each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RetryCause {
    /// The server answered with this status: 429, or a retryable 5xx.
    Status(u16),
    /// Nothing listens at the address (the API is down, or the URL names the wrong port).
    ConnectionRefused,
    /// No connection for another reason (name resolution, TLS, a reset while connecting).
    Connect,
    /// No complete answer within the deadline of one attempt.
    Timeout,
    /// The connection closed before the whole answer came.
    Dropped,
}

impl RetryCause {
    pub(super) fn of_transport(error: &reqwest::Error) -> RetryCause {
        if error.is_timeout() {
            return RetryCause::Timeout;
        }
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            if cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
            {
                return RetryCause::ConnectionRefused;
            }
            source = cause.source();
        }
        if error.is_connect() {
            RetryCause::Connect
        } else {
            RetryCause::Dropped
        }
    }
}

/// One request about to be sent again (`ApiConfig::on_retry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryEvent {
    /// Which logical request this is, the same for all its attempts (unique in the process).
    pub request: u64,
    pub cause: RetryCause,
    /// The pause before the next attempt; zero after a 429, whose Retry-After the pacer holds
    /// for every request.
    pub delay: Duration,
}

/// GETs and the probe change nothing and are retried on any 5xx; writes only on the statuses
/// that mean "nothing happened, or it happened and the key will replay it": 500, 502, 503, 504.
/// 4xx is never retried (422, 403, 404, 409 need a fix or a human, not another attempt).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Safety {
    Read,
    Write,
}

pub(crate) fn retryable_status(safety: Safety, status: u16) -> bool {
    match safety {
        Safety::Read => (500..=599).contains(&status),
        Safety::Write => matches!(status, 500 | 502 | 503 | 504),
    }
}

/// The Retry-After of a 503 (a 429's goes to the pacer).
pub(super) fn server_wait(status: u16, headers: &HeaderMap) -> Option<Duration> {
    (status == 503)
        .then(|| header_str(headers, h::RETRY_AFTER).and_then(parse_retry_after))
        .flatten()
}

/// `floor`: the shortest pause after a 429, so `Retry-After: 0` does not mean a tight loop.
pub(super) fn rate_headers(status: u16, headers: &HeaderMap, floor: Duration) -> RateHeaders {
    let number = |name| header_str(headers, name).and_then(|v| v.parse::<u64>().ok());
    let retry_after = (status == 429).then(|| {
        header_str(headers, h::RETRY_AFTER)
            .and_then(parse_retry_after)
            .unwrap_or(DEFAULT_RETRY_AFTER)
            .max(floor)
    });
    RateHeaders {
        limit: number(h::RATE_LIMIT),
        remaining: number(h::RATE_REMAINING),
        retry_after,
    }
}

/// Seconds (possibly fractional) or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let wait = if let Ok(secs) = value.parse::<f64>() {
        Duration::try_from_secs_f64(secs).ok()?
    } else {
        let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
        let delta = date.signed_duration_since(chrono::Utc::now());
        delta.to_std().unwrap_or(Duration::ZERO)
    };
    // Anything longer is past every sensible --max-wait; capping keeps Instant math safe.
    Some(wait.min(MAX_RETRY_AFTER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_is_jittered_and_capped() {
        let p = RetryPolicy::default();
        for _ in 0..100 {
            let d1 = p.backoff(1);
            assert!(d1 >= Duration::from_millis(125) && d1 <= Duration::from_millis(250));
            let d3 = p.backoff(3);
            assert!(d3 >= Duration::from_millis(500) && d3 <= Duration::from_secs(1));
            let d20 = p.backoff(20);
            assert!(d20 >= Duration::from_secs(4) && d20 <= Duration::from_secs(8));
        }
    }

    #[test]
    fn statuses() {
        for s in [500, 502, 503, 504] {
            assert!(retryable_status(Safety::Write, s), "{s}");
            assert!(retryable_status(Safety::Read, s), "{s}");
        }
        assert!(retryable_status(Safety::Read, 501));
        assert!(!retryable_status(Safety::Write, 501));
        for s in [400, 401, 403, 404, 409, 422, 429] {
            // 429 is handled separately, by Retry-After.
            assert!(!retryable_status(Safety::Write, s), "{s}");
            assert!(!retryable_status(Safety::Read, s), "{s}");
        }
    }

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("12"), Some(Duration::from_secs(12)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("-3"), None);
        assert_eq!(parse_retry_after("1e300"), None);
        assert_eq!(parse_retry_after("1e9"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("soon"), None);
    }
}
