//! Changes that fail or need a human: apply stops there, reports done / failed / not attempted.

use dnscron_core::apply::{ApplyResult, ChangeOutcome};
use dnscron_emulator::Seed;

use super::support::*;
use crate::common::Test;

#[test]
fn a_forbidden_write_stops_the_apply_with_its_error_and_request_id() {
    let emu = emulator_with(Seed::example(), gap_settings()[0].clone());
    // readonly-token reads (so the plan is made) but may not write.
    // The whole run: "Failed at change 1", forbidden (HTTP 403) with its request id, then
    // "1 failed, 9 not attempted".
    let out = Test::new()
        .args(["apply", "--yes", "examples/dns/zones", "examples/dns/sites"])
        .api(&emu.base_url(), "readonly-token")
        .plan_stamp()
        .snapshot();
    assert_eq!(writes(&emu), 1, "nothing after the failing change is sent");
    let mut s = insta::Settings::clone_current();
    for (re, with) in crate::common::filters() {
        s.add_filter(re, with);
    }
    s.set_snapshot_path("snapshots");
    s.bind(|| insta::assert_snapshot!("apply_failed", out));
}

#[test]
fn exhausted_retries_stop_the_apply_and_a_rerun_finishes() {
    let desired = examples();
    let emu = emulator_with(Seed::example(), gap_settings()[1].clone());
    let rt = runtime();
    let client = client(&emu.base_url(), "demo-token");
    let plan = make_plan(&rt, &client, &desired);
    emu.fail_next_writes(4);
    emu.drop_next_writes(1);
    let report = run_apply(&rt, &client, &plan);
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
    // 4 × 502, the commit whose response was dropped, then the replay of it.
    assert_eq!(report.changes[0].attempts, 6, "{report:#?}");
    assert_eq!(report.changes[0].outcome, ChangeOutcome::Replayed);
    assert_eq!(writes(&emu), 10 + 5, "retries are the only extra writes");

    let desired = examples();
    let emu = emulator_with(Seed::example(), gap_settings()[2].clone());
    let plan = make_plan(&rt, &client_for(&emu), &desired);
    emu.fail_next_writes(1000);
    let report = run_apply(&rt, &client_for(&emu), &plan);
    let ApplyResult::Failed { change_id, error } = &report.result else {
        panic!("{report:#?}")
    };
    assert_eq!(*change_id, 1);
    assert_eq!(error.kind.as_deref(), Some("upstream_error"));
    assert_eq!(error.status, Some(502));
    assert!(error.request_id.is_some());
    assert_eq!(report.counts.failed, 1);
    assert_eq!(report.counts.not_attempted, 9);
    emu.fail_next_writes(0);
    let report = run_apply(
        &rt,
        &client_for(&emu),
        &make_plan(&rt, &client_for(&emu), &desired),
    );
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
}

fn client_for(emu: &dnscron_emulator::BackgroundEmulator) -> dnscron_api::WriteClient {
    client(&emu.base_url(), "demo-token")
}

#[test]
fn cron_changes_on_a_suspended_site_stop_for_the_portal() {
    let emu = emulator_with(Seed::example(), gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let root = write_files(
        dir.path(),
        &[
            ("legacy.yaml".into(), "site: legacy\ncron: []\n".into()),
            (
                "org.yaml".into(),
                std::fs::read_to_string(
                    crate::common::repo_root().join("examples/dns/zones/example.org.yaml"),
                )
                .unwrap(),
            ),
        ],
    );
    let desired = load(&[root]);
    let rt = runtime();
    let client = client_for(&emu);
    let plan = make_plan(&rt, &client, &desired);
    let report = run_apply(&rt, &client, &plan);
    let ApplyResult::NeedsPortalStep { continue_url, .. } = &report.result else {
        panic!("{report:#?}")
    };
    insta::assert_snapshot!(continue_url);
    // The ready changes (example.org) ran first; the blocked delete was still attempted.
    let outcomes: Vec<ChangeOutcome> = report.changes.iter().map(|c| c.outcome).collect();
    assert_eq!(
        outcomes,
        [
            ChangeOutcome::Done,
            ChangeOutcome::Done,
            ChangeOutcome::NeedsPortalStep
        ]
    );
    assert_eq!(emu.state().cron("legacy").len(), 1);
}
