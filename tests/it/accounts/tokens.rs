//! A token refused (401) or short of a scope (403) in a repository of several accounts: the
//! hint names the account and where its token comes from (its `token_env` or `token_file`, at
//! its place in the accounts file), in every command that reads the accounts' APIs; one
//! account's hint (DNSCRON_TOKEN or --token-file) is unchanged.

use dnscron_emulator::{RateLimit, RecordSeed, Scope, Seed, TokenSeed, ZoneSeed};

use super::plan::{SHOP_TOKEN, accounts_file, two, writes};
use super::write_repo;
use crate::common::assert_cli_snapshot;

/// shop's hint for a refused token, as every command words it.
const SHOP_401: &str = "hint: check account `shop`'s token in DNSCRON_TOKEN_SHOP \
     (./dnscron-accounts.yaml:9:16): it may be expired or revoked\n";

#[test]
fn a_refused_token_names_its_account_and_variable_in_the_plan() {
    let t = two();
    assert_cli_snapshot!(
        t.dnscron(&["plan"])
            .env("DNSCRON_TOKEN_SHOP", "not-shops-token")
            .expect_status(1)
    );
}

#[test]
fn every_command_over_the_accounts_names_the_refused_accounts_token() {
    let t = two();
    for args in [
        &["plan"][..],
        &["apply", "--yes", "."],
        &["baseline"],
        &["adopt"],
        // Last: each account's import is its own, and acme's is written.
        &["import", "--all"],
    ] {
        let out = t
            .dnscron(args)
            .env("DNSCRON_TOKEN_SHOP", "not-shops-token")
            .expect_status(1)
            .snapshot();
        assert!(out.contains("account `shop`"), "{args:?}: {out}");
        assert!(out.contains(SHOP_401), "{args:?}: {out}");
        // Only the refused account's token is named.
        assert!(!out.contains("DNSCRON_TOKEN_ACME"), "{args:?}: {out}");
        assert!(
            !out.contains("DNSCRON_TOKEN or --token-file"),
            "{args:?}: {out}"
        );
    }
    // Nothing was written in either account, nor in acme's file (apply, baseline and adopt
    // refuse as a whole).
    assert_eq!(writes(&t.acme), 0);
    assert_eq!(writes(&t.shop), 0);
    assert_eq!(
        std::fs::read_to_string(t.dir.path().join("acme/acme.example.yaml")).unwrap(),
        super::plan::ACME_FILE
    );
}

#[test]
fn a_token_file_is_named_where_the_accounts_file_names_it() {
    let t = two();
    let accounts = accounts_file(&t.acme.base_url(), &t.shop.base_url())
        .replace("token_env: DNSCRON_TOKEN_SHOP", "token_file: tokens/shop");
    write_repo(
        t.dir.path(),
        &[
            ("dnscron-accounts.yaml", &accounts),
            ("tokens/shop", "not-shops-token\n"),
        ],
    );
    let out = t.dnscron(&["plan"]).expect_status(1).snapshot();
    assert!(
        out.contains(
            "hint: check account `shop`'s token in ./tokens/shop (./dnscron-accounts.yaml:9:17): \
             it may be expired or revoked\n"
        ),
        "{out}"
    );
}

#[test]
fn one_accounts_hint_is_unchanged() {
    let t = two();
    let out = t
        .alone(&t.shop, "not-shops-token", &["plan", "./shop"])
        .expect_status(1)
        .snapshot();
    assert!(
        out.ends_with(
            "hint: check the token in DNSCRON_TOKEN or --token-file (it may be expired or \
             revoked)\n"
        ),
        "{out}"
    );
}

/// shop's token may read but not write DNS: its write gets a 403, and apply's stop hint names
/// the account's token; acme, whose token may, is applied.
#[test]
fn a_write_refused_for_lack_of_scope_names_the_accounts_token() {
    let t = two();
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(SHOP_TOKEN, "owner").with_scopes(&[Scope::Read]))
        .with_zone(ZoneSeed::new("shop.example").with_record(RecordSeed::new(
            "@",
            "A",
            "192.0.2.1",
        )));
    seed.rate_limit = RateLimit::off();
    let shop = dnscron_emulator::start_background(seed).unwrap();
    write_repo(
        t.dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &accounts_file(&t.acme.base_url(), &shop.base_url()),
        )],
    );
    let out = t
        .dnscron(&["apply", "--yes", "."])
        .expect_status(1)
        .snapshot();
    assert!(
        out.contains(
            "hint: account `shop`'s token in DNSCRON_TOKEN_SHOP (./dnscron-accounts.yaml:9:16) \
             lacks a scope or this site is not pinned to it: edit the token in the portal under \
             API tokens\n"
        ),
        "{out}"
    );
    assert!(!out.contains("DNSCRON_TOKEN_ACME"), "{out}");
    assert_eq!(shop.counters().per_status.get(&403), Some(&1), "{out}");
}
