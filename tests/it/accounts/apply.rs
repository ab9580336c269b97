//! `dnscron apply` over a repository of several accounts: each account bound to its own part of
//! the reviewed plan and applied side by side; one refused account means nothing is written
//! anywhere; a token only ever goes to its own API.

use super::plan::{ACME_TOKEN, SHOP_TOKEN, accounts_file, only_own_tokens, two, writes};
use super::write_repo;

fn www(emu: &dnscron_emulator::BackgroundEmulator) -> String {
    let state = emu.state();
    state.zones["acme.example"]
        .iter()
        .find(|r| r.name == "www")
        .map(|r| r.content.clone())
        .unwrap()
}

#[test]
fn the_reviewed_plan_of_every_account_is_applied_and_a_rerun_writes_nothing() {
    let t = two();
    t.dnscron(&["plan", "--out", "plan.json", "--format", "json"])
        .run_for_stdout();
    let out = t
        .dnscron(&["apply", "--reviewed", "plan.json", "."])
        .snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    assert!(out.contains("=== account `acme` ==="), "{out}");
    assert_eq!(www(&t.acme), "192.0.2.9");
    assert_eq!(writes(&t.shop), 0);
    let written = writes(&t.acme);
    assert!(written > 0);
    // Again: the same reviewed plan, nothing left to write.
    let again = t
        .dnscron(&["apply", "--reviewed", "plan.json", "."])
        .snapshot();
    assert!(again.starts_with("exit: Some(0)"), "{again}");
    assert_eq!(writes(&t.acme), written);
    only_own_tokens(&[&t.acme, &t.shop]);
}

#[test]
fn an_account_refused_writes_nothing_in_any_account() {
    let t = two();
    t.dnscron(&["plan", "--out", "plan.json", "--format", "json"])
        .run_for_stdout();
    t.acme.reset_counters();
    t.shop.reset_counters();
    // acme's entry now points at shop's account, whose token its variable holds.
    write_repo(
        t.dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &accounts_file(&t.shop.base_url(), &t.shop.base_url()),
        )],
    );
    let err = t
        .dnscron(&["apply", "--yes", "."])
        .env("DNSCRON_TOKEN_ACME", super::plan::second_token(SHOP_TOKEN))
        .expect_status(1)
        .snapshot();
    assert!(
        err.contains("none of the 2 zones the files declare is in the account's zone list"),
        "{err}"
    );
    assert!(
        err.contains("nothing was written in any account: the apply of `acme` was refused"),
        "{err}"
    );
    assert_eq!(writes(&t.acme), 0);
    assert_eq!(writes(&t.shop), 0);
    assert_eq!(t.acme.counters().requests, 0);
}

#[test]
fn a_reviewed_file_whose_account_moved_is_refused_before_anything_is_sent() {
    let t = two();
    t.dnscron(&["plan", "--out", "plan.json", "--format", "json"])
        .run_for_stdout();
    let other = super::plan::emulator(ACME_TOKEN, "acme.example", "192.0.2.1");
    write_repo(
        t.dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &accounts_file(&other.base_url(), &t.shop.base_url()),
        )],
    );
    let err = t
        .dnscron(&["apply", "--reviewed", "plan.json", "."])
        .expect_status(1)
        .snapshot();
    assert!(err.contains("plan.json planned account `acme` at"), "{err}");
    assert_eq!(other.counters().requests, 0);
    assert_eq!(writes(&t.acme), 0);
}

#[test]
fn an_account_the_review_leaves_out_gets_no_write() {
    let t = two();
    // Only shop was reviewed; acme has a change nobody reviewed.
    t.dnscron(&[
        "plan",
        "--account",
        "shop",
        "--out",
        "plan.json",
        "--format",
        "json",
    ])
    .run_for_stdout();
    let err = t
        .dnscron(&["apply", "--reviewed", "plan.json", "."])
        .expect_status(1)
        .snapshot();
    assert!(
        err.contains("account `acme`: 1 change(s) not reviewed: the reviewed plan holds no plan of this account"),
        "{err}"
    );
    assert_eq!(writes(&t.acme), 0);
    assert_eq!(writes(&t.shop), 0);
    // With the reviewed account alone, it applies (nothing to change there).
    t.dnscron(&["apply", "--account", "shop", "--reviewed", "plan.json", "."])
        .snapshot();
    assert_eq!(www(&t.acme), "192.0.2.1");
}

#[test]
fn a_saved_plan_of_the_accounts_runs_each_part() {
    let t = two();
    t.dnscron(&["plan", "--out", "plan.json", "--format", "json"])
        .run_for_stdout();
    let out = t
        .dnscron(&["apply", "--plan", "plan.json", "--format", "json"])
        .snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let report: serde_json::Value = serde_json::from_str(crate::common::stdout_of(&out)).unwrap();
    let names: Vec<&str> = report["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["account"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["acme", "shop"]);
    assert_eq!(www(&t.acme), "192.0.2.9");
    only_own_tokens(&[&t.acme, &t.shop]);
}
