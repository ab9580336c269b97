//! dnscron-plan.yml on pull requests: one plan per push gives the comment, the summary, the
//! annotations and the saved plan; the comment follows every push, failures included; blocked
//! changes fail the check.

use serde_json::json;

use super::runner::{JobRun, Trigger};
use super::snapshot;
use super::{Files, Story, read};

pub const ZONE_FILE: &str = "dns/zones/example.com.yaml";

/// The pull_request event of push `head` to pull request `number`, to be merged into `base`.
pub fn opened<'a>(
    number: u64,
    base: &'a str,
    head: &'a str,
    files: &'a std::path::Path,
) -> Trigger<'a> {
    Trigger {
        event: "pull_request",
        sha: head,
        payload: json!({"number": number, "pull_request": {"number": number, "head": {"sha": head}}}),
        files,
        base: Some(base),
    }
}

/// Runs the plan workflow for one push of a pull request into main's newest commit and
/// describes everything it left behind.
pub fn push(story: &Story, number: u64, head: &str, files: &Files) -> (JobRun, String) {
    let base = story.world.main_history().pop().unwrap();
    push_onto(story, number, &base, head, files)
}

/// [`push`] of a pull request whose base is main's commit `base`.
pub fn push_onto(
    story: &Story,
    number: u64,
    base: &str,
    head: &str,
    files: &Files,
) -> (JobRun, String) {
    run_plan(story, number, base, head, files, |t| t)
}

/// The pull_request event `action` (`labeled`, `unlabeled`) of pull request `number` at `head`,
/// which now carries `labels`: the plan workflow runs again on main's newest commit.
pub fn relabel(
    story: &Story,
    number: u64,
    head: &str,
    files: &Files,
    action: &str,
    labels: &[&str],
) -> (JobRun, String) {
    let base = story.world.main_history().pop().unwrap();
    story.world.label_event(number, action, labels);
    run_plan(story, number, &base, head, files, |mut t| {
        let labels: Vec<_> = labels.iter().map(|l| json!({"name": l})).collect();
        t.payload["action"] = json!(action);
        t.payload["pull_request"]["labels"] = json!(labels);
        t
    })
}

/// Runs the plan workflow for the event `event` makes of pull request `number`'s push, and
/// describes everything it left behind.
fn run_plan(
    story: &Story,
    number: u64,
    base: &str,
    head: &str,
    files: &Files,
    event: impl FnOnce(Trigger) -> Trigger,
) -> (JobRun, String) {
    let dir = story.commit(head, files);
    let run = story
        .world
        .run("dnscron-plan.yml", &event(opened(number, base, head, &dir)));
    let comments = story.world.gh_dir().join(format!("pulls/{number}"));
    let shown = format!(
        "== steps\n{}== annotations\n{}== gh\n{}== comment 1 of pull request {number}\n{}== job summary\n{}== artifact dnscron-plan-{number}-{head}\n{}",
        run.steps_text(),
        run.annotations,
        story.world.take_gh_calls(),
        read(comments.join("1")),
        run.summary,
        artifact(story, number, head),
    );
    (run, shown)
}

/// The saved plan's changes, one line each (the artifact holds the whole plan file).
fn artifact(story: &Story, number: u64, head: &str) -> String {
    let file = story
        .world
        .artifacts()
        .join(format!("dnscron-plan-{number}-{head}/plan.json"));
    let Ok(text) = std::fs::read_to_string(file) else {
        return "(none)\n".into();
    };
    let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
    let changes = |plan: &serde_json::Value, prefix: &str| -> String {
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                format!(
                    "{prefix}{} {} {} -> {} ({})\n",
                    c["action"], c["target"]["name"], c["before"], c["after"], c["status"]
                )
            })
            .collect()
    };
    match plan["accounts"].as_array() {
        // Format 6 (several accounts): each account's changes, named.
        Some(accounts) => {
            let mut out = format!("format_version {}\n", plan["format_version"]);
            for account in accounts {
                let prefix = format!("account {}: ", account["name"]);
                out.push_str(&changes(&account["plan"], &prefix));
            }
            out
        }
        None => changes(&plan, ""),
    }
}

#[test]
fn a_pull_request_gets_one_plan_a_comment_and_the_saved_plan() {
    let story = Story::new();
    let files = Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"web.example.com.\" }",
    );
    let (run, shown) = push(&story, 1, "a1a1a1a1", &files);
    assert!(run.succeeded(), "{}", run.log);
    snapshot!("pr_plan_ready", &shown);
}

#[test]
fn the_comment_follows_every_push_and_failures_fail_the_check() {
    let story = Story::new();
    let good = Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"web.example.com.\" }",
    );
    let (run, first) = push(&story, 2, "b1b1b1b1", &good);
    assert!(run.succeeded(), "{}", run.log);
    let invalid = good
        .clone()
        .edit(ZONE_FILE, "203.0.113.10", "203.0.113.300");
    let (run, second) = push(&story, 2, "b2b2b2b2", &invalid);
    assert!(!run.succeeded());
    let blocked = good.edit("dns/sites/legacy.yaml", "0 4 * * *", "0 5 * * *");
    let (run, third) = push(&story, 2, "b3b3b3b3", &blocked);
    assert!(!run.succeeded());
    snapshot!(
        "pr_plan_every_push",
        &format!(
            "### push 1: valid\n{first}\n### push 2: invalid file\n{second}\n### push 3: a blocked change\n{third}"
        ),
    );
}

/// The octoDNS habit `\;` in a DMARC record: the plan holds the change (apply on merge would
/// refuse the whole plan), so the check fails, and the comment says which record and why.
#[test]
fn a_change_held_by_an_error_finding_fails_the_check() {
    let story = Story::new();
    let files = Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }\n",
        "content: \"example.com.\" }\n  - { name: _dmarc, type: TXT, content: 'v=DMARC1\\; p=reject' }\n",
    );
    let (run, shown) = push(&story, 3, "c1c1c1c1", &files);
    assert!(!run.succeeded(), "{}", run.log);
    assert!(
        run.log
            .contains("1 change(s) are held by error findings: apply would refuse the whole plan"),
        "{}",
        run.log
    );
    snapshot!("pr_plan_held", &shown);
}

/// A push whose file is not in canonical form (a record added out of order, its address
/// unquoted) fails before the plan: the comment shows the diff `dnscron fmt` would apply, and
/// nothing is planned or saved. The same change after `dnscron fmt` passes.
#[test]
fn a_file_not_in_canonical_form_fails_the_check_with_its_diff() {
    let story = Story::new();
    let added = (
        "records:\n",
        "records:\n  - { name: mail, type: A, content: 203.0.113.25 }\n",
    );
    let typed = Files::main().edit_unformatted(ZONE_FILE, added.0, added.1);
    let (run, shown) = push(&story, 4, "d1d1d1d1", &typed);
    assert!(!run.succeeded(), "{}", run.log);
    assert!(
        run.log
            .contains("validate, fmt --check or plan failed (exit 1): see the comment"),
        "{}",
        run.log
    );
    snapshot!("pr_plan_unformatted", &shown);
    let formatted = Files::main().edit(ZONE_FILE, added.0, added.1);
    let (run, _) = push(&story, 4, "d2d2d2d2", &formatted);
    assert!(run.succeeded(), "{}", run.log);
}

/// The recipes' account with provider.example, a mail provider's zone no file declares, served
/// by the DNS listener the runner's resolver asks: its `_spf` makes 10 lookups.
fn provider_seed() -> String {
    let hosts: String = (1..=10)
        .map(|i| format!("      - {{name: o{i}, type: A, content: 192.0.2.{i}}}\n"))
        .collect();
    let terms: Vec<String> = (1..=10)
        .map(|i| format!("a:o{i}.provider.example"))
        .collect();
    super::SEED.replace(
        "rate_limit:",
        &format!(
            "  - zone: provider.example\n    records:\n{hosts}      - {{name: _spf, type: TXT, content: \"v=spf1 {} -all\"}}\nrate_limit:",
            terms.join(" ")
        ),
    )
}

/// An SPF that includes the provider: 11 lookups, known only through DNS.
fn with_provider_spf(files: Files) -> Files {
    files.edit(
        ZONE_FILE,
        "content: \"203.0.113.10\" }\n",
        "content: \"203.0.113.10\" }\n  - { name: \"@\", type: TXT, content: \"v=spf1 include:_spf.provider.example -all\" }\n",
    )
}

/// The plan check asks the runner's resolver (`--resolver system`): an SPF past 10 lookups
/// inside a provider's include is an error judged from DNS on the record the pull request
/// writes, so it holds the change and fails the check; accepted in the same pull request, it
/// passes.
#[test]
fn an_spf_error_judged_from_dns_fails_the_check_unless_accepted() {
    let story = Story::with_account(&provider_seed(), Files::main());
    let files = with_provider_spf(Files::main());
    let (run, shown) = push(&story, 5, "e1e1e1e1", &files);
    assert!(!run.succeeded(), "{}", run.log);
    assert!(
        run.log
            .contains("1 change(s) are held by error findings: apply would refuse the whole plan"),
        "{}",
        run.log
    );
    assert!(shown.contains("spf-too-many-lookups-from-dns"), "{shown}");
    let accepted = files.edit(
        ZONE_FILE,
        "records:\n",
        "accept:\n  - { finding: spf-too-many-lookups-from-dns, name: \"@\", reason: the provider trims its includes in March }\nrecords:\n",
    );
    let (run, shown) = push(&story, 5, "e2e2e2e2", &accepted);
    assert!(run.succeeded(), "{}\n{shown}", run.log);
    assert!(shown.contains("Accepted findings"), "{shown}");
}
