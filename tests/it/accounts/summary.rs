//! The totals of a plan over several accounts when some fail: nothing is claimed of a failed
//! account (no "matches the files"), and `--format json` gives it an entry with its error.

use serde_json::Value;

use super::plan::two;
use crate::common::{Test, assert_cli_snapshot};

/// The stdout of a run, whatever its status (each test checks that apart where it matters).
fn stdout_of(test: Test) -> String {
    let snapshot = test.snapshot();
    let after = snapshot.split_once("--- stdout\n").map_or("", |(_, s)| s);
    after
        .split_once("--- stderr\n")
        .map_or(after, |(s, _)| s)
        .to_string()
}

fn totals(stdout: &str) -> &str {
    stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("Accounts: "))
        .unwrap_or_default()
}

#[test]
fn a_failed_account_makes_no_all_clear_and_is_named_as_unknown() {
    let t = two();
    // acme has a change, shop's token is refused: the change is counted, shop is unknown.
    assert_cli_snapshot!(
        t.dnscron(&["plan"])
            .env("DNSCRON_TOKEN_SHOP", "bogus")
            .expect_status(1)
    );
    // acme fails, shop (in sync) is planned: no all-clear over the whole.
    let out = stdout_of(t.dnscron(&["plan"]).env("DNSCRON_TOKEN_ACME", "bogus"));
    assert_eq!(
        totals(&out),
        "Accounts: 1 planned, 1 failed. No changes in the 1 planned account. Nothing is known \
         of account `acme`: its plan failed."
    );
    let out = stdout_of(
        t.dnscron(&["plan", "--account", "shop"])
            .env("DNSCRON_TOKEN_SHOP", "bogus"),
    );
    assert_eq!(
        totals(&out),
        "Accounts: 0 planned, 1 failed. Nothing is known of account `shop`: its plan failed."
    );
    let out = stdout_of(
        t.dnscron(&["plan"])
            .env("DNSCRON_TOKEN_ACME", "bogus")
            .env("DNSCRON_TOKEN_SHOP", "bogus"),
    );
    assert_eq!(
        totals(&out),
        "Accounts: 0 planned, 2 failed. Nothing is known of accounts `acme`, `shop`: their \
         plans failed."
    );
    // Every account planned: the all-clear stands, in the one form a single plan uses.
    let out = stdout_of(t.dnscron(&["plan", "--account", "shop"]));
    assert_eq!(
        totals(&out),
        "Accounts: 1 planned. No changes. The live account matches the files."
    );
}

#[test]
fn the_markdown_totals_name_the_failed_account_too() {
    let t = two();
    let out = stdout_of(
        t.dnscron(&["plan", "--format", "markdown"])
            .env("DNSCRON_TOKEN_ACME", "bogus"),
    );
    assert!(
        out.contains(
            "**Accounts: 1 planned, 1 failed. No changes in the 1 planned account. Nothing is \
             known of account <code>acme</code>: its plan failed.**"
        ),
        "{out}"
    );
}

#[test]
fn json_gives_a_failed_account_an_entry_with_its_error_and_no_plan() {
    let t = two();
    let stdout = stdout_of(
        t.dnscron(&["plan", "--format", "json"])
            .env("DNSCRON_TOKEN_SHOP", "bogus"),
    );
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["format_version"], 6);
    let accounts = doc["accounts"].as_array().unwrap();
    let names: Vec<&str> = accounts
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["acme", "shop"],
        "every chosen account, in the file's order"
    );
    assert!(accounts[0]["plan"].is_object());
    assert!(accounts[0].get("error").is_none());
    let shop = &accounts[1];
    assert!(shop.get("plan").is_none(), "{shop}");
    assert_eq!(shop["api_url"], t.shop.base_url());
    let error = shop["error"].as_str().unwrap();
    assert!(
        error.starts_with("reading the zone list (GET /dns) failed: GET /dns: HTTP 401"),
        "{error}"
    );
    let hints = shop["hints"].as_array().unwrap();
    assert!(
        hints[0]
            .as_str()
            .unwrap()
            .starts_with("check account `shop`'s token in DNSCRON_TOKEN_SHOP"),
        "{hints:?}"
    );
    // Such output is no plan file: apply refuses it, nothing is sent.
    std::fs::write(t.dir.path().join("failed.json"), &stdout).unwrap();
    let writes = (super::plan::writes(&t.acme), super::plan::writes(&t.shop));
    let refused = t
        .dnscron(&["apply", "--reviewed", "failed.json", "--yes"])
        .snapshot();
    assert!(refused.starts_with("exit: Some(1)"), "{refused}");
    let shown = t.dnscron(&["show", "failed.json"]).snapshot();
    assert!(shown.starts_with("exit: Some(1)"), "{shown}");
    assert_eq!(
        (super::plan::writes(&t.acme), super::plan::writes(&t.shop)),
        writes
    );
    // Every account planned: the plan file itself, with no error entry.
    let stdout = stdout_of(t.dnscron(&["plan", "--format", "json"]));
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        doc["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a.get("error").is_none() && a["plan"].is_object())
    );
}
