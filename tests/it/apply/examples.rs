//! plan → apply → plan is empty for the examples, in every gap setting.

use dnscron_core::apply::{ApplyResult, ChangeOutcome};
use dnscron_emulator::{CronDeleteAnswer, Seed};

use super::support::*;

#[test]
fn examples_converge_in_every_gap_setting() {
    let desired = examples();
    for gaps in gap_settings() {
        let label = format!("{gaps:?}");
        // A delete's answer that doesn't name the job it removed is checked by listing again.
        let checks = match gaps.cron_delete_answer {
            CronDeleteAnswer::Job => 0,
            CronDeleteAnswer::Result | CronDeleteAnswer::Empty => 2,
        };
        let emu = emulator_with(Seed::example(), gaps);
        let rt = runtime();
        let client = client(&emu.base_url(), "demo-token");
        let plan = make_plan(&rt, &client, &desired);
        assert_eq!(plan.changes.len(), 10, "{label}");
        let report = run_apply(&rt, &client, &plan);
        assert!(
            matches!(report.result, ApplyResult::Converged),
            "{label}: {report:?}"
        );
        assert_eq!(report.rounds, 1, "{label}");
        assert!(
            report
                .changes
                .iter()
                .all(|c| c.outcome == ChangeOutcome::Done),
            "{label}: {report:?}"
        );
        // One write per change, and one cron listing per cron delete (plus the reads).
        assert_eq!(writes(&emu), 10, "{label}");
        // Cron listings: 2 for the plan, 1 per cron delete (2) and the checks, 2 for
        // verification.
        assert_eq!(
            emu.counters().route("GET /api/v1/sites/{slug}/cron"),
            6 + checks,
            "{label}"
        );
        assert!(make_plan(&rt, &client, &desired).is_empty(), "{label}");
        assert_state_matches(
            &emu.state(),
            &desired,
            &["ns1.veldhost.net", "ns2.veldhost.net"],
        );
        // The ignored _acme-challenge record is still there.
        assert!(
            emu.state()
                .visible_records("example.com")
                .iter()
                .any(|r| r.name == "_acme-challenge")
        );
    }
}

#[test]
fn an_empty_plan_sends_nothing() {
    let desired = examples();
    let emu = emulator_with(Seed::example(), gap_settings()[0].clone());
    let rt = runtime();
    let client = client(&emu.base_url(), "demo-token");
    let plan = make_plan(&rt, &client, &desired);
    run_apply(&rt, &client, &plan);
    let before = writes(&emu);
    let again = make_plan(&rt, &client, &desired);
    let report = run_apply(&rt, &client, &again);
    assert!(matches!(report.result, ApplyResult::NoChanges));
    assert_eq!(writes(&emu), before);
}
