//! plan → apply → plan is empty for generated desired/live pairs, in every gap setting.

use dnscron::apply::ApplyResult;

use super::generate::{self, SERVICE_NS, TOKEN};
use super::support::*;

#[test]
fn generated_pairs_converge_in_every_gap_setting() {
    let gaps = gap_settings();
    let mut changes = 0;
    for seed in 0..24u64 {
        let case = generate::case(seed);
        let dir = tempfile::tempdir().unwrap();
        let root = write_files(dir.path(), &case.files);
        let desired = load(&[root]);
        let g = gaps[seed as usize % gaps.len()].clone();
        let label = format!("seed {seed}, {g:?}");
        let emu = emulator_with(case.seed, g);
        let rt = runtime();
        let client = client(&emu.base_url(), TOKEN);
        let plan = make_plan(&rt, &client, &desired);
        changes += plan.changes.len();
        let report = run_apply(&rt, &client, &plan, &desired);
        assert!(
            matches!(
                report.result,
                ApplyResult::Converged | ApplyResult::NoChanges
            ),
            "{label}: {report:#?}"
        );
        assert!(
            report.rounds <= 1,
            "{label}: needed a repair round: {report:#?}"
        );
        assert!(make_plan(&rt, &client, &desired).is_empty(), "{label}");
        assert_state_matches(&emu.state(), &desired, &SERVICE_NS);
    }
    // The generator really produces work.
    assert!(changes > 24 * 5, "only {changes} changes in all");
}
