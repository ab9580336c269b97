//! SIGINT and SIGTERM during apply (docs/apply.md, "Signals"): the first stops the apply after
//! the write in flight (a rate-limit wait at once) so it can report; the second ends the
//! process at once, for when the report is not worth waiting for.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use dnscron_core::apply::Interrupt;

pub const SIGINT: u8 = 2;
pub const SIGTERM: u8 = 15;

#[derive(Debug, Default)]
pub struct Signals {
    pub interrupt: Interrupt,
    /// The first signal received (0: none).
    first: AtomicU8,
}

impl Signals {
    pub fn new() -> Arc<Signals> {
        Arc::new(Signals::default())
    }

    /// The first signal received, if any.
    pub fn received(&self) -> Option<u8> {
        match self.first.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }

    /// Listens from now on (on the current runtime). Until then a signal ends the process the
    /// usual way, which is right while nothing has been written (e.g. at the prompt).
    pub fn listen(self: &Arc<Self>) {
        let me = Arc::clone(self);
        let Some(mut listener) = Listener::new() else {
            tracing::warn!("cannot listen for signals; a signal will end apply without a report");
            return;
        };
        tokio::spawn(async move {
            while let Some(signal) = listener.next().await {
                me.on(signal);
            }
        });
    }

    fn on(&self, signal: u8) {
        if self
            .first
            .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            eprintln!(
                "\n{}: finishing the change in flight, then stopping (send it again to stop at once)",
                name(signal)
            );
            self.interrupt.raise();
        } else {
            eprintln!("\n{}: stopping at once, without a report", name(signal));
            // The one exit outside `cli::main`: the user asked twice not to wait.
            std::process::exit(i32::from(128 + signal));
        }
    }
}

fn name(signal: u8) -> &'static str {
    if signal == SIGTERM {
        "SIGTERM"
    } else {
        "interrupted"
    }
}

/// Both streams live as long as the listener, so no signal falls between two waits.
#[cfg(unix)]
struct Listener {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Listener {
    fn new() -> Option<Listener> {
        use tokio::signal::unix::{SignalKind, signal};
        Some(Listener {
            int: signal(SignalKind::interrupt()).ok()?,
            term: signal(SignalKind::terminate()).ok()?,
        })
    }

    async fn next(&mut self) -> Option<u8> {
        tokio::select! {
            s = self.int.recv() => s.map(|()| SIGINT),
            s = self.term.recv() => s.map(|()| SIGTERM),
        }
    }
}

#[cfg(not(unix))]
struct Listener;

#[cfg(not(unix))]
impl Listener {
    fn new() -> Option<Listener> {
        Some(Listener)
    }

    async fn next(&mut self) -> Option<u8> {
        tokio::signal::ctrl_c().await.ok().map(|()| SIGINT)
    }
}
