#![doc = include_str!("../README.md")]
// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![warn(unreachable_pub)]
#![warn(unnameable_types)]
#![deny(clippy::wildcard_enum_match_arm)]

use std::net::SocketAddr;
use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

mod auth;
mod constraints;
mod counters;
mod dns_answer;
mod dns_lag;
mod dns_server;
mod error;
mod faults;
mod gate;
mod idempotency;
mod json_body;
mod openapi;
mod pagination;
mod pipeline;
mod ratelimit;
mod render;
mod routes;
mod seed;
mod server;
mod settings;
mod shared;
mod state;
mod validate;

pub use counters::{Counters, FaultCounters};
/// A record type and a token's capabilities, as the API's description names them.
pub use dnscron_provider::{RecordType, Scope};
pub use error::EmulatorError;
pub use seed::{
    CronSeed, DomainSeed, ExternalZoneSeed, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed,
};
pub use settings::{
    Bursts, CronDeleteAnswer, CronIndexAfterDelete, DnsLag, Faults, Gaps, HostnameEcho, RateLimit,
    RecordNames, TxtFormat,
};
pub use state::{CronSnapshot, DomainSnapshot, RecordSnapshot, SiteSnapshot, StateSnapshot};

use shared::{Shared, cron_index, lock};

/// Reads counters and state and changes faults/gaps at run time. Cheap to clone; both
/// [`Emulator`] and [`BackgroundEmulator`] dereference to it.
#[derive(Clone)]
pub struct EmulatorHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
    dns_addr: Option<SocketAddr>,
}

impl EmulatorHandle {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where the DNS listener answers (UDP and TCP, one port), if it was started.
    pub fn dns_addr(&self) -> Option<SocketAddr> {
        self.dns_addr
    }

    /// `http://127.0.0.1:PORT/api/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/api/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT/_admin` (`/counters`, `/state`, `/settings`).
    pub fn admin_url(&self) -> String {
        format!("http://{}/_admin", self.addr)
    }

    pub fn counters(&self) -> Counters {
        lock(&self.shared.counters).clone()
    }

    /// Returns once `done` holds for the counters, checking again after each counted request
    /// (a notification, not polling).
    pub async fn wait_for_counters(&self, done: impl Fn(&Counters) -> bool) {
        // Subscribed before the first check, so no request between the two is missed.
        let mut counted = self.shared.counted.subscribe();
        while !done(&self.counters()) {
            if counted.changed().await.is_err() {
                return;
            }
        }
    }

    pub fn reset_counters(&self) {
        *lock(&self.shared.counters) = Counters::default();
    }

    /// The whole account now, hidden records included (flagged `hidden`).
    pub fn state(&self) -> StateSnapshot {
        let gaps = self.shared.settings().gaps;
        lock(&self.shared.state).snapshot(|site, slot| cron_index(&gaps, site, slot))
    }

    pub fn gaps(&self) -> Gaps {
        self.shared.settings().gaps
    }

    pub fn set_gaps(&self, gaps: Gaps) {
        self.shared.update_settings(|s| s.gaps = gaps);
    }

    pub fn set_rate_limit(&self, limit: RateLimit) {
        self.shared.update_settings(|s| s.rate_limit = limit);
        lock(&self.shared.buckets).reset();
    }

    /// Replaces every fault setting and reseeds the fault generator with `faults.seed`.
    pub fn set_faults(&self, faults: Faults) {
        lock(&self.shared.faults).reseed(faults.seed);
        self.shared.update_settings(|s| s.faults = faults);
    }

    pub fn set_latency(&self, latency: Duration) {
        let ms = latency.as_millis().min(u128::from(u64::MAX)) as u64;
        self.shared.update_settings(|s| s.faults.latency_ms = ms);
    }

    /// Share (clamped to 0–1) of writes answered 502 before anything changes.
    pub fn set_upstream_error_share(&self, share: f64) {
        self.shared
            .update_settings(|s| s.faults.upstream_error_share = share.clamp(0.0, 1.0));
    }

    /// Share (clamped to 0–1) of writes that commit and then lose the connection.
    pub fn set_drop_after_commit_share(&self, share: f64) {
        self.shared
            .update_settings(|s| s.faults.drop_after_commit_share = share.clamp(0.0, 1.0));
    }

    /// How long record writes take to show over DNS from now on ([`DnsLag::Never`]: they
    /// don't); what was written before is visible.
    pub fn set_dns_lag(&self, lag: DnsLag) {
        self.shared.update_settings(|s| s.faults.dns_lag_ms = lag);
    }

    /// From now on, the `questions` DNS questions after a record write are answered without
    /// it (0: at once); what was written before is visible.
    pub fn set_dns_lag_queries(&self, questions: u64) {
        self.shared
            .update_settings(|s| s.faults.dns_lag_queries = questions);
    }

    pub fn set_rate_limit_bursts(&self, bursts: Option<Bursts>) {
        self.shared
            .update_settings(|s| s.faults.rate_limit_bursts = bursts);
    }

    /// The next `n` authenticated API requests are answered 429 (Retry-After: 1).
    pub fn force_rate_limited(&self, n: u32) {
        lock(&self.shared.faults).forced_429 = n;
    }

    /// While `on`, every API request is answered 503 (an outage of the service behind its
    /// gateway); nothing changes.
    pub fn set_outage(&self, on: bool) {
        lock(&self.shared.faults).outage = on;
    }

    /// Revokes `token` (or restores it: `revoked` false) as its owner would in the portal: its
    /// requests are answered 401 from now on.
    pub fn set_token_revoked(&self, token: &str, revoked: bool) {
        let mut faults = lock(&self.shared.faults);
        match revoked {
            true => faults.revoked.insert(token.to_string()),
            false => faults.revoked.remove(token),
        };
    }

    /// The next `n` writes are answered 502 upstream_error, with nothing changed.
    pub fn fail_next_writes(&self, n: u32) {
        lock(&self.shared.faults).fail_next_writes = n;
    }

    /// The next `n` successful writes commit and then drop the connection.
    pub fn drop_next_writes(&self, n: u32) {
        lock(&self.shared.faults).drop_next_writes = n;
    }

    /// From now on every write waits at the emulator as it arrives (counted, nothing changed
    /// yet) until [`release_writes`](Self::release_writes): a test reaches "a write is in
    /// flight" and leaves it when it chooses, whatever the machine's load.
    pub fn hold_writes(&self) {
        self.shared.write_gate.close_after(0);
    }

    /// Lets `n` more writes through, then holds every later one as [`hold_writes`](Self::hold_writes)
    /// does: "stopped after exactly n writes", however fast the client is.
    pub fn hold_writes_after(&self, n: u64) {
        self.shared.write_gate.close_after(n);
    }

    /// Lets the held writes, and every later one, go on.
    pub fn release_writes(&self) {
        self.shared.write_gate.open();
    }

    /// Returns once at least `n` writes are held (see [`hold_writes`](Self::hold_writes)).
    pub async fn wait_for_held_writes(&self, n: u64) {
        self.shared.write_gate.wait_for_held(n).await;
    }

    /// Turns DNSSEC on or off for `domain` (the portal step a 409 asks for); false when the
    /// account has no such domain. `PUT /_admin/domains/{domain}/dnssec` does the same.
    pub fn set_dnssec(&self, domain: &str, active: bool) -> bool {
        self.shared.set_dnssec(domain, active)
    }

    /// Removes the site's cron job at list position `position` (0 = first listed) the way a
    /// person in the portal does: past the write gate and the idempotency store, so a test can
    /// change the list while a held write waits. The removed job (with the index it had), or
    /// `None` when there is none.
    pub fn remove_cron_job_in_portal(&self, slug: &str, position: usize) -> Option<CronSnapshot> {
        let gaps = self.gaps();
        let mut state = lock(&self.shared.state);
        let site = state.sites.get_mut(slug)?;
        let slot = site.cron.keys().nth(position).copied()?;
        let index = cron_index(&gaps, site, slot);
        let job = site.cron.remove(&slot)?;
        Some(CronSnapshot {
            index,
            schedule: job.schedule,
            command: job.command,
        })
    }

    /// The OpenAPI document the server serves.
    pub fn openapi(&self) -> serde_json::Value {
        openapi::document(&self.gaps().hosted_mode_value)
    }
}

/// An emulator running on the caller's tokio runtime.
pub struct Emulator {
    handle: EmulatorHandle,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Deref for Emulator {
    type Target = EmulatorHandle;
    fn deref(&self) -> &EmulatorHandle {
        &self.handle
    }
}

impl Emulator {
    pub fn handle(&self) -> EmulatorHandle {
        self.handle.clone()
    }

    /// Stops accepting, closes open connections, and returns the final counters.
    pub async fn shutdown(self) -> Counters {
        let _ = self.stop.send(true);
        let _ = self.task.await;
        self.handle.counters()
    }
}

/// Starts the emulator on `addr` (use `127.0.0.1:0` for a free port). Needs a tokio runtime.
pub async fn start(seed: Seed, addr: SocketAddr) -> Result<Emulator, EmulatorError> {
    start_with_dns(seed, addr, None).await
}

/// [`start`], plus an authoritative DNS server for the account's zones on `dns` (UDP and TCP
/// on one port; `127.0.0.1:0` picks a free one, see [`EmulatorHandle::dns_addr`]).
pub async fn start_with_dns(
    seed: Seed,
    addr: SocketAddr,
    dns: Option<SocketAddr>,
) -> Result<Emulator, EmulatorError> {
    seed.validate().map_err(|message| EmulatorError::Seed {
        source_name: "<seed>".into(),
        message,
    })?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| EmulatorError::Bind { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| EmulatorError::Bind { addr, source })?;
    let shared = Arc::new(Shared::new(&seed));
    let router = routes::router(shared.clone());
    let (stop, stopped) = watch::channel(false);
    let dns_addr = match dns {
        Some(dns) => {
            let (udp, tcp) = dns_server::bind(dns).await?;
            let bound = tcp
                .local_addr()
                .map_err(|source| EmulatorError::Bind { addr: dns, source })?;
            tokio::spawn(dns_server::serve(udp, tcp, shared.clone(), stopped.clone()));
            Some(bound)
        }
        None => None,
    };
    let task = tokio::spawn(server::serve(listener, router, stopped));
    Ok(Emulator {
        handle: EmulatorHandle {
            shared,
            addr: local,
            dns_addr,
        },
        stop,
        task,
    })
}

/// An emulator on 127.0.0.1 with its own tokio runtime, for sync tests and for tests that
/// run the `dnscron` binary against it. Stops when dropped.
pub struct BackgroundEmulator {
    handle: EmulatorHandle,
    stop: watch::Sender<bool>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Deref for BackgroundEmulator {
    type Target = EmulatorHandle;
    fn deref(&self) -> &EmulatorHandle {
        &self.handle
    }
}

pub fn start_background(seed: Seed) -> Result<BackgroundEmulator, EmulatorError> {
    background(seed, None)
}

/// [`start_background`] with the DNS listener on 127.0.0.1 too (its own free port,
/// [`EmulatorHandle::dns_addr`]).
pub fn start_background_with_dns(seed: Seed) -> Result<BackgroundEmulator, EmulatorError> {
    background(seed, Some(SocketAddr::from(([127, 0, 0, 1], 0))))
}

fn background(seed: Seed, dns: Option<SocketAddr>) -> Result<BackgroundEmulator, EmulatorError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("dnscron-emulator")
        .enable_all()
        .build()
        .map_err(|e| EmulatorError::Runtime(e.to_string()))?;
    let addr = SocketAddr::from(([127, 0, 0, 1], 0));
    // Bind inside the runtime, from a plain thread: this also works when the caller itself
    // runs inside another runtime (block_on there would panic).
    let (tx, rx) = std::sync::mpsc::channel();
    runtime.spawn(async move {
        let _ = tx.send(start_with_dns(seed, addr, dns).await);
    });
    let emulator = rx
        .recv()
        .map_err(|e| EmulatorError::Runtime(e.to_string()))??;
    let Emulator { handle, stop, task } = emulator;
    drop(task);
    Ok(BackgroundEmulator {
        handle,
        stop,
        runtime: Some(runtime),
    })
}

impl BackgroundEmulator {
    pub fn handle(&self) -> EmulatorHandle {
        self.handle.clone()
    }

    /// Stops the server and its runtime; returns the final counters.
    pub fn shutdown(mut self) -> Counters {
        self.stop_now();
        self.handle.counters()
    }

    fn stop_now(&mut self) {
        let _ = self.stop.send(true);
        if let Some(runtime) = self.runtime.take() {
            // Never blocks, so it is safe even when dropped inside another runtime.
            runtime.shutdown_background();
        }
    }
}

impl Drop for BackgroundEmulator {
    fn drop(&mut self) {
        self.stop_now();
    }
}
