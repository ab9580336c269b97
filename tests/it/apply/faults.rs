//! With 20 % of writes answered 502 and 10 % committed-then-dropped, every run converges in
//! one round: no duplicate record or cron job, no wrong cron job deleted (a wrong delete or a
//! duplicate would show in the emulator's state, or force a repair round).

use dnscron::apply::ApplyResult;
use dnscron::emulator::Faults;

use super::generate::{self, SERVICE_NS, TOKEN};
use super::support::*;

#[test]
fn fifty_seeded_runs_with_faults_converge_without_duplicates() {
    let gaps = gap_settings();
    let (mut upstream, mut dropped, mut replays, mut changes) = (0, 0, 0, 0);
    for seed in 0..50u64 {
        let mut case = generate::case(1000 + seed);
        case.seed.faults = Faults {
            seed,
            upstream_error_share: 0.2,
            drop_after_commit_share: 0.1,
            ..Faults::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let desired = load(&[write_files(dir.path(), &case.files)]);
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
        assert_state_matches(&emu.state(), &desired, &SERVICE_NS);
        let counters = emu.counters();
        upstream += counters.faults.upstream_errors;
        dropped += counters.faults.dropped_after_commit;
        replays += counters.replays;
        assert!(
            report.counts.replayed as u64 <= counters.replays,
            "{label}: more replays reported than the server made"
        );
        // Faults off: the final plan is read without them.
        emu.set_upstream_error_share(0.0);
        emu.set_drop_after_commit_share(0.0);
        assert!(make_plan(&rt, &client, &desired).is_empty(), "{label}");
    }
    // The faults really happened, and lost responses were answered by replays.
    assert!(changes > 200, "{changes}");
    assert!(
        upstream > 20 && dropped > 10,
        "{upstream} 502s, {dropped} drops"
    );
    assert!(
        replays >= dropped / 2,
        "{replays} replays for {dropped} drops"
    );
}
