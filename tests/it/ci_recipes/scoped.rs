//! The recipes plan and apply only what changed (issue 21): a pull request's plan reads the
//! zones its files change (`--changed-since HEAD^1`), the nightly drift job everything; the
//! apply on merge reads the reviewed plans' targets and what changed since the last successful
//! apply (`--changed-since` its commit), so a change pushed since without review is refused.

use serde_json::json;

use super::merge::{apply, merge, reviewed};
use super::pull_request::{opened, push};
use super::runner::Trigger;
use super::{Files, SEED, Story, read, snapshot};
use crate::scope::routes;

const NET: &str = "dns/zones/example.net.yaml";
const ORG: &str = "dns/zones/example.org.yaml";

/// A zone file of `zone`: its apex A record `apex` and `extra` records (`NAME A ADDRESS`).
fn zone_file(zone: &str, apex: &str, extra: &[(&str, &str)]) -> String {
    let mut text =
        format!("zone: {zone}\nrecords:\n  - {{ name: \"@\", type: A, content: {apex} }}\n");
    for (name, address) in extra {
        text.push_str(&format!(
            "  - {{ name: {name}, type: A, content: {address} }}\n"
        ));
    }
    text
}

/// main's files: example.com of the other stories, plus example.net and example.org.
fn three_zones() -> Files {
    Files::main()
        .with(NET, &zone_file("example.net", "198.51.100.1", &[]))
        .with(ORG, &zone_file("example.org", "198.51.100.2", &[]))
}

/// The account of the other stories plus two zones, as [`three_zones`] declares them.
fn story() -> Story {
    let zones = "  - zone: example.net
    records:
      - {name: \"@\", type: A, content: 198.51.100.1}
  - zone: example.org
    records:
      - {name: \"@\", type: A, content: 198.51.100.2}
rate_limit:";
    Story::with_account(&SEED.replace("rate_limit:", zones), three_zones())
}

fn with_net(files: Files, name: &str, address: &str) -> Files {
    files.edit(
        NET,
        "records:\n",
        &format!("records:\n  - {{ name: {name}, type: A, content: {address} }}\n"),
    )
}

fn with_org(files: Files, name: &str, address: &str) -> Files {
    files.edit(
        ORG,
        "records:\n",
        &format!("records:\n  - {{ name: {name}, type: A, content: {address} }}\n"),
    )
}

/// The requests the emulator counted since the last call, one `ROUTE N` a line.
fn requests(story: &Story) -> String {
    let text = routes(&story.emulator.counters())
        .iter()
        .map(|(route, n)| format!("{route} {n}\n"))
        .collect();
    story.emulator.reset_counters();
    text
}

fn listings(story: &Story) -> u64 {
    routes(&story.emulator.counters())
        .get("GET /dns/{zone}/records")
        .copied()
        .unwrap_or(0)
}

#[test]
fn a_pull_request_plans_the_zone_it_changes_and_the_drift_job_reads_everything() {
    let story = story();
    // Someone changed example.org in the portal: drift the pull request doesn't touch.
    story.change_live(&with_org(three_zones(), "portal", "192.0.2.99"));
    story.emulator.reset_counters();
    let files = with_net(three_zones(), "api", "192.0.2.41");
    let (run, check) = push(&story, 41, "b41b41b4", &files);
    assert!(run.succeeded(), "{}", run.log);
    assert_eq!(listings(&story), 1, "the plan reads example.net only");
    let check_requests = requests(&story);
    let dir = story.commit("d0d0d0d0", &three_zones());
    let trigger = Trigger {
        event: "schedule",
        sha: "d0d0d0d0",
        payload: json!({"schedule": "17 6 * * *"}),
        files: &dir,
        base: None,
    };
    let drift = story.world.run("dnscron-drift.yml", &trigger);
    assert!(drift.succeeded(), "{}", drift.log);
    assert_eq!(listings(&story), 3, "the drift job reads every zone");
    snapshot!(
        "scoped_pr_and_nightly_drift",
        &format!(
            "### the pull request changes example.net\n{check}== requests\n{check_requests}\n### the nightly drift job\n== steps\n{}== requests\n{}== issue 1\n{}",
            drift.steps_text(),
            requests(&story),
            read(story.world.gh_dir().join("issues/1/body")),
        ),
    );
}

#[test]
fn a_pull_request_that_changes_no_desired_state_passes_without_planning() {
    let story = story();
    let files = three_zones().with("README.md", "# DNS of acme\n");
    story.emulator.reset_counters();
    let (run, shown) = push(&story, 43, "b43b43b4", &files);
    assert!(run.succeeded(), "{}", run.log);
    assert_eq!(requests(&story), "", "no request, no token used");
    assert!(
        run.log
            .contains("no file under dns/ changed: nothing to plan"),
        "{}",
        run.log
    );
    snapshot!("scoped_pr_nothing_to_plan", &shown);
}

#[test]
fn the_apply_on_merge_reads_what_changed_since_the_last_apply() {
    let story = story();
    // The first apply: no successful apply before it, so the reviewed plan's scope alone.
    let first = with_net(three_zones(), "api", "192.0.2.41");
    reviewed(&story, 41, "b41b41b4", &first);
    story.emulator.reset_counters();
    let (run, one) = merge(&story, "e41e41e4", 41, "b41b41b4", &first);
    assert!(run.succeeded(), "{}", run.log);
    let one_requests = requests(&story);
    // The next one counts from it: --changed-since e41e41e4.
    let second = with_net(first, "www", "192.0.2.42");
    reviewed(&story, 42, "b42b42b4", &second);
    story.emulator.reset_counters();
    let (run, two) = merge(&story, "e42e42e4", 42, "b42b42b4", &second);
    assert!(run.succeeded(), "{}", run.log);
    assert_eq!(listings(&story), 2, "example.net read, written, read again");
    snapshot!(
        "scoped_apply_since_last_apply",
        &format!(
            "### the first apply (no apply before it)\n{one}== requests\n{one_requests}\n### the next apply, since e41e41e4\n{two}== requests\n{}",
            requests(&story)
        ),
    );
}

#[test]
fn a_change_pushed_without_review_is_refused_until_a_pull_request_shows_it() {
    let story = story();
    let first = with_net(three_zones(), "api", "192.0.2.41");
    reviewed(&story, 41, "b41b41b4", &first);
    let (run, _) = merge(&story, "e41e41e4", 41, "b41b41b4", &first);
    assert!(run.succeeded(), "{}", run.log);
    // A direct push to main changes example.org: its own run fails closed (no reviewed plan).
    let pushed = with_org(first, "direct", "192.0.2.43");
    let event = json!({"ref": "refs/heads/main", "after": "f43f43f4"});
    let (run, direct) = apply(&story, "f43f43f4", &pushed, "push", event);
    assert!(!run.succeeded());
    // A reviewed pull request on top of it changes example.net only.
    let files = with_net(pushed, "www", "192.0.2.44");
    reviewed(&story, 44, "b44b44b4", &files);
    story.emulator.reset_counters();
    let (run, refused) = merge(&story, "e44e44e4", 44, "b44b44b4", &files);
    assert!(!run.succeeded());
    // The Apply step's log has the error as it happened (tee), not only the summary.
    let error = "error: 1 change(s) needed now are not among the reviewed changes";
    assert!(run.log.contains(error), "{}", run.log);
    let read = requests(&story);
    assert!(
        !read.lines().any(|l| !l.starts_with("GET ")),
        "nothing is written: {read}"
    );
    let state = story.emulator.state();
    let org = state.visible_records("example.org");
    assert!(
        !org.iter().any(|r| r.name.starts_with("direct")),
        "{}",
        story.live()
    );
    // What the refusal asks for: a pull request touching example.org's file, so that its plan
    // (the whole zone against the live account) shows the pushed change for review.
    let again = files.edit(ORG, "records:\n", "# reviewed in #45\nrecords:\n");
    let (run, replanned) = push(&story, 45, "b45b45b4", &again);
    assert!(run.succeeded(), "{}", run.log);
    story.world.take_gh_calls();
    let (run, applied) = merge(&story, "e45e45e4", 45, "b45b45b4", &again);
    assert!(run.succeeded(), "{}", run.log);
    let state = story.emulator.state();
    let org = state.visible_records("example.org");
    assert!(
        org.iter().any(|r| r.name.starts_with("direct")),
        "{}",
        story.live()
    );
    snapshot!(
        "scoped_apply_refuses_unreviewed_push",
        &format!(
            "### the direct push's own run\n{direct}\n### the next reviewed merge, since e41e41e4\n{refused}== requests\n{read}\n### a pull request touching example.org's file\n{replanned}\n### merged: both plans since e41e41e4\n{applied}"
        ),
    );
}

/// The plan needs the merge commit's first parent: with checkout's default `fetch-depth: 1`
/// `HEAD^1` is not in the clone, and the check fails, saying so, instead of planning nothing.
#[test]
fn without_the_base_commit_the_pull_request_check_fails() {
    let story = story();
    let files = with_net(three_zones(), "api", "192.0.2.41");
    let dir = story.commit("b41b41b4", &files);
    let trigger = opened(41, super::FIRST, "b41b41b4", &dir);
    let run = story.world.run_edited(
        "dnscron-plan.yml",
        "fetch-depth: 2",
        "fetch-depth: 1",
        &trigger,
    );
    assert!(!run.succeeded());
    assert_eq!(listings(&story), 0, "nothing is read");
    let comment = read(story.world.gh_dir().join("pulls/41/1"));
    snapshot!(
        "scoped_pr_without_base_commit",
        &format!("== steps\n{}== comment\n{comment}", run.steps_text()),
    );
}
