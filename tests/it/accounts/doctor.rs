//! `dnscron doctor` at the root of a repository of several accounts: every chosen account's
//! URL and token checked side by side, each under its name; a refused token's hint names the
//! account and the variable its token is read from, never the token.

use dnscron_emulator::BackgroundEmulator;

use super::{two_accounts, write_repo};
use crate::common::Test;

fn account(token: &str) -> BackgroundEmulator {
    super::plan::emulator(token, "acme.example", "192.0.2.1")
}

fn repo(acme: &BackgroundEmulator, shop: &BackgroundEmulator) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_repo(
        dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &two_accounts(&acme.base_url(), &shop.base_url()),
        )],
    );
    for folder in ["acme", "shop"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    dir
}

fn requests(emulator: &BackgroundEmulator) -> u64 {
    emulator.counters().per_route.values().sum()
}

fn snapshot_of(name: &str, test: Test) -> String {
    let out = test.snapshot();
    insta::with_settings!({filters => crate::common::filters()}, {
        insta::assert_snapshot!(name, out.clone());
    });
    out
}

#[test]
fn every_account_is_checked_and_a_refused_token_names_its_variable() {
    let (acme, shop) = (account("token-acme"), account("token-shop"));
    let dir = repo(&acme, &shop);
    let out = snapshot_of(
        "doctor_accounts_one_token_refused",
        Test::new()
            .arg("doctor")
            .current_dir(dir.path())
            .env("DNSCRON_TOKEN_ACME", "token-acme")
            .env("DNSCRON_TOKEN_SHOP", "stale_SECRET"),
    );
    assert!(!out.contains("SECRET"), "a token is never printed: {out}");
    assert!(out.starts_with("exit: Some(1)"), "{out}");
    assert!(requests(&acme) > 0 && requests(&shop) > 0);
}

#[test]
fn every_account_healthy_passes_and_one_account_is_chosen_by_name() {
    let (acme, shop) = (account("token-acme"), account("token-shop"));
    let dir = repo(&acme, &shop);
    let in_repo = |args: &[&str]| {
        Test::new()
            .arg("doctor")
            .args(args)
            .current_dir(dir.path())
            .env("DNSCRON_TOKEN_ACME", "token-acme")
            .env("DNSCRON_TOKEN_SHOP", "token-shop")
    };
    let both = in_repo(&[]).run_for_stdout();
    assert!(both.ends_with("doctor: all 13 checks passed\n"), "{both}");
    assert!(both.contains("account `acme` at ") && both.contains("account `shop` at "));
    let shop_before = requests(&shop);
    let one = in_repo(&["--account", "acme"]).run_for_stdout();
    assert!(
        one.contains("account `acme` at ") && !one.contains("account `shop`"),
        "{one}"
    );
    assert_eq!(
        requests(&shop),
        shop_before,
        "shop was not chosen: nothing sent to it"
    );
}

#[test]
fn a_missing_token_fails_that_account_and_an_api_url_beside_the_file_is_refused() {
    let (acme, shop) = (account("token-acme"), account("token-shop"));
    let dir = repo(&acme, &shop);
    snapshot_of(
        "doctor_accounts_one_token_missing",
        Test::new()
            .arg("doctor")
            .current_dir(dir.path())
            .env("DNSCRON_TOKEN_ACME", "token-acme"),
    );
    assert_eq!(requests(&shop), 0, "shop has no token: nothing sent to it");
    let acme_before = requests(&acme);
    snapshot_of(
        "doctor_accounts_api_url_refused",
        Test::new()
            .arg("doctor")
            .current_dir(dir.path())
            .api(&acme.base_url(), "token-acme")
            .env("DNSCRON_TOKEN_SHOP", "token-shop"),
    );
    assert_eq!(requests(&acme), acme_before, "refused before any request");
    assert_eq!(requests(&shop), 0);
}
