//! `adopt` where the live account differs from the files past a zone's safety limits: what a
//! token or URL of another account holding a zone of the same name looks like. Refused, nothing
//! written, unless `--allow-mass-changes`; a drift within the limits is adopted as before. And
//! the other direction: an adoption that would remove more of a zone's declarations than its
//! limits allow (a zone wiped in the portal), down to none unless the zone allows it empty.

use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::write_repo;
use crate::common::Test;

const FILE: &str = "zone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.9 }\n";

/// example.com live with `www` at 192.0.2.1 and `extra` more A records no file declares.
fn live(extra: usize) -> dnscron_emulator::BackgroundEmulator {
    let mut zone =
        ZoneSeed::new("example.com").with_record(RecordSeed::new("www", "A", "192.0.2.1"));
    for n in 0..extra {
        zone = zone.with_record(RecordSeed::new(&format!("host{n}"), "A", "192.0.2.50"));
    }
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("tok", "owner"))
        .with_zone(zone);
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

fn adopt(
    dir: &std::path::Path,
    emu: &dnscron_emulator::BackgroundEmulator,
    args: &[&str],
) -> String {
    Test::new()
        .current_dir(dir)
        .arg("adopt")
        .args(args)
        .api(&emu.base_url(), "tok")
        .snapshot()
}

#[test]
fn an_adoption_past_the_safety_limits_is_refused_unless_allowed() {
    let emu = live(7);
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("dns/example.com.yaml", FILE)]);
    let refused = adopt(dir.path(), &emu, &["dns", "--undeclared"]);
    assert!(refused.starts_with("exit: Some(1)"), "{refused}");
    assert!(
        refused.contains(
            "error: refusing to adopt: the live account differs from the files past the zones' \
             safety limits, as plan would refuse to change it; nothing was written:\n  zone \
             example.com (dns/example.com.yaml:1:7): would delete 7 of 8 live records"
        ),
        "{refused}"
    );
    assert!(
        refused.contains("hint: check that the token and API URL are this account's"),
        "{refused}"
    );
    let file = std::fs::read_to_string(dir.path().join("dns/example.com.yaml")).unwrap();
    assert_eq!(file, FILE, "nothing written");
    // Asked for: adopted, and the files then plan to no change.
    let allowed = adopt(
        dir.path(),
        &emu,
        &["dns", "--undeclared", "--allow-mass-changes"],
    );
    assert!(allowed.starts_with("exit: Some(0)"), "{allowed}");
    let file = std::fs::read_to_string(dir.path().join("dns/example.com.yaml")).unwrap();
    assert!(
        file.contains("192.0.2.1") && file.contains("host6"),
        "{file}"
    );
    let plan = Test::new()
        .current_dir(dir.path())
        .args(["plan", "dns", "--detailed-exitcode"])
        .api(&emu.base_url(), "tok")
        .snapshot();
    assert!(plan.starts_with("exit: Some(0)"), "{plan}");
}

#[test]
fn an_adoption_within_the_limits_needs_no_flag() {
    let emu = live(2);
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("dns/example.com.yaml", FILE)]);
    let adopted = adopt(dir.path(), &emu, &["dns", "--undeclared"]);
    assert!(adopted.starts_with("exit: Some(0)"), "{adopted}");
    let file = std::fs::read_to_string(dir.path().join("dns/example.com.yaml")).unwrap();
    assert!(
        file.contains("192.0.2.1") && file.contains("host1"),
        "{file}"
    );
}

/// shop.example declaring six records; `live` of them left in the account (the first ones).
const SIX: &str = "zone: shop.example\nrecords:\n  - { name: \"@\", type: A, content: 198.51.100.210 }\n  - { name: \"@\", type: MX, content: 10 mx.shop.example. }\n  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\" }\n  - { name: \"@\", type: CAA, content: 0 issue \"letsencrypt.org\" }\n  - { name: _dmarc, type: TXT, content: \"v=DMARC1; p=reject\" }\n  - { name: mx, type: A, content: 198.51.100.211 }\n";

fn shop_live(kept: usize) -> dnscron_emulator::BackgroundEmulator {
    let records = [
        RecordSeed::new("@", "A", "198.51.100.210"),
        RecordSeed::new("@", "MX", "10 mx.shop.example."),
        RecordSeed::new("@", "TXT", "v=spf1 mx -all"),
        RecordSeed::new("@", "CAA", "0 issue \"letsencrypt.org\""),
        RecordSeed::new("_dmarc", "TXT", "v=DMARC1; p=reject"),
        RecordSeed::new("mx", "A", "198.51.100.211"),
    ];
    let mut zone = ZoneSeed::new("shop.example");
    for record in records.into_iter().take(kept) {
        zone = zone.with_record(record);
    }
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("tok", "owner"))
        .with_zone(zone);
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

fn shop_file(dir: &std::path::Path) -> String {
    std::fs::read_to_string(dir.join("dns/shop.example.yaml")).unwrap()
}

#[test]
fn an_adoption_that_would_empty_a_zone_is_refused_unless_allowed() {
    let emu = shop_live(0);
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("dns/shop.example.yaml", SIX)]);
    let refused = adopt(dir.path(), &emu, &["dns"]);
    assert!(refused.starts_with("exit: Some(1)"), "{refused}");
    assert!(
        refused.contains(
            "error: refusing to adopt: it would remove or rewrite the files' records past the \
             zones' safety limits, as plan refuses to change the live account past them; nothing \
             was written:\n  zone shop.example (dns/shop.example.yaml:1:7): would remove 6 of 6 \
             declared records (100 %; limit: more than 5 records that are also more than 30 %, \
             `safety.delete_floor`/`safety.max_delete_percent`); would leave the zone with no \
             records in the files (removes all 6 it declares; set `safety.allow_empty: true` to \
             allow)"
        ),
        "{refused}"
    );
    assert!(
        refused.contains(
            "hint: check that the token and API URL are this account's (`dnscron doctor`); if \
             the live account is right, run again with --allow-mass-changes"
        ),
        "{refused}"
    );
    assert_eq!(shop_file(dir.path()), SIX, "nothing written");
    let allowed = adopt(dir.path(), &emu, &["dns", "--allow-mass-changes"]);
    assert!(allowed.starts_with("exit: Some(0)"), "{allowed}");
    assert!(
        allowed.contains("adopted 6 changes into 1 file"),
        "{allowed}"
    );
    assert!(!shop_file(dir.path()).contains("198.51.100.210"));
    let plan = Test::new()
        .current_dir(dir.path())
        .args(["plan", "dns", "--detailed-exitcode"])
        .api(&emu.base_url(), "tok")
        .snapshot();
    assert!(plan.starts_with("exit: Some(0)"), "{plan}");
}

#[test]
fn a_small_zone_wiped_live_is_refused_though_under_the_delete_floor() {
    let emu = shop_live(0);
    let dir = tempfile::tempdir().unwrap();
    let two = "zone: shop.example\nrecords:\n  - { name: \"@\", type: A, content: 198.51.100.210 }\n  - { name: mx, type: A, content: 198.51.100.211 }\n";
    write_repo(dir.path(), &[("dns/shop.example.yaml", two)]);
    let refused = adopt(dir.path(), &emu, &["dns"]);
    assert!(refused.starts_with("exit: Some(1)"), "{refused}");
    assert!(
        refused.contains(
            "zone shop.example (dns/shop.example.yaml:1:7): would leave the zone with no records \
             in the files (removes all 2 it declares;"
        ),
        "{refused}"
    );
    assert_eq!(shop_file(dir.path()), two, "nothing written");
    // A zone that allows being empty is adopted empty.
    let allowing = two.replace("records:", "safety: { allow_empty: true }\nrecords:");
    write_repo(dir.path(), &[("dns/shop.example.yaml", &allowing)]);
    let adopted = adopt(dir.path(), &emu, &["dns"]);
    assert!(adopted.starts_with("exit: Some(0)"), "{adopted}");
    assert!(
        adopted.contains("adopted 2 changes into 1 file"),
        "{adopted}"
    );
}

#[test]
fn a_deletion_within_the_limits_is_adopted_without_the_flag() {
    let emu = shop_live(5);
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("dns/shop.example.yaml", SIX)]);
    let adopted = adopt(dir.path(), &emu, &["dns"]);
    assert!(adopted.starts_with("exit: Some(0)"), "{adopted}");
    assert!(
        adopted.contains("adopted 1 change into 1 file"),
        "{adopted}"
    );
    let file = shop_file(dir.path());
    assert!(
        !file.contains("198.51.100.211") && file.contains("198.51.100.210"),
        "{file}"
    );
}

#[test]
fn one_account_emptied_live_refuses_the_adoption_of_every_account() {
    let acme = {
        let zone =
            ZoneSeed::new("example.com").with_record(RecordSeed::new("www", "A", "192.0.2.1"));
        let mut seed = Seed::default()
            .with_token(TokenSeed::full("token-acme", "acme"))
            .with_zone(zone);
        seed.rate_limit = RateLimit::off();
        dnscron_emulator::start_background(seed).unwrap()
    };
    let shop = {
        let mut seed = Seed::default()
            .with_token(TokenSeed::full("token-shop", "shop"))
            .with_zone(ZoneSeed::new("shop.example"));
        seed.rate_limit = RateLimit::off();
        dnscron_emulator::start_background(seed).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let accounts = super::two_accounts(&acme.base_url(), &shop.base_url());
    write_repo(
        dir.path(),
        &[
            ("dnscron-accounts.yaml", &accounts),
            ("acme/example.com.yaml", FILE),
            ("shop/shop.example.yaml", SIX),
        ],
    );
    let run = |args: &[&str]| {
        Test::new()
            .current_dir(dir.path())
            .arg("adopt")
            .args(args)
            .env("DNSCRON_TOKEN_ACME", "token-acme")
            .env("DNSCRON_TOKEN_SHOP", "token-shop")
            .snapshot()
    };
    for args in [&["--account", "shop"][..], &[]] {
        let refused = run(args);
        assert!(refused.starts_with("exit: Some(1)"), "{refused}");
        assert!(refused.contains("account `shop`"), "{refused}");
        assert!(
            refused.contains("would leave the zone with no records in the files"),
            "{refused}"
        );
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(read("shop/shop.example.yaml"), SIX, "nothing written");
        assert_eq!(
            read("acme/example.com.yaml"),
            FILE,
            "nor the other account's drift"
        );
    }
}
