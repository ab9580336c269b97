//! plan → apply → plan is empty for generated desired/live pairs, in every gap setting.

use super::generate;
use super::support::*;

#[test]
fn generated_pairs_converge_in_every_gap_setting() {
    let gaps = gap_settings();
    let mut changes = 0;
    for seed in 0..24u64 {
        let g = gaps[seed as usize % gaps.len()].clone();
        let run = apply_generated_case(generate::case(seed), g, seed);
        changes += run.planned_changes;
        assert!(
            make_plan(&run.rt, &run.client, &run.desired).is_empty(),
            "{}",
            run.label
        );
    }
    // The generator really produces work.
    assert!(changes > 24 * 5, "only {changes} changes in all");
}
