//! One controller over a repository of several accounts (`dnscron-accounts.yaml`), each account
//! with its own in-process emulator (its own bucket), on tokio's paused clock: one account's
//! outage, broken files or suspension holds back no other; a commit that changes one account's
//! folder is no revision of the others; the accounts file's edits start, stop or report accounts;
//! `/status` groups by account and every per-account series carries `account`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use dnscron::cli::controller::fleet::Fleet;
use dnscron::cli::controller::http::Shared;
use dnscron::cli::{Cli, Command};
use dnscron_core::apply::Interrupt;
use dnscron_core::controller::RunEnd;
use dnscron_emulator::Emulator;
use serde_json::Value;
use tokio::sync::Notify;

use super::rig::{TOKEN, seed, zone_file};

pub(super) const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";
const COMMIT_1: &str = "1111111111111111111111111111111111111111";
pub(super) const COMMIT_2: &str = "2222222222222222222222222222222222222222";

/// Accounts `alpha`, `beta` (and whatever `start_with` adds), each with its emulator serving
/// one zone, `alpha.example` and `beta.example`; the repository a fake git checkout (HEAD and a
/// branch, as git-sync leaves one), so that a commit moves every folder's checkout at once.
pub(super) struct Accounts {
    emus: Vec<(String, Emulator)>,
    _tmp: tempfile::TempDir,
    pub(super) root: PathBuf,
    repo: PathBuf,
}

impl Accounts {
    pub(super) async fn start(names: &[&str]) -> Accounts {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".git/refs/heads")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let mut accounts = Accounts {
            emus: Vec::new(),
            _tmp: tmp,
            root,
            repo,
        };
        for name in names {
            accounts.add_emulator(name).await;
            accounts.write(&format!("{name}/{name}.example.yaml"), &zone(name, ""));
        }
        accounts.write_accounts_file(names);
        accounts.commit(COMMIT_1);
        accounts
    }

    async fn add_emulator(&mut self, name: &str) {
        let emu = dnscron_emulator::start(
            seed(&[&format!("{name}.example")]),
            "127.0.0.1:0".parse().unwrap(),
        )
        .await
        .unwrap();
        std::fs::write(self.root.join(format!("token-{name}")), TOKEN).unwrap();
        self.emus.push((name.to_owned(), emu));
    }

    pub(super) fn entry(&self, name: &str) -> String {
        format!(
            "  - name: {name}\n    folder: {name}\n    api_url: {}\n    token_file: {}\n",
            self.emu(name).base_url(),
            self.root.join(format!("token-{name}")).display()
        )
    }

    fn write_accounts_file(&self, names: &[&str]) {
        let entries: String = names.iter().map(|n| self.entry(n)).collect();
        self.write("dnscron-accounts.yaml", &format!("accounts:\n{entries}"));
    }

    pub(super) fn write(&self, path: &str, text: &str) {
        let path = self.repo.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A new commit checked out (the files written before it are its content).
    pub(super) fn commit(&self, id: &str) {
        std::fs::write(self.repo.join(".git/refs/heads/main"), format!("{id}\n")).unwrap();
    }

    pub(super) fn emu(&self, name: &str) -> &Emulator {
        &self.emus.iter().find(|(n, _)| n == name).unwrap().1
    }

    pub(super) fn live(&self, name: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .emu(name)
            .state()
            .visible_records(&format!("{name}.example"))
            .iter()
            .map(|r| format!("{} {}", r.name, r.content))
            .collect();
        out.sort();
        out
    }

    pub(super) fn writes(&self, name: &str) -> u64 {
        let counters = self.emu(name).counters();
        counters
            .per_route
            .iter()
            .filter(|(route, _)| !route.starts_with("GET "))
            .map(|(_, n)| n)
            .sum()
    }

    fn flags(&self, extra: &[&str]) -> Vec<String> {
        let mut flags: Vec<String> = [
            "dnscron",
            "controller",
            self.repo.to_str().unwrap(),
            "--state-file",
            self.root.join("state/controller.json").to_str().unwrap(),
            "--suspend-file",
            self.root.join("state/suspend").to_str().unwrap(),
            "--interval",
            "30s",
            "--api-share",
            "100",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        flags.extend(extra.iter().map(ToString::to_string));
        flags
    }

    /// The controller over the repository, running in a task of the test's runtime.
    pub(super) fn run(&self, extra: &[&str]) -> Running {
        std::fs::create_dir_all(self.root.join("state")).unwrap();
        let Command::Controller(args) = Cli::parse_from(self.flags(extra)).command else {
            panic!("not the controller command");
        };
        let accounts = dnscron_core::config::accounts::discover(std::slice::from_ref(&self.repo))
            .unwrap()
            .unwrap();
        let mut fleet = Fleet::new(*args, false, &accounts).unwrap();
        let shared = fleet.shared();
        let stop = Arc::new(Interrupt::new());
        let hup = Arc::new(Notify::new());
        let repo = self.repo.clone();
        let task = {
            let stop = Arc::clone(&stop);
            tokio::spawn(async move {
                fleet
                    .run(&repo, accounts, &[], stop, hup)
                    .await
                    .map_err(|e| e.body())
            })
        };
        Running { shared, stop, task }
    }

    fn suspend_file(&self, name: Option<&str>) -> PathBuf {
        self.root.join(match name {
            Some(name) => format!("state/suspend.{name}"),
            None => "state/suspend".to_owned(),
        })
    }
}

pub(super) fn zone(name: &str, extra: &str) -> String {
    zone_file(&format!("{name}.example"), extra)
}

pub(super) struct Running {
    shared: Arc<Shared>,
    stop: Arc<Interrupt>,
    task: tokio::task::JoinHandle<Result<Vec<RunEnd>, String>>,
}

impl Running {
    fn status(&self) -> Value {
        serde_json::from_str(&self.shared.status().expect("a status document")).unwrap()
    }

    /// Account `name`'s own status document.
    pub(super) fn of(&self, name: &str) -> Value {
        self.status()["accounts"][name]["status"].clone()
    }

    pub(super) async fn stop(self) {
        self.stop.raise();
        let ends = self.task.await.unwrap().unwrap();
        assert!(ends.iter().all(|end| *end == RunEnd::Stopped), "{ends:?}");
    }
}

pub(super) async fn wait(secs: u64) {
    tokio::time::sleep(Duration::from_secs(secs)).await;
}

pub(super) fn with_api(accounts: &Accounts, names: &[&str]) {
    for name in names {
        accounts.write(&format!("{name}/{name}.example.yaml"), &zone(name, API));
    }
}

pub(super) const WITH_API: [&str; 2] = ["api 192.0.2.7", "www 192.0.2.1"];
pub(super) const WITHOUT_API: [&str; 1] = ["www 192.0.2.1"];

/// Both accounts' first rounds take their folders as the base; `/readyz` turns ready once both
/// finished one; `/status` groups them by name.
#[tokio::test(start_paused = true)]
async fn each_account_starts_on_its_own_and_status_groups_them() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    assert!(running.shared.is_ready());
    let status = running.status();
    let names: Vec<&String> = status["accounts"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["alpha", "beta"]);
    for name in ["alpha", "beta"] {
        assert_eq!(status["accounts"][name]["state"], "running");
        let converged = &running.of(name)["converged"];
        // An account's revision is its folder's digest, never the repository's commit.
        assert_eq!(converged["source"], "digest", "{name}: {converged}");
        assert!(
            accounts
                .root
                .join(format!("state/controller.{name}.json"))
                .exists()
        );
    }
    assert_ne!(
        running.of("alpha")["converged"],
        running.of("beta")["converged"]
    );
    running.stop().await;
}

/// `alpha`'s API is down while both accounts merge a record: `beta`'s is applied at once, and
/// `alpha`'s rounds fail and back off; once its API is back its record is applied too.
#[tokio::test(start_paused = true)]
async fn an_outage_of_one_account_holds_back_no_other() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    accounts.emu("alpha").set_outage(true);
    with_api(&accounts, &["alpha", "beta"]);
    accounts.commit(COMMIT_2);
    wait(60).await;
    assert_eq!(accounts.live("beta"), WITH_API);
    assert_eq!(accounts.live("alpha"), WITHOUT_API);
    assert!(
        running.of("alpha")["consecutive_failures"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(running.of("beta")["consecutive_failures"], 0);
    assert_eq!(
        running.of("beta")["converged"],
        running.of("beta")["revision"]
    );
    accounts.emu("alpha").set_outage(false);
    wait(20 * 60).await;
    assert_eq!(accounts.live("alpha"), WITH_API);
    assert_eq!(running.of("alpha")["consecutive_failures"], 0);
    running.stop().await;
}

/// A broken file in `alpha`'s folder keeps that revision out of `alpha` alone: `beta`'s merge in
/// the same commit is applied, and `alpha` goes on with its last good revision.
#[tokio::test(start_paused = true)]
async fn a_broken_revision_of_one_account_holds_back_no_other() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    accounts.write("alpha/broken.yaml", "zone: [unclosed\n");
    with_api(&accounts, &["alpha", "beta"]);
    accounts.commit(COMMIT_2);
    wait(60).await;
    assert_eq!(accounts.live("beta"), WITH_API);
    assert_eq!(accounts.live("alpha"), WITHOUT_API);
    let alpha = running.of("alpha");
    assert!(
        alpha["broken_revision"]["errors"][0]["at"]
            .as_str()
            .unwrap()
            .contains("broken.yaml")
    );
    assert_eq!(running.of("beta")["broken_revision"], Value::Null);
    running.stop().await;
}

/// `alpha`'s own suspend file suspends its writes alone; the shared one suspends both.
#[tokio::test(start_paused = true)]
async fn a_suspended_account_holds_back_no_other() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    std::fs::write(accounts.suspend_file(Some("alpha")), "").unwrap();
    with_api(&accounts, &["alpha", "beta"]);
    accounts.commit(COMMIT_2);
    wait(10).await;
    assert_eq!(accounts.live("beta"), WITH_API);
    assert_eq!(accounts.live("alpha"), WITHOUT_API);
    assert_eq!(running.of("alpha")["suspended"], true);
    assert_eq!(running.of("beta")["suspended"], false);
    std::fs::remove_file(accounts.suspend_file(Some("alpha"))).unwrap();
    wait(10).await;
    assert_eq!(accounts.live("alpha"), WITH_API);

    // The shared file: neither writes.
    std::fs::write(accounts.suspend_file(None), "").unwrap();
    for name in ["alpha", "beta"] {
        accounts.write(&format!("{name}/{name}.example.yaml"), &zone(name, ""));
    }
    accounts.commit(COMMIT_1);
    wait(10).await;
    assert_eq!(accounts.live("alpha"), WITH_API);
    assert_eq!(accounts.live("beta"), WITH_API);
    assert_eq!(running.of("alpha")["suspended"], true);
    assert_eq!(running.of("beta")["suspended"], true);
    running.stop().await;
}

/// A commit that changes `beta`'s folder alone: `beta` applies it; for `alpha` it is no new
/// revision (its folder's digest is the same), so nothing is applied or written for it.
#[tokio::test(start_paused = true)]
async fn a_commit_touching_one_account_is_no_revision_of_the_others() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    let alpha_before = running.of("alpha")["converged"].clone();
    let beta_before = running.of("beta")["converged"].clone();
    with_api(&accounts, &["beta"]);
    accounts.commit(COMMIT_2);
    wait(10).await;
    assert_eq!(accounts.live("beta"), WITH_API);
    assert_ne!(running.of("beta")["converged"], beta_before);
    assert_eq!(running.of("alpha")["converged"], alpha_before);
    assert_eq!(running.of("alpha")["revision"], alpha_before);
    assert_eq!(accounts.writes("alpha"), 0);
    running.stop().await;
}

/// The accounts file edited while the controller runs: an account added starts, one removed
/// stops (its series leave `/metrics`), one whose API URL changed is reported as needing a
/// restart and goes on against the API it started with; a file that no longer loads is
/// reported and changes nothing.
#[tokio::test(start_paused = true)]
async fn accounts_added_removed_or_changed_in_the_file() {
    let mut accounts = Accounts::start(&["alpha", "beta"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    assert!(running.shared.metrics.encode().contains("account=\"beta\""));

    accounts.add_emulator("gamma").await;
    accounts.write("gamma/gamma.example.yaml", &zone("gamma", ""));
    let moved = accounts.entry("alpha").replace(
        &accounts.emu("alpha").base_url(),
        &accounts.emu("gamma").base_url(),
    );
    // A removed account's folder goes too: every file of the repository belongs to an account.
    std::fs::remove_dir_all(accounts.repo.join("beta")).unwrap();
    accounts.write(
        "dnscron-accounts.yaml",
        &format!("accounts:\n{moved}{}", accounts.entry("gamma")),
    );
    wait(5).await;
    let status = running.status();
    let names: Vec<&String> = status["accounts"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["alpha", "gamma"]);
    assert_eq!(
        status["accounts_file"]["removed"],
        serde_json::json!(["beta"])
    );
    assert_eq!(
        status["accounts_file"]["restart_required"],
        serde_json::json!([{"account": "alpha", "changed": ["api_url"]}])
    );
    assert_eq!(running.of("gamma")["converged"]["source"], "digest");
    let metrics = running.shared.metrics.encode();
    assert!(!metrics.contains("account=\"beta\""));
    assert!(metrics.contains("dnscron_controller_consecutive_failures{account=\"gamma\"} 0"));

    // alpha goes on against the API it started with.
    with_api(&accounts, &["alpha"]);
    accounts.commit(COMMIT_2);
    wait(10).await;
    assert_eq!(accounts.live("alpha"), WITH_API);
    assert_eq!(accounts.writes("gamma"), 0);

    accounts.write("dnscron-accounts.yaml", "accounts: [\n");
    wait(5).await;
    let status = running.status();
    assert!(status["accounts_file"]["errors"][0]["message"].is_string());
    let names: Vec<&String> = status["accounts"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["alpha", "gamma"]);
    running.stop().await;
}

/// An account whose token can't be read doesn't start, is reported, and holds back no other;
/// once the token is there it starts at the next interval.
#[tokio::test(start_paused = true)]
async fn an_account_without_its_token_is_reported_and_started_once_it_is_there() {
    let accounts = Accounts::start(&["alpha", "beta"]).await;
    let token = accounts.root.join("token-alpha");
    std::fs::remove_file(&token).unwrap();
    let running = accounts.run(&[]);
    wait(5).await;
    let status = running.status();
    assert_eq!(status["accounts"]["alpha"]["state"], "not_started");
    assert!(
        status["accounts"]["alpha"]["error"]
            .as_str()
            .unwrap()
            .contains("token-alpha")
    );
    assert_eq!(running.of("beta")["converged"]["source"], "digest");
    assert!(running.shared.is_ready());
    std::fs::write(&token, TOKEN).unwrap();
    wait(40).await;
    assert_eq!(running.status()["accounts"]["alpha"]["state"], "running");
    assert_eq!(running.of("alpha")["converged"]["source"], "digest");
    running.stop().await;
}

/// `dnscron controller REPO --once` over two accounts, as a process: each account's state file
/// is the `--state-file` with its name; the exit code is the worst account's (`beta` drifted: 2); `--account alpha` alone is in sync (0); a token in the environment reaches only
/// its account's API.
#[test]
fn once_over_two_accounts_exits_with_the_worst_accounts_code() {
    use crate::common::Test;
    use crate::common::emulator::start_emulator;

    let alpha = start_emulator(seed(&["alpha.example"]));
    let beta = start_emulator(seed(&["beta.example"]));
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let files = [
        (
            "dnscron-accounts.yaml".to_owned(),
            format!(
                "accounts:\n  - name: alpha\n    folder: alpha\n    api_url: {}\n    token_env: TOKEN_ALPHA\n  - name: beta\n    folder: beta\n    api_url: {}\n    token_env: TOKEN_BETA\n",
                alpha.base_url(),
                beta.base_url()
            ),
        ),
        ("alpha/alpha.example.yaml".to_owned(), zone("alpha", "")),
        // A record the files declare and the account lacks: drift on a first start.
        ("beta/beta.example.yaml".to_owned(), zone("beta", API)),
    ];
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    crate::accounts::write_repo(&repo, &files);
    let once = |extra: &[&str]| {
        Test::new()
            .current_dir(tmp.path())
            .args(["controller", "repo", "--once", "--state-file", "state.json"])
            .args(extra)
            .env("TOKEN_ALPHA", TOKEN)
            .env("TOKEN_BETA", TOKEN)
            .env("DNSCRON_API_URL", "")
            .snapshot()
    };
    let both = once(&[]);
    assert!(both.starts_with("exit: Some(2)"), "{both}");
    assert!(both.contains("account beta: "), "{both}");
    assert!(tmp.path().join("state.alpha.json").exists());
    assert!(tmp.path().join("state.beta.json").exists());
    assert!(!tmp.path().join("state.json").exists());
    let alpha_only = once(&["--account", "alpha"]);
    assert!(alpha_only.starts_with("exit: Some(0)"), "{alpha_only}");
    assert!(!alpha_only.contains("account beta"), "{alpha_only}");
}

/// As every command over several accounts: `--api-url` (or `DNSCRON_API_URL`) beside the
/// accounts file is one usage error, and two entries holding one token for one API are refused,
/// both before any account starts or any request is sent.
#[test]
fn a_url_flag_beside_the_file_and_two_entries_of_one_token_are_refused_before_any_request() {
    use crate::common::Test;
    use crate::common::emulator::start_emulator;

    let emulator = start_emulator(seed(&["alpha.example", "beta.example"]));
    let tmp = tempfile::tempdir().unwrap();
    let url = emulator.base_url();
    let accounts = format!(
        "accounts:\n  - name: alpha\n    folder: alpha\n    api_url: {url}\n    token_env: TOKEN_ALPHA\n  - name: beta\n    folder: beta\n    api_url: {url}\n    token_env: TOKEN_BETA\n"
    );
    let alpha = zone("alpha", "");
    let beta = zone("beta", "");
    crate::accounts::write_repo(
        &tmp.path().join("repo"),
        &[
            ("dnscron-accounts.yaml", &accounts),
            ("alpha/alpha.example.yaml", &alpha),
            ("beta/beta.example.yaml", &beta),
        ],
    );
    let once = |url_flag: &str| {
        Test::new()
            .current_dir(tmp.path())
            .args(["controller", "repo", "--once", "--state-file", "state.json"])
            .env("TOKEN_ALPHA", TOKEN)
            .env("TOKEN_BETA", TOKEN)
            .env("DNSCRON_API_URL", url_flag)
            .snapshot()
    };
    let flagged = once(&url);
    assert!(flagged.starts_with("exit: Some(1)"), "{flagged}");
    assert_eq!(
        flagged.matches("error:").count(),
        1,
        "one usage error, not one per account: {flagged}"
    );
    assert!(flagged.contains("DNSCRON_API_URL"), "{flagged}");
    let twice = once("");
    assert!(twice.starts_with("exit: Some(1)"), "{twice}");
    assert!(
        twice.contains("hold the same token for the same API"),
        "{twice}"
    );
    assert!(!tmp.path().join("state.alpha.json").exists());
    assert_eq!(
        emulator.counters().per_route.values().sum::<u64>(),
        0,
        "nothing was sent"
    );
}

/// An entry added to the file while the controller runs is held to "one token, one account" as
/// the start is: one holding a running account's token for its API is not started, and says why.
#[tokio::test(start_paused = true)]
async fn an_added_entry_holding_a_running_accounts_token_is_not_started() {
    let accounts = Accounts::start(&["alpha"]).await;
    let running = accounts.run(&[]);
    wait(5).await;
    std::fs::write(accounts.root.join("token-twin"), TOKEN).unwrap();
    accounts.write("twin/alpha.example.yaml", &zone("alpha", ""));
    let twin = accounts
        .entry("alpha")
        .replace("name: alpha", "name: twin")
        .replace("folder: alpha", "folder: twin")
        .replace("token-alpha", "token-twin");
    accounts.write(
        "dnscron-accounts.yaml",
        &format!("accounts:\n{}{twin}", accounts.entry("alpha")),
    );
    wait(5).await;
    let status = running.status();
    assert_eq!(status["accounts"]["twin"]["state"], "not_started");
    assert!(
        status["accounts"]["twin"]["error"]
            .as_str()
            .unwrap()
            .contains("hold the same token for the same API"),
        "{status:#}"
    );
    assert_eq!(status["accounts"]["alpha"]["state"], "running");
    running.stop().await;
}
