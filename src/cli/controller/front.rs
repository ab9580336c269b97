//! The controller's front end: it drives the core's loop and turns its events into log lines
//! (and, where asked, metrics, `/status` and webhook messages); signals become the loop's
//! stop and round-now requests.

use std::net::SocketAddr;
use std::sync::Arc;

use dnscron_core::apply::Interrupt;
use dnscron_core::controller::{Controller, Event, RoundOutcome, RunEnd, Transition};
use tokio::sync::Notify;

use super::args::ControllerArgs;
use super::words;
use crate::cli::error::CommandError;

pub struct Front {
    _listen: Option<SocketAddr>,
}

impl Front {
    pub fn new(args: &ControllerArgs) -> Result<Front, CommandError> {
        Ok(Front {
            _listen: args.listen,
        })
    }

    /// Runs the loop until it ends (a stop, or `once`).
    pub async fn run(
        self: &Arc<Self>,
        controller: Controller,
        once: bool,
        _listen: Option<SocketAddr>,
    ) -> Result<RunEnd, CommandError> {
        let round_now = Arc::new(Notify::new());
        listen_for_signals(controller.interrupt(), Arc::clone(&round_now));
        let observe = |event: Event<'_>| self.on_event(event);
        Ok(controller.run(once, &round_now, &observe).await)
    }

    fn on_event(&self, event: Event<'_>) {
        match event {
            Event::RoundStarted { trigger } => {
                tracing::debug!("round ({})", words::trigger(trigger));
            }
            Event::RoundFinished { report, status } => {
                let line = words::round(report, status);
                match &report.outcome {
                    RoundOutcome::Failed(_) => tracing::warn!("{line}"),
                    RoundOutcome::Converged
                    | RoundOutcome::Drift
                    | RoundOutcome::Pending(_)
                    | RoundOutcome::Held(_)
                    | RoundOutcome::Refused(_) => tracing::info!("{line}"),
                }
            }
            Event::Alert {
                kind,
                transition,
                status,
                report,
            } => {
                let line = words::alert(kind, transition, status, report);
                match transition {
                    Transition::Raised | Transition::Changed => tracing::warn!("{line}"),
                    Transition::Cleared => tracing::info!("{line}"),
                }
            }
            Event::Waiting { wait, reason } => {
                tracing::debug!("{}", words::waiting(wait, reason, 0));
            }
        }
    }
}

/// SIGTERM and SIGINT stop the loop (a write in flight finishes first); SIGHUP asks for a
/// round now.
fn listen_for_signals(interrupt: Arc<Interrupt>, round_now: Arc<Notify>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let streams = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
            signal(SignalKind::hangup()),
        );
        let (Ok(mut term), Ok(mut int), Ok(mut hup)) = streams else {
            tracing::warn!("cannot listen for signals: SIGTERM will end the controller at once");
            return;
        };
        tokio::spawn(async move {
            loop {
                let name = tokio::select! {
                    _ = term.recv() => "SIGTERM",
                    _ = int.recv() => "SIGINT",
                    _ = hup.recv() => {
                        tracing::info!("SIGHUP: a round now");
                        round_now.notify_one();
                        continue;
                    }
                };
                tracing::info!("{name}: finishing the write in flight, then stopping");
                interrupt.raise();
            }
        });
    }
    #[cfg(not(unix))]
    {
        let _ = round_now;
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                tracing::info!("interrupted: finishing the write in flight, then stopping");
                interrupt.raise();
            }
        });
    }
}
