//! dnscron-apply.yml when runs and merges cross: a re-run of an old merge's job sends nothing
//! and leaves the newer merge in place; after quick merges (GitHub cancelled the pending run in
//! between) the newest run applies the plans of every pull request merged since the last
//! successful apply, as one union; a merged pull request without its plan fails the job closed.

use serde_json::json;

use super::merge::{merge, reviewed, shown};
use super::pull_request::ZONE_FILE;
use super::runner::Trigger;
use super::{Files, Story, snapshot};

/// Writes (anything but GETs) the emulator counted, whatever their outcome.
fn writes(emu: &dnscron_emulator::BackgroundEmulator) -> u64 {
    emu.counters()
        .per_route
        .iter()
        .filter(|(route, _)| !route.starts_with("GET ") && route.as_str() != "unmatched")
        .map(|(_, n)| n)
        .sum()
}

/// main's files plus a record `NAME A 192.0.2.N`.
fn with_record(files: Files, name: &str, n: u8) -> Files {
    files.edit(
        ZONE_FILE,
        "records:\n",
        &format!("records:\n  - {{ name: {name}, type: A, content: 192.0.2.{n} }}\n"),
    )
}

#[test]
fn a_rerun_of_an_old_merges_job_sends_nothing_and_keeps_the_newer_merge() {
    let story = Story::new();
    // PR 11 adds eleven; applied.
    let eleven = with_record(Files::main(), "eleven", 11);
    reviewed(&story, 11, "b11b11b1", &eleven);
    let (run, _) = merge(&story, "e11e11e1", 11, "b11b11b1", &eleven);
    assert!(run.succeeded(), "{}", run.log);
    let old_run = run.id;
    // PR 12 deletes it again; applied.
    reviewed(&story, 12, "b12b12b1", &Files::main());
    let (run, _) = merge(&story, "e12e12e1", 12, "b12b12b1", &Files::main());
    assert!(run.succeeded(), "{}", run.log);
    // Someone presses "Re-run jobs" on PR 11's apply run.
    let writes_before = writes(&story.emulator);
    let dir = story.commit("e11e11e1", &eleven);
    let trigger = Trigger {
        event: "push",
        sha: "e11e11e1",
        payload: json!({"ref": "refs/heads/main", "after": "e11e11e1"}),
        files: &dir,
        base: None,
    };
    let run = story.world.run_as(old_run, "dnscron-apply.yml", &trigger);
    assert!(run.succeeded(), "{}", run.log);
    assert_eq!(writes(&story.emulator), writes_before, "nothing is sent");
    assert!(!story.live().contains("eleven"), "{}", story.live());
    snapshot!("replay_old_run_does_nothing", &shown(&story, &run));
}

#[test]
fn after_three_quick_merges_the_newest_run_applies_all_three_plans() {
    let story = Story::new();
    // A first merge, applied: the last successful apply the next runs count from.
    let base = with_record(Files::main(), "base", 20);
    reviewed(&story, 20, "b20b20b2", &base);
    let (run, _) = merge(&story, "e20e20e2", 20, "b20b20b2", &base);
    assert!(run.succeeded(), "{}", run.log);
    // Three pull requests, each planned against that state, merged one right after another.
    let mut files = base.clone();
    for (n, name) in [(21, "alpha"), (22, "bravo"), (23, "charlie")] {
        reviewed(
            &story,
            n,
            &format!("b{n}b{n}b{n}"),
            &with_record(base.clone(), name, n as u8),
        );
        files = with_record(files, name, n as u8);
    }
    // Each merge queues a run of the apply workflow.
    let shas = ["e21e21e2", "e22e22e2", "e23e23e2"];
    let mut runs = Vec::new();
    for (n, sha) in [21, 22, 23].into_iter().zip(shas) {
        story
            .world
            .merged(sha, n, &format!("b{n}b{n}b{n}"), &[ZONE_FILE]);
        runs.push(story.world.queued(APPLY, sha));
    }
    // PR 21's run starts after all three merged: main moved on, so it sends nothing.
    let writes_before = writes(&story.emulator);
    let partial = with_record(base.clone(), "alpha", 21);
    let (first, first_shown) = run_at(&story, runs[0], shas[0], &partial);
    assert!(first.succeeded(), "{}", first.log);
    assert_eq!(writes(&story.emulator), writes_before);
    // PR 22's run was pending when PR 23's was queued: GitHub cancelled it.
    story.world.cancel(runs[1], APPLY, shas[1]);
    // PR 23's run applies the three reviewed plans as one.
    let (last, last_shown) = run_at(&story, runs[2], shas[2], &files);
    assert!(last.succeeded(), "{}", last.log);
    for name in ["alpha", "bravo", "charlie"] {
        assert!(story.live().contains(name), "{}", story.live());
    }
    snapshot!(
        "replay_three_quick_merges",
        &format!(
            "### PR 21's run, main already at PR 23\n{first_shown}\n### PR 23's run (PR 22's was cancelled)\n{last_shown}"
        ),
    );
}

#[test]
fn a_merged_pull_request_without_its_plan_fails_the_job_closed() {
    let story = Story::new();
    let base = with_record(Files::main(), "base", 30);
    reviewed(&story, 30, "b30b30b3", &base);
    let (run, _) = merge(&story, "e30e30e3", 30, "b30b30b3", &base);
    assert!(run.succeeded(), "{}", run.log);
    // PR 31's check failed, so it saved no plan; PR 32's did. Both merged before a run.
    let files = with_record(with_record(base.clone(), "one", 31), "two", 32);
    reviewed(&story, 32, "b32b32b3", &with_record(base, "two", 32));
    story.world.merged("e31e31e3", 31, "b31b31b3", &[ZONE_FILE]);
    let writes_before = writes(&story.emulator);
    let (run, shown) = merge(&story, "e32e32e3", 32, "b32b32b3", &files);
    assert!(!run.succeeded());
    assert_eq!(writes(&story.emulator), writes_before, "nothing is sent");
    snapshot!("replay_missing_plan_fails_closed", &shown);
}

const APPLY: &str = "dnscron-apply.yml";

/// Run `id` of the apply workflow, queued for main's commit `sha` (already merged).
fn run_at(story: &Story, id: u32, sha: &str, files: &Files) -> (super::runner::JobRun, String) {
    let dir = story.commit(sha, files);
    let trigger = Trigger {
        event: "push",
        sha,
        payload: json!({"ref": "refs/heads/main", "after": sha}),
        files: &dir,
        base: None,
    };
    let run = story.world.run_as(id, APPLY, &trigger);
    let shown = shown(story, &run);
    (run, shown)
}

/// Main moving on without touching dns/ keeps a run current (the files it applies are main's);
/// a move GitHub's compare can't list in full (300 files or more) counts as touching it.
#[test]
fn only_a_newer_change_under_dns_makes_a_run_old() {
    let story = Story::new();
    let files = with_record(Files::main(), "eleven", 11);
    reviewed(&story, 11, "b11b11b1", &files);
    let (run, _) = merge(&story, "e11e11e1", 11, "b11b11b1", &files);
    assert!(run.succeeded(), "{}", run.log);
    let old_run = run.id;
    let dir = story.commit("e11e11e1", &files);
    let trigger = Trigger {
        event: "push",
        sha: "e11e11e1",
        payload: json!({"ref": "refs/heads/main", "after": "e11e11e1"}),
        files: &dir,
        base: None,
    };
    story.world.push_main("d0c5d0c5", &["README.md"]);
    let run = story.world.run_as(old_run, APPLY, &trigger);
    assert_eq!(
        run.steps_text(),
        "ok       actions/checkout\nok       Find the reviewed plans\nok       Apply\nok       Summary\n"
    );
    let many: Vec<String> = (0..300).map(|i| format!("docs/page{i}.md")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    story.world.push_main("d0c5d0c6", &many);
    let run = story.world.run_as(old_run, APPLY, &trigger);
    assert_eq!(
        run.steps_text(),
        "ok       actions/checkout\nok       Find the reviewed plans\nskipped  Apply\nok       Summary\n"
    );
    assert_eq!(
        run.annotations,
        "::notice title=dnscron apply skipped::nothing applied: this run is for e11e11e1, but main is at d0c5d0c6, which changed dns/ since; the newest run of this workflow applies it: none yet. To apply again, re-run the newest run, not this one.\n"
    );
}

/// PR `n` changes main (at `base`, applied) to `first`; merged, its run still waiting. PR `n+1`,
/// from main with it, changes it to `second`; merged, GitHub cancels the first run. The second
/// run holds both reviewed plans, and one of PR `n`'s changes is neither made by main's files
/// nor in effect: refused, nothing sent. Then a person, having looked, runs the workflow by hand
/// with allow_unreviewed. Returns the transcript.
fn crossing(n: u64, base: &Files, first: &Files, second: &Files) -> String {
    let story = Story::new();
    let [b0, b1, b2] = [n - 1, n, n + 1].map(|k| format!("b{k}b{k}b{k}"));
    let [e0, e1, e2] = [n - 1, n, n + 1].map(|k| format!("e{k}e{k}e{k}"));
    reviewed(&story, n - 1, &b0, base);
    let (run, _) = merge(&story, &e0, n - 1, &b0, base);
    assert!(run.succeeded(), "{}", run.log);
    reviewed(&story, n, &b1, first);
    story.world.merged(&e1, n, &b1, &[ZONE_FILE]);
    story.commit(&e1, first);
    let waiting = story.world.queued(APPLY, &e1);
    reviewed(&story, n + 1, &b2, second);
    story.world.merged(&e2, n + 1, &b2, &[ZONE_FILE]);
    let last = story.world.queued(APPLY, &e2);
    story.world.cancel(waiting, APPLY, &e1);
    let writes_before = writes(&story.emulator);
    let (run, refused) = run_at(&story, last, &e2, second);
    assert!(!run.succeeded());
    assert_eq!(writes(&story.emulator), writes_before, "nothing is sent");
    let dispatch = json!({"ref": "refs/heads/main", "inputs": {"allow_unreviewed": true}});
    let (run, by_hand) = super::merge::apply(&story, &e2, second, "workflow_dispatch", dispatch);
    assert!(run.succeeded(), "{}", run.log);
    format!(
        "### PR {}'s run, with PR {n}'s plan too\n{refused}\n### by hand with allow_unreviewed\n{by_hand}",
        n + 1
    )
}

#[test]
fn a_pull_request_removing_what_an_unapplied_one_added_is_refused_until_applied_by_hand() {
    let base = with_record(Files::main(), "base", 50);
    let added = with_record(base.clone(), "extra", 51);
    let shown = crossing(51, &base, &added, &base);
    snapshot!("replay_removed_before_applied", &shown);
}

#[test]
fn two_pull_requests_changing_one_record_before_an_apply_are_refused_until_applied_by_hand() {
    let base = with_record(Files::main(), "base", 60);
    let www = |to: &str| {
        base.clone().edit(
            ZONE_FILE,
            "content: \"example.com.\" }",
            &format!("content: {to} }}"),
        )
    };
    let shown = crossing(
        61,
        &base,
        &www("web.example.com."),
        &www("cdn.example.com."),
    );
    snapshot!("replay_one_record_twice", &shown);
}
