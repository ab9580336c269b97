//! `--api-url`, DNSCRON_API_URL and `--token-file` beside `dnscron-accounts.yaml`: one usage
//! error before anything is read or sent, in every command over accounts, not one per account.

use super::plan::{SHOP_TOKEN, two};
use crate::common::Test;

const REFUSED: &str = "error: dnscron-accounts.yaml names each account's API URL and token, \
     and {given} was given beside it; nothing was read or sent\nhint: unset DNSCRON_API_URL and \
     drop --api-url and --token-file: each account's `api_url` and `token_env`/`token_file` say \
     where its token goes\n";

fn refused(given: &str) -> String {
    REFUSED.replace("{given}", given)
}

#[test]
fn every_command_over_accounts_refuses_the_flags_once_before_any_request() {
    let t = two();
    std::fs::write(t.dir.path().join("shop.token"), SHOP_TOKEN).unwrap();
    let url = t.shop.base_url();
    let commands: [&[&str]; 6] = [
        &["plan"],
        &["apply", "--yes"],
        &["adopt"],
        &["import", "--all", "--force"],
        &["baseline", "."],
        &["doctor"],
    ];
    for command in commands {
        t.dnscron(command)
            .args(["--api-url", &url])
            .expect_status(1)
            .expect_stderr(refused("--api-url or DNSCRON_API_URL"))
            .run();
        t.dnscron(command)
            .env("DNSCRON_API_URL", &url)
            .expect_status(1)
            .expect_stderr(refused("--api-url or DNSCRON_API_URL"))
            .run();
        t.dnscron(command)
            .args(["--token-file", "shop.token"])
            .expect_status(1)
            .expect_stderr(refused("--token-file"))
            .run();
        t.dnscron(command)
            .args(["--api-url", &url, "--token-file", "shop.token"])
            .expect_status(1)
            .expect_stderr(refused("--api-url or DNSCRON_API_URL and --token-file"))
            .run();
    }
    assert_eq!(t.acme.counters().requests, 0);
    assert_eq!(t.shop.counters().requests, 0);
}

#[test]
fn without_the_flags_or_on_one_folder_the_flags_api_is_used() {
    let t = two();
    // An empty DNSCRON_API_URL is no URL: the accounts file's are used.
    t.dnscron(&["plan", "--account", "shop"])
        .env("DNSCRON_API_URL", "")
        .expect_stdout(format!(
            "=== account `shop` ===\nLive account: {}\n\nNo changes. The live account matches \
             the files.\n\nAccounts: 1 planned. No changes. The live account matches the files.\n",
            t.shop.base_url()
        ))
        .run();
    // A folder named alone is one account's files: the flags name its API.
    Test::new()
        .current_dir(t.dir.path())
        .args(["plan", "./shop", "--api-url", &t.shop.base_url()])
        .env("DNSCRON_TOKEN", SHOP_TOKEN)
        .expect_stdout(format!(
            "Live account: {}\n\nNo changes. The live account matches the files.\n",
            t.shop.base_url()
        ))
        .run();
}
