//! Retries over several accounts: each client's retries are summed up apart, under its
//! account's name, so the line says whose API was refusing (and one client's request 7 is never
//! counted with another's).

use super::plan::{ACME_FILE, ACME_MAIL_FILE, emulator};
use super::{two_accounts, write_repo};
use crate::common::Test;

#[test]
fn the_retry_summary_names_the_account_whose_requests_were_retried() {
    let acme = emulator("token-acme", "acme.example", "192.0.2.1");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = tempfile::tempdir().unwrap();
    let shop = "zone: shop.example\nrecords: []\n";
    write_repo(
        dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &two_accounts(
                    &acme.base_url(),
                    &format!("http://127.0.0.1:{closed}/api/v1"),
                ),
            ),
            ("acme/acme.example.yaml", ACME_FILE),
            ("acme/mail.acme.example.yaml", ACME_MAIL_FILE),
            ("shop/shop.example.yaml", shop),
        ],
    );
    let out = Test::new()
        .args(["plan", "."])
        .current_dir(dir.path())
        .env("DNSCRON_TOKEN_ACME", "token-acme")
        .env("DNSCRON_TOKEN_SHOP", "token-shop")
        .plan_stamp()
        .snapshot();
    let retried: Vec<&str> = out.lines().filter(|l| l.contains("retried")).collect();
    assert_eq!(retried.len(), 1, "{out}");
    assert!(
        retried[0].starts_with(" WARN account shop: retried "),
        "{out}"
    );
    assert!(out.starts_with("exit: Some(1)"), "{out}");
}
