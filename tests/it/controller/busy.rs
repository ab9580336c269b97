//! A repository that merges more often than a sweep takes (issue #37, "The sweep survives new
//! revisions"): 60 zones at half the bucket, a revision every 20 s; the sweep goes on over each
//! new revision's targets instead of starting over, so a portal edit in the zone it reads last
//! is reported within the bound docs/controller.md states, and an outage or a 429 storm in the
//! middle of it only pauses it. On tokio's paused clock.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron_api::Budget;
use dnscron_core::controller::{AlertKind, Event, RunEnd, Settings, Transition};
use tokio::time::Instant;

use super::rig::{Rig, named, zone_file};
use super::rounds::portal_edit;

const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";

/// The interval plus two sweeps' reading time at the share (123 requests at 48 a minute, about
/// 2.6 minutes): the bound docs/controller.md states for an edit to be reported.
const BOUND: Duration = Duration::from_secs(60 + 2 * 154);

/// One round as the observer saw it: when it ended, its work and outcome, the sweep's
/// progress after it.
#[derive(Clone, Debug)]
struct Seen {
    at: Duration,
    round: (&'static str, &'static str),
    done: usize,
    total: usize,
}

/// What a busy run told.
struct Busy {
    rig: Rig,
    /// When the portal edit was made, and when its drift was first told.
    edited: Duration,
    told: Option<Duration>,
    rounds: Vec<Seen>,
    /// Every API request: its time, `METHOD route` and status (0: no response).
    sent: Vec<(Instant, String, u16)>,
}

impl Busy {
    /// Requests of `route` (`METHOD template`) the server accepted (2xx).
    fn accepted(&self, route: &str) -> usize {
        self.sent
            .iter()
            .filter(|(_, r, status)| r == route && (200..300).contains(status))
            .count()
    }

    /// Ends of whole sweeps.
    fn sweeps(&self) -> Vec<Duration> {
        self.rounds
            .iter()
            .filter(|r| r.round.0 == "swept" && r.done == r.total)
            .map(|r| r.at)
            .collect()
    }

    /// The most requests sent in any rolling minute.
    fn most_in_a_minute(&self) -> usize {
        let mut window = VecDeque::new();
        let mut most = 0;
        for (at, _, _) in &self.sent {
            window.push_back(*at);
            while at.duration_since(*window.front().unwrap()) >= Duration::from_secs(60) {
                window.pop_front();
            }
            most = most.max(window.len());
        }
        most
    }
}

/// 60 zones at `--api-share 50`, `--interval 60s`; 5 s in, a portal edit in the zone the sweep
/// reads last; then 30 revisions 20 s apart, alternately adding and removing a record of the
/// first zone. `misbehave(i, rig)` runs before revision `i` lands.
async fn busy_run(misbehave: impl Fn(usize, &Rig)) -> Busy {
    let zones: Vec<String> = (0..60).map(|i| format!("z{i:02}.example")).collect();
    let names: Vec<&str> = zones.iter().map(String::as_str).collect();
    let rig = Rig::start(&names).await;
    let sent = Arc::new(Mutex::new(Vec::<(Instant, String, u16)>::new()));
    let log = Arc::clone(&sent);
    let mut config = rig.config();
    config.budget = Some(Budget::share(50, 120));
    config.on_response = Some(Arc::new(move |event| {
        let route = format!("{} {}", event.method, event.route);
        let status = event.status.unwrap_or(0);
        log.lock().unwrap().push((Instant::now(), route, status));
    }));
    let settings = Settings {
        interval: Duration::from_secs(60),
        ..rig.settings()
    };
    let controller = rig.controller_with("apply", true, config, settings);
    let stop = controller.interrupt();
    let start = Instant::now();
    let told = Arc::new(Mutex::new(None::<Duration>));
    let rounds = Arc::new(Mutex::new(Vec::<Seen>::new()));
    let (told_in, rounds_in) = (Arc::clone(&told), Arc::clone(&rounds));
    let observe = move |event: Event<'_>| match event {
        Event::Alert {
            kind: AlertKind::Drift,
            transition: Transition::Raised,
            ..
        } => {
            told_in.lock().unwrap().get_or_insert(start.elapsed());
        }
        Event::RoundFinished { report, status } => {
            let round = named(report);
            rounds_in.lock().unwrap().push(Seen {
                at: start.elapsed(),
                round,
                done: status.sweep_done,
                total: status.sweep_total,
            });
        }
        Event::RoundStarted { .. } | Event::Alert { .. } | Event::Waiting { .. } => {}
    };
    let round_now = tokio::sync::Notify::new();
    let run = tokio::spawn(async move { controller.run(false, &round_now, &observe).await });
    tokio::time::sleep(Duration::from_secs(5)).await;
    portal_edit(&rig, "z59.example", "192.0.2.99").await;
    let edited = start.elapsed();
    for i in 0..30 {
        misbehave(i, &rig);
        let extra = if i % 2 == 0 { API } else { "" };
        rig.write("z00.example.yaml", &zone_file("z00.example", extra));
        tokio::time::sleep(Duration::from_secs(20)).await;
    }
    stop.raise();
    assert_eq!(run.await.unwrap(), RunEnd::Stopped);
    let told = *told.lock().unwrap();
    let rounds = rounds.lock().unwrap().clone();
    let sent = sent.lock().unwrap().clone();
    Busy {
        rig,
        edited,
        told,
        rounds,
        sent,
    }
}

#[tokio::test(start_paused = true)]
async fn a_portal_edit_in_the_last_zone_is_reported_while_revisions_keep_landing() {
    let busy = busy_run(|_, _| {}).await;
    let told = busy.told.expect("the drift was never told");
    let sweeps = busy.sweeps();
    // Every revision was applied (the last one too).
    assert_eq!(busy.rig.live("z00.example"), ["www A 192.0.2.1"]);
    assert!(
        told - busy.edited <= BOUND,
        "told {:?} after the edit (sweeps ended at {sweeps:?})",
        told - busy.edited
    );
    // Each revision written, none replayed: the folder returns to earlier content every other
    // revision, and its keys are new each time all the same.
    assert_eq!(busy.accepted("POST /dns/{zone}/records"), 15);
    assert_eq!(busy.accepted("DELETE /dns/{zone}/records/{record}"), 15);
    assert_eq!(busy.rig.emu.counters().replays, 0);
    // Sweeps keep ending while revisions land.
    assert!(sweeps.len() >= 3, "{sweeps:?}");
    assert!(busy.most_in_a_minute() <= 60);
}

/// An outage of two minutes that begins while the first sweep has read about a third of the
/// account, then a storm of 40 429s when it ends, while revisions keep landing: the sweep
/// pauses and goes on where it was (its cursor never goes back without a sweep ending), the
/// edit is reported within the bound from the server's recovery plus the backoff the outage
/// left, each revision's write is sent once (retries under its key aside), and the share holds
/// throughout.
#[tokio::test(start_paused = true)]
async fn an_outage_and_a_429_storm_mid_sweep_pause_the_sweep_without_resetting_it() {
    let outage = (2, 8);
    let busy = busy_run(|i, rig| {
        if i == outage.0 {
            rig.emu.set_outage(true);
        }
        if i == outage.1 {
            rig.emu.set_outage(false);
            rig.emu.force_rate_limited(40);
        }
    })
    .await;
    let recovered = Duration::from_secs(5 + 20 * outage.1 as u64);
    let rounds = &busy.rounds;
    let failed = rounds.iter().filter(|r| r.round.1 == "failed").count();
    assert!(failed >= 3, "{rounds:#?}");
    // The cursor: it goes back only after a whole sweep ended, failures or not.
    for pair in rounds.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        if after.done < before.done {
            assert_eq!(
                before.done, before.total,
                "reset at {:?}: {rounds:#?}",
                after.at
            );
        }
    }
    // Rounds failed in the middle of a sweep, which went on from there.
    let mid = rounds
        .iter()
        .find(|r| r.round.1 == "failed")
        .map(|r| r.done)
        .unwrap();
    assert!(mid > 0, "{rounds:#?}");
    // Reported within the bound, counted from the recovery plus the longest backoff the
    // outage reached (a new revision starts a round at once, so at most 20 s of it).
    let told = busy.told.expect("the drift was never told");
    assert!(
        told <= recovered + Duration::from_secs(20) + BOUND,
        "told at {told:?}, recovered at {recovered:?}: {:?}",
        busy.sweeps()
    );
    // The sweep under way when the outage began ended after it (with the edit), and the next
    // one is under way.
    let sweeps = busy.sweeps();
    assert!(sweeps.iter().any(|at| *at > recovered), "{sweeps:?}");
    let last = rounds.last().unwrap();
    assert!(
        last.at > *sweeps.last().unwrap() && last.done > 0,
        "{rounds:#?}"
    );
    // Nothing written twice: each create and each delete of `api` accepted once per revision
    // that converged at most (15 each), as many of one as of the other, and no write replayed.
    let creates = busy.accepted("POST /dns/{zone}/records");
    let deletes = busy.accepted("DELETE /dns/{zone}/records/{record}");
    assert!((1..=15).contains(&creates), "{creates} creates");
    assert_eq!(creates, deletes);
    let counters = busy.rig.emu.counters();
    assert_eq!(counters.replays, 0);
    assert_eq!(busy.rig.live("z00.example"), ["www A 192.0.2.1"]);
    assert_eq!(busy.rig.live("z59.example"), ["www A 192.0.2.99"]);
    assert_eq!(counters.faults.forced_429, 40);
    assert!(counters.faults.outage > 0);
    // The share, 429s and 503s included.
    assert!(busy.most_in_a_minute() <= 60, "{}", busy.most_in_a_minute());
}
