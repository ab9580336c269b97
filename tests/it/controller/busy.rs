//! A repository that merges more often than a sweep takes (issue #37, "The sweep survives new
//! revisions"): 60 zones at half the bucket, a revision every 20 s; the sweep goes on over each
//! new revision's targets instead of starting over, so a portal edit in the zone it reads last
//! is reported within the bound docs/controller.md states. On tokio's paused clock.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron_core::api::Budget;
use dnscron_core::controller::{AlertKind, Event, RunEnd, Settings, Transition, Work};
use tokio::time::Instant;

use super::rig::{Rig, zone_file};
use super::rounds::portal_edit;

const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";

#[tokio::test(start_paused = true)]
async fn a_portal_edit_in_the_last_zone_is_reported_while_revisions_keep_landing() {
    let zones: Vec<String> = (0..60).map(|i| format!("z{i:02}.example")).collect();
    let names: Vec<&str> = zones.iter().map(String::as_str).collect();
    let rig = Rig::start(&names).await;
    let mut config = rig.config();
    config.budget = Some(Budget::share(50, 120));
    let settings = Settings {
        interval: Duration::from_secs(60),
        ..rig.settings()
    };
    let controller = rig.controller_with("apply", true, config, settings);
    let stop = controller.interrupt();
    let start = Instant::now();
    // When drift was first told, and every sweep's end.
    let told = Arc::new(Mutex::new(None::<Duration>));
    let sweeps = Arc::new(Mutex::new(Vec::<Duration>::new()));
    let (told_in, sweeps_in) = (Arc::clone(&told), Arc::clone(&sweeps));
    let observe = move |event: Event<'_>| match event {
        Event::Alert {
            kind: AlertKind::Drift,
            transition: Transition::Raised,
            ..
        } => {
            told_in.lock().unwrap().get_or_insert(start.elapsed());
        }
        Event::RoundFinished { report, status } => {
            if matches!(report.work, Work::Swept { .. }) && status.sweep_done == status.sweep_total
            {
                sweeps_in.lock().unwrap().push(start.elapsed());
            }
        }
        Event::RoundStarted { .. } | Event::Alert { .. } | Event::Waiting { .. } => {}
    };
    let round_now = tokio::sync::Notify::new();
    let run = tokio::spawn(async move { controller.run(false, &round_now, &observe).await });
    // The first sweep, then the edit in the zone read last, then a revision every 20 s.
    tokio::time::sleep(Duration::from_secs(5)).await;
    portal_edit(&rig, "z59.example", "192.0.2.99").await;
    let edited = start.elapsed();
    for i in 0..30 {
        let extra = if i % 2 == 0 { API } else { "" };
        rig.write("z00.example.yaml", &zone_file("z00.example", extra));
        tokio::time::sleep(Duration::from_secs(20)).await;
    }
    stop.raise();
    assert_eq!(run.await.unwrap(), RunEnd::Stopped);
    let told = told.lock().unwrap().expect("the drift was never told");
    let sweeps = sweeps.lock().unwrap().clone();
    // Every revision was applied (the last one too).
    assert_eq!(rig.live("z00.example"), ["www A 192.0.2.1"]);
    // The bound docs/controller.md states: the interval plus two sweeps' reading time at the
    // share (123 requests at 48 a minute, about 2.6 minutes), from the edit.
    let bound = Duration::from_secs(60) + Duration::from_secs(2 * 154);
    assert!(
        told - edited <= bound,
        "told {:?} after the edit (sweeps ended at {sweeps:?})",
        told - edited
    );
    // Sweeps keep ending while revisions land.
    assert!(sweeps.len() >= 3, "{sweeps:?}");
}
