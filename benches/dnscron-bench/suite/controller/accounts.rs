//! Issue 40: one controller over a repository of several accounts. Each account is a
//! controller of its own, as `dnscron controller` over `dnscron-accounts.yaml` makes it (its
//! client and pacer at `--api-share 50` of its own bucket, its revision its folder's digest),
//! run side by side in one runtime; each against its own emulator at the spec's bucket. The
//! first whole sweep of every account, on tokio's paused clock, next to one account's alone.

use std::time::Duration;

use dnscron_api::{ApiConfig, Token, WriteClient};
use dnscron_core::controller::{
    BUCKET_PER_MINUTE, Controller, DEFAULT_INTERVAL, Identity, Mode, OnceOutcome, RunEnd, Settings,
    StateStore, api_config,
};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::super::BenchError;
use super::super::workload::TOKEN;
use super::harness::{self, GitSyncRoot, SHARE_PERCENT};
use super::merge;

pub struct Sweeps {
    /// Simulated: from the start until the last account's first sweep was whole.
    pub all: Duration,
    /// Simulated: one account alone, the same size.
    pub one: Duration,
    /// Requests every emulator answered, and 429s among them.
    pub requests: u64,
    pub rate_limited: u64,
    /// Accounts whose `--once` run did not end converged.
    pub not_converged: usize,
    pub wall: Duration,
}

/// `accounts` accounts of `zones` zones each, then one alone.
pub fn run(accounts: usize, zones: usize) -> Result<Sweeps, BenchError> {
    let (one, _) = harness::on_paused_clock(first_sweeps(1, zones))?;
    let (all, wall) = harness::on_paused_clock(first_sweeps(accounts, zones))?;
    Ok(Sweeps {
        all: all.longest,
        one: one.longest,
        requests: all.requests,
        rate_limited: all.rate_limited,
        not_converged: all.not_converged,
        wall,
    })
}

struct Run {
    longest: Duration,
    requests: u64,
    rate_limited: u64,
    not_converged: usize,
}

/// Every account's controller from a first start (its files the base), `--once`: the base,
/// then one whole sweep; how long the slowest took.
async fn first_sweeps(accounts: usize, zones: usize) -> Result<Run, BenchError> {
    let account = merge::account(zones);
    let mut emulators = Vec::new();
    let mut roots = Vec::new();
    let mut controllers = Vec::new();
    for i in 0..accounts {
        let emulator = harness::emulator(&account).await?;
        let root = GitSyncRoot::new(&format!("controller-account-{i}"), &account)?;
        controllers.push(controller(&emulator.handle().base_url(), &root)?);
        emulators.push(emulator);
        roots.push(root);
    }
    let began = Instant::now();
    let runs: Vec<_> = controllers
        .into_iter()
        .map(|controller| {
            tokio::spawn(async move {
                let round_now = Notify::new();
                let end = controller.run(true, &round_now, &|_| {}).await;
                (end, began.elapsed())
            })
        })
        .collect();
    let mut longest = Duration::ZERO;
    let mut not_converged = 0;
    for run in runs {
        let (end, took) = run
            .await
            .map_err(|e| BenchError::step("an account's controller", e))?;
        longest = longest.max(took);
        not_converged += usize::from(end != RunEnd::Once(OnceOutcome::Converged));
    }
    let (mut requests, mut rate_limited) = (0, 0);
    for emulator in emulators {
        let counters = emulator.shutdown().await;
        requests += counters.requests;
        rate_limited += counters.rate_limited;
    }
    Ok(Run {
        longest,
        requests,
        rate_limited,
        not_converged,
    })
}

/// An account's controller as the command makes it in a repository of several.
fn controller(base_url: &str, root: &GitSyncRoot) -> Result<Controller, BenchError> {
    let setup = |e: &dyn std::fmt::Display| BenchError::Setup(e.to_string());
    let token = Token::new(TOKEN).map_err(|e| setup(&e))?;
    let config = ApiConfig::new(base_url, token).map_err(|e| setup(&e))?;
    let config = api_config(config, SHARE_PERCENT, BUCKET_PER_MINUTE);
    let client = WriteClient::new(config).map_err(|e| setup(&e))?;
    let settings = Settings {
        interval: DEFAULT_INTERVAL,
        identity: Identity::Files,
        ..Settings::new(root.current())
    };
    let store = StateStore::new(Some(root.state_file()), root.current());
    Ok(Controller::new(
        Mode::ApplyMerged(client),
        settings,
        store,
        None,
    ))
}
