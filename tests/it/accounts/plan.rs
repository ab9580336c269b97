//! `dnscron plan` over a repository of several accounts: each account planned side by side
//! exactly as its folder alone would be, shown by account; a folder whose zones its account
//! doesn't list is refused before any zone is read; a token only ever goes to its own API.

use std::collections::BTreeMap;

use dnscron_emulator::{BackgroundEmulator, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};
use serde_json::Value;

use super::write_repo;
use crate::common::{Test, assert_cli_snapshot};

pub const ACME_TOKEN: &str = "tok-acme";
pub const SHOP_TOKEN: &str = "tok-shop";

/// `acme` lives at one emulator (its `www` is 192.0.2.1, the file wants 192.0.2.9), `shop` at
/// another (matching its file), each knowing only its own token.
pub struct Two {
    pub acme: BackgroundEmulator,
    pub shop: BackgroundEmulator,
    pub dir: tempfile::TempDir,
}

pub const ACME_FILE: &str =
    "zone: acme.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.9 }\n";
pub const SHOP_FILE: &str =
    "zone: shop.example\nrecords:\n  - { name: '@', type: A, content: 192.0.2.2 }\n";

/// `acme`'s second zone, empty in the file and live.
pub const ACME_MAIL_FILE: &str = "zone: mail.acme.example\nrecords: []\n";

/// A second token of the same user (`tok-shop` → `tok-shop-2`): the wrong account's token
/// that is not also another entry's (two entries holding one token are refused before any
/// request, `trust::two_entries_holding_one_token_for_one_api_are_refused`).
pub fn second_token(token: &str) -> String {
    format!("{token}-2")
}

pub fn emulator(token: &str, zone: &str, ip: &str) -> BackgroundEmulator {
    let name = if zone.starts_with("acme") { "www" } else { "@" };
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(token, "owner"))
        .with_token(TokenSeed::full(&second_token(token), "owner"))
        .with_zone(ZoneSeed::new(zone).with_record(RecordSeed::new(name, "A", ip)));
    if zone.starts_with("acme") {
        seed = seed.with_zone(ZoneSeed::new("mail.acme.example"));
    }
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

/// The accounts file with each account's URL as given.
pub fn accounts_file(acme_url: &str, shop_url: &str) -> String {
    super::two_accounts(acme_url, shop_url)
}

pub fn two() -> Two {
    let acme = emulator(ACME_TOKEN, "acme.example", "192.0.2.1");
    let shop = emulator(SHOP_TOKEN, "shop.example", "192.0.2.2");
    let dir = tempfile::tempdir().unwrap();
    write_repo(
        dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &accounts_file(&acme.base_url(), &shop.base_url()),
            ),
            ("acme/acme.example.yaml", ACME_FILE),
            ("acme/mail.acme.example.yaml", ACME_MAIL_FILE),
            ("shop/shop.example.yaml", SHOP_FILE),
        ],
    );
    Two { acme, shop, dir }
}

impl Two {
    /// `dnscron ARGS` in the repository with each account's token in its variable.
    pub fn dnscron(&self, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.dir.path())
            .args(args)
            .env("DNSCRON_TOKEN_ACME", ACME_TOKEN)
            .env("DNSCRON_TOKEN_SHOP", SHOP_TOKEN)
            .plan_stamp()
    }

    /// `dnscron ARGS` for one folder, the single-account way.
    pub fn alone(&self, emu: &BackgroundEmulator, token: &str, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.dir.path())
            .args(args)
            .api(&emu.base_url(), token)
            .plan_stamp()
    }
}

/// Each emulator answered every request with its own token: none was refused as unknown (the
/// emulator knows only its account's token, so another's would be a 401).
pub fn only_own_tokens(emus: &[&BackgroundEmulator]) {
    for emu in emus {
        let counters = emu.counters();
        assert!(
            counters.requests > 0,
            "no request reached {}",
            emu.base_url()
        );
        assert_eq!(
            counters.per_status.get(&401),
            None,
            "{} saw a token not its own",
            emu.base_url()
        );
    }
}

/// Write requests (anything but GET) an emulator received.
pub fn writes(emu: &BackgroundEmulator) -> u64 {
    emu.counters()
        .per_route
        .iter()
        .filter(|(route, _)| !route.starts_with("GET "))
        .map(|(_, n)| n)
        .sum()
}

fn routes(emu: &BackgroundEmulator) -> BTreeMap<String, u64> {
    emu.counters().per_route
}

/// What one plan says, without its id: the changes, findings, summary and targets.
fn said(plan: &Value) -> Value {
    serde_json::json!({
        "api_url": plan["api_url"],
        "targets": plan["targets"],
        "summary": plan["summary"],
        "changes": plan["changes"],
        "findings": plan["findings"],
        "desired": plan["desired"],
    })
}

#[test]
fn each_accounts_part_is_what_its_folder_planned_alone_says_with_the_same_reads() {
    let t = two();
    let many: Value =
        serde_json::from_str(&t.dnscron(&["plan", "--format", "json"]).run_for_stdout()).unwrap();
    assert_eq!(many["format_version"], 6);
    let (acme_reads, shop_reads) = (routes(&t.acme), routes(&t.shop));
    only_own_tokens(&[&t.acme, &t.shop]);
    t.acme.reset_counters();
    t.shop.reset_counters();
    let acme: Value = serde_json::from_str(
        &t.alone(&t.acme, ACME_TOKEN, &["plan", "--format", "json", "./acme"])
            .run_for_stdout(),
    )
    .unwrap();
    let shop: Value = serde_json::from_str(
        &t.alone(&t.shop, SHOP_TOKEN, &["plan", "--format", "json", "./shop"])
            .run_for_stdout(),
    )
    .unwrap();
    let accounts = many["accounts"].as_array().unwrap();
    assert_eq!(accounts.len(), 2);
    for (part, alone, name, emu) in [
        (&accounts[0], &acme, "acme", &t.acme),
        (&accounts[1], &shop, "shop", &t.shop),
    ] {
        assert_eq!(part["name"], name);
        assert_eq!(part["api_url"], emu.base_url().as_str());
        assert_eq!(said(&part["plan"]), said(alone), "account {name}");
    }
    assert_eq!(acme["summary"]["update"], 1);
    assert_eq!(shop["changes"], serde_json::json!([]));
    // The same reads, whole-account listings included.
    assert_eq!(routes(&t.acme), acme_reads);
    assert_eq!(routes(&t.shop), shop_reads);
    assert!(acme_reads.contains_key("GET /api/v1/dns"), "{acme_reads:?}");
    // Two accounts never share a plan id, so never an Idempotency-Key.
    assert_ne!(
        accounts[0]["plan"]["plan_id"],
        accounts[1]["plan"]["plan_id"]
    );
}

#[test]
fn the_text_view_groups_by_account_with_totals_and_the_exit_code_covers_every_account() {
    let t = two();
    assert_cli_snapshot!(t.dnscron(&["plan", "--detailed-exitcode"]).expect_status(2));
    t.dnscron(&["plan", "--account", "shop", "--detailed-exitcode"])
        .expect_stdout(format!(
            "=== account `shop` ===\nLive account: {}\n\nNo changes. The live account matches \
             the files.\n\nAccounts: 1 planned. No changes. The live account matches the files.\n",
            t.shop.base_url()
        ))
        .run();
    only_own_tokens(&[&t.acme, &t.shop]);
}

#[test]
fn the_markdown_and_github_views_name_each_account() {
    let t = two();
    assert_cli_snapshot!(t.dnscron(&["plan", "--format", "markdown"]));
    assert_cli_snapshot!(t.dnscron(&["plan", "--format", "github"]));
}

/// The accounts file points `acme` at the API of the account the token belongs to (`shop`'s):
/// its folder's zone is not there, and the plan says whose token it looks like instead of
/// "zone missing". `shop` is still planned and shown.
#[test]
fn a_token_for_another_account_is_refused_before_any_zone_is_read() {
    let t = two();
    write_repo(
        t.dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &accounts_file(&t.shop.base_url(), &t.shop.base_url()),
        )],
    );
    let out = t
        .dnscron(&["plan", "--out", "plan.json"])
        .env("DNSCRON_TOKEN_ACME", second_token(SHOP_TOKEN))
        .expect_status(1)
        .snapshot();
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(out);
    });
    assert!(
        !t.dir.path().join("plan.json").exists(),
        "no partial review file"
    );
    // No zone of acme's folder was read at shop's API, nothing was written anywhere.
    assert_eq!(
        t.shop
            .counters()
            .route("GET /api/v1/dns/acme.example/records"),
        0
    );
    assert_eq!(t.acme.counters().requests, 0);
    assert_eq!(writes(&t.shop), 0);
}

#[test]
fn a_single_folder_with_another_accounts_token_is_refused_the_same_way() {
    let t = two();
    t.alone(&t.shop, SHOP_TOKEN, &["plan", "./acme"])
        .expect_status(1)
        .expect_stderr(format!(
            "error: none of the 2 zones the files declare is in the account's zone list at {} \
             (GET /dns): is the token another account's? Nothing was written\n\
             hint: check that the token (DNSCRON_TOKEN or --token-file; in \
             dnscron-accounts.yaml, the account's token_env or token_file) is the one of the \
             account at this API URL\n",
            t.shop.base_url()
        ))
        .run();
    assert_eq!(
        t.shop
            .counters()
            .route("GET /api/v1/dns/acme.example/records"),
        0
    );
}

#[test]
fn a_single_file_names_the_zones_the_account_lacks() {
    let t = two();
    write_repo(
        t.dir.path(),
        &[(
            "acme/more.yaml",
            "zone: gone.example\nrecords: []\n---\nzone: lost.example\nrecords: []\n",
        )],
    );
    // A single file reads no listing up front: the first 404 brings it, and every zone it lacks
    // is named, not only the first read that failed.
    t.alone(
        &t.acme,
        ACME_TOKEN,
        &["plan", "acme/more.yaml", "acme/acme.example.yaml"],
    )
    .expect_status(1)
    .expect_stderr(format!(
        "error: 2 of the 3 zones the files declare are not in the account's zone list at \
             {} (GET /dns):\n  acme/more.yaml:1:7: `gone.example`\n  acme/more.yaml:4:7: \
             `lost.example`\nhint: check the zone names in the files, or add the zones to the \
             account in the portal (DNS), or remove their files\n",
        t.acme.base_url()
    ))
    .run();
}

#[test]
fn changed_since_plans_each_accounts_part_of_what_changed() {
    let t = two();
    let git = |args: &[&str]| crate::common::git::git(t.dir.path(), args);
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "files"]);
    write_repo(
        t.dir.path(),
        &[(
            "shop/shop.example.yaml",
            "zone: shop.example\nrecords:\n  - { name: '@', type: A, content: 192.0.2.3 }\n",
        )],
    );
    let many: Value = serde_json::from_str(
        &t.dnscron(&["plan", "--changed-since", "HEAD", "--format", "json"])
            .run_for_stdout(),
    )
    .unwrap();
    let accounts = many["accounts"].as_array().unwrap();
    // acme's files did not change: none of its zones is read, and nothing is planned there.
    assert_eq!(accounts[0]["plan"]["changes"], serde_json::json!([]));
    assert_eq!(t.acme.counters().route("GET /api/v1/dns/{zone}/records"), 0);
    assert_eq!(accounts[1]["plan"]["summary"]["update"], 1);
    let shop: Value = serde_json::from_str(
        &t.alone(
            &t.shop,
            SHOP_TOKEN,
            &[
                "plan",
                "--changed-since",
                "HEAD",
                "--format",
                "json",
                "./shop",
            ],
        )
        .run_for_stdout(),
    )
    .unwrap();
    assert_eq!(said(&accounts[1]["plan"]), said(&shop));
    assert_eq!(accounts[1]["plan"]["scope"], shop["scope"]);
}
