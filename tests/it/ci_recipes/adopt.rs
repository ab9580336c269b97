//! dnscron-adopt.yml over time: one pull request "Adopt the live changes", opened when the live
//! account holds changes the files can take, left alone while they stay the same, updated (a
//! force push and a new body) when they change, closed when nothing is left to adopt.

use std::process::Command;

use serde_json::json;

use super::pull_request::ZONE_FILE;
use super::runner::Trigger;
use super::snapshot;
use super::{Files, Story, read};

/// What branch `dnscron/adopt-live-changes` of the run's repository holds in the zone file.
fn pushed(story: &Story, run: u32) -> String {
    let origin = story.world.dir.path().join(format!("run-{run}/origin"));
    let out = Command::new("git")
        .current_dir(&origin)
        .args(["show", &format!("dnscron/adopt-live-changes:{ZONE_FILE}")])
        .output()
        .unwrap();
    if out.status.success() {
        String::from_utf8(out.stdout).unwrap()
    } else {
        "(not pushed)\n".into()
    }
}

fn scheduled(story: &Story, when: &str) -> String {
    let main = story.commit("main", &Files::main());
    let trigger = Trigger {
        event: "schedule",
        sha: "d0d0d0d0",
        payload: json!({"schedule": "47 6 * * *"}),
        files: &main,
        base: None,
    };
    let run = story.world.run("dnscron-adopt.yml", &trigger);
    assert!(run.succeeded(), "{}", run.log);
    let pr = story.world.gh_dir().join("prs/1");
    format!(
        "### {when}\n== steps\n{}== gh\n{}== pushed {ZONE_FILE}\n{}== pull request 1: {} {} ({} → {})\n{}-- comments\n{}",
        run.steps_text(),
        story.world.take_gh_calls(),
        pushed(story, run.id),
        read(pr.join("state")).trim_end(),
        read(pr.join("title")).trim_end(),
        read(pr.join("head")).trim_end(),
        read(pr.join("base")).trim_end(),
        read(pr.join("body")),
        read(pr.join("comments")),
    )
}

#[test]
fn one_adopt_pull_request_opened_kept_updated_and_closed() {
    let story = Story::new();
    let mut shown = scheduled(&story, "in line: nothing to adopt");
    let www = Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"web.example.com.\" }",
    );
    story.change_live(&www);
    shown += &scheduled(
        &story,
        "www changed in the portal: the pull request is opened",
    );
    shown += &scheduled(
        &story,
        "the same drift the next day: nothing pushed, no update",
    );
    let shop = Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"shop.example.net.\" }",
    );
    story.change_live(&shop);
    shown += &scheduled(&story, "www changed again: pushed again, the body updated");
    story.change_live(&Files::main());
    shown += &scheduled(&story, "put back: the pull request is closed");
    snapshot!("adopt_pull_request_lifecycle", &shown);
}
