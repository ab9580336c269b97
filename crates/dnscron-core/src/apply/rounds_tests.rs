use super::*;
use crate::apply::{MAX_ROUNDS, Silent};
use crate::plan::{Action, Status};

/// Change `id` of a plan: `www A` (record `record_id`) from `before` to `after`.
fn update(id: usize, record_id: i64, before: &str, after: &str) -> Change {
    Change {
        id,
        ..crate::plan::model::record_change(
            Action::Update,
            Some(record_id),
            Some(before),
            Some(after),
        )
    }
}

/// Rounds whose planned changes last gave `outcome` each.
fn after_writes(planned: &[(Change, ChangeOutcome)]) -> Rounds {
    let changes: Vec<Change> = planned.iter().map(|(c, _)| c.clone()).collect();
    let mut rounds = Rounds::new(&changes);
    for (p, (_, outcome)) in rounds.planned.iter_mut().zip(planned) {
        p.outcome = *outcome;
    }
    rounds
}

/// Reports `outcomes` for `changes` as round `round` did, and records them.
fn record_round(rounds: &mut Rounds, changes: &[Change], round: u32, outcomes: &[ChangeOutcome]) {
    let first = rounds.reports.len();
    for (change, outcome) in changes.iter().zip(outcomes) {
        let mut report = ChangeReport::new(change, round, format!("key-{round}-{}", change.id));
        report.outcome = *outcome;
        rounds.reports.push(report);
    }
    rounds.record(changes, first);
}

#[test]
fn nothing_left_converges_unless_a_switch_was_refused_as_not_ready() {
    let ours = update(1, 7, "192.0.2.1", "192.0.2.2");
    let mut rounds = after_writes(&[(ours.clone(), ChangeOutcome::Done)]);
    let step = rounds.judge(&[], 0, MAX_ROUNDS);
    assert!(
        matches!(step, Step::Done(ApplyResult::Converged)),
        "{step:?}"
    );
    // Refused: a switch not sent because its nameservers were not ready is still needed, and
    // is neither repaired nor called overwritten when the re-plan asks for it again.
    let switch = update(2, 8, "192.0.2.3", "192.0.2.4");
    let mut rounds = after_writes(&[
        (ours, ChangeOutcome::Done),
        (switch.clone(), ChangeOutcome::NotReady),
    ]);
    let step = rounds.judge(&[switch], 0, MAX_ROUNDS);
    let Step::Done(ApplyResult::NameserversNotReady { change_ids }) = step else {
        panic!("{step:?}");
    };
    assert_eq!(change_ids, vec![2]);
}

#[test]
fn a_stale_replay_is_repaired_in_the_next_round_until_the_last_one() {
    let ours = update(1, 7, "192.0.2.1", "192.0.2.2");
    let mut rounds = after_writes(&[(ours.clone(), ChangeOutcome::Replayed)]);
    for round in 0..MAX_ROUNDS - 1 {
        let step = rounds.judge(std::slice::from_ref(&ours), round, MAX_ROUNDS);
        let Step::Repair {
            round: next,
            repairs,
        } = step
        else {
            panic!("round {round}: {step:?}");
        };
        assert_eq!(next, round + 1);
        assert_eq!(repairs, vec![(0, ours.clone())]);
    }
    // Refused: after the last round what still differs is reported, not sent again.
    let step = rounds.judge(std::slice::from_ref(&ours), MAX_ROUNDS - 1, MAX_ROUNDS);
    let Step::Done(ApplyResult::Differs { remaining }) = step else {
        panic!("{step:?}");
    };
    assert_eq!(remaining, vec![ours.clone()]);
    let step = rounds.judge(std::slice::from_ref(&ours), 0, 1);
    assert!(
        matches!(step, Step::Done(ApplyResult::Differs { .. })),
        "{step:?}"
    );
}

#[test]
fn a_change_of_the_plan_set_again_during_the_apply_ends_it_as_overwritten() {
    let ours = update(1, 7, "192.0.2.1", "192.0.2.2");
    let mut rounds = after_writes(&[(ours, ChangeOutcome::Done)]);
    let step = rounds.judge(&[update(1, 7, "192.0.2.9", "192.0.2.2")], 0, MAX_ROUNDS);
    let Step::Done(ApplyResult::ChangedDuringApply { overwritten }) = step else {
        panic!("{step:?}");
    };
    assert_eq!(overwritten.len(), 1);
}

#[test]
fn someone_elses_edit_is_kept_as_moved_by_the_last_verification_only() {
    let ours = update(1, 7, "192.0.2.1", "192.0.2.2");
    let other = update(1, 8, "192.0.2.5", "192.0.2.6");
    let mut rounds = after_writes(&[(ours, ChangeOutcome::Done)]);
    let step = rounds.judge(&[other], 0, MAX_ROUNDS);
    assert!(
        matches!(step, Step::Done(ApplyResult::Converged)),
        "{step:?}"
    );
    assert_eq!(rounds.moved.len(), 1);
    rounds.judge(&[], 1, MAX_ROUNDS);
    assert!(rounds.moved.is_empty());
}

#[test]
fn a_round_stopped_early_ends_the_apply_with_its_reason() {
    let failed = Stop::Failed {
        change_id: 4,
        error: ErrorInfo::internal("refused"),
    };
    let step = after_round(Some(failed), false, 0);
    let Step::Done(ApplyResult::Failed { change_id, error }) = step else {
        panic!("{step:?}");
    };
    assert_eq!((change_id, error.message.as_str()), (4, "refused"));
    let portal = Stop::NeedsPortalStep {
        change_id: 5,
        continue_url: "https://portal.example/continue".into(),
    };
    let step = after_round(Some(portal), false, 1);
    let Step::Done(ApplyResult::NeedsPortalStep {
        change_id,
        continue_url,
    }) = step
    else {
        panic!("{step:?}");
    };
    assert_eq!(
        (change_id, continue_url.as_str()),
        (5, "https://portal.example/continue")
    );
    let step = after_round(Some(Stop::CronIndexMoved { change_id: 6 }), false, 0);
    assert!(
        matches!(
            step,
            Step::Done(ApplyResult::CronIndexMoved { change_id: 6 })
        ),
        "{step:?}"
    );
    let step = after_round(Some(Stop::Interrupted), true, 0);
    assert!(
        matches!(step, Step::Done(ApplyResult::Interrupted)),
        "{step:?}"
    );
}

#[test]
fn a_whole_round_is_verified_unless_an_interrupt_came_meanwhile() {
    let step = after_round(None, false, 2);
    assert!(matches!(step, Step::Verify { round: 2 }), "{step:?}");
    let step = after_round(None, true, 2);
    assert!(
        matches!(step, Step::Done(ApplyResult::Interrupted)),
        "{step:?}"
    );
}

#[test]
fn a_repair_rounds_outcome_is_recorded_on_the_planned_change_it_repairs() {
    let first = update(1, 7, "192.0.2.1", "192.0.2.2");
    let second = update(2, 8, "192.0.2.3", "192.0.2.4");
    let plan = [first.clone(), second.clone()];
    let mut rounds = Rounds::new(&plan);
    let replayed = [ChangeOutcome::Replayed, ChangeOutcome::Replayed];
    record_round(&mut rounds, &plan, 0, &replayed);
    assert!(rounds.fresh.is_empty());
    assert_eq!(rounds.written.len(), 2);
    // The re-plan numbers its changes anew: the repair of the second planned change is its 1.
    let again = Change { id: 1, ..second };
    let step = rounds.repair(&Silent, 1, &[(1, again.clone())]);
    let Step::Run { round: 1, changes } = step else {
        panic!("{step:?}");
    };
    record_round(&mut rounds, &changes, 1, &[ChangeOutcome::Done]);
    assert_eq!(rounds.planned[0].outcome, ChangeOutcome::Replayed);
    assert_eq!(rounds.planned[1].outcome, ChangeOutcome::Done);
    assert_eq!(rounds.fresh.len(), 1);
    assert_eq!(rounds.fresh[0].change, again);
    assert_eq!(rounds.written.len(), 3);
    assert_eq!(rounds.rounds_run, 2);
    assert_eq!(rounds.reports.len(), 3);
}

#[test]
fn a_repair_round_sends_ready_changes_first_each_still_its_planned_one() {
    let blocked = Change {
        status: Status::Blocked,
        ..update(3, 7, "192.0.2.1", "192.0.2.2")
    };
    let ready = update(4, 8, "192.0.2.3", "192.0.2.4");
    let mut rounds = Rounds::new(&[blocked.clone(), ready.clone()]);
    let changes = rounds.next_round(&[(0, blocked), (1, ready)]);
    let ids: Vec<usize> = changes.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![4, 3]);
    assert_eq!(rounds.of_planned, vec![1, 0]);
}
