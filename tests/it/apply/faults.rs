//! With 20 % of writes answered 502 and 10 % committed-then-dropped, every run converges in
//! one round: no duplicate record or cron job, no wrong cron job deleted (a wrong delete or a
//! duplicate would show in the emulator's state, or force a repair round).

use dnscron_emulator::Faults;

use super::generate;
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
        let g = gaps[seed as usize % gaps.len()].clone();
        let run = apply_generated_case(case, g, seed);
        changes += run.planned_changes;
        let counters = run.emu.counters();
        upstream += counters.faults.upstream_errors;
        dropped += counters.faults.dropped_after_commit;
        replays += counters.replays;
        assert!(
            run.report.counts.replayed as u64 <= counters.replays,
            "{}: more replays reported than the server made",
            run.label
        );
        // Faults off: the final plan is read without them.
        run.emu.set_upstream_error_share(0.0);
        run.emu.set_drop_after_commit_share(0.0);
        assert!(
            make_plan(&run.rt, &run.client, &run.desired).is_empty(),
            "{}",
            run.label
        );
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
