//! The controller's front end: it drives the core's loop and turns its events into log lines
//! (and, where asked, metrics, `/status` and webhook messages); signals become the loop's
//! stop and round-now requests.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use dnscron_api::{ResponseHook, WaitHook};
use dnscron_core::apply::Interrupt;
use dnscron_core::config::accounts::Account;
use dnscron_core::controller::{Controller, Event, RoundOutcome, RunEnd, Transition};
use tokio::sync::Notify;

use super::args::ControllerArgs;
use super::http::{self, Shared};
use super::metrics::Metrics;
use super::{observed, status_json, words};
use crate::cli::error::CommandError;

pub(crate) struct Front {
    shared: Arc<Shared>,
    /// This account's series (every account's, for a controller of one).
    metrics: Metrics,
    /// In a controller of several accounts: this one (its name in its log lines, webhook
    /// messages and `/status` entry, its token source in their hints) and where its status goes.
    account: Option<(Account, Arc<super::fleet::Board>)>,
    latency: observed::Latency,
    policy: &'static str,
    webhook: Option<Arc<super::webhook::Teller>>,
    failures: AtomicU32,
    /// `--log-format json`: each round's line carries its fields for log pipelines.
    json: bool,
    rounds: AtomicU64,
}

impl Front {
    pub(crate) fn new(args: &ControllerArgs, json: bool) -> Result<Front, CommandError> {
        Front::with_metrics(args, json, Metrics::new())
    }

    /// The front of a controller of several accounts: the shared parts (the server's metrics,
    /// the webhook); each account's front is [`Front::account`].
    pub(crate) fn for_accounts(args: &ControllerArgs, json: bool) -> Result<Front, CommandError> {
        Front::with_metrics(args, json, Metrics::for_accounts())
    }

    /// `account`'s front: its metrics view, its status on `board`, the shared webhook.
    pub(crate) fn account(&self, account: &Account, board: Arc<super::fleet::Board>) -> Front {
        Front {
            shared: Arc::clone(&self.shared),
            metrics: self.shared.metrics.account(&account.name),
            account: Some((account.clone(), board)),
            latency: observed::Latency::default(),
            policy: self.policy,
            webhook: self.webhook.clone(),
            failures: AtomicU32::new(0),
            json: self.json,
            rounds: AtomicU64::new(0),
        }
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    pub(crate) fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    fn with_metrics(
        args: &ControllerArgs,
        json: bool,
        metrics: Metrics,
    ) -> Result<Front, CommandError> {
        let shared = Arc::new(Shared::new(metrics));
        let counted = Arc::clone(&shared);
        let failed: super::webhook::OnFailure = Arc::new(move || counted.metrics.webhook_failed());
        let webhook = match &args.webhook_url_file {
            // An optional Secret key mounted as a file is absent when nobody set a webhook up.
            Some(file) if !file.exists() => {
                tracing::info!(
                    "no webhook: {} does not exist (drift and failures go to the logs and /status)",
                    file.display()
                );
                None
            }
            Some(file) => Some(Arc::new(super::webhook::Teller::from_file(file, failed)?)),
            None => None,
        };
        Ok(Front {
            metrics: shared.metrics.clone(),
            shared,
            account: None,
            latency: observed::Latency::default(),
            policy: args.policy.name(),
            webhook,
            failures: AtomicU32::new(0),
            json,
            rounds: AtomicU64::new(0),
        })
    }

    /// Counts every API answer by route and status.
    pub(crate) fn response_hook(self: &Arc<Self>) -> ResponseHook {
        let metrics = self.metrics.clone();
        Arc::new(move |event| metrics.api_response(&event.method, event.route, event.status))
    }

    /// Counts the time spent waiting for the rate limit and the budget.
    pub(crate) fn wait_hook(self: &Arc<Self>) -> WaitHook {
        let metrics = self.metrics.clone();
        Arc::new(move |event| metrics.rate_limit_wait(event.wait))
    }

    /// Runs the loop until it ends (a stop, or `once`), serving the endpoints on `listen`
    /// meanwhile.
    pub(crate) async fn run(
        self: &Arc<Self>,
        controller: Controller,
        once: bool,
        listen: Option<SocketAddr>,
    ) -> Result<RunEnd, CommandError> {
        let round_now = Arc::new(Notify::new());
        let interrupt = controller.interrupt();
        let server = match listen {
            Some(addr) => Some(self.serve(addr, Arc::clone(&interrupt)).await?),
            None => None,
        };
        listen_for_signals(Arc::clone(&interrupt), Arc::clone(&round_now));
        let end = self.run_loop(controller, once, &round_now).await;
        // The server stops with the loop (a `--once` run too).
        interrupt.raise();
        if let Some(server) = server {
            let _ = server.await;
        }
        if let Some(webhook) = &self.webhook {
            webhook.flush().await;
        }
        Ok(end)
    }

    /// The core's loop, its events told to this front.
    pub(crate) async fn run_loop(
        self: &Arc<Self>,
        controller: Controller,
        once: bool,
        round_now: &Notify,
    ) -> RunEnd {
        let observe = |event: Event<'_>| self.on_event(event);
        controller.run(once, round_now, &observe).await
    }

    /// The webhook's messages still queued are sent (or given up on) before the process ends.
    pub(crate) async fn flush_webhook(&self) {
        if let Some(webhook) = &self.webhook {
            webhook.flush().await;
        }
    }

    /// `line`, with the account's name first in a controller of several.
    fn whose(&self, line: String) -> String {
        match &self.account {
            Some((account, _)) => format!("account {}: {line}", account.name),
            None => line,
        }
    }

    pub(crate) async fn serve(
        &self,
        addr: SocketAddr,
        stop: Arc<Interrupt>,
    ) -> Result<tokio::task::JoinHandle<()>, CommandError> {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            CommandError::quoting(
                crate::cli::error::ErrorKind::User,
                &format!("cannot listen on {addr}"),
                e,
            )
            .with_hint("pass another --listen address (another process may hold this port)")
        })?;
        let bound = listener.local_addr().unwrap_or(addr);
        tracing::info!("serving /metrics, /healthz, /readyz and /status on http://{bound}");
        let shared = Arc::clone(&self.shared);
        Ok(tokio::spawn(async move {
            let shutdown = async move { stop.raised().await };
            if let Err(error) = http::serve(listener, shared, shutdown).await {
                tracing::error!("the metrics server stopped: {error}");
            }
        }))
    }

    fn on_event(&self, event: Event<'_>) {
        let metrics = &self.metrics;
        match event {
            Event::RoundStarted { trigger } => {
                tracing::debug!("round ({})", words::trigger(trigger));
                metrics.round_started(trigger.name());
            }
            Event::RoundFinished { report, status } => {
                observed::round(metrics, report, status);
                self.latency
                    .round(metrics, report, status, std::time::Instant::now());
                self.failures
                    .store(status.consecutive_failures, Ordering::Relaxed);
                let account = self.account.as_ref().map(|(account, _)| account);
                let document = status_json::document(report, status, self.policy, account);
                match &self.account {
                    Some((account, board)) => {
                        board.round_finished(&account.name, document, &self.shared);
                    }
                    None => {
                        self.shared.set_status(document);
                        self.shared.set_ready();
                    }
                }
                let line = self.whose(words::round(report, status, account));
                let round = self.rounds.fetch_add(1, Ordering::Relaxed) + 1;
                let failed = matches!(report.outcome, RoundOutcome::Failed(_));
                match self.json {
                    true => log_fields(
                        &words::fields(report, status, round),
                        account.map_or("", |account| account.name.as_str()),
                        failed,
                        &line,
                    ),
                    false if failed => tracing::warn!("{line}"),
                    false => tracing::info!("{line}"),
                }
            }
            Event::Alert {
                kind,
                transition,
                status,
                report,
            } => {
                let account = self.account.as_ref().map(|(account, _)| account);
                let line = self.whose(words::alert(kind, transition, status, report, account));
                match transition {
                    Transition::Raised | Transition::Changed => tracing::warn!("{line}"),
                    Transition::Cleared => tracing::info!("{line}"),
                }
                if let Some(webhook) = &self.webhook {
                    webhook.tell(line);
                }
            }
            Event::Waiting { wait, reason } => {
                let failures = self.failures.load(Ordering::Relaxed);
                observed::waiting(metrics, wait, reason, failures);
                let line = self.whose(words::waiting(wait, reason, failures));
                match reason {
                    dnscron_core::controller::WaitReason::Backoff => tracing::info!("{line}"),
                    dnscron_core::controller::WaitReason::Interval
                    | dnscron_core::controller::WaitReason::Budget => tracing::debug!("{line}"),
                }
            }
        }
    }
}

/// A round's line with its fields, as JSON log lines carry them (`account`: empty for a
/// controller of one).
fn log_fields(f: &words::Fields, account: &str, failed: bool, line: &str) {
    macro_rules! log {
        ($level:ident $(, $account:ident)?) => {
            tracing::$level!(
                $($account,)?
                revision = f.revision.as_str(),
                round = f.round,
                trigger = f.trigger,
                work = f.work,
                outcome = f.outcome,
                targets = f.targets,
                duration_seconds = f.duration_seconds,
                error_code = f.error_code,
                "{line}"
            )
        };
    }
    match (failed, account.is_empty()) {
        (true, true) => log!(warn),
        (false, true) => log!(info),
        (true, false) => log!(warn, account),
        (false, false) => log!(info, account),
    }
}

/// SIGTERM and SIGINT stop the loop (a write in flight finishes first); SIGHUP asks for a
/// round now.
pub(super) fn listen_for_signals(interrupt: Arc<Interrupt>, round_now: Arc<Notify>) {
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
