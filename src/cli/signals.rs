//! SIGINT and SIGTERM during apply (docs/apply.md, "Signals"): the first stops the apply after
//! the write in flight (a rate-limit wait at once) so it can report; the second ends the
//! process at once, for when the report is not worth waiting for. Before the first write
//! (planning, the confirmation prompt) a signal ends apply at once, saying that nothing was
//! sent. `plan` only reads: a signal ends it at once, saying so (`or_stop_plan`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use dnscron_core::apply::Interrupt;

pub(crate) const SIGINT: u8 = 2;
pub(crate) const SIGTERM: u8 = 15;

#[derive(Debug, Default)]
pub(crate) struct Signals {
    pub interrupt: Interrupt,
    /// The first signal received (0: none).
    first: AtomicU8,
    /// Where apply is (`PLANNING`, `ASKING`, `WRITING`): what a signal stops.
    phase: AtomicU8,
}

const PLANNING: u8 = 0;
const ASKING: u8 = 1;
const WRITING: u8 = 2;

impl Signals {
    pub(crate) fn new() -> Arc<Signals> {
        Arc::new(Signals::default())
    }

    /// The first signal received, if any.
    pub(crate) fn received(&self) -> Option<u8> {
        match self.first.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n),
        }
    }

    /// Apply waits for the answer to its confirmation prompt.
    pub(crate) fn asking(&self) {
        self.phase.store(ASKING, Ordering::SeqCst);
    }

    /// Apply reads the account again after the answer.
    pub(crate) fn planning(&self) {
        self.phase.store(PLANNING, Ordering::SeqCst);
    }

    /// From now on a signal stops apply after the change in flight, with a report.
    pub(crate) fn writing(&self) {
        self.phase.store(WRITING, Ordering::SeqCst);
    }

    /// Listens from now on (on `runtime`, whose workers run the listener even while the main
    /// thread reads the confirmation prompt).
    pub(crate) fn listen(self: &Arc<Self>, runtime: &tokio::runtime::Runtime) {
        // The signal streams register with the runtime's driver.
        let _context = runtime.enter();
        let me = Arc::clone(self);
        let Some(mut listener) = Listener::new() else {
            tracing::warn!("cannot listen for signals; a signal will end apply without a report");
            return;
        };
        runtime.spawn(async move {
            while let Some(signal) = listener.next().await {
                me.on(signal);
            }
        });
    }

    fn on(&self, signal: u8) {
        let before = match self.phase.load(Ordering::SeqCst) {
            PLANNING => Some("while planning"),
            ASKING => Some("at the confirmation prompt"),
            _ => None,
        };
        if let Some(when) = before {
            stop_before_any_write(signal, &format!("apply stopped {when}, before any write"));
        }
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

/// Ends the process for `signal` where nothing that changes the account was sent: there is no
/// report to print or change to finish, only what was stopped to say.
fn stop_before_any_write(signal: u8, what: &str) -> ! {
    eprintln!("\n{}: {what}: nothing was sent", name(signal));
    std::process::exit(i32::from(128 + signal));
}

/// Runs `plan` (which only reads) until it ends or a signal comes: then says so and ends with
/// 128 + the signal, instead of vanishing without a word. No plan is shown or saved.
pub(crate) async fn or_stop_plan<F: std::future::Future>(plan: F) -> F::Output {
    let Some(mut listener) = Listener::new() else {
        return plan.await;
    };
    tokio::select! {
        out = plan => out,
        Some(signal) = listener.next() => {
            stop_before_any_write(signal, "plan stopped before it finished, no plan was shown or saved")
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
