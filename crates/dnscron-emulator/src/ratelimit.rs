//! Token bucket per user (all of a user's tokens share it, spec: Limits).

use std::collections::HashMap;
use std::time::Instant;

use super::settings::RateLimit;

#[derive(Debug, Default)]
pub(crate) struct Buckets {
    by_user: HashMap<String, Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// Outcome of taking one request from a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    Allowed { remaining: u32 },
    Limited { retry_after: u64 },
}

impl Buckets {
    pub(crate) fn take(&mut self, user: &str, limit: &RateLimit, now: Instant) -> Take {
        let capacity = f64::from(limit.burst);
        let bucket = self.by_user.entry(user.to_string()).or_insert(Bucket {
            tokens: capacity,
            last: now,
        });
        let per_second = f64::from(limit.per_minute) / 60.0;
        let elapsed = now.saturating_duration_since(bucket.last).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * per_second).min(capacity);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Take::Allowed {
                remaining: bucket.tokens.floor() as u32,
            }
        } else {
            let wait = (1.0 - bucket.tokens) / per_second;
            Take::Limited {
                retry_after: (wait.ceil() as u64).max(1),
            }
        }
    }

    /// What `X-RateLimit-Remaining` says without taking anything (unauthenticated requests).
    pub(crate) fn peek(&self, user: Option<&str>, limit: &RateLimit) -> u32 {
        user.and_then(|u| self.by_user.get(u))
            .map(|b| b.tokens.floor() as u32)
            .unwrap_or(limit.burst)
    }

    pub(crate) fn reset(&mut self) {
        self.by_user.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn bucket_empties_then_refills_at_the_per_minute_rate() {
        let limit = RateLimit {
            enabled: true,
            per_minute: 60,
            burst: 2,
        };
        let mut buckets = Buckets::default();
        let t0 = Instant::now();
        assert_eq!(
            buckets.take("u", &limit, t0),
            Take::Allowed { remaining: 1 }
        );
        assert_eq!(
            buckets.take("u", &limit, t0),
            Take::Allowed { remaining: 0 }
        );
        assert_eq!(
            buckets.take("u", &limit, t0),
            Take::Limited { retry_after: 1 }
        );
        let later = t0 + Duration::from_secs(1);
        assert_eq!(
            buckets.take("u", &limit, later),
            Take::Allowed { remaining: 0 }
        );
        // Another user has their own bucket.
        assert_eq!(
            buckets.take("v", &limit, t0),
            Take::Allowed { remaining: 1 }
        );
    }
}
