//! `dnscron adopt` over a repository of several accounts: each account's folder adopted from its
//! own API, side by side; one account failing writes nothing in any.

use crate::accounts::{two_accounts, write_repo};
use crate::common::Test;
use crate::common::emulator::start_emulator;

use super::{EXAMPLE_COM, Portal, READ_TOKEN, read, seed};

fn adopt_in(dir: &std::path::Path, args: &[&str]) -> Test {
    Test::new()
        .current_dir(dir)
        .env("DNSCRON_TOKEN_ACME", READ_TOKEN)
        .env("DNSCRON_TOKEN_SHOP", READ_TOKEN)
        .arg("adopt")
        .args(args)
}

#[test]
fn each_account_adopts_from_its_own_api_and_one_failing_writes_nothing() {
    let (acme, shop) = (start_emulator(seed()), start_emulator(seed()));
    let dir = tempfile::tempdir().unwrap();
    write_repo(
        dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &two_accounts(&acme.base_url(), &shop.base_url()),
            ),
            ("acme/example.com.yaml", EXAMPLE_COM),
            ("shop/example.com.yaml", EXAMPLE_COM),
        ],
    );
    Portal::of(&acme).update("example.com", "www", "CNAME", "acme.example.net.", 3600);
    // shop's API is down: acme's adoption is made, and not written either.
    shop.set_outage(true);
    let out = adopt_in(dir.path(), &["--timeout", "2s"]).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(out.contains("account `shop`"), "{out}");
    assert_eq!(read(dir.path(), "acme/example.com.yaml"), EXAMPLE_COM);
    shop.set_outage(false);
    adopt_in(dir.path(), &[])
        .expect_stdout(
            "account `acme`:\n\
             adopted: zone example.com, www CNAME: example.com. ttl 3600 → acme.example.net. ttl 3600 (./acme/example.com.yaml:11)\n\
             adopted 1 change into 1 file\n\
             account `shop`:\n\
             nothing to adopt: the live account matches the files\n",
        )
        .run();
    assert_eq!(
        read(dir.path(), "acme/example.com.yaml"),
        EXAMPLE_COM.replace("\"example.com.\" }", "\"acme.example.net.\" }")
    );
    assert_eq!(read(dir.path(), "shop/example.com.yaml"), EXAMPLE_COM);
    // One account alone; each reads only its own API.
    Portal::of(&shop).delete("example.com", "old", "A");
    acme.reset_counters();
    adopt_in(dir.path(), &["--account", "shop"])
        .expect_stdout(
            "account `shop`:\n\
             adopted: zone example.com, old A: 192.0.2.1 ttl 300 deleted live, its declaration removed (./shop/example.com.yaml:9)\n\
             adopted 1 change into 1 file\n",
        )
        .run();
    assert!(acme.counters().per_route.is_empty(), "acme is not read");
}
