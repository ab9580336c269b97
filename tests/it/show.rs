//! `dnscron show PLAN_FILE`: a saved plan renders exactly as `plan` printed it, in every format,
//! without the API; a file that isn't a plan is refused with where and what to do.

use crate::common::emulator::example_emulator;
use crate::common::{Test, assert_cli_snapshot};

fn planned(base_url: &str, format: &str, out: &std::path::Path) -> String {
    Test::new()
        .args(["plan", "examples/dns", "--format", format, "--out"])
        .arg(out)
        .api(base_url, "demo-token")
        .env("DNSCRON_PLAN_ID", "0123456789abcdef0123456789abcdef")
        .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
        .run_for_stdout()
}

#[test]
fn show_renders_the_saved_plan_as_plan_printed_it() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plan.json");
    for format in ["text", "json", "markdown", "github"] {
        let printed = planned(&emu.base_url(), format, &file);
        // No API URL or token: show never reads the account.
        Test::new()
            .args(["show", "--format", format])
            .arg(&file)
            .expect_stdout(printed)
            .run();
    }
}

#[test]
fn show_refuses_what_is_not_a_plan_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = Test::new()
        .current_dir(dir.path())
        .args(["show", "plan.json"]);
    assert_cli_snapshot!("show_missing_file", missing);
    std::fs::write(dir.path().join("notes.json"), "{\"hello\": 1}\n").unwrap();
    let not_a_plan = Test::new()
        .current_dir(dir.path())
        .args(["show", "notes.json"]);
    assert_cli_snapshot!("show_not_a_plan", not_a_plan);
}

/// A plan file of several accounts (format 6, as the pull-request recipe saves it) renders as
/// `plan` printed it, grouped by account, in every format.
#[test]
fn show_renders_a_plan_of_several_accounts_as_plan_printed_it() {
    use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};
    let emulator = |token: &str, zone: &str| {
        let mut seed = Seed::default()
            .with_token(TokenSeed::full(token, "owner"))
            .with_zone(ZoneSeed::new(zone).with_record(RecordSeed::new("www", "A", "192.0.2.1")));
        seed.rate_limit = RateLimit::off();
        dnscron_emulator::start_background(seed).unwrap()
    };
    let (acme, shop) = (
        emulator("tok-acme", "acme.example"),
        emulator("tok-shop", "shop.example"),
    );
    let dir = tempfile::tempdir().unwrap();
    crate::accounts::write_repo(
        dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &crate::accounts::two_accounts(&acme.base_url(), &shop.base_url()),
            ),
            (
                "acme/acme.example.yaml",
                "zone: acme.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.9 }\n",
            ),
            (
                "shop/shop.example.yaml",
                "zone: shop.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n",
            ),
        ],
    );
    for format in ["text", "json", "markdown", "github"] {
        let printed = Test::new()
            .current_dir(dir.path())
            .args(["plan", "--format", format, "--out", "plan.json"])
            .env("DNSCRON_TOKEN_ACME", "tok-acme")
            .env("DNSCRON_TOKEN_SHOP", "tok-shop")
            .env("DNSCRON_PLAN_ID", "0123456789abcdef0123456789abcdef")
            .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
            .run_for_stdout();
        assert!(
            printed.contains("acme") && printed.contains("shop"),
            "{printed}"
        );
        // No token: show never reads either account.
        Test::new()
            .current_dir(dir.path())
            .args(["show", "--format", format, "plan.json"])
            .expect_stdout(printed)
            .run();
    }
}
