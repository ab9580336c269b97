//! Memory and open files over thousands of rounds: a small account swept with rounds back to
//! back (interval 1 s on tokio's paused clock), the process's resident set and descriptors
//! taken after round `early` and after round `late`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dnscron_core::controller::{Event, RunEnd};
use tokio::sync::Notify;

use super::super::BenchError;
use super::harness::{self, GitSyncRoot};
use super::merge;

/// Zones of the small account.
pub const ZONES: usize = 3;
/// Between sweeps: rounds come back to back (each waits for the budget when it is spent).
const INTERVAL: Duration = Duration::from_secs(1);

/// Resident set (KiB) and open descriptors after a round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub rss_kib: u64,
    pub fds: usize,
}

pub struct Flat {
    pub early: Sample,
    pub late: Sample,
    pub failed_rounds: u64,
    pub simulated: Duration,
    pub wall: Duration,
}

pub fn run(early: u64, late: u64) -> Result<Flat, BenchError> {
    let (flat, wall) = harness::on_paused_clock(rounds(early, late))?;
    Ok(Flat { wall, ..flat })
}

#[derive(Default)]
struct Taken {
    rounds: u64,
    failed: u64,
    early: Option<Result<Sample, String>>,
    late: Option<Result<Sample, String>>,
}

fn sample() -> Result<Sample, String> {
    harness::resources()
        .map(|(rss_kib, fds)| Sample { rss_kib, fds })
        .map_err(|e| e.to_string())
}

async fn rounds(early: u64, late: u64) -> Result<Flat, BenchError> {
    let account = merge::account(ZONES);
    let emulator = harness::emulator(&account).await?;
    let root = GitSyncRoot::new("controller-memory", &account)?;
    // No request log: it would grow with the rounds and be counted as the controller's.
    let controller = harness::controller(&emulator.handle(), &root, INTERVAL, None, None)?;
    let interrupt = controller.interrupt();
    let taken = Arc::new(Mutex::new(Taken::default()));
    let seen = Arc::clone(&taken);
    let observe = move |event: Event<'_>| match event {
        Event::RoundFinished { report, .. } => {
            let mut taken = seen.lock().unwrap_or_else(PoisonError::into_inner);
            taken.rounds += 1;
            let failed = matches!(
                report.outcome,
                dnscron_core::controller::RoundOutcome::Failed(_)
            );
            taken.failed += u64::from(failed);
            if taken.rounds == early {
                taken.early = Some(sample());
            }
            if taken.rounds == late {
                taken.late = Some(sample());
                interrupt.raise();
            }
        }
        Event::RoundStarted { .. } | Event::Alert { .. } | Event::Waiting { .. } => {}
    };
    let began = tokio::time::Instant::now();
    let end = controller.run(false, &Notify::new(), &observe).await;
    let simulated = began.elapsed();
    emulator.shutdown().await;
    if end != RunEnd::Stopped {
        return Err(BenchError::step("the controller", format!("{end:?}")));
    }
    let taken = taken.lock().unwrap_or_else(PoisonError::into_inner);
    let sampled = |s: &Option<Result<Sample, String>>, at: u64| match s {
        Some(Ok(sample)) => Ok(*sample),
        Some(Err(e)) => Err(BenchError::step("sampling the process", e)),
        None => Err(BenchError::step(
            "the controller",
            format!("stopped before round {at}"),
        )),
    };
    Ok(Flat {
        early: sampled(&taken.early, early)?,
        late: sampled(&taken.late, late)?,
        failed_rounds: taken.failed,
        simulated,
        wall: Duration::ZERO,
    })
}
