//! Which failures are retried, and how long to back off between attempts.

use std::time::Duration;

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
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        let full = self.base_delay.saturating_mul(factor).min(self.max_delay);
        full.mul_f64(0.5 + fastrand::f64() * 0.5)
    }
}

/// GETs and the probe change nothing and are retried on any 5xx; writes only on the statuses
/// that mean "nothing happened, or it happened and the key will replay it": 500, 502, 503, 504.
/// 4xx is never retried (422, 403, 404, 409 need a fix or a human, not another attempt).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Safety {
    Read,
    Write,
}

pub fn retryable_status(safety: Safety, status: u16) -> bool {
    match safety {
        Safety::Read => (500..=599).contains(&status),
        Safety::Write => matches!(status, 500 | 502 | 503 | 504),
    }
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
}
