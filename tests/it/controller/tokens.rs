//! A controller whose token the API refuses (401) or finds short of a scope (403): a failed
//! round says what to do as the CLI says it, in its log line (text and JSON), `/status`'s
//! `round.error` and the failing alert (the webhook's text). A controller of one names
//! DNSCRON_TOKEN and --token-file; over several accounts, only the refused account's round
//! names its own token source, at its place in dnscron-accounts.yaml, and the other accounts
//! converge. An accepted token's rounds carry no hint. An account whose API can't be reached
//! is told to check its own `api_url`, never a flag the accounts file refuses.

use std::path::Path;

use dnscron::cli::controller::status_json::document;
use dnscron_api::{ApiConfig, Token};
use dnscron_core::controller::{Controller, Trigger};
use dnscron_emulator::{Scope, TokenSeed};
use serde_json::Value;

use super::accounts::{
    API, Accounts, COMMIT_2, WITH_API, WITHOUT_API, wait, with_api, zone as account_zone,
};
use super::rig::{Rig, TOKEN, seed, zone_file};
use crate::common::emulator::start_emulator;
use crate::common::{Test, assert_cli_snapshot};

/// The one-account hint of a refused token, as every command gives it.
const ONE_401: &str =
    "hint: check the token in DNSCRON_TOKEN or --token-file (it may be expired or revoked)";

/// `round.error` of `/status` after each round until one fails (at most `rounds`).
async fn failed_error(controller: &mut Controller, rounds: usize) -> Value {
    let mut trigger = Trigger::Start;
    for _ in 0..rounds {
        let (report, _) = controller.round(trigger).await;
        let doc: Value =
            serde_json::from_str(&document(&report, controller.status(), "apply", None)).unwrap();
        if doc["round"]["outcome"] == "error" {
            return doc["round"].clone();
        }
        trigger = Trigger::Interval;
    }
    panic!("no round failed in {rounds} rounds");
}

fn config_with(rig: &Rig, token: &str) -> ApiConfig {
    let config = ApiConfig::new(&rig.emu.base_url(), Token::new(token).unwrap()).unwrap();
    dnscron_core::controller::api_config(config, 100, 120)
}

/// A controller of one whose token is refused: `/status`'s error (and the round's summary)
/// end with the hint every command gives; nothing is written.
#[tokio::test(start_paused = true)]
async fn a_refused_token_is_said_with_the_one_account_hint_in_status() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller_with(
        "apply",
        false,
        config_with(&rig, "not-the-token"),
        rig.settings(),
    );
    let round = failed_error(&mut controller, 3).await;
    let error = round["error"].as_str().unwrap();
    assert!(error.ends_with(&format!("; {ONE_401}")), "{error}");
    assert!(round["summary"].as_str().unwrap().ends_with(ONE_401));
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("one_account_401_status_error", error);
    });
    assert_eq!(rig.writes(), 0);
}

/// A token that may read but not write DNS, under the apply policy: a merged revision's write
/// gets a 403, and the round's error says what apply says (the scope, the portal).
#[tokio::test(start_paused = true)]
async fn a_write_refused_for_lack_of_scope_is_said_with_the_cli_hint() {
    let read_only = seed(&["a.example"])
        .with_token(TokenSeed::full("read-only", "owner").with_scopes(&[Scope::Read]));
    let rig = Rig::start_seeded(read_only, &["a.example"]).await;
    let mut controller = rig.controller_with(
        "apply",
        true,
        config_with(&rig, "read-only"),
        rig.settings(),
    );
    let (report, _) = controller.round(Trigger::Start).await;
    assert!(!matches!(
        report.outcome,
        dnscron_core::controller::RoundOutcome::Failed(_)
    ));
    rig.write("a.example.yaml", &zone_file("a.example", API));
    let round = failed_error(&mut controller, 3).await;
    let error = round["error"].as_str().unwrap();
    assert!(
        error.ends_with(
            "; hint: the token lacks a scope or this site is not pinned to it: edit the token in \
             the portal under API tokens"
        ),
        "{error}"
    );
    assert_eq!(rig.live("a.example"), ["www A 192.0.2.1"]);
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("one_account_403_status_error", error);
    });
}

/// An accepted token: rounds that don't fail carry no error and no hint.
#[tokio::test(start_paused = true)]
async fn an_accepted_token_carries_no_hint() {
    let rig = Rig::start(&["a.example"]).await;
    let mut controller = rig.controller("apply", false);
    for trigger in [Trigger::Start, Trigger::Interval] {
        let (report, _) = controller.round(trigger).await;
        let doc: Value =
            serde_json::from_str(&document(&report, controller.status(), "apply", None)).unwrap();
        assert_eq!(doc["round"]["error"], Value::Null, "{doc:#}");
        assert!(!doc.to_string().contains("hint"), "{doc:#}");
    }
}

/// `dnscron controller DIR --once`, as a process, its token given in DNSCRON_TOKEN.
fn once(dir: &Path, base_url: &str, token: &str, extra: &[&str]) -> Test {
    Test::new()
        .current_dir(dir)
        .args(["controller", "repo", "--once", "--state-file", "state.json"])
        .args(extra)
        .api(base_url, token)
}

/// The log lines of a controller of one whose token is refused: the round's line and the
/// failing alert (the webhook's text) carry the hint, as text and as JSON; an accepted token's
/// carry none.
#[test]
fn a_refused_tokens_log_lines_carry_the_one_account_hint() {
    let emu = start_emulator(seed(&["a.example"]));
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("repo")).unwrap();
    std::fs::write(
        tmp.path().join("repo/a.example.yaml"),
        zone_file("a.example", ""),
    )
    .unwrap();
    // A first start takes the folder as the base (no read), then sweeps: the sweep's read
    // is refused.
    assert_cli_snapshot!(
        "one_account_401_log",
        once(tmp.path(), &emu.base_url(), "not-the-token", &[]).expect_status(1)
    );
    let out = once(
        tmp.path(),
        &emu.base_url(),
        "not-the-token",
        &["--log-format", "json"],
    )
    .expect_status(1)
    .snapshot();
    let failed: Vec<Value> = out
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["outcome"] == "error")
        .collect();
    assert_eq!(failed.len(), 1, "{out}");
    assert!(
        failed[0]["message"].as_str().unwrap().ends_with(ONE_401),
        "{out}"
    );
    std::fs::remove_file(tmp.path().join("state.json")).ok();
    let accepted = once(tmp.path(), &emu.base_url(), TOKEN, &[]).snapshot();
    assert!(accepted.starts_with("exit: Some(0)"), "{accepted}");
    assert!(!accepted.contains("hint"), "{accepted}");
}

/// The controller over `accounts` (`alpha` and `beta`, `beta`'s API at `beta_url` when
/// given), a merge in both folders, then a minute: `alpha`'s merge is applied and its rounds
/// carry no error, whatever fails `beta`'s. `beta`'s round error, the temporary root as
/// `[ROOT]`.
async fn beta_fails_alone(accounts: &Accounts, beta_url: Option<&str>) -> String {
    if let Some(url) = beta_url {
        // Another token of the user the API at `url` knows: not a second entry of alpha's.
        std::fs::write(accounts.root.join("token-beta"), super::rig::OTHER_TOKEN).unwrap();
        let beta = accounts
            .entry("beta")
            .replace(&accounts.emu("beta").base_url(), url);
        accounts.write(
            "dnscron-accounts.yaml",
            &format!("accounts:\n{}{beta}", accounts.entry("alpha")),
        );
    }
    let running = accounts.run(&[]);
    wait(5).await;
    with_api(accounts, &["alpha", "beta"]);
    accounts.commit(COMMIT_2);
    wait(60).await;
    assert_eq!(accounts.live("alpha"), WITH_API);
    assert_eq!(accounts.live("beta"), WITHOUT_API);
    let alpha = running.of("alpha");
    assert_eq!(alpha["round"]["error"], Value::Null, "{alpha:#}");
    assert_eq!(alpha["consecutive_failures"], 0);
    let beta = running.of("beta");
    let error = beta["round"]["error"].as_str().unwrap().to_owned();
    running.stop().await;
    let root = accounts.root.display().to_string();
    // Nobody else's token or URL is named, nor the flags a repository of accounts refuses.
    for other in ["token-alpha", "DNSCRON_TOKEN", "--token-file", "--api-url"] {
        assert!(!error.contains(other), "{other}: {error}");
    }
    error.replace(&root, "[ROOT]")
}

/// Two accounts, `beta`'s token file holding another token: `beta`'s rounds fail, writing
/// nothing, and their error names `beta`'s token file where the accounts file names it;
/// `alpha` applies its merge.
#[tokio::test(start_paused = true)]
async fn a_refused_token_fails_its_account_alone_and_names_its_token_file() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    std::fs::write(accounts.root.join("token-beta"), "not-betas-token").unwrap();
    let error = beta_fails_alone(&accounts, None).await;
    assert_eq!(accounts.writes("beta"), 0);
    assert!(
        error.ends_with(
            "; hint: check account `beta`'s token in [ROOT]/token-beta \
             ([ROOT]/repo/dnscron-accounts.yaml:9:17): it may be expired or revoked"
        ),
        "{error}"
    );
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("two_accounts_401_status_error", error);
    });
}

/// `beta`'s API URL leads to a closed port: its rounds fail and their error names its
/// `api_url` in the accounts file (not --api-url, which a repository of accounts refuses);
/// `alpha` applies its merge.
#[tokio::test(start_paused = true)]
async fn an_unreachable_account_is_told_to_check_its_api_url() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let error = beta_fails_alone(&accounts, Some(&format!("http://{closed}/api/v1"))).await;
    assert!(
        error.ends_with(
            "; hint: check account `beta`'s api_url in dnscron-accounts.yaml and the network"
        ),
        "{error}"
    );
}

/// `beta`'s API URL is `alpha`'s (the token is the same): `beta`'s zone is not in that zone
/// list, so its rounds fail, writing nothing there, and their error asks whether `beta`'s
/// token is the one of the account at that URL; `alpha` applies its merge.
#[tokio::test(start_paused = true)]
async fn another_accounts_api_is_told_to_check_the_accounts_token() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let alpha_url = accounts.emu("alpha").base_url();
    let error = beta_fails_alone(&accounts, Some(&alpha_url)).await;
    assert!(
        error.contains(
            "; hint: if the account holds it, check that account `beta`'s token in \
             [ROOT]/token-beta ("
        ),
        "{error}"
    );
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("two_accounts_not_listed_status_error", error);
    });
}

/// `dnscron controller REPO --once` over two accounts, `beta`'s variable holding another token,
/// as a process: `beta`'s lines name TOKEN_BETA at its place in the accounts file, `alpha`'s
/// none; the exit code is the failed account's (1).
#[test]
fn a_refused_tokens_log_lines_name_the_accounts_variable() {
    let alpha = start_emulator(seed(&["alpha.example"]));
    let beta = start_emulator(seed(&["beta.example"]));
    let tmp = tempfile::tempdir().unwrap();
    let accounts = format!(
        "accounts:\n  - name: alpha\n    folder: alpha\n    api_url: {}\n    token_env: TOKEN_ALPHA\n  - name: beta\n    folder: beta\n    api_url: {}\n    token_env: TOKEN_BETA\n",
        alpha.base_url(),
        beta.base_url()
    );
    crate::accounts::write_repo(
        &tmp.path().join("repo"),
        &[
            ("dnscron-accounts.yaml", &accounts),
            ("alpha/alpha.example.yaml", &account_zone("alpha", "")),
            ("beta/beta.example.yaml", &account_zone("beta", "")),
        ],
    );
    let out = Test::new()
        .current_dir(tmp.path())
        .args(["controller", "repo", "--once", "--state-file", "state.json"])
        .env("TOKEN_ALPHA", TOKEN)
        .env("TOKEN_BETA", "not-betas-token")
        .env("DNSCRON_API_URL", "")
        .expect_status(1)
        .snapshot();
    // The accounts run side by side: their lines interleave, each account's in its order.
    let of = |name: &str| -> String {
        let prefix = format!("account {name}: ");
        out.lines()
            .filter(|line| line.contains(&prefix))
            .map(|line| format!("{line}\n"))
            .collect()
    };
    let alpha_lines = of("alpha");
    assert!(!alpha_lines.is_empty(), "{out}");
    assert!(!alpha_lines.contains("hint"), "{out}");
    assert!(!out.contains("TOKEN_ALPHA"), "{out}");
    assert!(!out.contains("DNSCRON_TOKEN or --token-file"), "{out}");
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("two_accounts_401_log", of("beta"));
    });
}
