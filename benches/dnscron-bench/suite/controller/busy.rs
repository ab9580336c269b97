//! A busy repository: a revision merged every 20 s while the controller sweeps a 60-zone
//! account at half the bucket, on tokio's paused clock. Each revision moves one record to the
//! next zone (two changes: the last one's record removed, this one's added), so every revision
//! has work to do. What is measured is the promise of issue 37: while revisions keep landing,
//! every target is still swept, within a bounded time: when each whole sweep ended, and the
//! longest a sweep took.

use std::time::Duration;

use dnscron_core::controller::{DEFAULT_INTERVAL, RunEnd};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::super::BenchError;
use super::harness::{self, GitSyncRoot, RequestLog};
use super::merge;

pub struct Busy {
    pub zones: usize,
    pub every: Duration,
    pub simulated: Duration,
    pub wall: Duration,
    /// Revisions swapped in, and those the controller converged.
    pub published: u32,
    pub converged: u64,
    /// When each whole sweep ended, from the start.
    pub sweeps_ended: Vec<Duration>,
    pub requests: usize,
    pub busiest_minute: usize,
    pub failed_rounds: u64,
}

impl Busy {
    /// The longest any target waited to be read again: the first sweep from the start, then
    /// from one sweep's end to the next's; with the wait since the last one ended.
    pub fn longest_sweep(&self) -> Option<Duration> {
        let mut previous = Duration::ZERO;
        let mut longest: Option<Duration> = None;
        for ended in &self.sweeps_ended {
            let took = ended.saturating_sub(previous);
            longest = Some(longest.map_or(took, |l| l.max(took)));
            previous = *ended;
        }
        longest
    }
}

pub fn run(zones: usize, every: Duration, length: Duration) -> Result<Busy, BenchError> {
    let (busy, wall) = harness::on_paused_clock(simulate(zones, every, length))?;
    Ok(Busy { wall, ..busy })
}

async fn simulate(zones: usize, every: Duration, length: Duration) -> Result<Busy, BenchError> {
    let account = merge::account(zones);
    let emulator = harness::emulator(&account).await?;
    let mut root = GitSyncRoot::new("controller-busy", &account)?;
    let log = RequestLog::default();
    // Restarted with the first revision converged, so each new one is applied, not a base.
    let converged = harness::converged_now(&root)?;
    let controller = harness::controller(
        &emulator.handle(),
        &root,
        DEFAULT_INTERVAL,
        Some(&log),
        Some(converged),
    )?;
    let interrupt = controller.interrupt();
    let (observe, mut seen) = harness::watched(&log, emulator.handle());
    let round_now = Notify::new();
    let began = Instant::now();
    let mut published = 0u32;
    let mut sweeps_ended = Vec::new();
    let mut converged_ids: Vec<String> = Vec::new();
    let drive = async {
        let mut next_revision = began + every;
        let mut failure = None;
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(next_revision) => {
                    if began.elapsed() >= length {
                        break;
                    }
                    published += 1;
                    let zone = published as usize % zones;
                    if let Err(error) = root.publish(&merge::with_added(zones, Some(zone))) {
                        failure = Some(error);
                        break;
                    }
                    next_revision += every;
                }
                changed = seen.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    let rounds = seen.borrow_and_update().clone();
                    while (sweeps_ended.len() as u64) < rounds.sweeps {
                        sweeps_ended.push(began.elapsed());
                    }
                    if let Some(id) = rounds.converged
                        && converged_ids.last() != Some(&id)
                    {
                        converged_ids.push(id);
                    }
                }
            }
        }
        interrupt.raise();
        failure
    };
    let (end, failure) = tokio::join!(controller.run(false, &round_now, &observe), drive);
    let simulated = began.elapsed();
    let rounds = seen.borrow().clone();
    emulator.shutdown().await;
    if let Some(error) = failure {
        return Err(error);
    }
    if end != RunEnd::Stopped {
        return Err(BenchError::step("the controller", format!("{end:?}")));
    }
    let times = log.times();
    Ok(Busy {
        zones,
        every,
        simulated,
        wall: Duration::ZERO,
        published,
        // The first id is the revision it started from.
        converged: converged_ids.len().saturating_sub(1) as u64,
        sweeps_ended,
        requests: times.len(),
        busiest_minute: super::day::busiest(&times, super::day::MINUTE),
        failed_rounds: rounds.failed,
    })
}
