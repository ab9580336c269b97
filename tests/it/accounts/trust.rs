//! A token goes only where a reviewed revision sends it (docs/file-format.md, "Accounts"):
//! under `--changed-since REF` an account whose API URL or token source moved since REF, or
//! that is new since REF, is not planned (no token read, no request), while the others are;
//! the merge job's apply plans it whole, and writes only what a reviewed plan holds. An
//! account whose entry changed otherwise (its folder) is planned whole; two entries holding one
//! token for one API are refused before any request.

use dnscron_emulator::{BackgroundEmulator, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};
use serde_json::Value;

use super::plan::{ACME_FILE, ACME_MAIL_FILE, ACME_TOKEN, SHOP_FILE, SHOP_TOKEN, emulator};
use crate::common::Test;

/// A git repository of two accounts (acme, shop) committed on `main`, each account at its own
/// emulator; `other` is a third server nobody's reviewed file names.
struct Repo {
    dir: tempfile::TempDir,
    acme: BackgroundEmulator,
    shop: BackgroundEmulator,
    other: BackgroundEmulator,
}

fn entry(name: &str, folder: &str, url: &str, token: &str) -> String {
    format!("  - name: {name}\n    folder: {folder}\n    api_url: {url}\n    {token}\n")
}

/// A server that holds acme's zones as acme's files declare them (so acme, planned whole
/// there, changes nothing), and knows acme's token.
fn acme_twin() -> BackgroundEmulator {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(ACME_TOKEN, "owner"))
        .with_zone(ZoneSeed::new("acme.example").with_record(RecordSeed::new(
            "www",
            "A",
            "192.0.2.9",
        )))
        .with_zone(ZoneSeed::new("mail.acme.example"));
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

impl Repo {
    /// `with_accounts`: whether `main` already holds the accounts file.
    fn new(other: BackgroundEmulator, with_accounts: bool) -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
            acme: emulator(ACME_TOKEN, "acme.example", "192.0.2.1"),
            shop: emulator(SHOP_TOKEN, "shop.example", "192.0.2.2"),
            other,
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write(".gitignore", "plans/\n");
        if with_accounts {
            repo.write("dnscron-accounts.yaml", &repo.accounts(&[]));
            repo.write("acme/acme.example.yaml", ACME_FILE);
            repo.write("acme/mail.acme.example.yaml", ACME_MAIL_FILE);
            repo.write("shop/shop.example.yaml", SHOP_FILE);
        }
        repo.commit("base");
        repo.git(&["checkout", "-q", "-b", "pr"]);
        std::fs::create_dir(repo.dir.path().join("plans")).unwrap();
        repo
    }

    /// The accounts file: acme and shop as `main` declares them, each replaced by the entry
    /// `changed` gives under its name, and any other entry of `changed` added.
    fn accounts(&self, changed: &[(&str, String)]) -> String {
        let mut text = "accounts:\n".to_string();
        let acme = entry(
            "acme",
            "acme",
            &self.acme.base_url(),
            "token_env: DNSCRON_TOKEN_ACME",
        );
        let shop = entry(
            "shop",
            "shop",
            &self.shop.base_url(),
            "token_env: DNSCRON_TOKEN_SHOP",
        );
        for (name, default) in [("acme", acme), ("shop", shop)] {
            match changed.iter().find(|(n, _)| *n == name) {
                Some((_, e)) => text.push_str(e),
                None => text.push_str(&default),
            }
        }
        for (name, e) in changed {
            if *name != "acme" && *name != "shop" {
                text.push_str(e);
            }
        }
        text
    }

    fn git(&self, args: &[&str]) -> String {
        crate::common::git::git(self.dir.path(), args)
    }

    fn write(&self, rel: &str, text: &str) {
        super::write_repo(self.dir.path(), &[(rel, text)]);
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn dnscron(&self, args: &[&str]) -> Ran {
        Ran::of(
            Test::new()
                .current_dir(self.dir.path())
                .args(args)
                .env("DNSCRON_TOKEN_ACME", ACME_TOKEN)
                .env("DNSCRON_TOKEN_SHOP", SHOP_TOKEN)
                .plan_stamp(),
        )
    }

    /// The pull request's check: `plan --changed-since main`, JSON, into `plans/pr.json`.
    fn check(&self) -> Ran {
        self.dnscron(&[
            "plan",
            "--changed-since",
            "main",
            "--format",
            "json",
            "--out",
            "plans/pr.json",
        ])
    }

    fn reset(&self) {
        for emu in [&self.acme, &self.shop, &self.other] {
            emu.reset_counters();
        }
    }
}

/// No request at all reached `emu`: no token was sent there.
fn untouched(emu: &BackgroundEmulator, what: &str) {
    assert_eq!(emu.counters().requests, 0, "{what} was sent a request");
}

struct Ran {
    status: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn of(test: Test) -> Ran {
        let out = test.snapshot();
        let (head, rest) = out.split_once("\n--- stdout\n").unwrap();
        let (stdout, stderr) = rest.split_once("--- stderr\n").unwrap();
        Ran {
            status: head
                .trim_start_matches("exit: Some(")
                .trim_end_matches(')')
                .parse()
                .unwrap(),
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
        }
    }

    fn names(&self) -> Vec<String> {
        let plan: Value =
            serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout));
        plan["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect()
    }
}

/// Accepted: nothing moved; both accounts are planned (each scoped to its changed files), as
/// before the rule.
#[test]
fn unchanged_accounts_are_planned_scoped() {
    let r = Repo::new(acme_twin(), true);
    r.write(
        "shop/shop.example.yaml",
        "zone: shop.example\nrecords:\n  - { name: '@', type: A, content: 192.0.2.3 }\n",
    );
    r.commit("shop moves");
    let ran = r.check();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(ran.names(), ["acme", "shop"]);
    assert!(!ran.stderr.contains("not planned"), "{}", ran.stderr);
    assert!(r.shop.counters().requests > 0);
    untouched(&r.other, "the server no file names");
}

/// Refused: acme's `api_url` edited to another server. Its token goes nowhere (not to the new
/// URL, not even to the old one), the check still passes (a warning at acme's entry), and the
/// saved plan holds shop's part alone.
#[test]
fn a_moved_api_url_gets_no_request_and_no_plan() {
    let r = Repo::new(acme_twin(), true);
    let moved = entry(
        "acme",
        "acme",
        &r.other.base_url(),
        "token_env: DNSCRON_TOKEN_ACME",
    );
    r.write("dnscron-accounts.yaml", &r.accounts(&[("acme", moved)]));
    r.commit("acme moves");
    let ran = r.check();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    untouched(&r.other, "the moved URL");
    untouched(&r.acme, "acme's old URL");
    assert_eq!(ran.names(), ["shop"]);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(r.dir.path().join("plans/pr.json")).unwrap())
            .unwrap();
    assert_eq!(saved["accounts"].as_array().unwrap().len(), 1);
    assert!(
        ran.stderr.contains(
            "warning: account `acme` (./dnscron-accounts.yaml:2:5) not planned: its API URL \
             changed since `main` (was http://127.0.0.1:"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(
            "its token goes only where `main` already sends it, so nothing was sent; it is \
             planned on merge, by apply, against the reviewed files"
        ),
        "{}",
        ran.stderr
    );
    // The text view says it in acme's place, and counts it apart from failures.
    let text = r.dnscron(&["plan", "--changed-since", "main"]);
    assert_eq!(text.status, 0, "{}", text.stderr);
    assert!(text.stdout.contains("Not planned: its API URL changed"));
    assert!(
        text.stdout
            .contains("Accounts: 1 planned, 1 not planned (planned on merge)."),
        "{}",
        text.stdout
    );
    // A GitHub warning, at the entry.
    let github = r.dnscron(&["plan", "--changed-since", "main", "--format", "github"]);
    assert_eq!(github.status, 0, "{}", github.stderr);
    assert!(
        github
            .stdout
            .contains("::warning file=dnscron-accounts.yaml,line=2,col=5,"),
        "{}",
        github.stdout
    );
    untouched(&r.other, "the moved URL");
}

/// Refused: acme's token source edited (shop's variable at acme's URL).
#[test]
fn a_moved_token_source_gets_no_request() {
    let r = Repo::new(acme_twin(), true);
    let moved = entry(
        "acme",
        "acme",
        &r.acme.base_url(),
        "token_env: DNSCRON_TOKEN_SHOP",
    );
    r.write("dnscron-accounts.yaml", &r.accounts(&[("acme", moved)]));
    r.commit("acme reads shop's token");
    let ran = r.check();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    untouched(&r.acme, "acme's URL");
    assert_eq!(ran.names(), ["shop"]);
    assert!(
        ran.stderr.contains(
            "its token source changed since `main` (was `token_env: DNSCRON_TOKEN_ACME`, now \
             `token_env: DNSCRON_TOKEN_SHOP`)"
        ),
        "{}",
        ran.stderr
    );
}

/// Refused: a new account pairing acme's `token_env` with a new URL.
#[test]
fn a_new_account_reusing_a_token_at_a_new_url_gets_no_request() {
    let r = Repo::new(acme_twin(), true);
    let evil = entry(
        "evil",
        "evil",
        &r.other.base_url(),
        "token_env: DNSCRON_TOKEN_ACME",
    );
    r.write("dnscron-accounts.yaml", &r.accounts(&[("evil", evil)]));
    r.write("evil/acme.example.yaml", ACME_FILE);
    r.commit("a new account");
    let ran = r.check();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    untouched(&r.other, "the new account's URL");
    assert_eq!(ran.names(), ["acme", "shop"]);
    assert!(
        ran.stderr
            .contains("account `evil` (./dnscron-accounts.yaml:10:5) not planned: the account is new since `main` (its dnscron-accounts.yaml has none of that name)"),
        "{}",
        ran.stderr
    );
}

/// A revision without an accounts file (the repository just became one of several accounts):
/// every account is new, and nothing is sent anywhere.
#[test]
fn a_repository_that_just_became_multi_account_sends_no_token() {
    let r = Repo::new(acme_twin(), false);
    r.write("dnscron-accounts.yaml", &r.accounts(&[]));
    r.write("acme/acme.example.yaml", ACME_FILE);
    r.write("acme/mail.acme.example.yaml", ACME_MAIL_FILE);
    r.write("shop/shop.example.yaml", SHOP_FILE);
    r.commit("accounts");
    let ran = r.check();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(ran.names(), Vec::<String>::new());
    untouched(&r.acme, "acme");
    untouched(&r.shop, "shop");
    assert!(
        ran.stderr.contains(
            "not planned: `main` has no dnscron-accounts.yaml: its token goes only where"
        ),
        "{}",
        ran.stderr
    );
}

/// An account whose entry changed otherwise (its folder renamed) is planned whole: its part is
/// the full plan's part.
#[test]
fn a_renamed_folder_plans_its_account_whole_as_the_full_plan_does() {
    let r = Repo::new(acme_twin(), true);
    r.git(&["mv", "acme", "customers-acme"]);
    let moved = entry(
        "acme",
        "customers-acme",
        &r.acme.base_url(),
        "token_env: DNSCRON_TOKEN_ACME",
    );
    r.write("dnscron-accounts.yaml", &r.accounts(&[("acme", moved)]));
    r.commit("acme's folder renamed");
    let scoped = r.check();
    assert_eq!(scoped.status, 0, "{}", scoped.stderr);
    let full = r.dnscron(&["plan", "--format", "json"]);
    assert_eq!(full.status, 0, "{}", full.stderr);
    let part = |ran: &Ran, i: usize| {
        let plan: Value = serde_json::from_str(&ran.stdout).unwrap();
        let p = plan["accounts"][i]["plan"].clone();
        serde_json::json!({
            "scope": p["scope"], "targets": p["targets"], "summary": p["summary"],
            "changes": p["changes"], "findings": p["findings"], "desired": p["desired"],
        })
    };
    assert_eq!(scoped.names(), ["acme", "shop"]);
    assert_eq!(part(&scoped, 0), part(&full, 0));
    assert_eq!(part(&scoped, 0)["summary"]["update"], 1);
    // shop's entry did not change: still scoped (nothing of it changed).
    assert_ne!(part(&scoped, 1), part(&full, 1));
}

/// Two entries, one token (one by `token_env`, one by `token_file`), one API: refused before
/// any request by every command that reads accounts side by side, both entries located; the
/// token is never shown.
#[test]
fn two_entries_holding_one_token_for_one_api_are_refused() {
    let r = Repo::new(acme_twin(), true);
    std::fs::write(r.dir.path().join("acme.token"), format!("{ACME_TOKEN}\n")).unwrap();
    // The same API, a trailing `/` added.
    let twin = entry(
        "acme-again",
        "acme-again",
        &format!("{}/", r.acme.base_url()),
        "token_file: acme.token",
    );
    r.write(
        "dnscron-accounts.yaml",
        &r.accounts(&[("acme-again", twin)]),
    );
    r.write(
        "acme-again/example.org.yaml",
        "zone: example.org\nrecords: []\n",
    );
    // (Under --changed-since the new entry's token is not even read: it is new since main.)
    // `--account` choosing one of the two is refused too: the other is still the same account.
    for args in [
        &["plan"][..],
        &["plan", "--account", "acme-again"],
        &["apply", "--yes"],
        &["baseline"],
        &["adopt"],
        &["adopt", "--account", "acme-again"],
        &["import", "--all"],
    ] {
        let ran = r.dnscron(args);
        assert_eq!(ran.status, 1, "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(
                "accounts `acme` (./dnscron-accounts.yaml:2:5) and `acme-again` \
                 (./dnscron-accounts.yaml:10:5) hold the same token for the same API"
            ),
            "{args:?}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains(ACME_TOKEN) && !ran.stdout.contains(ACME_TOKEN));
        untouched(&r.acme, "acme");
        untouched(&r.shop, "shop");
    }
    // doctor reports it beside its checks, as a failed one.
    let doctor = r.dnscron(&["doctor"]);
    assert_eq!(doctor.status, 1, "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains(
            "every account\nfail  accounts `acme` (./dnscron-accounts.yaml:2:5) and `acme-again`"
        ),
        "{}",
        doctor.stdout
    );
    assert!(!doctor.stdout.contains(ACME_TOKEN));
}

/// The merge side: the pull request that moved acme merged, the merge job's apply (main's
/// files, `--reviewed` the check's plan, `--changed-since` the base) plans acme whole at its
/// new URL. Zero changes there pass, and shop's reviewed change is written; a change there is
/// not reviewed, and then nothing is written anywhere.
#[test]
fn the_merge_job_plans_a_moved_account_whole_and_writes_only_what_was_reviewed() {
    for twin_matches in [true, false] {
        let other = match twin_matches {
            true => acme_twin(),
            false => emulator(ACME_TOKEN, "acme.example", "192.0.2.1"),
        };
        let r = Repo::new(other, true);
        let base = r.git(&["rev-parse", "main"]).trim().to_string();
        let moved = entry(
            "acme",
            "acme",
            &r.other.base_url(),
            "token_env: DNSCRON_TOKEN_ACME",
        );
        r.write("dnscron-accounts.yaml", &r.accounts(&[("acme", moved)]));
        r.write(
            "shop/shop.example.yaml",
            "zone: shop.example\nrecords:\n  - { name: '@', type: A, content: 192.0.2.3 }\n",
        );
        r.commit("acme moves, shop changes");
        let check = r.check();
        assert_eq!(check.status, 0, "{}", check.stderr);
        untouched(&r.other, "the moved URL, at the check");
        r.git(&["checkout", "-q", "main"]);
        r.git(&["merge", "-q", "--no-ff", "-m", "pr", "pr"]);
        r.reset();
        let apply = r.dnscron(&[
            "apply",
            ".",
            "--reviewed",
            "plans/pr.json",
            "--changed-since",
            &base,
            "--format",
            "json",
        ]);
        assert!(
            apply.stderr.contains(&format!(
                "apply: account `acme`: its API URL changed since `{base}` (was {}, now {}): \
                 planned whole",
                r.acme.base_url(),
                r.other.base_url()
            )),
            "{}",
            apply.stderr
        );
        let shop_ip = r.shop.state().zones["shop.example"][0].content.clone();
        if twin_matches {
            assert_eq!(apply.status, 0, "{}", apply.stderr);
            assert!(
                r.other.counters().requests > 0,
                "acme is planned at its new URL"
            );
            assert_eq!(shop_ip, "192.0.2.3");
        } else {
            assert_ne!(apply.status, 0, "{}", apply.stdout);
            assert!(
                apply.stderr.contains(
                    "account `acme`: 1 change(s) not reviewed: its API URL changed since"
                ),
                "{}",
                apply.stderr
            );
            assert!(
                apply.stderr.contains("plan --account acme --out FILE"),
                "{}",
                apply.stderr
            );
            assert_eq!(shop_ip, "192.0.2.2", "nothing is written anywhere");
            assert_eq!(super::plan::writes(&r.other), 0);
        }
        untouched(&r.acme, "acme's old URL");
    }
}

/// REF's accounts file does not load: where it sends each token is unknown, so no account's
/// token goes anywhere, and the plan says why.
#[test]
fn a_revision_whose_accounts_file_does_not_load_sends_no_token() {
    let r = Repo::new(acme_twin(), true);
    r.git(&["checkout", "-q", "main"]);
    r.write(
        "dnscron-accounts.yaml",
        &format!(
            "{}  - {{ name: Bad_Name, folder: bad, api_url: nope, token_env: X }}\n",
            r.accounts(&[])
        ),
    );
    r.commit("a broken accounts file");
    r.git(&["checkout", "-q", "pr"]);
    let ran = r.check();
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(ran.names(), Vec::<String>::new());
    untouched(&r.acme, "acme");
    untouched(&r.shop, "shop");
    assert!(
        ran.stderr.contains(
            "not planned: dnscron-accounts.yaml at `main` does not load (2 problem(s), first: "
        ),
        "{}",
        ran.stderr
    );
}

/// Refused: the accounts file a link to another file. A pull request could point the link at
/// another file of the repository whose entries the base branch also holds, and the tokens would
/// go where that file says; so every command refuses a linked accounts file, before any request.
#[cfg(unix)]
#[test]
fn a_linked_accounts_file_is_refused_before_any_request() {
    let r = Repo::new(acme_twin(), true);
    let dir = r.dir.path();
    std::fs::rename(dir.join("dnscron-accounts.yaml"), dir.join("accounts.txt")).unwrap();
    std::os::unix::fs::symlink("accounts.txt", dir.join("dnscron-accounts.yaml")).unwrap();
    for args in [&["validate", "."][..], &["plan", "--changed-since", "main"]] {
        let ran = r.dnscron(args);
        assert_eq!(ran.status, 1, "{}", ran.stderr);
        assert!(
            ran.stderr.contains("is a symbolic link")
                && ran
                    .stderr
                    .contains("replace the link with the file it points to"),
            "{}",
            ran.stderr
        );
    }
    untouched(&r.acme, "acme");
    untouched(&r.shop, "shop");
}
