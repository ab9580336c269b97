//! What every request handler shares: the account, the settings and the bookkeeping.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock};

use super::counters::Counters;
use super::dns_lag::{DnsView, Lag};
use super::faults::FaultState;
use super::gate::WriteGate;
use super::idempotency::IdempotencyStore;
use super::ratelimit::Buckets;
use super::seed::{Seed, TokenSeed};
use super::settings::{CronIndexAfterDelete, Faults, Gaps, RateLimit};
use super::state::{SiteState, State, ZoneState};

/// Settings that may change at run time (runtime setters, admin endpoint).
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub gaps: Gaps,
    pub rate_limit: RateLimit,
    pub faults: Faults,
    pub service_nameservers: Vec<String>,
    pub portal_url: String,
}

pub(crate) struct Shared {
    pub state: Mutex<State>,
    pub settings: RwLock<Settings>,
    pub tokens: HashMap<String, TokenSeed>,
    pub counters: Mutex<Counters>,
    /// Signalled after each counted request, so a test waits for counts without polling.
    pub counted: tokio::sync::watch::Sender<()>,
    /// Holds writes while a test keeps it closed (`EmulatorHandle::hold_writes`).
    pub write_gate: WriteGate,
    pub buckets: Mutex<Buckets>,
    pub idempotency: Mutex<IdempotencyStore>,
    pub faults: Mutex<FaultState>,
    /// What DNS serves while it lags behind the API (`faults.dns_lag_*`). Lock order: the
    /// account first, then this.
    dns: Mutex<DnsView>,
    /// Request ids count up from 1 per emulator, so tests can name them without masking.
    request_ids: AtomicU64,
}

impl Shared {
    pub(crate) fn new(seed: &Seed) -> Shared {
        let state = State::from_seed(seed);
        let mut dns = DnsView::default();
        dns.set_lag(dns_lag(&seed.faults), &state);
        Shared {
            state: Mutex::new(state),
            dns: Mutex::new(dns),
            settings: RwLock::new(Settings {
                gaps: seed.gaps.clone(),
                rate_limit: seed.rate_limit.clone(),
                faults: seed.faults.clone(),
                service_nameservers: seed.service_nameservers.clone(),
                portal_url: seed.portal_url.trim_end_matches('/').to_string(),
            }),
            tokens: seed
                .tokens
                .iter()
                .map(|t| (t.token.clone(), t.clone()))
                .collect(),
            counters: Mutex::new(Counters::default()),
            counted: tokio::sync::watch::Sender::new(()),
            write_gate: WriteGate::default(),
            buckets: Mutex::new(Buckets::default()),
            idempotency: Mutex::new(IdempotencyStore::default()),
            faults: Mutex::new(FaultState::new(seed.faults.seed)),
            request_ids: AtomicU64::new(0),
        }
    }

    /// `req_000001`, `req_000002`, …: the `req_` prefix of a real server's ids, but
    /// deterministic.
    pub(crate) fn next_request_id(&self) -> String {
        let n = self.request_ids.fetch_add(1, Ordering::Relaxed) + 1;
        format!("req_{n:06}")
    }

    pub(crate) fn settings(&self) -> Settings {
        match self.settings.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The portal step after a 409 on a nameserver change; false when there is no such domain.
    pub(crate) fn set_dnssec(&self, domain: &str, active: bool) -> bool {
        let mut state = lock(&self.state);
        match state.domains.get_mut(domain.trim_end_matches('.')) {
            Some(d) => {
                d.dnssec = active;
                true
            }
            None => false,
        }
    }

    pub(crate) fn update_settings(&self, change: impl FnOnce(&mut Settings)) {
        let lag = match self.settings.write() {
            Ok(mut guard) => {
                change(&mut guard);
                dns_lag(&guard.faults)
            }
            Err(poisoned) => {
                let mut guard = poisoned.into_inner();
                change(&mut guard);
                dns_lag(&guard.faults)
            }
        };
        // Settings released first: a write holds the account and reads the settings.
        let state = lock(&self.state);
        lock(&self.dns).set_lag(lag, &state);
    }

    /// A record write left `zone` as `now`; call with the account still locked.
    pub(crate) fn dns_written(&self, zone: &str, now: &ZoneState) {
        lock(&self.dns).written(zone, now);
    }

    /// Runs `answer` on the zones DNS serves now: the account, or its lagging copy.
    pub(crate) fn with_dns_view<T>(&self, answer: impl FnOnce(&State) -> T) -> T {
        {
            let mut view = lock(&self.dns);
            if let Some(served) = view.served() {
                return answer(served);
            }
        }
        answer(&lock(&self.state))
    }
}

fn dns_lag(faults: &Faults) -> Lag {
    Lag {
        time: faults.dns_lag_ms,
        queries: faults.dns_lag_queries,
    }
}

/// Locks a mutex; a panic elsewhere while holding it must not take the emulator down.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The index the API shows for the cron job in `slot` (see `Gaps::cron_index_*`).
pub(crate) fn cron_index(gaps: &Gaps, site: &SiteState, slot: u64) -> i64 {
    let base = i64::from(gaps.cron_index_base);
    match gaps.cron_index_after_delete {
        CronIndexAfterDelete::Stable => slot as i64 + base,
        CronIndexAfterDelete::Renumber => {
            site.cron.keys().take_while(|s| **s < slot).count() as i64 + base
        }
    }
}

/// The slot of the job the API calls `index`, if any.
pub(crate) fn cron_slot(gaps: &Gaps, site: &SiteState, index: i64) -> Option<u64> {
    site.cron
        .keys()
        .copied()
        .find(|slot| cron_index(gaps, site, *slot) == index)
}
