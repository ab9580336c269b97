//! A deliberate mass change through the recipes (docs/ci.md, "A deliberate mass change"): a
//! pull request lowering `defaults.ttl` fails its check on the TTL limit; the label
//! `dnscron:allow-mass-changes` makes the check run again and pass with the approval in the saved
//! plan (removing it withdraws it); the merge applies that plan with no flag; the next pull
//! request is limited again, and no `safety:` edit is left to revert.

use serde_json::json;

use super::merge::merge;
use super::pull_request::{ZONE_FILE, push, relabel};
use super::{Files, Story, snapshot};

const LABEL: &str = "dnscron:allow-mass-changes";

/// The recipes' account with example.com holding 26 A records at TTL 3600.
fn seed() -> String {
    let records: String = (1..=26)
        .map(|i| format!("      - {{name: h{i}, type: A, ttl: 3600, content: 203.0.113.{i}}}\n"))
        .collect();
    format!(
        "tokens:
  - {{token: ci-read-token, user: ci, scopes: [read]}}
  - {{token: ci-apply-token, user: ci, scopes: [read, dns, manage]}}
sites:
  - slug: shop
    cron: [{{schedule: \"*/5 * * * *\", command: \"php artisan schedule:run\"}}]
  - slug: legacy
    state: suspended
    cron: [{{schedule: \"0 4 * * *\", command: \"php legacy/nightly.php\"}}]
domains:
  - {{domain: example.com, dnssec: true}}
zones:
  - zone: example.com
    records:
{records}rate_limit: {{enabled: false}}
"
    )
}

/// main's zone file with `defaults.ttl` at `ttl`; h25 and h26 keep their own `ttl: 3600`.
fn zone(ttl: u32) -> String {
    let records: String = (1..=26)
        .map(|i| match i {
            25 | 26 => {
                format!("  - {{ name: h{i}, type: A, content: 203.0.113.{i}, ttl: 3600 }}\n")
            }
            _ => format!("  - {{ name: h{i}, type: A, content: 203.0.113.{i} }}\n"),
        })
        .collect();
    format!(
        "zone: example.com\nnameservers: {{ mode: hosted }}\ndefaults: {{ ttl: {ttl} }}\nrecords:\n{records}"
    )
}

fn files(ttl: u32) -> Files {
    Files::main().with(ZONE_FILE, &zone(ttl))
}

fn ttls(story: &Story) -> Vec<u32> {
    let mut ttls: Vec<u32> = story
        .emulator
        .state()
        .visible_records("example.com")
        .iter()
        .map(|r| r.ttl)
        .collect();
    ttls.sort_unstable();
    ttls
}

#[test]
fn a_labelled_pull_request_changes_the_default_ttl_with_nothing_to_revert() {
    let story = Story::with_account(&seed(), files(3600));
    let lowered = files(300);
    // Opened: refused by the TTL limit; the comment says which limit and how to approve.
    let (run, refused) = push(&story, 7, "a7a7a7a7", &lowered);
    assert!(!run.succeeded());
    // The reviewer adds the label: the check runs again and passes, with the approval saved.
    let (run, approved) = relabel(&story, 7, "a7a7a7a7", &lowered, "labeled", &[LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    let saved = story
        .world
        .artifacts()
        .join("dnscron-plan-7-a7a7a7a7/plan.json");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(plan["options"]["allow_mass_changes"], true);
    assert_eq!(plan["over_limits"][0]["exceeded"][0]["ttl_updates"], 24);
    // Another label changes nothing; removing this one withdraws the approval.
    let (run, _) = relabel(&story, 7, "a7a7a7a7", &lowered, "labeled", &[LABEL, "docs"]);
    assert!(run.succeeded(), "{}", run.log);
    let (run, withdrawn) = relabel(&story, 7, "a7a7a7a7", &lowered, "unlabeled", &["docs"]);
    assert!(!run.succeeded());
    let (run, _) = relabel(&story, 7, "a7a7a7a7", &lowered, "labeled", &["docs", LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    story.world.take_gh_calls();
    // Merged: the apply job applies the approved plan, with no flag of its own.
    let (run, merged) = merge(&story, "e7e7e7e7", 7, "a7a7a7a7", &lowered);
    assert!(run.succeeded(), "{}", run.log);
    let mut expected = vec![300; 24];
    expected.extend([3600, 3600]);
    assert_eq!(ttls(&story), expected);
    // The next pull request (the default put back), unlabelled, is limited again.
    let (run, next) = push(&story, 8, "a8a8a8a8", &files(3600));
    assert!(!run.succeeded());
    assert!(
        next.contains("would change the TTL of 24 of 26 live records"),
        "{next}"
    );
    snapshot!(
        "mass_change_labelled",
        &format!(
            "### opened: refused\n{refused}\n### labelled: approved\n{approved}\n### label removed: refused again\n{withdrawn}\n### merged\n{merged}"
        ),
    );
}

/// The label is read from the event: a pull request whose title or branch says the label's
/// name is not approved.
#[test]
fn only_the_label_approves() {
    let story = Story::with_account(&seed(), files(3600));
    let lowered = files(300);
    let dir = story.commit("a9a9a9a9", &lowered);
    let base = story.world.main_history().pop().unwrap();
    let mut trigger = super::pull_request::opened(9, &base, "a9a9a9a9", &dir);
    trigger.payload["pull_request"]["title"] = json!(LABEL);
    trigger.payload["pull_request"]["head"]["ref"] = json!(LABEL);
    let run = story.world.run("dnscron-plan.yml", &trigger);
    assert!(!run.succeeded());
    assert!(
        run.log
            .contains("would change the TTL of 24 of 26 live records"),
        "{}",
        run.log
    );
}

/// The plan workflow of a pull request that edited it to approve mass changes whatever the
/// labels say: a `pull_request` run uses the pull request's own copy of the workflow.
fn push_with_edited_workflow(story: &Story, number: u64, head: &str, files: &Files) {
    let dir = story.commit(head, files);
    let base = story.world.main_history().pop().unwrap();
    let mut trigger = super::pull_request::opened(number, &base, head, &dir);
    trigger.payload["action"] = json!("synchronize");
    let run = story.world.run_edited(
        "dnscron-plan.yml",
        "MASS_CHANGES_APPROVED: ${{",
        "MASS_CHANGES_APPROVED: ${{ true || ",
        &trigger,
    );
    assert!(run.succeeded(), "{}", run.log);
    story.world.take_gh_calls();
}

/// The apply job decides mass changes itself: a plan that records the approval, made by a pull
/// request's own copy of the plan workflow without the label, is applied within the limits or
/// not at all; nothing is written.
#[test]
fn a_plan_that_approves_itself_approves_nothing() {
    let story = Story::with_account(&seed(), files(3600));
    let lowered = files(300);
    push_with_edited_workflow(&story, 10, "a10a10a1", &lowered);
    let saved = story
        .world
        .artifacts()
        .join("dnscron-plan-10-a10a10a1/plan.json");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(plan["options"]["allow_mass_changes"], true);
    let (run, merged) = merge(&story, "e10e10e1", 10, "a10a10a1", &lowered);
    assert!(!run.succeeded(), "{merged}");
    assert!(merged.contains("refusing to plan mass changes"), "{merged}");
    assert!(!merged.contains("mass changes approved"), "{merged}");
    assert_eq!(ttls(&story), vec![3600; 26]);
}

/// The label counts only when it was added after the last push: a push after it fails the
/// check (the comment says to add it again) and, if the pull request's run approved it anyway,
/// the apply job refuses; added again after the push, it approves.
#[test]
fn a_label_added_before_the_last_push_approves_nothing() {
    let story = Story::with_account(&seed(), files(3600));
    let lowered = files(300);
    // Labelled on its first push: approved then.
    let (run, _) = push(&story, 11, "a11a11a1", &files(600));
    assert!(!run.succeeded());
    let (run, _) = relabel(&story, 11, "a11a11a1", &files(600), "labeled", &[LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    // A push after the label: the check fails, and says why.
    let dir = story.commit("b11b11b1", &lowered);
    let base = story.world.main_history().pop().unwrap();
    let mut trigger = super::pull_request::opened(11, &base, "b11b11b1", &dir);
    trigger.payload["action"] = json!("synchronize");
    trigger.payload["pull_request"]["labels"] = json!([{"name": LABEL}]);
    let run = story.world.run("dnscron-plan.yml", &trigger);
    assert!(!run.succeeded(), "{}", run.log);
    let comment = super::read(story.world.gh_dir().join("pulls/11/1"));
    assert!(
        comment.contains("was added before this push, so it does not approve these changes"),
        "{comment}"
    );
    // The pull request's own workflow approves that push anyway: the apply job refuses.
    push_with_edited_workflow(&story, 11, "b11b11b1", &lowered);
    let (run, merged) = merge(&story, "e11e11e1", 11, "b11b11b1", &lowered);
    assert!(!run.succeeded(), "{merged}");
    assert!(merged.contains("not after its last push"), "{merged}");
    assert!(merged.contains("refusing to plan mass changes"), "{merged}");
    assert_eq!(ttls(&story), vec![3600; 26]);

    // Accepted form, on another pull request: the label removed and added again after the push.
    let story = Story::with_account(&seed(), files(3600));
    let (run, _) = relabel(&story, 12, "a12a12a1", &files(600), "labeled", &[LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    let (run, _) = push(&story, 12, "b12b12b1", &lowered);
    assert!(!run.succeeded());
    relabel(&story, 12, "b12b12b1", &lowered, "unlabeled", &[]);
    let (run, _) = relabel(&story, 12, "b12b12b1", &lowered, "labeled", &[LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    story.world.take_gh_calls();
    let (run, merged) = merge(&story, "e12e12e1", 12, "b12b12b1", &lowered);
    assert!(run.succeeded(), "{merged}");
    assert!(merged.contains("after its last push"), "{merged}");
    let mut expected = vec![300; 24];
    expected.extend([3600, 3600]);
    assert_eq!(ttls(&story), expected);
}

/// A force push that moves the head back to a commit planned before the label: the label
/// does not approve it (the timeline's `head_ref_force_pushed` is the last push).
#[test]
fn a_force_push_back_to_an_older_commit_withdraws_the_label() {
    let story = Story::with_account(&seed(), files(3600));
    let lowered = files(300);
    push_with_edited_workflow(&story, 13, "a13a13a1", &lowered);
    let (run, _) = push(&story, 13, "b13b13b1", &files(3600));
    assert!(run.succeeded(), "{}", run.log);
    let (run, _) = relabel(&story, 13, "b13b13b1", &files(3600), "labeled", &[LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    story.world.force_pushed(13);
    story.world.take_gh_calls();
    let (run, merged) = merge(&story, "e13e13e1", 13, "a13a13a1", &lowered);
    assert!(!run.succeeded(), "{merged}");
    assert!(merged.contains("not after its last push"), "{merged}");
    assert_eq!(ttls(&story), vec![3600; 26]);
}
