//! dnscron-apply.yml on main: the merged pull request's reviewed plan, found by its number and
//! head commit, bounds what `apply --reviewed` may do; without one the job fails closed.
//! (Re-runs of old jobs and quick merges: `replays`.)

use serde_json::json;

use super::pull_request::{ZONE_FILE, push, push_onto};
use super::runner::{JobRun, Trigger};
use super::{Files, Story, snapshot};

/// PR 1 of the stories: www points elsewhere.
fn www(files: Files) -> Files {
    files.edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"web.example.com.\" }",
    )
}

/// PR 2 of the stories: an SPF record.
fn spf(files: Files) -> Files {
    files.edit(
        ZONE_FILE,
        "records:\n",
        "records:\n  - { name: \"@\", type: TXT, content: \"v=spf1 -all\" }\n",
    )
}

/// Runs the apply workflow for `sha` (with `payload`; main's newest commit, pushed if it is
/// new) and describes what it did.
pub fn apply(
    story: &Story,
    sha: &str,
    files: &Files,
    event: &str,
    payload: serde_json::Value,
) -> (JobRun, String) {
    story.world.push_main(sha, &[ZONE_FILE]);
    let dir = story.commit(sha, files);
    let trigger = Trigger {
        event,
        sha,
        payload,
        files: &dir,
        base: None,
    };
    let run = story.world.run("dnscron-apply.yml", &trigger);
    let shown = shown(story, &run);
    (run, shown)
}

/// A finished apply job, as the transcripts show it.
pub fn shown(story: &Story, run: &JobRun) -> String {
    format!(
        "== steps\n{}== annotations\n{}== gh\n{}== job summary\n{}== live\n{}",
        run.steps_text(),
        run.annotations,
        story.world.take_gh_calls(),
        run.summary,
        story.live(),
    )
}

/// Pull request `number` (head `head`) merged as `sha`, then the push to main.
pub fn merge(story: &Story, sha: &str, number: u64, head: &str, files: &Files) -> (JobRun, String) {
    story.world.merged(sha, number, head, &[ZONE_FILE]);
    apply(
        story,
        sha,
        files,
        "push",
        json!({"ref": "refs/heads/main", "after": sha}),
    )
}

/// Plans a pull request and checks its check passed; the transcript is the PR tests' business.
pub fn reviewed(story: &Story, number: u64, head: &str, files: &Files) {
    let (run, _) = push(story, number, head, files);
    assert!(run.succeeded(), "{}", run.log);
    story.world.take_gh_calls();
}

#[test]
fn a_merged_pull_request_applies_its_reviewed_plan() {
    let story = Story::new();
    let files = www(Files::main());
    reviewed(&story, 1, "a1a1a1a1", &files);
    let (run, shown) = merge(&story, "e1e1e1e1", 1, "a1a1a1a1", &files);
    assert!(run.succeeded(), "{}", run.log);
    snapshot!("merge_applies_the_reviewed_plan", &shown);
}

#[test]
fn without_a_reviewed_plan_the_job_fails_closed() {
    let story = Story::new();
    let files = www(Files::main());
    let push_event = json!({"ref": "refs/heads/main", "after": "f1f1f1f1"});
    let (run, direct) = apply(&story, "f1f1f1f1", &files, "push", push_event);
    assert!(!run.succeeded());
    // Merged from a pull request whose plan was never saved (its check failed or expired).
    let (run, no_artifact) = merge(&story, "f2f2f2f2", 9, "c9c9c9c9", &files);
    assert!(!run.succeeded());
    // Reviewed: www, on a branch from main's first commit. Also on main, pushed directly: SPF,
    // which nobody saw.
    let (run, _) = push_onto(&story, 3, super::FIRST, "c3c3c3c3", &files);
    assert!(run.succeeded(), "{}", run.log);
    story.world.take_gh_calls();
    let (run, unreviewed) = merge(&story, "f3f3f3f3", 3, "c3c3c3c3", &spf(files.clone()));
    assert!(!run.succeeded());
    // A person decides to apply main (now f3f3f3f3) as it is.
    let dispatch = json!({"ref": "refs/heads/main", "inputs": {"allow_unreviewed": true}});
    let (run, opted_in) = apply(
        &story,
        "f3f3f3f3",
        &spf(files),
        "workflow_dispatch",
        dispatch,
    );
    assert!(run.succeeded(), "{}", run.log);
    snapshot!(
        "merge_fails_closed",
        &format!(
            "### a direct push\n{direct}\n### no saved plan\n{no_artifact}\n### a change nobody reviewed\n{unreviewed}\n### run by hand with allow_unreviewed\n{opted_in}"
        ),
    );
}

#[test]
fn two_reviewed_pull_requests_merge_in_either_order() {
    let mut shown = String::new();
    for (first, second) in [(1, 2), (2, 1)] {
        let story = Story::new();
        let change = |n: u64, files: Files| if n == 1 { www(files) } else { spf(files) };
        reviewed(&story, 1, "a1a1a1a1", &www(Files::main()));
        reviewed(&story, 2, "a2a2a2a2", &spf(Files::main()));
        let head = |n: u64| if n == 1 { "a1a1a1a1" } else { "a2a2a2a2" };
        let after_first = change(first, Files::main());
        let (run, one) = merge(&story, "e1e1e1e1", first, head(first), &after_first);
        assert!(run.succeeded(), "{}", run.log);
        let after_both = change(second, after_first);
        let (run, two) = merge(&story, "e2e2e2e2", second, head(second), &after_both);
        assert!(run.succeeded(), "{}", run.log);
        shown += &format!("### #{first} merged first\n{one}\n### then #{second}\n{two}\n");
    }
    snapshot!("merge_two_in_either_order", &shown);
}

#[test]
fn a_portal_step_stops_the_apply_and_a_rerun_after_it_finishes() {
    let story = Story::new();
    let files = Files::main()
        .edit(
            ZONE_FILE,
            "nameservers: { mode: hosted }",
            "nameservers: { mode: custom, hosts: [ns1.other-dns.net, ns2.other-dns.net] }",
        )
        .edit(
            ZONE_FILE,
            "records:\n",
            "records:\n  - { name: mail, type: A, content: 203.0.113.25 }\n",
        );
    let (run, check) = push(&story, 4, "a4a4a4a4", &files);
    assert!(run.succeeded(), "{}", run.log);
    let (run, stopped) = merge(&story, "e4e4e4e4", 4, "a4a4a4a4", &files);
    assert!(!run.succeeded());
    // The person follows the continue_url and turns DNSSEC off, then re-runs the job.
    assert!(story.emulator.set_dnssec("example.com", false));
    let (run, rerun) = merge(&story, "e4e4e4e4", 4, "a4a4a4a4", &files);
    assert!(run.succeeded(), "{}", run.log);
    snapshot!(
        "merge_portal_step_then_rerun",
        &format!(
            "### the pull request's check\n{check}\n### merged: exit 3\n{stopped}\n### re-run after the portal step\n{rerun}"
        ),
    );
}

/// No apply has succeeded yet, and the first merge's run never ran (GitHub cancelled it, pending,
/// when the next merge queued its own): the next run applies both merges' reviewed plans. With
/// its own plan alone, the first merge's change (another site's) would never be applied.
#[test]
fn before_any_successful_apply_every_merge_since_the_first_run_is_applied() {
    const SHOP: &str = "dns/sites/shop.yaml";
    let story = Story::new();
    let shop = |files: Files| files.edit(SHOP, "*/5 * * * *", "*/10 * * * *");
    reviewed(&story, 1, "a1a1a1a1", &shop(Files::main()));
    reviewed(&story, 2, "a2a2a2a2", &www(Files::main()));
    let first = shop(Files::main());
    story.world.merged("e1e1e1e1", 1, "a1a1a1a1", &[SHOP]);
    story.world.push_main("e1e1e1e1", &[SHOP]);
    story.commit("e1e1e1e1", &first);
    let pending = story.world.queued("dnscron-apply.yml", "e1e1e1e1");
    story.world.cancel(pending, "dnscron-apply.yml", "e1e1e1e1");
    let (run, shown) = merge(&story, "e2e2e2e2", 2, "a2a2a2a2", &www(first));
    assert!(run.succeeded(), "{}", run.log);
    let live = story.live();
    assert!(
        live.contains("*/10 * * * *") && live.contains("web.example.com."),
        "both merges applied: {live}"
    );
    snapshot!("merge_first_run_cancelled", &shown);
}
