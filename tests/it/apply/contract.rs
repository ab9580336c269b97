//! The reviewed plan is a contract (docs/apply.md, "The contract"): each change runs only from
//! the value the reviewer saw. A value moved since review is not overwritten, a plan made for
//! one account changes nothing in another at the same URL, and a reviewed change is called "in
//! effect" only when it is.

use std::path::Path;

use dnscron_api::{IdempotencyKey, payload};
use dnscron_emulator::{BackgroundEmulator, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::stdout_of;

const ZONE: &str = "pr.example";

/// An account whose `www` holds `www` and that has an `old` record.
fn account(www: &str) -> BackgroundEmulator {
    let a = |name: &str, ip: &str| RecordSeed::new(name, "A", ip).with_ttl(300);
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new(ZONE).with_records([
            a("@", "192.0.2.10"),
            a("www", www),
            a("old", "192.0.2.99"),
        ]));
    emulator_with(seed, gap_settings()[0].clone())
}

/// A folder under `dir` with the zone file of these records (`name ip` each).
fn zone_files(dir: &Path, folder: &str, records: &[(&str, &str)]) -> String {
    let lines: Vec<String> = records
        .iter()
        .map(|(name, ip)| format!("  - {{ name: \"{name}\", type: A, content: {ip}, ttl: 300 }}\n"))
        .collect();
    let root = dir.join(folder);
    std::fs::create_dir_all(&root).unwrap();
    let text = format!("zone: {ZONE}\nrecords:\n{}", lines.concat());
    std::fs::write(root.join("pr.yaml"), text).unwrap();
    root.display().to_string()
}

const MAIN: [(&str, &str); 3] = [
    ("@", "192.0.2.10"),
    ("www", "192.0.2.10"),
    ("old", "192.0.2.99"),
];

/// The PR: `www` to .11.
fn pr_www(dir: &Path) -> String {
    zone_files(
        dir,
        "pr",
        &[
            ("@", "192.0.2.10"),
            ("www", "192.0.2.11"),
            ("old", "192.0.2.99"),
        ],
    )
}

/// The plan of `files` against `emu`, saved under `dir`.
fn plan(emu: &BackgroundEmulator, dir: &Path, files: &str) -> String {
    let plan = dir.join("plan.json").display().to_string();
    let out = dnscron(emu, &["-q", "plan", "--out", &plan, files]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    plan
}

/// Someone sets `name` by hand in the portal.
fn set_by_hand(emu: &BackgroundEmulator, name: &str, ip: &str) {
    let state = emu.state();
    let id = state
        .visible_records(ZONE)
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.id)
        .unwrap();
    let body = payload::RecordWrite {
        name: name.into(),
        rtype: "A".into(),
        ttl: 300,
        content: ip.into(),
    };
    let key = IdempotencyKey::new(format!("by-hand-{name}-{ip}")).unwrap();
    let c = client(&emu.base_url(), "demo-token");
    runtime()
        .block_on(c.update_record(ZONE, id, &body, &key))
        .unwrap();
}

fn content_of(emu: &BackgroundEmulator, name: &str) -> Vec<String> {
    let state = emu.state();
    state
        .visible_records(ZONE)
        .iter()
        .filter(|r| r.name == name)
        .map(|r| r.content.clone())
        .collect()
}

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(stdout_of(out)).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Reviewed: `~ www 192.0.2.10 → 192.0.2.11`. Someone then sets www to 203.0.113.77 by hand:
/// neither `--reviewed` nor `--plan` overwrites it; both say what was reviewed and what is
/// live, and exit 1. Once www holds the reviewed value again, the same plan applies.
#[test]
fn an_update_whose_value_moved_since_review_is_not_sent() {
    let emu = account("192.0.2.10");
    let dir = tempfile::tempdir().unwrap();
    let files = pr_www(dir.path());
    let plan = plan(&emu, dir.path(), &files);
    set_by_hand(&emu, "www", "203.0.113.77");
    let writes_before = writes(&emu);

    let text = dnscron(&emu, &["apply", "--reviewed", &plan, &files]).snapshot();
    settings().bind(|| insta::assert_snapshot!("update_moved_since_review", text));
    let json = dnscron(&emu, &["apply", "--plan", &plan, "--format", "json"]).snapshot();
    let doc = json_of(&json);
    assert_eq!(doc["result"], "changed_since_review", "{json}");
    assert_eq!(doc["exit_code"], 1, "{json}");
    assert_eq!(doc["changed"][0]["expected"]["content"], "192.0.2.10");
    assert_eq!(doc["changed"][0]["live"]["content"], "203.0.113.77");
    assert_eq!(
        doc["changed"][0]["summary"],
        "~ www A 192.0.2.10 → 192.0.2.11 (ttl 300)"
    );
    let markdown = dnscron(&emu, &["apply", "--plan", &plan, "--format", "markdown"]).snapshot();
    settings().bind(|| insta::assert_snapshot!("update_moved_since_review_markdown", markdown));
    assert_eq!(writes(&emu), writes_before, "nothing sent");
    assert_eq!(content_of(&emu, "www"), ["203.0.113.77"]);

    // Accepted form: the reviewed value is live again.
    set_by_hand(&emu, "www", "192.0.2.10");
    let out = dnscron(&emu, &["-q", "apply", "--reviewed", &plan, &files]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    assert_eq!(content_of(&emu, "www"), ["192.0.2.11"]);
}

/// The API names no account: a plan made for one account, applied with another account's
/// token at the same URL (here: the plan's URL pointed at a second emulator), finds other
/// values and changes nothing there; the account it was made for applies it.
#[test]
fn a_plan_for_one_account_changes_nothing_in_another() {
    let mine = account("192.0.2.10");
    let other = account("192.0.2.30");
    let dir = tempfile::tempdir().unwrap();
    let files = pr_www(dir.path());
    let plan = plan(&mine, dir.path(), &files);
    let text = std::fs::read_to_string(&plan).unwrap();
    let theirs = dir.path().join("theirs.json");
    std::fs::write(&theirs, text.replace(&mine.base_url(), &other.base_url())).unwrap();
    let theirs = theirs.display().to_string();

    let out = dnscron(&other, &["apply", "--plan", &theirs, "--format", "json"]).snapshot();
    let doc = json_of(&out);
    assert_eq!(doc["result"], "changed_since_review", "{out}");
    assert_eq!(doc["changed"][0]["live"]["content"], "192.0.2.30", "{out}");
    assert!(out.starts_with("exit: Some(1)"), "{out}");
    assert_eq!(writes(&other), 0, "nothing sent to the other account");
    assert_eq!(content_of(&other, "www"), ["192.0.2.30"]);

    let out = dnscron(&mine, &["-q", "apply", "--plan", &plan]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    assert_eq!(content_of(&mine, "www"), ["192.0.2.11"]);
}

/// Reviewed: `+ one` and `- old`. Applied with files that don't make them (main's), they
/// are neither live nor made: refused, exit 1, nothing sent (they used to be called "already
/// in effect", exit 0). Once applied with the PR's files, the same plan is already applied.
#[test]
fn reviewed_changes_never_applied_are_not_called_in_effect() {
    let emu = account("192.0.2.10");
    let dir = tempfile::tempdir().unwrap();
    let pr = zone_files(
        dir.path(),
        "pr",
        &[
            ("@", "192.0.2.10"),
            ("www", "192.0.2.10"),
            ("one", "192.0.2.1"),
        ],
    );
    let main = zone_files(dir.path(), "main", &MAIN);
    let plan = plan(&emu, dir.path(), &pr);

    let refused = dnscron(&emu, &["apply", "--reviewed", &plan, &main]).snapshot();
    settings().bind(|| insta::assert_snapshot!("reviewed_changes_not_made", refused));
    assert_eq!(writes(&emu), 0, "nothing sent");

    let out = dnscron(&emu, &["-q", "apply", "--reviewed", &plan, &pr]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let again = dnscron(&emu, &["apply", "--reviewed", &plan, &pr]).snapshot();
    settings().bind(|| insta::assert_snapshot!("reviewed_changes_in_effect", again));
}

/// Two PRs change the same record from the same value: whichever is applied second finds
/// the first one's value, not the one its reviewer saw: changed since review.
#[test]
fn the_second_of_two_prs_updating_the_same_record_is_changed_since_review() {
    let emu = account("192.0.2.10");
    let dir = tempfile::tempdir().unwrap();
    let first = pr_www(dir.path());
    let first_plan = plan(&emu, dir.path(), &first);
    let second = zone_files(
        dir.path(),
        "pr2",
        &[
            ("@", "192.0.2.10"),
            ("www", "192.0.2.12"),
            ("old", "192.0.2.99"),
        ],
    );
    let second_plan = dir.path().join("second.json").display().to_string();
    let out = dnscron(&emu, &["-q", "plan", "--out", &second_plan, &second]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");

    let out = dnscron(&emu, &["-q", "apply", "--reviewed", &first_plan, &first]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let out = dnscron(
        &emu,
        &[
            "apply",
            "--reviewed",
            &second_plan,
            &second,
            "--format",
            "json",
        ],
    )
    .snapshot();
    let doc = json_of(&out);
    assert_eq!(doc["result"], "changed_since_review", "{out}");
    assert_eq!(doc["changed"][0]["expected"]["content"], "192.0.2.10");
    assert_eq!(doc["changed"][0]["live"]["content"], "192.0.2.11");
    assert_eq!(content_of(&emu, "www"), ["192.0.2.11"]);
}

/// Three identical cron jobs, the files keep one: the reviewed plan deletes two copies. Someone
/// deletes one copy by hand; the plan made now needs one delete, and the other reviewed delete
/// is in effect (the copies are counted, not looked up one by one). Refused form: files that
/// keep no copy need two deletes, each like a reviewed one, but together they leave another
/// number of copies than reviewed: unreviewed, nothing sent.
#[test]
fn identical_cron_jobs_are_counted_against_the_reviewed_deletes() {
    const JOB: (&str, &str) = ("*/5 * * * *", "php artisan schedule:run");
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_site(
            dnscron_emulator::SiteSeed::new("blog")
                .with_cron(JOB.0, JOB.1)
                .with_cron(JOB.0, JOB.1)
                .with_cron(JOB.0, JOB.1),
        );
    let emu = emulator_with(seed, gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let site = |folder: &str, cron: &str| {
        let root = dir.path().join(folder);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("blog.yaml"), format!("site: blog\ncron:{cron}")).unwrap();
        root.display().to_string()
    };
    let one = site(
        "one",
        &format!(
            "\n  - {{ schedule: \"{}\", command: \"{}\" }}\n",
            JOB.0, JOB.1
        ),
    );
    let none = site("none", " []\n");
    let plan = plan(&emu, dir.path(), &one);
    let index = emu.state().cron("blog")[0].index;
    let c = client(&emu.base_url(), "demo-token");
    let key = IdempotencyKey::new("by-hand-cron").unwrap();
    runtime()
        .block_on(c.delete_cron("blog", index, &key))
        .unwrap();
    let writes_before = writes(&emu);

    let refused = dnscron(&emu, &["apply", "--reviewed", &plan, &none]).snapshot();
    settings().bind(|| insta::assert_snapshot!("cron_copies_not_as_reviewed", refused));
    assert_eq!(writes(&emu), writes_before, "nothing sent");

    let out = dnscron(
        &emu,
        &["apply", "--reviewed", &plan, &one, "--format", "json"],
    )
    .snapshot();
    let doc = json_of(&out);
    assert_eq!(doc["result"], "converged", "{out}");
    assert_eq!(doc["counts"]["done"], 1, "{out}");
    assert_eq!(doc["counts"]["already_live"], 1, "{out}");
    assert_eq!(emu.state().cron("blog").len(), 1);
}
