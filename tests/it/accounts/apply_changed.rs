//! The merge path over several accounts (docs/ci.md, "Merge"): `apply --reviewed A --reviewed B
//! … --changed-since BASE` at the root of a repository of several accounts writes in each
//! account exactly what `apply <its folder> --reviewed <its one-account plans> --changed-since
//! BASE` writes. Each pair of emulators starts from the same seed; one pair is driven through the
//! accounts file, the other one folder at a time, and their states and requests are compared.

use dnscron_emulator::{BackgroundEmulator, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};
use serde_json::Value;

use super::plan::{ACME_TOKEN, SHOP_TOKEN, accounts_file, only_own_tokens, writes};
use crate::common::Test;

/// acme's zone as live: `www` and `old`; its file's `safety:` lets no record be deleted
/// unapproved.
fn acme_file(www: &str, old: bool) -> String {
    let old = match old {
        true => "  - { name: old, type: A, content: 192.0.2.7 }\n",
        false => "",
    };
    format!(
        "zone: acme.example\nsafety: {{ max_deletes: 0 }}\nrecords:\n  - {{ name: www, type: A, content: {www} }}\n{old}"
    )
}

fn mail_file(txt: Option<&str>) -> String {
    match txt {
        None => "zone: mail.acme.example\nrecords: []\n".to_string(),
        Some(t) => format!(
            "zone: mail.acme.example\nrecords:\n  - {{ name: '@', type: TXT, content: \"{t}\" }}\n"
        ),
    }
}

fn shop_file(ip: &str) -> String {
    format!("zone: shop.example\nrecords:\n  - {{ name: '@', type: A, content: {ip} }}\n")
}

fn start(token: &str, zones: Vec<ZoneSeed>) -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full(token, "owner"));
    for zone in zones {
        seed = seed.with_zone(zone);
    }
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

/// The two accounts as the base commit's files declare them.
struct Accounts {
    acme: BackgroundEmulator,
    shop: BackgroundEmulator,
}

impl Accounts {
    fn new() -> Accounts {
        let acme = start(
            ACME_TOKEN,
            vec![
                ZoneSeed::new("acme.example")
                    .with_record(RecordSeed::new("www", "A", "192.0.2.1"))
                    .with_record(RecordSeed::new("old", "A", "192.0.2.7")),
                ZoneSeed::new("mail.acme.example"),
            ],
        );
        let shop = start(
            SHOP_TOKEN,
            vec![ZoneSeed::new("shop.example").with_record(RecordSeed::new("@", "A", "192.0.2.2"))],
        );
        Accounts { acme, shop }
    }

    fn reset(&self) {
        self.acme.reset_counters();
        self.shop.reset_counters();
    }
}

/// A git repository of two accounts: `many` is the pair the accounts file names, `alone` the
/// same accounts again, planned and applied one folder at a time. Plan files go to `plans/`,
/// which git ignores (as CI downloads them beside the checkout).
struct Repo {
    dir: tempfile::TempDir,
    many: Accounts,
    alone: Accounts,
    base: String,
}

impl Repo {
    fn new() -> Repo {
        let many = Accounts::new();
        let alone = Accounts::new();
        let dir = tempfile::tempdir().unwrap();
        let repo = Repo {
            dir,
            many,
            alone,
            base: String::new(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        let accounts = accounts_file(&repo.many.acme.base_url(), &repo.many.shop.base_url());
        repo.write("dnscron-accounts.yaml", &accounts);
        repo.write(".gitignore", "plans/\n");
        repo.write("acme/acme.example.yaml", &acme_file("192.0.2.1", true));
        repo.write("acme/mail.acme.example.yaml", &mail_file(None));
        repo.write("shop/shop.example.yaml", &shop_file("192.0.2.2"));
        repo.commit("base");
        std::fs::create_dir(repo.dir.path().join("plans")).unwrap();
        let base = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
        Repo { base, ..repo }
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

    /// A pull request: a branch from main with `files`, planned as its check plans it (each
    /// account through the accounts file into `plans/NAME.json`, and each folder alone into
    /// `plans/NAME-ACCOUNT.json`), then merged into main.
    fn pull_request(&self, name: &str, files: &[(&str, String)], mass: bool) {
        self.git(&["checkout", "-q", "-b", name, "main"]);
        for (rel, text) in files {
            self.write(rel, text);
        }
        self.commit(name);
        let out = format!("plans/{name}.json");
        let mut args = vec!["plan", "--changed-since", "main", "--out", &out];
        if mass {
            args.push("--allow-mass-changes");
        }
        let many: Value = serde_json::from_str(&self.many(&args).run_for_stdout()).unwrap();
        let parts = many["accounts"].as_array().unwrap();
        for (i, (account, emu, token)) in self.alone_accounts().into_iter().enumerate() {
            let out = format!("plans/{name}-{account}.json");
            let folder = format!("./{account}");
            let mut args = vec!["plan", "--changed-since", "main", "--out", &out, &folder];
            if mass {
                args.push("--allow-mass-changes");
            }
            let alone: Value =
                serde_json::from_str(&self.alone(emu, token, &args).run_for_stdout()).unwrap();
            // The part is what its folder planned alone says (`plan --changed-since` over the
            // accounts against one folder's).
            assert_eq!(parts[i]["name"], account);
            assert_eq!(said(&parts[i]["plan"]), said(&alone), "{name}: {account}");
        }
        self.git(&["checkout", "-q", "main"]);
        self.git(&["merge", "-q", "--no-ff", "-m", name, name]);
    }

    fn alone_accounts(&self) -> [(&'static str, &BackgroundEmulator, &'static str); 2] {
        [
            ("acme", &self.alone.acme, ACME_TOKEN),
            ("shop", &self.alone.shop, SHOP_TOKEN),
        ]
    }

    /// `dnscron ARGS --format json` at the root, each account's token in its variable.
    fn many(&self, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.dir.path())
            .args(args)
            .args(["--format", "json"])
            .env("DNSCRON_TOKEN_ACME", ACME_TOKEN)
            .env("DNSCRON_TOKEN_SHOP", SHOP_TOKEN)
            .plan_stamp()
    }

    /// `dnscron ARGS --format json` for one folder, the one-account way.
    fn alone(&self, emu: &BackgroundEmulator, token: &str, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.dir.path())
            .args(args)
            .args(["--format", "json"])
            .api(&emu.base_url(), token)
            .plan_stamp()
    }

    /// The merge job's apply over the accounts: every plan in `prs` reviewed, those in `mass`
    /// approved past the limits, scoped by what changed since the base commit.
    fn apply_many(&self, prs: &[&str], mass: &[&str]) -> Ran {
        let mut args = vec!["apply".to_string(), ".".to_string()];
        for pr in prs {
            args.extend(["--reviewed".to_string(), format!("plans/{pr}.json")]);
        }
        for pr in mass {
            args.extend([
                "--allow-mass-changes-in".to_string(),
                format!("plans/{pr}.json"),
            ]);
        }
        args.extend(["--changed-since".to_string(), self.base.clone()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Ran::of(self.many(&args))
    }

    /// The same apply, one account's folder with its one-account plans.
    fn apply_alone(&self, account: &str, prs: &[&str], mass: &[&str]) -> Ran {
        let folder = format!("./{account}");
        let mut args = vec!["apply".to_string(), folder];
        for pr in prs {
            args.extend([
                "--reviewed".to_string(),
                format!("plans/{pr}-{account}.json"),
            ]);
        }
        for pr in mass {
            args.extend([
                "--allow-mass-changes-in".to_string(),
                format!("plans/{pr}-{account}.json"),
            ]);
        }
        args.extend(["--changed-since".to_string(), self.base.clone()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, emu, token) = self
            .alone_accounts()
            .into_iter()
            .find(|(a, _, _)| *a == account)
            .unwrap();
        Ran::of(self.alone(emu, token, &args))
    }

    /// Each account of `many` holds what its twin in `alone` holds, after the same requests
    /// (reads included, whole-account listings too).
    fn same_in_each_account(&self) {
        for (name, many, alone) in [
            ("acme", &self.many.acme, &self.alone.acme),
            ("shop", &self.many.shop, &self.alone.shop),
        ] {
            assert_eq!(many.state(), alone.state(), "account {name}");
            assert_eq!(
                many.counters().per_route,
                alone.counters().per_route,
                "account {name}"
            );
        }
    }
}

/// One run's exit code and outputs.
struct Ran {
    status: String,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn of(test: Test) -> Ran {
        let out = test.snapshot();
        let (head, rest) = out.split_once("\n--- stdout\n").unwrap();
        let (stdout, stderr) = rest.split_once("--- stderr\n").unwrap();
        Ran {
            status: head.to_string(),
            stdout: stdout.to_string(),
            stderr: stderr.to_string(),
        }
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

/// What a plan says, without its id, time or API URL (the two pairs are two servers).
fn said(plan: &Value) -> Value {
    serde_json::json!({
        "targets": plan["targets"],
        "scope": plan["scope"],
        "summary": plan["summary"],
        "changes": plan["changes"],
        "findings": plan["findings"],
        "desired": plan["desired"],
    })
}

/// What an apply report says about the changes; of each Idempotency-Key, the part the change
/// gives (the plan id's part differs: two plans, two ids).
fn outcome(report: &Value) -> Value {
    let mut changes = report["changes"].clone();
    for change in changes.as_array_mut().unwrap() {
        let key = change["idempotency_key"].as_str().unwrap();
        let (_, per_change) = key.split_once("-r").unwrap();
        change["idempotency_key"] = Value::from(per_change);
    }
    serde_json::json!({
        "result": report["result"],
        "summary": report["summary"],
        "changes": changes,
    })
}

fn record(emu: &BackgroundEmulator, zone: &str, name: &str) -> Option<String> {
    emu.state().zones[zone]
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.content.clone())
}

/// Two pull requests merged before the apply job ran: one changes acme's `www`, the other
/// shop's record and adds a TXT to acme's second zone. Each account's parts of both plans bind
/// it, and what it writes is what its folder's apply with its own two plans writes.
#[test]
fn two_merged_plans_write_in_each_account_what_its_folder_alone_writes() {
    let r = Repo::new();
    r.pull_request(
        "pr1",
        &[("acme/acme.example.yaml", acme_file("192.0.2.9", true))],
        false,
    );
    r.pull_request(
        "pr2",
        &[
            ("shop/shop.example.yaml", shop_file("192.0.2.3")),
            (
                "acme/mail.acme.example.yaml",
                mail_file(Some("v=spf1 -all")),
            ),
        ],
        false,
    );
    r.many.reset();
    r.alone.reset();
    let many = r.apply_many(&["pr1", "pr2"], &[]);
    assert_eq!(many.status, "exit: Some(0)", "{}", many.stderr);
    let reports = many.json();
    let reports = reports["accounts"].as_array().unwrap();
    for (i, account) in ["acme", "shop"].into_iter().enumerate() {
        let alone = r.apply_alone(account, &["pr1", "pr2"], &[]);
        assert_eq!(alone.status, "exit: Some(0)", "{}", alone.stderr);
        assert_eq!(reports[i]["account"], account);
        assert_eq!(
            outcome(&reports[i]["report"]),
            outcome(&alone.json()),
            "{account}"
        );
    }
    r.same_in_each_account();
    assert_eq!(
        record(&r.many.acme, "acme.example", "www").as_deref(),
        Some("192.0.2.9")
    );
    assert_eq!(
        record(&r.many.acme, "mail.acme.example", "@").as_deref(),
        Some("v=spf1 -all")
    );
    assert_eq!(
        record(&r.many.shop, "shop.example", "@").as_deref(),
        Some("192.0.2.3")
    );
    only_own_tokens(&[&r.many.acme, &r.many.shop]);
    // The job again (a re-run): every reviewed change is in effect, nothing is written.
    let (acme_writes, shop_writes) = (writes(&r.many.acme), writes(&r.many.shop));
    let again = r.apply_many(&["pr1", "pr2"], &[]);
    assert_eq!(again.status, "exit: Some(0)", "{}", again.stderr);
    assert_eq!(writes(&r.many.acme), acme_writes);
    assert_eq!(writes(&r.many.shop), shop_writes);
}

/// A direct push to shop's files after the reviewed pull request: shop's change is in its
/// scope and in no reviewed file, so the apply is refused, and acme, whose change was
/// reviewed, gets no write either. shop's folder alone is refused the same way.
#[test]
fn a_change_in_one_account_outside_every_reviewed_file_writes_nothing_in_any() {
    let r = Repo::new();
    r.pull_request(
        "pr1",
        &[("acme/acme.example.yaml", acme_file("192.0.2.9", true))],
        false,
    );
    r.write("shop/shop.example.yaml", &shop_file("192.0.2.3"));
    r.commit("direct push");
    r.many.reset();
    r.alone.reset();
    let many = r.apply_many(&["pr1"], &[]);
    assert_eq!(many.status, "exit: Some(1)", "{}", many.stderr);
    assert!(
        many.stderr.contains(
            "account `shop`: 1 change(s) needed now are not among the reviewed changes of \
             plans/pr1.json; nothing was sent"
        ),
        "{}",
        many.stderr
    );
    assert!(
        many.stderr
            .contains("nothing was written in any account: the apply of `shop` was refused"),
        "{}",
        many.stderr
    );
    assert_eq!(writes(&r.many.acme), 0);
    assert_eq!(writes(&r.many.shop), 0);
    let alone = r.apply_alone("shop", &["pr1"], &[]);
    assert_eq!(alone.status, "exit: Some(1)", "{}", alone.stderr);
    assert!(
        alone.stderr.contains(
            "1 change(s) needed now are not among the reviewed changes of plans/pr1-shop.json"
        ),
        "{}",
        alone.stderr
    );
    assert_eq!(writes(&r.alone.shop), 0);
    assert_eq!(
        record(&r.many.acme, "acme.example", "www").as_deref(),
        Some("192.0.2.1")
    );
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(many.stderr);
    });
}

/// Two pull requests changed acme's `www` (.1 → .9, then .1 → .8 before any apply ran): the
/// older plan's change is not what the merged files make, so the apply is refused as acme's
/// folder alone refuses it, nothing written in either account.
#[test]
fn an_older_plans_change_moved_since_by_a_newer_one_is_refused_as_one_account_refuses_it() {
    let r = Repo::new();
    r.pull_request(
        "pr1",
        &[("acme/acme.example.yaml", acme_file("192.0.2.9", true))],
        false,
    );
    r.pull_request(
        "pr2",
        &[
            ("acme/acme.example.yaml", acme_file("192.0.2.8", true)),
            ("shop/shop.example.yaml", shop_file("192.0.2.3")),
        ],
        false,
    );
    r.many.reset();
    r.alone.reset();
    let many = r.apply_many(&["pr1", "pr2"], &[]);
    let alone = r.apply_alone("acme", &["pr1", "pr2"], &[]);
    assert_eq!(many.status, "exit: Some(1)", "{}", many.stderr);
    assert_eq!(alone.status, "exit: Some(1)", "{}", alone.stderr);
    // The same report (nothing sent, the older change not made), the same hint.
    let reports = many.json();
    assert_eq!(reports["accounts"][0]["account"], "acme");
    assert_eq!(
        outcome(&reports["accounts"][0]["report"]),
        outcome(&alone.json())
    );
    assert_eq!(reports["accounts"].as_array().unwrap().len(), 1);
    let hint = alone.stderr.strip_prefix("hint: ").unwrap();
    assert_eq!(
        many.stderr,
        format!(
            "hint: account `acme`: {hint}error: nothing was written in any account: the apply \
             of `acme` was refused or failed\nhint: one review covers every account: fix what \
             each error says, plan again, and apply that\n"
        )
    );
    for emu in [&r.many.acme, &r.many.shop, &r.alone.acme] {
        assert_eq!(writes(emu), 0);
    }
}

/// A pull request deleting acme's `old` past its zone's `safety:`: approved in that file, it is
/// applied in acme as acme's folder applies it with the approval; without the approval both
/// refuse. shop's part of the other file stays within the limits either way.
#[test]
fn a_mass_change_approved_in_its_file_applies_in_its_account_as_alone() {
    let r = Repo::new();
    r.pull_request(
        "pr1",
        &[("acme/acme.example.yaml", acme_file("192.0.2.1", false))],
        true,
    );
    r.pull_request(
        "pr2",
        &[("shop/shop.example.yaml", shop_file("192.0.2.3"))],
        false,
    );
    r.many.reset();
    r.alone.reset();
    // Not approved: refused by the limit, in acme as in its folder alone.
    let many = r.apply_many(&["pr1", "pr2"], &[]);
    assert_eq!(many.status, "exit: Some(1)", "{}", many.stderr);
    assert!(
        many.stderr
            .contains("account `acme`: refusing to plan mass changes"),
        "{}",
        many.stderr
    );
    let alone = r.apply_alone("acme", &["pr1", "pr2"], &[]);
    assert_eq!(alone.status, "exit: Some(1)", "{}", alone.stderr);
    assert!(
        alone.stderr.contains("refusing to plan mass changes"),
        "{}",
        alone.stderr
    );
    assert_eq!(writes(&r.many.acme) + writes(&r.many.shop), 0);
    // Approved in pr1's file: applied.
    r.many.reset();
    r.alone.reset();
    let many = r.apply_many(&["pr1", "pr2"], &["pr1"]);
    assert_eq!(many.status, "exit: Some(0)", "{}", many.stderr);
    for account in ["acme", "shop"] {
        let alone = r.apply_alone(account, &["pr1", "pr2"], &["pr1"]);
        assert_eq!(alone.status, "exit: Some(0)", "{}", alone.stderr);
    }
    r.same_in_each_account();
    assert_eq!(record(&r.many.acme, "acme.example", "old"), None);
    assert_eq!(
        record(&r.many.shop, "shop.example", "@").as_deref(),
        Some("192.0.2.3")
    );
}

/// `--allow-mass-changes-in` names a file no `--reviewed` gives: refused before anything is
/// read, in any account.
#[test]
fn an_approval_of_a_file_not_reviewed_is_refused_before_any_request() {
    let r = Repo::new();
    r.pull_request(
        "pr1",
        &[("acme/acme.example.yaml", acme_file("192.0.2.9", true))],
        false,
    );
    r.many.reset();
    let many = r.apply_many(&["pr1"], &["pr2"]);
    assert_eq!(many.status, "exit: Some(1)", "{}", many.stderr);
    assert_eq!(
        many.stderr,
        "error: --allow-mass-changes-in plans/pr2.json names no --reviewed plan: an approval \
         covers the changes of a plan this apply is bound to\nhint: give the same path to \
         --reviewed and to --allow-mass-changes-in\n"
    );
    assert_eq!(r.many.acme.counters().requests, 0);
    assert_eq!(r.many.shop.counters().requests, 0);
}

/// One of the reviewed files is one account's plan (format 5), not the repository's: refused,
/// naming it, before any request.
#[test]
fn a_one_account_plan_among_the_reviewed_files_is_refused() {
    let r = Repo::new();
    r.pull_request(
        "pr1",
        &[("acme/acme.example.yaml", acme_file("192.0.2.9", true))],
        false,
    );
    r.many.reset();
    let mut args = vec!["apply", ".", "--reviewed", "plans/pr1.json"];
    args.extend(["--reviewed", "plans/pr1-acme.json"]);
    let many = Ran::of(r.many(&args));
    assert_eq!(many.status, "exit: Some(1)", "{}", many.stderr);
    assert!(
        many.stderr.starts_with(
            "error: plans/pr1-acme.json is the plan of one account, and ./dnscron-accounts.yaml \
             holds several"
        ),
        "{}",
        many.stderr
    );
    assert_eq!(r.many.acme.counters().requests, 0);
}

/// A pull request planned for acme alone (`plan --account acme`): shop, which no file plans,
/// is bound to nothing, and since its files did not change, none of its zones is read and the
/// apply goes ahead; once shop's files change without a plan, the same apply is refused.
#[test]
fn an_account_no_file_plans_is_left_alone_until_its_files_change() {
    let r = Repo::new();
    r.git(&["checkout", "-q", "-b", "pr1", "main"]);
    r.write("acme/acme.example.yaml", &acme_file("192.0.2.9", true));
    r.commit("pr1");
    let args = ["plan", "--account", "acme", "--changed-since", "main"];
    r.many(&[&args[..], &["--out", "plans/pr1.json"]].concat())
        .run_for_stdout();
    r.git(&["checkout", "-q", "main"]);
    r.git(&["merge", "-q", "--no-ff", "-m", "pr1", "pr1"]);
    r.many.reset();
    let many = r.apply_many(&["pr1"], &[]);
    assert_eq!(many.status, "exit: Some(0)", "{}", many.stderr);
    assert_eq!(
        record(&r.many.acme, "acme.example", "www").as_deref(),
        Some("192.0.2.9")
    );
    assert_eq!(writes(&r.many.shop), 0);
    let shop_reads = r.many.shop.counters().per_route;
    assert!(
        shop_reads.keys().all(|route| !route.contains("{zone}")),
        "{shop_reads:?}"
    );
    // A direct push to shop: its change is in its scope, and no file reviews it.
    r.write("shop/shop.example.yaml", &shop_file("192.0.2.3"));
    r.commit("direct push");
    let again = r.apply_many(&["pr1"], &[]);
    assert_eq!(again.status, "exit: Some(1)", "{}", again.stderr);
    assert!(
        again.stderr.contains(
            "account `shop`: 1 change(s) not reviewed: the reviewed plan holds no plan of this \
             account"
        ),
        "{}",
        again.stderr
    );
    assert_eq!(writes(&r.many.shop), 0);
}

/// A REF the clone doesn't have is one error, said once for every account, before any request.
#[test]
fn an_unknown_ref_is_one_error_before_any_request() {
    let r = Repo::new();
    for args in [
        &["apply", ".", "--yes", "--changed-since", "nope"][..],
        &["plan", "--changed-since", "nope"],
    ] {
        let ran = Ran::of(r.many(args));
        assert_eq!(ran.status, "exit: Some(1)", "{}", ran.stderr);
        assert!(
            ran.stderr
                .starts_with("error: `nope` does not name a commit of the repository"),
            "{args:?}: {}",
            ran.stderr
        );
        assert_eq!(ran.stderr.matches("error:").count(), 1, "{}", ran.stderr);
    }
    assert_eq!(r.many.acme.counters().requests, 0);
    assert_eq!(r.many.shop.counters().requests, 0);
}
