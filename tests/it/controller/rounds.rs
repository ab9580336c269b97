//! The controller's rounds as it will be used (issue #30, "Tested as it will be used"): each
//! round driven by the test, against the emulator in this runtime on tokio's paused clock.

use dnscron_core::controller::{Settings, Trigger};

use super::rig::{Rig, round, zone_file};

const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";
const MAIL: &str = "  - {name: mail, type: A, content: 192.0.2.8, ttl: 300}\n";

/// The first start takes the folder as the base (nothing written), its sweep finds the account
/// in sync, and the next revision is applied within one round, reading only the zone it changes.
#[tokio::test(start_paused = true)]
async fn a_merged_revision_is_applied_within_one_round_reading_only_its_zone() {
    let rig = Rig::start(&["a.example", "b.example"]).await;
    let mut controller = rig.controller("apply", true);
    assert_eq!(
        round(&mut controller, Trigger::Start).await,
        ("adopted", "baseline")
    );
    assert_eq!(
        round(&mut controller, Trigger::Interval).await,
        ("swept", "converged")
    );
    assert_eq!(rig.writes(), 0);
    rig.emu.reset_counters();
    rig.write("a.example.yaml", &zone_file("a.example", API));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "converged")
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
    // The zone's records, the create, the verification's re-read: b.example is not read.
    assert_eq!(
        rig.routes(),
        [
            ("GET /api/v1/dns/{zone}/records".to_string(), 2),
            ("POST /api/v1/dns/{zone}/records".to_string(), 1),
        ]
    );
    let status = controller.status();
    assert_eq!(status.converged, status.revision);
    // The state file keeps the converged revision: a new controller starts from it.
    let restarted = rig.controller("apply", true);
    assert_eq!(restarted.status().converged, status.converged);
}

/// A record changed in the portal is drift: reported, never reverted by the default policy,
/// even when a revision touching the same zone is applied; heal reverts it.
#[tokio::test(start_paused = true)]
async fn a_portal_edit_is_reported_under_apply_and_reverted_under_heal() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    round(&mut controller, Trigger::Start).await;
    portal_edit(&rig, "a.example", "192.0.2.99").await;
    assert_eq!(
        round(&mut controller, Trigger::Interval).await,
        ("swept", "drift")
    );
    let drift: Vec<_> = controller
        .status()
        .drift
        .keys()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(drift, ["zone a.example"]);
    // A revision of the same zone: its own change runs, the portal edit stays.
    rig.write("a.example.yaml", &zone_file("a.example", API));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "drift")
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.99"]
    );
    assert_eq!(controller.status().drift_changes(), 1);
    // Heal, from the same state file: the next sweep puts the files' value back.
    let mut healer = rig.controller("heal", true);
    assert_eq!(
        round(&mut healer, Trigger::Start).await,
        ("swept", "converged")
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
    assert!(healer.status().drift.is_empty());
}

/// Observe never writes, whatever the folder or the account say.
#[tokio::test(start_paused = true)]
async fn observe_reports_and_never_writes() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("observe", true);
    portal_edit(&rig, "a.example", "192.0.2.99").await;
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let writes_before = rig.writes();
    assert_eq!(
        round(&mut controller, Trigger::Start).await,
        ("swept", "drift")
    );
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("swept", "drift")
    );
    assert_eq!(rig.writes(), writes_before);
    assert_eq!(controller.status().drift_changes(), 2);
}

/// A revision that does not load is kept out and reported with its located errors for as long
/// as it is the newest; the rounds go on with the last good one (no round fails, nothing is
/// retried), and the next good one is applied.
#[tokio::test(start_paused = true)]
async fn a_broken_revision_is_kept_out_while_the_last_good_one_stays() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    round(&mut controller, Trigger::Start).await;
    let good = controller.status().revision.clone();
    rig.write("a.example.yaml", "zone: a.example\nrecords: [\n");
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("swept", "converged")
    );
    let broken = controller.status().broken.as_ref().unwrap();
    assert_ne!(Some(&broken.revision), good.as_ref());
    let at = broken.diagnostics.items[0].location.as_ref().unwrap();
    assert_eq!(
        (at.file.file_name().unwrap().to_str().unwrap(), at.line),
        ("a.example.yaml", 2)
    );
    assert_eq!(controller.status().revision, good);
    // The rounds after it go on with the last good revision; the broken one stays reported.
    assert_eq!(
        round(&mut controller, Trigger::Interval).await,
        ("swept", "converged")
    );
    assert!(controller.status().broken.is_some());
    // A revision that validates but is wrong (a CNAME beside an A) is kept out too.
    rig.write(
        "a.example.yaml",
        &zone_file(
            "a.example",
            "  - {name: www, type: CNAME, content: x.example., ttl: 300}\n",
        ),
    );
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("swept", "converged")
    );
    rig.write("a.example.yaml", &zone_file("a.example", API));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "converged")
    );
    assert!(controller.status().broken.is_none());
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
}

/// Without a state file a restart has no converged revision: the folder as it is becomes the
/// base and nothing is written (what merged while it was down is reported as drift); with one,
/// the restart applies what merged.
#[tokio::test(start_paused = true)]
async fn a_restart_without_state_writes_nothing_it_cannot_attribute() {
    let rig = Rig::start(&["a.example"]).await;
    let mut first = rig.controller("apply", false);
    round(&mut first, Trigger::Start).await;
    drop(first);
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let mut restarted = rig.controller("apply", false);
    assert_eq!(
        round(&mut restarted, Trigger::Start).await,
        ("adopted", "baseline")
    );
    assert_eq!(
        round(&mut restarted, Trigger::Interval).await,
        ("swept", "drift")
    );
    assert_eq!(rig.writes(), 0);
    assert_eq!(rig.live("a.example"), ["www A 192.0.2.1"]);

    // The same story with a state file.
    let rig = Rig::start(&["a.example"]).await;
    let mut first = rig.controller("apply", true);
    round(&mut first, Trigger::Start).await;
    drop(first);
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let mut restarted = rig.controller("apply", true);
    assert_eq!(
        round(&mut restarted, Trigger::Start).await,
        ("applied", "converged")
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
}

/// A first start applies the folder's whole difference only for the revision named to adopt;
/// named another, it takes nothing as the base and writes nothing.
#[tokio::test(start_paused = true)]
async fn adopt_revision_applies_a_first_start_only_for_that_revision() {
    let rig = Rig::start(&["a.example"]).await;
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let other = adopting(&rig, "sha256:0000");
    let mut controller = rig.controller_with("apply", true, rig.config(), other);
    assert_eq!(
        round(&mut controller, Trigger::Start).await,
        ("adopted", "failed")
    );
    assert_eq!(rig.writes(), 0);
    assert_eq!(controller.status().converged, None);
    assert!(!rig.state.exists());
    let id = controller.status().revision.clone().unwrap().id;
    let named = adopting(&rig, &id);
    let mut controller = rig.controller_with("apply", true, rig.config(), named);
    assert_eq!(
        round(&mut controller, Trigger::Start).await,
        ("applied", "converged")
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
}

/// The adoption race: `--adopt-revision` is resolved when the command starts, then the folder
/// moves (a sync swapping in a newer commit) before the first round. That newer revision's
/// whole difference was named by nobody: each round fails with the adopt error (both ids),
/// backed off and retried, sending no request, taking nothing as the base (no state file), so a
/// restart naming the folder's revision adopts it. The same through an outage and a 429 storm:
/// the error is the adopt error, not the server's.
#[tokio::test(start_paused = true)]
async fn adopt_revision_refuses_a_folder_that_moved_before_the_first_round() {
    use dnscron_core::controller::{AdoptError, RoundError, RoundOutcome, WaitReason};
    for fault in ["none", "outage", "429 storm"] {
        let rig = Rig::start(&["a.example"]).await;
        rig.write("a.example.yaml", &zone_file("a.example", API));
        let named = {
            let mut probe = rig.controller("observe", false);
            round(&mut probe, Trigger::Start).await;
            probe.status().revision.clone().unwrap().id
        };
        let full = dnscron_core::controller::resolve_adopted(rig.repo(), &named[..19]).unwrap();
        let mut controller =
            rig.controller_with("apply", true, rig.config(), adopting(&rig, &full));
        rig.write(
            "a.example.yaml",
            &zone_file("a.example", &format!("{API}{MAIL}")),
        );
        rig.emu.reset_counters();
        match fault {
            "outage" => rig.emu.set_outage(true),
            "429 storm" => rig.emu.force_rate_limited(30),
            _ => {}
        }
        for trigger in [Trigger::Start, Trigger::Retry, Trigger::Signal] {
            let (report, requeue) = controller.round(trigger).await;
            assert_eq!(super::rig::named(&report), ("adopted", "failed"), "{fault}");
            let RoundOutcome::Failed(RoundError::Adopt(error)) = &report.outcome else {
                panic!("{fault}: {:?}", report.outcome);
            };
            let AdoptError::Moved { adopted, current } = &**error else {
                panic!("{fault}: {error:?}");
            };
            assert_eq!(adopted, &named, "{fault}");
            assert_eq!(
                Some(current),
                controller.status().revision.as_ref().map(|r| &r.id)
            );
            assert_ne!(current, adopted, "{fault}");
            assert_eq!(requeue.reason, WaitReason::Backoff, "{fault}");
            tokio::time::sleep(requeue.wait).await;
        }
        assert_eq!(controller.status().consecutive_failures, 3, "{fault}");
        assert_eq!(controller.status().converged, None, "{fault}");
        assert!(!rig.state.exists(), "{fault}: no base kept");
        assert_eq!(rig.routes(), Vec::new(), "{fault}: no request");
        assert_eq!(rig.live("a.example"), ["www A 192.0.2.1"], "{fault}");
        rig.emu.set_outage(false);
        let current = controller.status().revision.clone().unwrap().id;
        let mut controller =
            rig.controller_with("apply", true, rig.config(), adopting(&rig, &current));
        assert_eq!(
            round(&mut controller, Trigger::Start).await,
            ("applied", "converged"),
            "{fault}"
        );
        assert_eq!(
            rig.live("a.example"),
            ["api A 192.0.2.7", "mail A 192.0.2.8", "www A 192.0.2.1"],
            "{fault}"
        );
    }
}

fn adopting(rig: &Rig, id: &str) -> Settings {
    Settings {
        adopt_revision: Some(id.to_string()),
        ..rig.settings()
    }
}

/// Writes are suspended while the suspend file exists: a new revision waits, the sweep goes on
/// reading; removing the file lets the revision through.
#[tokio::test(start_paused = true)]
async fn a_suspend_file_holds_writes_back_and_its_removal_lets_them_through() {
    let rig = Rig::start(&["a.example"]).await;
    let suspend = rig.repo().parent().unwrap().join("suspend");
    let settings = Settings {
        suspend_file: Some(suspend.clone()),
        ..rig.settings()
    };
    let mut controller = rig.controller_with("apply", true, rig.config(), settings);
    round(&mut controller, Trigger::Start).await;
    std::fs::write(&suspend, "").unwrap();
    rig.write("a.example.yaml", &zone_file("a.example", API));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("swept", "drift")
    );
    assert!(controller.status().suspended);
    assert_eq!(rig.writes(), 0);
    // What the unapplied revision would change is not drift.
    assert!(controller.status().drift.is_empty());
    assert_eq!(controller.status().unapplied.len(), 1);
    std::fs::remove_file(&suspend).unwrap();
    assert_eq!(
        round(&mut controller, Trigger::Signal).await,
        ("applied", "converged")
    );
    assert!(!controller.status().suspended);
}

/// A write the server keeps failing fails the round (the revision is not converged); the retry
/// after the backoff applies it once.
#[tokio::test(start_paused = true)]
async fn a_failed_write_is_retried_and_converges_without_a_duplicate() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    round(&mut controller, Trigger::Start).await;
    rig.write("a.example.yaml", &zone_file("a.example", API));
    // Every attempt of the create is answered 502 until the retry budget is spent.
    rig.emu.fail_next_writes(50);
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "failed")
    );
    assert_eq!(rig.live("a.example"), ["www A 192.0.2.1"]);
    rig.emu.fail_next_writes(0);
    // Its turn comes after a backoff of its own (750 ms at most after one failure): a round
    // before it sweeps.
    assert_eq!(round(&mut controller, Trigger::Retry).await.0, "swept");
    tokio::time::sleep(std::time::Duration::from_millis(750)).await;
    assert_eq!(
        round(&mut controller, Trigger::Retry).await,
        ("applied", "converged")
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
    assert!(controller.status().pending.is_none());
}

/// Changes the account with another client, as someone in the portal would.
pub async fn portal_edit(rig: &Rig, zone: &str, content: &str) {
    let state = rig.emu.state();
    let id = state.visible_records(zone)[0].id;
    let api = crate::common::emulator::Api::new(&rig.emu.base_url(), super::rig::TOKEN);
    let resp = api
        .put(
            &format!("/dns/{zone}/records/{id}"),
            serde_json::json!({ "name": "www", "type": "A", "content": content, "ttl": 300 }),
        )
        .await;
    assert_eq!(resp.status, 200, "{:?}", resp.body);
}

/// A revision whose change meets a value moved in the portal is not converged: kept out as
/// conflicted (the target, the value it declares, the live one), the state file keeps the
/// previous revision; once the portal puts the old value back, its turn at the next interval
/// applies it.
#[tokio::test(start_paused = true)]
async fn a_revision_whose_change_met_a_moved_value_is_kept_out_as_conflicted() {
    let rig = Rig::start(&["a.example"]).await;
    let settings = Settings {
        interval: std::time::Duration::from_secs(60),
        ..rig.settings()
    };
    let mut controller = rig.controller_with("apply", true, rig.config(), settings.clone());
    assert_eq!(
        round(&mut controller, Trigger::Start).await,
        ("adopted", "baseline")
    );
    let base = controller.status().converged.clone();
    portal_edit(&rig, "a.example", "192.0.2.99").await;
    rig.write(
        "a.example.yaml",
        &zone_file("a.example", "").replace("192.0.2.1", "192.0.2.2"),
    );
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "conflicted")
    );
    let status = controller.status();
    assert_eq!(status.converged, base);
    let kept = status.kept_out.as_ref().unwrap();
    assert_eq!(kept.reason.name(), "conflicted");
    let conflict = &status.conflicts[0];
    assert_eq!(conflict.target.to_string(), "zone a.example");
    let content = |v: &Option<dnscron_core::plan::Value>| match v {
        Some(dnscron_core::plan::Value::Record { content, .. }) => content.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(content(&conflict.change.after), "192.0.2.2");
    assert_eq!(content(&conflict.live), "192.0.2.99");
    assert_eq!(content(&conflict.expected), "192.0.2.1");
    assert_eq!(rig.live("a.example"), ["www A 192.0.2.99"]);
    // A restart from the state file still knows the previous revision as the converged one.
    assert_eq!(rig.controller("apply", true).status().converged, base);
    // Not its turn before the interval; the portal puts the reviewed value back meanwhile.
    assert_eq!(round(&mut controller, Trigger::Interval).await.0, "swept");
    portal_edit(&rig, "a.example", "192.0.2.1").await;
    tokio::time::sleep(std::time::Duration::from_secs(61)).await;
    assert_eq!(
        round(&mut controller, Trigger::Interval).await,
        ("applied", "converged")
    );
    assert_eq!(rig.live("a.example"), ["www A 192.0.2.2"]);
    assert!(controller.status().kept_out.is_none());
    assert!(controller.status().conflicts.is_empty());
}

/// The server failing during an adopted first start: an outage, 502s on the write, a write
/// that commits but whose answer is lost, a 429 storm. Until the adopted revision converges,
/// nothing is taken as the base (the state file keeps no converged revision, a restart with
/// the same flag adopts it again); once the server answers, it is applied with its create
/// done once.
#[tokio::test(start_paused = true)]
async fn adopt_revision_is_retried_through_a_failing_server_never_replaced_by_the_base() {
    for fault in ["outage", "502", "lost answer", "429 storm"] {
        let rig = Rig::start(&["a.example"]).await;
        rig.write("a.example.yaml", &zone_file("a.example", API));
        let id = {
            let mut probe = rig.controller("observe", false);
            round(&mut probe, Trigger::Start).await;
            probe.status().revision.clone().unwrap().id
        };
        rig.emu.reset_counters();
        // A prefix as people copy it (`sha256:` and 12 digits), resolved as the command does
        // before the first round.
        let full = dnscron_core::controller::resolve_adopted(rig.repo(), &id[..19]).unwrap();
        let adopt = adopting(&rig, &full);
        let mut controller = rig.controller_with("apply", true, rig.config(), adopt.clone());
        match fault {
            "outage" => rig.emu.set_outage(true),
            "502" => rig.emu.fail_next_writes(50),
            "lost answer" => rig.emu.drop_next_writes(1),
            _ => rig.emu.force_rate_limited(30),
        }
        let first = round(&mut controller, Trigger::Start).await;
        if matches!(fault, "outage" | "502") {
            assert_eq!(first, ("applied", "failed"), "{fault}");
            assert_eq!(rig.live("a.example"), ["www A 192.0.2.1"], "{fault}");
            assert_eq!(controller.status().converged, None, "{fault}");
            assert!(!rig.state.exists(), "{fault}: no base kept");
            // A restart meanwhile has no converged revision either: it adopts again.
            drop(controller);
            controller = rig.controller_with("apply", true, rig.config(), adopt);
            assert_eq!(
                round(&mut controller, Trigger::Start).await,
                ("applied", "failed"),
                "{fault}"
            );
            rig.emu.set_outage(false);
            rig.emu.fail_next_writes(0);
            tokio::time::sleep(dnscron_core::controller::LONGEST_WAIT).await;
            assert_eq!(
                round(&mut controller, Trigger::Retry).await,
                ("applied", "converged"),
                "{fault}"
            );
        } else {
            // Retried within the round, under the same Idempotency-Key.
            assert_eq!(first, ("applied", "converged"), "{fault}");
        }
        assert_eq!(
            rig.live("a.example"),
            ["api A 192.0.2.7", "www A 192.0.2.1"],
            "{fault}"
        );
        assert_eq!(controller.status().converged.as_ref().unwrap().id, id);
        let state = std::fs::read_to_string(&rig.state).unwrap();
        assert!(state.contains(&id), "{fault}: {state}");
        let counters = rig.emu.counters();
        match fault {
            "lost answer" => {
                // The create committed, its answer was lost: sent again under its key, replayed.
                assert_eq!(counters.faults.dropped_after_commit, 1);
                assert_eq!(counters.replays, 1);
            }
            "429 storm" => assert_eq!(counters.faults.forced_429, 30),
            _ => assert_eq!(counters.replays, 0, "{fault}"),
        }
    }
}

/// A state file that can't be written (here a directory took its place, which stops root
/// too): the revision is applied and converged in memory, the round reports the error, and the
/// next converge writes the file again.
#[tokio::test(start_paused = true)]
async fn a_state_file_that_cannot_be_written_fails_the_round_not_the_revision() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    round(&mut controller, Trigger::Start).await;
    std::fs::remove_file(&rig.state).unwrap();
    std::fs::create_dir(&rig.state).unwrap();
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let (report, _) = controller.round(Trigger::Revision).await;
    assert_eq!(super::rig::named(&report), ("applied", "failed"));
    let dnscron_core::controller::RoundOutcome::Failed(error) = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert_eq!(error.kind(), "state", "{error}");
    let applied = controller.status().revision.clone();
    assert_eq!(controller.status().converged, applied);
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
    let writes = rig.writes();
    // Not applied again: it is the converged revision.
    assert_eq!(round(&mut controller, Trigger::Retry).await.0, "swept");
    assert_eq!(rig.writes(), writes);
    std::fs::remove_dir(&rig.state).unwrap();
    rig.write("a.example.yaml", &zone_file("a.example", ""));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "converged")
    );
    let state = std::fs::read_to_string(&rig.state).unwrap();
    let id = controller.status().converged.clone().unwrap().id;
    assert!(state.contains(&id), "{state}");
}

/// A plain folder whose files go back and forth (A, B, A, B: a ConfigMap toggled, a revert
/// of a revert) has the same digest each time it holds the same files; each return is applied
/// all the same, with new Idempotency-Keys, never answered by a replay of the first time.
#[tokio::test(start_paused = true)]
async fn a_folder_returning_to_earlier_content_is_applied_again_not_replayed() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    round(&mut controller, Trigger::Start).await;
    let mut ids = Vec::new();
    for with_api in [true, false, true, false, true] {
        let extra = if with_api { API } else { "" };
        rig.write("a.example.yaml", &zone_file("a.example", extra));
        assert_eq!(
            round(&mut controller, Trigger::Revision).await,
            ("applied", "converged")
        );
        let expected: &[&str] = match with_api {
            true => &["api A 192.0.2.7", "www A 192.0.2.1"],
            false => &["www A 192.0.2.1"],
        };
        assert_eq!(rig.live("a.example"), expected);
        ids.push(controller.status().converged.clone().unwrap().id);
    }
    assert_eq!(ids[0], ids[2], "the same files, the same digest");
    let counters = rig.emu.counters();
    assert_eq!(counters.replays, 0);
    assert_eq!(counters.route("POST /api/v1/dns/{zone}/records"), 3);
    assert_eq!(
        counters.route("DELETE /api/v1/dns/{zone}/records/{record}"),
        2
    );
    // A restart sends the same keys as the run it follows: the state file keeps the moment.
    let restarted = rig.controller("apply", true);
    assert_eq!(restarted.status().converged, controller.status().converged);
}

/// Running beside a CI `apply --reviewed` (docs/controller.md, "CI jobs or the controller?"):
/// when the CI apply wrote the revision's change first, the controller's round for that
/// revision finds it in effect, sends no write and converges.
#[tokio::test(start_paused = true)]
async fn a_revision_another_apply_wrote_first_converges_with_no_write() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", true);
    round(&mut controller, Trigger::Start).await;
    let api = crate::common::emulator::Api::new(&rig.emu.base_url(), super::rig::TOKEN);
    let created = api
        .post(
            "/dns/a.example/records",
            serde_json::json!({ "name": "api", "type": "A", "content": "192.0.2.7", "ttl": 300 }),
        )
        .await;
    assert!(created.status < 300, "{:?}", created.body);
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let writes = rig.writes();
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "converged")
    );
    assert_eq!(
        rig.writes(),
        writes,
        "the change was in effect: nothing sent"
    );
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
}
