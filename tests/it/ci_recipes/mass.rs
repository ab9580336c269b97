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
