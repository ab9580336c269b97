//! Stopping an apply from outside (SIGINT, SIGTERM): the change whose request is on the wire
//! finishes, none after it starts; a wait for the rate limit, during which nothing of the
//! change has been sent, is cut short at once. Verification, which only reads, stops at once
//! wherever it is (a read, a rate-limit wait, a wait for a write to show).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

#[derive(Debug, Default)]
pub struct Interrupt {
    raised: AtomicBool,
    /// When the rate-limit wait announced last ends (the client's `on_wait` hook sets it).
    pause_until: Mutex<Option<Instant>>,
    notify: Notify,
}

impl Interrupt {
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Asks the apply to stop; wakes a rate-limit wait in progress.
    pub fn raise(&self) {
        self.raised.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    pub fn is_raised(&self) -> bool {
        self.raised.load(Ordering::SeqCst)
    }

    /// The client is about to wait `wait` for the rate limit (wire it to `ApiConfig::on_wait`).
    pub fn pausing(&self, wait: Duration) {
        if let Ok(mut until) = self.pause_until.lock() {
            *until = Some(Instant::now() + wait);
        }
        self.notify.notify_waiters();
    }

    fn in_pause(&self) -> bool {
        self.pause_until
            .lock()
            .is_ok_and(|until| until.is_some_and(|t| Instant::now() < t))
    }

    /// Resolves once the apply is asked to stop, whatever it is doing: for the reads of
    /// verification, which may be dropped at any point (nothing they send changes anything).
    pub async fn raised(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_raised() {
                return;
            }
            notified.await;
        }
    }

    /// Resolves once the apply is asked to stop while the client waits for the rate limit;
    /// never while a request may be on the wire.
    pub async fn during_pause(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_raised() && self.in_pause() {
                return;
            }
            notified.await;
        }
    }
}
