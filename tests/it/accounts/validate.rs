//! `dnscron validate` over a repository of several accounts.

use super::{two_accounts, write_repo};
use crate::common::Test;

const ACME: &str = "zone: acme.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n";
const SHOP: &str = "zone: shop.example\nrecords:\n  - { name: '@', type: A, content: 192.0.2.2 }\n  - { name: www, type: CNAME, content: shop.example. }\n";

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_repo(
        dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &two_accounts(
                    "https://api.example.net/api/v1",
                    "https://api.example.org/api/v1",
                ),
            ),
            ("acme/acme.example.yaml", ACME),
            ("shop/shop.example.yaml", SHOP),
        ],
    );
    dir
}

#[test]
fn each_account_is_validated_on_its_own_line() {
    let dir = repo();
    Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .expect_stdout(
            "account `acme`: valid: 1 zone, 1 record, 0 sites, 0 cron jobs\n\
             account `shop`: valid: 1 zone, 2 records, 0 sites, 0 cron jobs\n",
        )
        .run();
    Test::new()
        .args(["validate", "--account", "shop"])
        .current_dir(dir.path())
        .expect_stdout("account `shop`: valid: 1 zone, 2 records, 0 sites, 0 cron jobs\n")
        .run();
}

#[test]
fn an_unknown_account_is_refused_naming_the_known_ones() {
    let dir = repo();
    Test::new()
        .args(["validate", "--account", "prod"])
        .current_dir(dir.path())
        .expect_status(1)
        .expect_stderr(
            "error: no account `prod` in ./dnscron-accounts.yaml\n\
             hint: the accounts are: acme, shop\n",
        )
        .run();
}

#[test]
fn account_without_an_accounts_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("acme.example.yaml", ACME)]);
    Test::new()
        .args(["validate", "--account", "acme"])
        .current_dir(dir.path())
        .expect_status(1)
        .expect_stderr(
            "error: --account chooses among the accounts of dnscron-accounts.yaml, and `.` holds \
             none\nhint: run from the folder that holds dnscron-accounts.yaml, or drop --account\n",
        )
        .run();
}

#[test]
fn every_accounts_problems_are_reported_at_once_and_a_stray_file_is_one() {
    let dir = repo();
    write_repo(
        dir.path(),
        &[
            (
                "acme/acme.example.yaml",
                "zone: acme.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.300 }\n",
            ),
            (
                "shop/shop.example.yaml",
                "zone: shop.example\nprune: maybe\n",
            ),
        ],
    );
    let stderr = Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .snapshot();
    assert!(stderr.contains("acme/acme.example.yaml:3:"), "{stderr}");
    assert!(stderr.contains("shop/shop.example.yaml:2:"), "{stderr}");
    assert!(stderr.starts_with("exit: Some(1)"), "{stderr}");
    write_repo(dir.path(), &[("stray.yaml", ACME)]);
    let stderr = Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .snapshot();
    assert!(
        stderr.contains("`./stray.yaml` lies in no account's folder"),
        "{stderr}"
    );
    assert!(stderr.starts_with("exit: Some(1)"), "{stderr}");
    assert!(
        !stderr.contains("acme.example.yaml:3"),
        "the accounts are checked first: {stderr}"
    );
}
