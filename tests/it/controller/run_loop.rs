//! The controller's loop over time, on tokio's paused clock: outages and 429 storms survived with
//! bounded waits, a stop that lets the write in flight finish, the budget over a simulated day.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron_api::Budget;
use dnscron_core::controller::{LONGEST_WAIT, RunEnd, Settings};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::rig::{Rig, Seen, zone_file};

const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";

/// A controller's loop running in a task of the test's runtime.
pub(super) struct Running {
    run: tokio::task::JoinHandle<RunEnd>,
    pub(super) seen: Seen,
    stop: Arc<dnscron_core::apply::Interrupt>,
    pub(super) round_now: Arc<Notify>,
}

impl Running {
    pub(super) fn spawn(controller: dnscron_core::controller::Controller) -> Running {
        let stop = controller.interrupt();
        let seen = Seen::default();
        let observe = seen.observe();
        let round_now = Arc::new(Notify::new());
        let wake = Arc::clone(&round_now);
        let run = tokio::spawn(async move { controller.run(false, &wake, &observe).await });
        Running {
            run,
            seen,
            stop,
            round_now,
        }
    }

    /// Stops the loop (it must end as stopped) and returns what it told.
    pub(super) async fn stop(self) -> Vec<String> {
        self.stop.raise();
        assert_eq!(self.run.await.unwrap(), RunEnd::Stopped);
        self.seen.lines()
    }
}

/// Backoff waits as `Duration`s, from the lines seen.
fn backoffs(lines: &[String]) -> Vec<Duration> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("wait Backoff "))
        .map(|d| {
            let secs: f64 = match d.strip_suffix("ms") {
                Some(ms) => ms.parse::<f64>().unwrap() / 1000.0,
                None => d.strip_suffix('s').unwrap().parse().unwrap(),
            };
            Duration::from_secs_f64(secs)
        })
        .collect()
}

/// An hour of 503s, then a storm of 429s: the loop never ends, each wait stays within Flux's
/// bounds (750 ms doubling to 15 min), and the first round after the outage converges, telling
/// the failure once and its end once.
#[tokio::test(start_paused = true)]
async fn an_hour_of_503s_and_a_429_storm_are_survived_with_bounded_waits() {
    let rig = Rig::start(&["a.example"]).await;
    let controller = rig.controller("apply", true);
    rig.emu.set_outage(true);
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(3600)).await;
    rig.emu.set_outage(false);
    // The next retry comes within the longest wait; then the storm.
    tokio::time::sleep(LONGEST_WAIT + Duration::from_secs(60)).await;
    rig.emu.force_rate_limited(40);
    rig.write("a.example.yaml", &zone_file("a.example", API));
    tokio::time::sleep(Duration::from_secs(600)).await;
    let lines = running.stop().await;
    let waits = backoffs(&lines);
    assert!(waits.len() >= 8, "{lines:#?}");
    assert!(waits[0] <= Duration::from_millis(750), "{waits:?}");
    assert!(waits.iter().all(|w| *w <= LONGEST_WAIT), "{waits:?}");
    // Told once when rounds began to fail, once when they succeeded again.
    let told: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("alert Failing"))
        .collect();
    assert_eq!(told, ["alert Failing Raised", "alert Failing Cleared"]);
    // The storm's 429s were waited out inside the rounds: the revision converged.
    assert!(
        lines.contains(&"round applied converged".to_string()),
        "{lines:#?}"
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
    assert_eq!(rig.emu.counters().faults.forced_429, 40);
}

/// A token revoked mid-run fails every round (told once) without ending the loop; restored, the
/// loop goes on.
#[tokio::test(start_paused = true)]
async fn a_revoked_token_fails_rounds_until_it_is_restored() {
    let rig = Rig::start(&["a.example"]).await;
    let controller = rig.controller("apply", true);
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(10)).await;
    rig.emu.set_token_revoked(super::rig::TOKEN, true);
    running.round_now.notify_one();
    tokio::time::sleep(Duration::from_secs(600)).await;
    rig.emu.set_token_revoked(super::rig::TOKEN, false);
    tokio::time::sleep(LONGEST_WAIT).await;
    let lines = running.stop().await;
    let told: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("alert Failing"))
        .collect();
    assert_eq!(
        told,
        ["alert Failing Raised", "alert Failing Cleared"],
        "{lines:#?}"
    );
    assert!(lines.last().unwrap().starts_with("wait "), "{lines:#?}");
}

/// SIGTERM while a write is in flight: the write finishes, nothing after it is sent, the loop
/// ends; the next start applies the rest with no duplicate.
#[tokio::test(start_paused = true)]
async fn a_stop_mid_apply_finishes_the_write_in_flight_and_a_restart_converges() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    controller
        .round(dnscron_core::controller::Trigger::Start)
        .await;
    let two = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n  - {name: cdn, type: A, content: 192.0.2.8, ttl: 300}\n";
    rig.write("a.example.yaml", &zone_file("a.example", two));
    rig.emu.hold_writes();
    let running = Running::spawn(controller);
    rig.emu.wait_for_held_writes(1).await;
    running.stop.raise();
    rig.emu.release_writes();
    running.stop().await;
    assert_eq!(rig.writes(), 1);
    assert_eq!(rig.live("a.example").len(), 2);
    // The revision did not converge: the next start applies the other record.
    let mut restarted = rig.controller("apply", true);
    let (report, _) = restarted
        .round(dnscron_core::controller::Trigger::Start)
        .await;
    assert_eq!(super::rig::named(&report), ("applied", "converged"));
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "cdn A 192.0.2.8", "www A 192.0.2.1"]
    );
}

/// A simulated day at half the bucket: never more than 60 requests in any rolling minute, and
/// a sweep of the whole account every interval.
#[tokio::test(start_paused = true)]
async fn the_budget_holds_over_a_simulated_day() {
    let zones: Vec<String> = (0..40).map(|i| format!("z{i:02}.example")).collect();
    let names: Vec<&str> = zones.iter().map(String::as_str).collect();
    let rig = Rig::start(&names).await;
    let sent = Arc::new(Mutex::new(Vec::<(Instant, &'static str)>::new()));
    let log = Arc::clone(&sent);
    let mut config = rig.config();
    config.budget = Some(Budget::share(50, 120));
    config.on_response = Some(Arc::new(move |event| {
        log.lock().unwrap().push((Instant::now(), event.route));
    }));
    let settings = Settings {
        interval: Duration::from_secs(300),
        ..rig.settings()
    };
    let controller = rig.controller_with("apply", true, config, settings);
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
    let lines = running.stop().await;
    let sent = sent.lock().unwrap().clone();
    let mut window = VecDeque::new();
    let mut most = 0;
    for (at, _) in &sent {
        window.push_back(*at);
        while at.duration_since(*window.front().unwrap()) >= Duration::from_secs(60) {
            window.pop_front();
        }
        most = most.max(window.len());
    }
    assert!(most <= 60, "{most} requests in one minute");
    // A sweep of 40 zones is 83 requests, more than a minute's share: it goes in parts. Each
    // sweep reads the zone list once, then each zone's records and registration, and reuses
    // its domain listing in every part: 40 × 2 + 3, never more.
    let sweeps = sent.iter().filter(|(_, route)| *route == "/dns").count();
    assert!(sweeps >= 24 * 60 / 7, "{sweeps} sweeps in a day");
    // The day may end inside a sweep.
    let requests = sent.len();
    assert!(
        (sweeps - 1) * 83 < requests && requests <= sweeps * 83,
        "{requests} requests in {sweeps} sweeps"
    );
    let parts = lines
        .iter()
        .filter(|l| *l == "round swept converged")
        .count();
    assert!(parts >= 2 * sweeps, "{parts} parts of {sweeps} sweeps");
}
