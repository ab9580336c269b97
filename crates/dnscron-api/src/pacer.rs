//! One rate-limit pacer per process, shared by every concurrent request.
//!
//! Model: a token bucket mirroring the server's (capacity and refill from X-RateLimit-Limit per
//! minute). Each request takes one token before it is sent. Every response re-syncs the local
//! estimate with X-RateLimit-Remaining, because other tokens of the same user drain the same
//! bucket: the server's true count lies in `[R - in_flight, R + 1)` (R is floored; requests
//! still in flight may or may not have been counted), so the estimate is pulled into that
//! range, keeping sub-token refill progress when the two agree. A 429 blocks everyone until
//! its Retry-After. Until the first response tells the real budget, only one request is in
//! flight. A server that sends no rate headers is not paced (only its 429s are obeyed).
//!
//! Two refinements keep the estimate honest. The bucket's depth is not assumed to be one
//! minute's refill: a Remaining above the limit shows a deeper bucket, and the estimate may
//! grow to it. And another client of the same user (another process, another token) spends
//! from the same bucket unseen: how fast it does is estimated from how much faster Remaining
//! falls than our own requests explain, and only the rest of the refill is counted as ours, so
//! two processes pace themselves to one bucket instead of both spending its last token.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::budget::{Budget, Window};
use super::config::WaitHook;
use super::stats::Stats;

/// The log target of the line each rate-limit wait gets: a front end that draws the waits in
/// its own progress shows those lines only when asked.
pub const LOG_TARGET: &str = "dnscron_api::pacing";

/// The spec's limit, assumed until a response says otherwise.
pub(crate) const DEFAULT_LIMIT_PER_MINUTE: f64 = dnscron_provider::limits::RATE_PER_MINUTE as f64;
/// The bucket's depth assumed until a Remaining above the limit shows a deeper one.
const DEFAULT_CAPACITY: f64 = dnscron_provider::limits::RATE_BURST as f64;
/// Waits at least this long are logged at info level; shorter ones (the steady spacing of a
/// long apply) at debug, and all of them go to the hook.
const VISIBLE_WAIT: Duration = Duration::from_secs(1);
/// How many refill intervals the estimate of other clients' spending remembers: long enough to
/// smooth whole-token Remaining values, short enough to follow a client that starts or stops.
const FOREIGN_MEMORY_TOKENS: f64 = 20.0;
/// The share of the refill counted as ours even when others seem to take it all, so a wrong
/// estimate can't stop us (the server's Remaining corrects an estimate that is too low).
const MIN_OWN_SHARE: f64 = 0.05;
/// Slack kept from the refill left to us, so estimation noise does not spend tokens another
/// client is about to take.
const OWN_SHARE_MARGIN: f64 = 0.97;
/// Tokens left in the bucket while other clients spend from it (`State::reserve`): about the
/// requests another planner has in flight at once.
const SHARED_RESERVE: f64 = 8.0;
/// The reserve never delays a request by more than this much refill (a slow bucket, a few
/// requests a minute, would otherwise hold minutes back).
const SHARED_RESERVE_MAX_SECS: f64 = 5.0;

/// A wait about to start.
#[derive(Clone, Debug, PartialEq)]
pub struct WaitEvent {
    pub wait: Duration,
    /// The last X-RateLimit-Remaining seen, if any.
    pub remaining: Option<u64>,
    /// True when the wait comes from a 429's Retry-After.
    pub retry_after: bool,
}

/// What a response said about the bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateHeaders {
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    /// Only on 429.
    pub retry_after: Option<Duration>,
}

#[derive(Debug, thiserror::Error)]
#[error(
    "the rate limit would need a wait of {needed:.0?} more after {waited:.0?} already (the longest \
     wait allowed is {max_wait:.0?})"
)]
pub struct WaitTooLong {
    pub needed: Duration,
    pub waited: Duration,
    pub max_wait: Duration,
}

#[derive(Debug)]
struct State {
    limit: f64,
    /// The bucket's depth as far as responses showed it: at least the limit, more when a
    /// Remaining was higher.
    capacity: f64,
    tokens: f64,
    updated: Instant,
    in_flight: u32,
    /// Requests sent so far; a permit's sequence number is this count when it was sent.
    sent: u64,
    blocked_until: Option<Instant>,
    synced: bool,
    /// The last response carried no X-RateLimit-Remaining: the server announces no limit
    /// (the emulator with rate limiting off), so only 429s slow us down.
    unannounced: bool,
    last_remaining: Option<u64>,
    /// Tokens per second other clients of the same user are estimated to spend.
    foreign_rate: f64,
    /// The last accepted response's Remaining, when it came, and how many of our accepted
    /// responses had come by then: the base the next one's drop is compared with.
    last_sync: Option<SyncPoint>,
    /// Our responses that took a token (not 429s), counted as they come.
    accepted: u64,
    /// When a reading last showed others spending more than Remaining's rounding explains.
    foreign_seen: Option<Instant>,
    /// Our own share of the bucket, when we keep to one (`ApiConfig::budget`).
    window: Option<Window>,
}

#[derive(Clone, Copy, Debug)]
struct SyncPoint {
    at: Instant,
    remaining: f64,
    accepted: u64,
}

pub(crate) struct Pacer {
    state: Mutex<State>,
    notify: Notify,
    max_wait: Duration,
    on_wait: Option<WaitHook>,
    stats: Stats,
}

/// One request's token. Hand it back with [`Pacer::observe`]; dropping it (a failed or
/// cancelled request) only ends its in-flight count.
pub(crate) struct Permit {
    pacer: Arc<Pacer>,
    open: bool,
    sent: Sent,
}

/// When a permit's request was sent, to tell which others may have reached the server after it.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    /// Other requests in flight at that moment.
    others_in_flight: u32,
}

enum Next {
    Go(Sent),
    Sleep(Duration, bool),
    AwaitFirstResponse,
}

impl Pacer {
    #[cfg(test)]
    pub(crate) fn new(max_wait: Duration, on_wait: Option<WaitHook>, stats: Stats) -> Arc<Pacer> {
        Pacer::with_budget(max_wait, on_wait, stats, None)
    }

    /// A pacer that also keeps to `budget` (at most that many requests in any rolling minute).
    pub(crate) fn with_budget(
        max_wait: Duration,
        on_wait: Option<WaitHook>,
        stats: Stats,
        budget: Option<Budget>,
    ) -> Arc<Pacer> {
        Arc::new(Pacer {
            state: Mutex::new(State {
                limit: DEFAULT_LIMIT_PER_MINUTE,
                capacity: DEFAULT_CAPACITY,
                tokens: 1.0,
                updated: Instant::now(),
                in_flight: 0,
                sent: 0,
                blocked_until: None,
                synced: false,
                unannounced: false,
                last_remaining: None,
                foreign_rate: 0.0,
                last_sync: None,
                accepted: 0,
                foreign_seen: None,
                window: budget.map(Window::new),
            }),
            notify: Notify::new(),
            max_wait,
            on_wait,
            stats,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The budget kept, if any.
    pub(crate) fn budget(&self) -> Option<Budget> {
        self.lock().window.as_ref().map(Window::budget)
    }

    /// Requests the budget lets through now without a wait; `None`: no budget kept.
    pub(crate) fn budget_room(&self) -> Option<u32> {
        let mut st = self.lock();
        st.window.as_mut().map(|w| w.room(Instant::now()))
    }

    /// Waits until a request may be sent. `waited` accumulates this request's rate-limit waits
    /// across its retries; the total is bounded by `max_wait`.
    pub(crate) async fn acquire(
        self: &Arc<Self>,
        waited: &mut Duration,
    ) -> Result<Permit, WaitTooLong> {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let (next, remaining, in_flight) = {
                let mut st = self.lock();
                let next = st.next(Instant::now());
                (next, st.last_remaining, st.in_flight)
            };
            let (wait, retry_after) = match next {
                Next::Go(sent) => {
                    return Ok(Permit {
                        pacer: Arc::clone(self),
                        open: true,
                        sent,
                    });
                }
                Next::AwaitFirstResponse => {
                    notified.await;
                    continue;
                }
                Next::Sleep(wait, retry_after) => (wait, retry_after),
            };
            if waited.saturating_add(wait) > self.max_wait {
                return Err(WaitTooLong {
                    needed: wait,
                    waited: *waited,
                    max_wait: self.max_wait,
                });
            }
            // A pacing wait with responses still to come may end at the first of them (it
            // re-syncs the estimate): it is said only once nothing in flight can shorten it.
            if retry_after || in_flight == 0 {
                self.announce(wait, remaining, retry_after);
            }
            let started = Instant::now();
            let _waiting = self.stats.waiting();
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = notified => {}
            }
            let slept = started.elapsed();
            *waited += slept;
            self.stats.waited(slept);
        }
    }

    fn announce(&self, wait: Duration, remaining: Option<u64>, retry_after: bool) {
        let why = match (retry_after, remaining) {
            (true, _) => "Retry-After of a 429".to_string(),
            (false, Some(r)) => format!("X-RateLimit-Remaining {r}"),
            (false, None) => "pacing".to_string(),
        };
        if wait >= VISIBLE_WAIT {
            tracing::info!(
                target: LOG_TARGET,
                "waiting {}s for the rate limit ({why})",
                wait.as_secs_f64().ceil()
            );
        } else {
            tracing::debug!(
                target: LOG_TARGET,
                "waiting {}ms for the rate limit ({why})",
                wait.as_millis()
            );
        }
        if let Some(hook) = &self.on_wait {
            hook(&WaitEvent {
                wait,
                remaining,
                retry_after,
            });
        }
    }

    /// Re-syncs from a response's headers and ends the permit's in-flight count.
    pub(crate) fn observe(&self, mut permit: Permit, headers: RateHeaders) {
        permit.open = false;
        {
            let mut st = self.lock();
            st.in_flight = st.in_flight.saturating_sub(1);
            let overlap = st.overlap(permit.sent);
            st.sync(Instant::now(), headers, overlap);
        }
        self.notify.notify_waiters();
    }

    fn release(&self) {
        {
            let mut st = self.lock();
            st.in_flight = st.in_flight.saturating_sub(1);
        }
        self.notify.notify_waiters();
    }
}

impl State {
    fn rate_per_sec(&self) -> f64 {
        self.limit / 60.0
    }

    /// The refill left to us after what other clients are estimated to spend.
    fn own_rate_per_sec(&self) -> f64 {
        let rate = self.rate_per_sec();
        ((rate - self.foreign_rate) * OWN_SHARE_MARGIN).max(rate * MIN_OWN_SHARE)
    }

    /// Tokens left in the bucket while others spend from it too. Two clients near an empty
    /// bucket each know the count only to a whole token (Remaining is floored) and not the
    /// other's last request, so both could take the same last token; a few kept back absorb
    /// that, and Remaining stays above zero where it tells each client what the other did.
    fn reserve(&self, now: Instant) -> f64 {
        let memory = Duration::from_secs_f64(FOREIGN_MEMORY_TOKENS / self.rate_per_sec());
        let lately = self.foreign_seen.is_some_and(|at| now < at + memory);
        if lately || self.foreign_rate > self.rate_per_sec() * MIN_OWN_SHARE {
            SHARED_RESERVE.min(self.rate_per_sec() * SHARED_RESERVE_MAX_SECS)
        } else {
            0.0
        }
    }

    fn refill(&mut self, now: Instant) {
        if now > self.updated {
            let elapsed = (now - self.updated).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.own_rate_per_sec()).min(self.capacity);
            self.updated = now;
        }
    }

    /// Updates the estimate of other clients' spending from an accepted response's Remaining:
    /// what the bucket lost since the last one, beyond our own requests and net of the refill,
    /// was spent by someone else. Single readings are off by whole tokens (Remaining is
    /// floored, responses overlap), but the errors cancel between readings and the estimate
    /// averages over `FOREIGN_MEMORY_TOKENS` refill intervals.
    fn learn_foreign(&mut self, now: Instant, remaining: f64) {
        let rate = self.rate_per_sec();
        if let Some(last) = self.last_sync {
            let dt = now.saturating_duration_since(last.at).as_secs_f64();
            let memory = FOREIGN_MEMORY_TOKENS / rate;
            let ours = self.accepted.saturating_sub(last.accepted) as f64;
            let expected = (last.remaining + dt * rate).min(self.capacity) - ours;
            // A bucket near full wastes refill: its drop says nothing about anyone.
            if last.remaining + dt * rate < self.capacity - 1.0 {
                let drop = expected - remaining;
                // More than Remaining's rounding and our responses' overlap explain.
                if drop > 2.0 {
                    self.foreign_seen = Some(now);
                }
                // Spending faster than the refill drains the stock, which a reading shows once;
                // only a rate up to the refill's can go on, and only that is worth pacing to.
                let foreign = drop.min(dt * rate + 1.0);
                self.foreign_rate =
                    (self.foreign_rate * (-dt / memory).exp() + foreign / memory).clamp(0.0, rate);
            }
        }
        self.last_sync = Some(SyncPoint {
            at: now,
            remaining,
            accepted: self.accepted,
        });
    }

    fn next(&mut self, now: Instant) -> Next {
        if let Some(until) = self.blocked_until {
            if until > now {
                return Next::Sleep(until - now, true);
            }
            self.blocked_until = None;
        }
        if !self.synced && self.in_flight > 0 {
            return Next::AwaitFirstResponse;
        }
        if let Some(window) = &mut self.window {
            let wait = window.wait(now);
            if !wait.is_zero() {
                return Next::Sleep(wait, false);
            }
        }
        self.refill(now);
        if self.unannounced {
            return Next::Go(self.send(now));
        }
        let needed = 1.0 + self.reserve(now);
        if self.tokens >= needed {
            self.tokens -= 1.0;
            return Next::Go(self.send(now));
        }
        let secs = (needed - self.tokens) / self.own_rate_per_sec();
        // Rounded up to the millisecond so the retry finds a whole token.
        Next::Sleep(Duration::from_millis((secs * 1000.0).ceil() as u64), false)
    }

    fn send(&mut self, now: Instant) -> Sent {
        if let Some(window) = &mut self.window {
            window.record(now);
        }
        let sent = Sent {
            seq: self.sent,
            others_in_flight: self.in_flight,
        };
        self.sent += 1;
        self.in_flight += 1;
        sent
    }

    /// Our requests that may have reached the server after the one sent as `sent`, and so are
    /// not counted in its response's X-RateLimit-Remaining: the ones in flight when it was sent
    /// and every one sent since. (Counting only those still in flight is not enough: with
    /// several connections a response can arrive after later requests were already answered.)
    fn overlap(&self, sent: Sent) -> f64 {
        let since = self.sent.saturating_sub(sent.seq + 1);
        f64::from(sent.others_in_flight) + since as f64
    }

    fn sync(&mut self, now: Instant, headers: RateHeaders, overlap: f64) {
        self.refill(now);
        if let Some(limit) = headers.limit.filter(|l| *l > 0) {
            self.limit = limit as f64;
        }
        if let Some(remaining) = headers.remaining {
            let r = remaining as f64;
            self.capacity = self.capacity.max(self.limit).max(r + 1.0);
            if headers.retry_after.is_none() {
                self.accepted += 1;
                self.learn_foreign(now, r);
            }
            let low = (r - overlap).max(0.0);
            // Inside [low, R + 1) the local estimate keeps its sub-token refill progress.
            // At or above R + 1 it was wrong (someone else spent tokens, or the bucket is
            // smaller than a minute's refill): fall back to what is surely there.
            self.tokens = if !self.synced || self.tokens < low || self.tokens >= r + 1.0 {
                low
            } else {
                self.tokens
            };
            self.synced = true;
            self.unannounced = false;
            self.last_remaining = Some(remaining);
        } else if headers.retry_after.is_none() {
            self.synced = true;
            self.unannounced = true;
        }
        if let Some(after) = headers.retry_after {
            let until = now + after;
            if self.blocked_until.is_none_or(|b| b < until) {
                self.blocked_until = Some(until);
            }
            // Retry-After promises one request at that time; the rest refill from there.
            self.tokens = 1.0;
            self.updated = until;
            self.synced = true;
            self.unannounced = false;
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.open {
            self.pacer.release();
        }
    }
}

#[cfg(test)]
#[path = "pacer_tests.rs"]
mod tests;
