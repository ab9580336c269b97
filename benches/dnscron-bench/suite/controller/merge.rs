//! A merged revision, live: one record added to one zone's file of a 300-zone account, DIR
//! swapped the way git-sync swaps it, and the time until the emulator holds the record, with
//! the requests the controller sent for that revision.

use std::collections::BTreeMap;
use std::time::Duration;

use dnscron_core::controller::RunEnd;
use dnscron_emulator::EmulatorHandle;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use super::super::BenchError;
use super::super::workload::{Account, Drift, ZoneGen};
use super::harness::{self, GitSyncRoot, RequestLog, Rounds, Sent};

/// Records per zone, as section 7 seeds them.
pub const RECORDS: usize = 4;

/// How the controller stands when the revision comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// No state file: its first round takes the folder's revision as the base; the revision
    /// comes once the first whole drift sweep is done.
    FirstStart,
    /// The state file holds the folder's revision (a restart); the revision comes right after
    /// the first part of the sweep, when that part has spent the budget down to its reserve.
    Restarted,
}

/// What one revision cost.
pub struct RevisionRun {
    /// Swap → the record in the emulator's state, on the runtime's clock.
    pub live_after: Duration,
    /// The same on the wall clock.
    pub wall: Duration,
    /// The attempts of the round that applied the revision.
    pub requests: Vec<Sent>,
    /// What the server counted during that round.
    pub server_requests: u64,
    pub converged: bool,
    /// The revision converged after it, as the controller names it: the second commit.
    pub revision: Option<String>,
    /// The first start's first whole sweep, before the revision (runtime's clock).
    pub first_sweep: Option<Duration>,
    /// The controller's attempts in the minute before the swap: the budget they left is
    /// what the revision had.
    pub minute_before: usize,
}

/// `zones` zones of [`RECORDS`] records, files and live the same.
pub fn account(zones: usize) -> Account {
    with_added(zones, None)
}

/// The account with one record more in the file of zone `added`.
pub fn with_added(zones: usize, added: Option<usize>) -> Account {
    Account {
        zones: (0..zones)
            .map(|i| {
                let records = RECORDS + usize::from(added == Some(i));
                ZoneGen::new(&format!("z{i:03}.example"), records, Drift::default())
            })
            .collect(),
        sites: Vec::new(),
    }
}

/// Starts the emulator and the controller on the current runtime, swaps in the revision
/// when `start` says, and waits for its record.
pub async fn run(zones: usize, start: Start) -> Result<RevisionRun, BenchError> {
    let before = account(zones);
    let emulator = harness::emulator(&before).await?;
    let mut root = GitSyncRoot::new("controller-merge", &before)?;
    let converged = match start {
        Start::FirstStart => None,
        Start::Restarted => Some(harness::converged_now(&root)?),
    };
    let log = RequestLog::default();
    let controller = harness::controller(
        &emulator.handle(),
        &root,
        dnscron_core::controller::DEFAULT_INTERVAL,
        Some(&log),
        converged,
    )?;
    let interrupt = controller.interrupt();
    let (observe, seen) = harness::watched(&log, emulator.handle());
    let round_now = Notify::new();
    let drive = async {
        let result = swap_and_wait(&emulator.handle(), &mut root, zones, start, seen, &log).await;
        interrupt.raise();
        result
    };
    let (end, result) = tokio::join!(controller.run(false, &round_now, &observe), drive);
    emulator.shutdown().await;
    let run = result?;
    if end != RunEnd::Stopped {
        return Err(BenchError::step("the controller", format!("{end:?}")));
    }
    Ok(run)
}

/// The longest the record is waited for (the bound is 5 s; past this, the run failed).
const GIVE_UP: Duration = Duration::from_secs(120);
/// How often the emulator's state is looked at for the record.
const LOOK_EVERY: Duration = Duration::from_millis(10);

async fn swap_and_wait(
    emulator: &EmulatorHandle,
    root: &mut GitSyncRoot,
    zones: usize,
    start: Start,
    mut seen: watch::Receiver<Rounds>,
    log: &RequestLog,
) -> Result<RevisionRun, BenchError> {
    let began = Instant::now();
    let ready = |r: &Rounds| match start {
        Start::FirstStart => r.sweeps >= 1,
        Start::Restarted => r.sweep_parts >= 1,
    };
    let gone = |_| BenchError::step("the controller", "stopped before its first sweep");
    seen.wait_for(ready).await.map_err(gone)?;
    let first_sweep = (start == Start::FirstStart).then(|| began.elapsed());
    let added = zones / 2;
    let after = with_added(zones, Some(added));
    let zone = &after.zones[added];
    let record = zone
        .desired()
        .pop()
        .ok_or_else(|| BenchError::Setup("a zone without records".into()))?;
    let swapped = Instant::now();
    let minute_before = log
        .times()
        .iter()
        .filter(|at| swapped.saturating_duration_since(**at) < Duration::from_secs(60))
        .count();
    let wall = std::time::Instant::now();
    root.publish(&after)?;
    loop {
        let state = emulator.state();
        let live = state
            .visible_records(&zone.zone)
            .iter()
            .any(|r| r.name == record.name && r.rtype == record.rtype);
        if live {
            break;
        }
        if swapped.elapsed() > GIVE_UP {
            return Err(BenchError::step(
                "the merged revision",
                format!("its record was not live after {GIVE_UP:?}"),
            ));
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
    let live_after = swapped.elapsed();
    let wall = wall.elapsed();
    // The round goes on after the write (it reads the zone back): its requests are counted
    // once it has finished.
    let rounds = seen
        .wait_for(|r| r.applied.is_some())
        .await
        .map_err(|_| BenchError::step("the controller", "stopped before the revision's round"))?
        .clone();
    let applied = rounds
        .applied
        .ok_or_else(|| BenchError::step("the controller", "no revision round"))?;
    Ok(RevisionRun {
        live_after,
        wall,
        requests: log.range(applied.log.0, applied.log.1),
        server_requests: applied.server.1 - applied.server.0,
        converged: applied.converged,
        revision: rounds.converged,
        first_sweep,
        minute_before,
    })
}

/// `GET /dns/{zone}/records ×2, POST …`: the attempts by method and route, in first-sent order.
pub fn routes(requests: &[Sent]) -> String {
    let mut order: Vec<String> = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for sent in requests {
        let status = sent
            .status
            .map_or_else(|| "no answer".to_string(), |s| s.to_string());
        let key = format!("`{} {}` {status}", sent.method, sent.route);
        if !counts.contains_key(&key) {
            order.push(key.clone());
        }
        *counts.entry(key).or_default() += 1;
    }
    order
        .iter()
        .map(|key| match counts.get(key) {
            Some(&n) if n > 1 => format!("{key} ×{n}"),
            _ => key.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
