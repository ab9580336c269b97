//! A simulated day: the controller at half the bucket for 24 hours of tokio's paused clock,
//! sweeping a 300-zone account every interval, every request's time kept; the most in any
//! rolling minute is what the share promises the user's other jobs.

use std::time::Duration;

use dnscron_core::controller::{DEFAULT_INTERVAL, RunEnd};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::super::BenchError;
use super::harness::{self, GitSyncRoot, RequestLog};
use super::merge;

/// The window a share is promised over.
pub const MINUTE: Duration = Duration::from_secs(60);

pub struct Day {
    pub simulated: Duration,
    pub wall: Duration,
    pub requests: usize,
    /// The most attempts whose answers came within any 60 s.
    pub busiest_minute: usize,
    pub sweeps: u64,
    pub rounds: u64,
    pub failed_rounds: u64,
    /// 429s the server answered.
    pub rate_limited: u64,
    /// The day's attempts by route ([`merge::routes`]).
    pub routes: String,
}

/// Runs the controller on a paused clock for `length` against `zones` zones (first start:
/// the folder's revision is the base, nothing is written; every round after is the sweep).
pub fn run(zones: usize, length: Duration) -> Result<Day, BenchError> {
    let (day, wall) = harness::on_paused_clock(simulate(zones, length))?;
    Ok(Day { wall, ..day })
}

async fn simulate(zones: usize, length: Duration) -> Result<Day, BenchError> {
    let account = merge::account(zones);
    let emulator = harness::emulator(&account).await?;
    let root = GitSyncRoot::new("controller-day", &account)?;
    let log = RequestLog::default();
    let controller = harness::controller(
        &emulator.handle(),
        &root,
        DEFAULT_INTERVAL,
        Some(&log),
        None,
    )?;
    let interrupt = controller.interrupt();
    let (observe, seen) = harness::watched(&log, emulator.handle());
    let round_now = Notify::new();
    let began = Instant::now();
    let stop = async {
        tokio::time::sleep(length).await;
        interrupt.raise();
    };
    let (end, ()) = tokio::join!(controller.run(false, &round_now, &observe), stop);
    let simulated = began.elapsed();
    let counters = emulator.shutdown().await;
    if end != RunEnd::Stopped {
        return Err(BenchError::step("the controller", format!("{end:?}")));
    }
    let times = log.times();
    let rounds = seen.borrow().clone();
    Ok(Day {
        simulated,
        wall: Duration::ZERO,
        requests: times.len(),
        busiest_minute: busiest(&times, MINUTE),
        sweeps: rounds.sweeps,
        rounds: rounds.finished,
        failed_rounds: rounds.failed,
        rate_limited: counters.rate_limited,
        routes: merge::routes(&log.all()),
    })
}

/// The most of `times` (in order) within any `window`, counted over `[t, t + window)`: the
/// budget lets a request go once the one `per_minute` before it is a whole window old.
pub fn busiest(times: &[Instant], window: Duration) -> usize {
    let mut most = 0;
    let mut first = 0;
    for (last, at) in times.iter().enumerate() {
        while at.saturating_duration_since(times[first]) >= window {
            first += 1;
        }
        most = most.max(last + 1 - first);
    }
    most
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busiest_window_is_half_open() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(busiest(&[], MINUTE), 0);
        // Three at 0 s, one at 59 s: four within a minute.
        assert_eq!(busiest(&[at(0), at(0), at(0), at(59)], MINUTE), 4);
        // At 60 s the ones at 0 s have left the window.
        assert_eq!(busiest(&[at(0), at(0), at(0), at(60), at(61)], MINUTE), 3);
    }
}
