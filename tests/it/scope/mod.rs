//! `--changed-since` (issue 21): a plan of what changed reads only that, its plan file records
//! its scope, and apply of it reads only that too. The account: 300 zones of 4 records, one
//! registered domain per zone, in a git repository of one file per zone.

mod record_sets;
mod refused;
mod removals;
mod requests;
mod same_answer;
mod targets;
mod unscoped_review;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use dnscron_emulator::{
    BackgroundEmulator, Counters, DomainSeed, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed,
};

use crate::common::Test;

pub const TOKEN: &str = "scope-token";
pub const ZONES: usize = 300;

pub fn zone(i: usize) -> String {
    format!("z{i:03}.example")
}

/// The 4 records every zone has, live and in its file.
fn records(i: usize) -> [(&'static str, String); 4] {
    let n = i % 250 + 1;
    [
        ("@", format!("192.0.2.{n}")),
        ("www", format!("198.51.100.{n}")),
        ("mail", format!("203.0.113.{n}")),
        ("api", format!("192.0.2.{}", n + 1)),
    ]
}

pub fn zone_yaml(i: usize, extra: &[(&str, &str)]) -> String {
    let mut text = format!("zone: {}\nrecords:\n", zone(i));
    let extra = extra.iter().map(|(n, c)| (*n, c.to_string()));
    for (name, content) in records(i).into_iter().chain(extra) {
        text.push_str(&format!(
            "  - {{ name: \"{name}\", type: A, content: {content} }}\n"
        ));
    }
    text
}

/// The account as the files at the first commit declare it, rate limit off.
pub fn emulator() -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full(TOKEN, "owner"));
    seed.rate_limit = RateLimit::off();
    for i in 0..ZONES {
        let mut z = ZoneSeed::new(&zone(i));
        for (name, content) in records(i) {
            z = z.with_record(RecordSeed::new(name, "A", &content));
        }
        seed = seed.with_zone(z).with_domain(DomainSeed::new(&zone(i)));
    }
    dnscron_emulator::start_background(seed).unwrap()
}

/// A git repository in a temporary directory, run with no configuration but its own.
pub struct Repo {
    pub dir: tempfile::TempDir,
}

impl Repo {
    /// `dns/zNNN.example.yaml` for every zone, committed.
    pub fn with_zone_files() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        for i in 0..ZONES {
            repo.write(&format!("dns/{}.yaml", zone(i)), &zone_yaml(i, &[]));
        }
        repo.commit("all zones");
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// Fixed names and dates, so that commit ids (shown in plans) are the same every run.
    pub fn git(&self, args: &[&str]) -> String {
        crate::common::git::git(self.path(), args)
    }

    /// `dnscron ARGS` in the repository against `emu`, with a fixed plan stamp.
    pub fn dnscron(&self, emu: &BackgroundEmulator, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.path())
            .args(args)
            .api(&emu.base_url(), TOKEN)
            .env("DNSCRON_PLAN_ID", "0123456789abcdef0123456789abcdef")
            .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
    }

    pub fn file(&self, rel: &str) -> PathBuf {
        self.path().join(rel)
    }
}

/// The targets `plan --changed-since SINCE --format json` records as its scope, as `kind name`.
pub fn targets_in_scope(repo: &Repo, emu: &BackgroundEmulator, since: &str) -> Vec<String> {
    scope(&scoped_plan(repo, emu, since)).2
}

/// `dnscron ARGS --format json` in the repository against `emu`, which exits `status`, parsed,
/// and its stderr.
pub fn json_and_stderr(
    repo: &Repo,
    emu: &BackgroundEmulator,
    args: &[&str],
    status: i32,
) -> (Value, String) {
    let args = [args, &["--format", "json"]].concat();
    let out = repo.dnscron(emu, &args).snapshot();
    let head = format!("exit: Some({status})\n");
    assert!(out.starts_with(&head), "not exit {status}: {out}");
    let json = serde_json::from_str(crate::common::stdout_of(&out))
        .unwrap_or_else(|e| panic!("{e}: {out}"));
    let (_, stderr) = out.split_once("\n--- stderr\n").unwrap();
    (json, stderr.to_string())
}

/// [`json_and_stderr`] of a run whose stderr shows apply's progress at most.
pub fn json_of(repo: &Repo, emu: &BackgroundEmulator, args: &[&str], status: i32) -> Value {
    let (json, stderr) = json_and_stderr(repo, emu, args, status);
    let progress = |l: &str| l.starts_with("apply [") || l.starts_with("apply: ");
    assert!(stderr.lines().all(progress), "{stderr}");
    json
}

/// `dnscron ARGS` in the repository against `emu`, refused: it exits `status` and prints
/// nothing on stdout. Its stderr.
pub fn refusal(repo: &Repo, emu: &BackgroundEmulator, args: &[&str], status: i32) -> String {
    let out = repo.dnscron(emu, args).snapshot();
    let head = format!("exit: Some({status})\n--- stdout\n--- stderr\n");
    out.strip_prefix(&head)
        .unwrap_or_else(|| panic!("not refused with exit {status}: {out}"))
        .to_string()
}

/// `plan dns --changed-since SINCE --format json` (exit 0).
pub fn scoped_plan(repo: &Repo, emu: &BackgroundEmulator, since: &str) -> Value {
    json_of(repo, emu, &["plan", "dns", "--changed-since", since], 0)
}

/// The saved plan file `rel` of the repository.
pub fn saved_plan(repo: &Repo, rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(repo.file(rel)).unwrap()).unwrap()
}

/// A record change of a JSON plan or apply report, as the tests state it: `target` and
/// `record` as `kind name` and `name type`, `before`/`after` as `(ttl, content)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub action: String,
    pub target: String,
    pub record: String,
    pub before: Option<(u64, String)>,
    pub after: Option<(u64, String)>,
}

impl Change {
    pub fn create(zone: &str, record: &str, ttl: u64, content: &str) -> Change {
        Change::new("create", zone, record, None, Some((ttl, content)))
    }

    pub fn delete(zone: &str, record: &str, ttl: u64, content: &str) -> Change {
        Change::new("delete", zone, record, Some((ttl, content)), None)
    }

    pub fn update(zone: &str, record: &str, before: (u64, &str), after: (u64, &str)) -> Change {
        Change::new("update", zone, record, Some(before), Some(after))
    }

    fn new(
        action: &str,
        zone: &str,
        record: &str,
        before: Option<(u64, &str)>,
        after: Option<(u64, &str)>,
    ) -> Change {
        let value = |v: Option<(u64, &str)>| v.map(|(ttl, c)| (ttl, c.to_string()));
        Change {
            action: action.into(),
            target: format!("zone {zone}"),
            record: record.into(),
            before: value(before),
            after: value(after),
        }
    }

    /// A JSON plan's change (a record's: these tests change nothing else).
    fn of(change: &Value) -> Change {
        let value = |v: &Value| {
            (!v.is_null()).then(|| (v["ttl"].as_u64().unwrap(), text(&v["content"]).into()))
        };
        let resource = &change["resource"];
        assert_eq!(resource["kind"], "record", "{change}");
        Change {
            action: text(&change["action"]).into(),
            target: target(&change["target"]),
            record: format!("{} {}", text(&resource["name"]), text(&resource["type"])),
            before: value(&change["before"]),
            after: value(&change["after"]),
        }
    }
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// A target as `kind name`.
pub fn target(t: &Value) -> String {
    format!("{} {}", text(&t["kind"]), text(&t["name"]))
}

/// A JSON plan's changes, in its order, each with its `status`.
pub fn changes(plan: &Value) -> Vec<(Change, String)> {
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (Change::of(c), text(&c["status"]).into()))
        .collect()
}

/// A JSON plan's changes that are ready to send, in its order.
pub fn ready(changes: &[Change]) -> Vec<(Change, String)> {
    changes
        .iter()
        .map(|c| (c.clone(), "ready".into()))
        .collect()
}

/// An apply report's (`apply --format json`) changes as `action target name type`, each with
/// its `outcome`, in its order.
pub fn outcomes(report: &Value) -> Vec<(String, String)> {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let r = &c["resource"];
            let change = format!(
                "{} {} {} {}",
                text(&c["action"]),
                target(&c["target"]),
                text(&r["name"]),
                text(&r["type"])
            );
            (change, text(&c["outcome"]).into())
        })
        .collect()
}

/// [`outcomes`] of `changes`, each with `outcome`.
pub fn each(changes: &[Change], outcome: &str) -> Vec<(String, String)> {
    changes
        .iter()
        .map(|c| {
            let change = format!("{} {} {}", c.action, c.target, c.record);
            (change, outcome.to_string())
        })
        .collect()
}

/// A JSON plan's findings as `code severity target [declared_at]`, in its order.
pub fn findings(plan: &Value) -> Vec<String> {
    let Some(findings) = plan["findings"].as_array() else {
        return Vec::new();
    };
    findings
        .iter()
        .map(|f| {
            let at = f["declared_at"].as_str().map(|at| format!(" {at}"));
            format!(
                "{} {} {}{}",
                text(&f["code"]),
                text(&f["severity"]),
                target(&f["target"]),
                at.unwrap_or_default()
            )
        })
        .collect()
}

/// The finding of `code` about `name` in a JSON plan.
pub fn finding<'a>(plan: &'a Value, code: &str, name: &str) -> &'a Value {
    plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code && f["target"]["name"] == name)
        .unwrap_or_else(|| panic!("no {code} about {name}: {plan:#}"))
}

/// A scoped plan's `scope`: `since`, the commit's first 12 digits, the targets.
pub fn scope(plan: &Value) -> (String, String, Vec<String>) {
    let scope = &plan["scope"];
    let targets = scope["targets"].as_array().unwrap().iter().map(target);
    (
        text(&scope["since"]).into(),
        text(&scope["commit"])[..12].into(),
        targets.collect(),
    )
}

/// The emulator's requests by route, without the `/api/v1` prefix.
pub fn routes(counters: &Counters) -> BTreeMap<String, u64> {
    counters
        .per_route
        .iter()
        .map(|(route, n)| (route.replacen("/api/v1", "", 1), *n))
        .collect()
}

pub fn route_counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(r, n)| (r.to_string(), *n)).collect()
}

/// The repository after a commit that adds `new.z007.example` to zone 7.
pub fn one_record_added() -> Repo {
    let repo = Repo::with_zone_files();
    repo.write(
        &format!("dns/{}.yaml", zone(7)),
        &zone_yaml(7, &[("new", "192.0.2.200")]),
    );
    repo.commit("one record");
    repo
}

/// `plan dns --changed-since SINCE --out p.json`, as the PR check saves it.
pub fn save_plan_since(repo: &Repo, emu: &BackgroundEmulator, since: &str) {
    let plan = ["plan", "dns", "--changed-since", since, "--out", "p.json"];
    repo.dnscron(emu, &plan).run_for_stdout();
}

/// An apply of one record in one zone: the zone read, the record written, the zone read again.
pub fn one_record_applied() -> BTreeMap<String, u64> {
    route_counts(&[
        ("GET /dns/{zone}/records", 2),
        ("POST /dns/{zone}/records", 1),
    ])
}

/// `drift.<zone> A 192.0.2.99`, added in the portal (through the API, as a person would).
pub fn drift_added_in_portal(emu: &BackgroundEmulator, zone: &str) {
    let api = crate::common::emulator::Api::new(&emu.base_url(), TOKEN);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let resp = rt.block_on(api.post(
        &format!("/dns/{zone}/records"),
        serde_json::json!({"name": "drift", "type": "A", "content": "192.0.2.99", "ttl": 300}),
    ));
    assert_eq!(resp.status, 201, "{:?}", resp.body);
}

/// The issue-36 rule, checked on the JSON plans: the plan of what changed since `since` equals
/// the full plan of the folder restricted to the scoped plan's targets, in its changes (with
/// their status: held or not), its findings (with their acceptances and the changes they hold)
/// and its acceptance verdicts. Returns the scoped plan.
#[track_caller]
pub fn assert_scoped_is_full_restricted(
    repo: &Repo,
    emu: &BackgroundEmulator,
    since: &str,
) -> serde_json::Value {
    assert_scoped_is_full_restricted_in(repo.path(), emu, TOKEN, since)
}

/// [`assert_scoped_is_full_restricted`] of the folder `dns` of the repository at `dir`, against
/// `emu` with `token`.
#[track_caller]
pub fn assert_scoped_is_full_restricted_in(
    dir: &Path,
    emu: &BackgroundEmulator,
    token: &str,
    since: &str,
) -> serde_json::Value {
    let json = |args: &[&str]| -> serde_json::Value {
        let out = Test::new()
            .current_dir(dir)
            .args(args)
            .api(&emu.base_url(), token)
            .plan_stamp()
            .snapshot();
        let stdout = crate::common::stdout_of(&out);
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let full = json(&["plan", "dns", "--format", "json"]);
    let scoped = json(&["plan", "dns", "--changed-since", since, "--format", "json"]);
    // What a change removes is known only to a plan that reads the files at the commit: the
    // full plan says the rest of it (`zone-undeclared`, …) in the same words.
    let mut only_scoped = scoped.clone();
    if let Some(findings) = only_scoped["findings"].as_array_mut() {
        findings.retain(|f| f["code"] != "declaration-removed");
    }
    let in_scope: std::collections::BTreeSet<(String, String)> = scoped["scope"]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(target_key)
        .collect();
    assert_eq!(
        restricted(&full, &in_scope),
        restricted(&only_scoped, &in_scope),
        "the scoped plan (right) is not the full plan restricted to {in_scope:?} (left)"
    );
    scoped
}

/// A target as a scope holds it: a zone and its domain are one document's.
fn target_key(target: &serde_json::Value) -> (String, String) {
    let kind = match target["kind"].as_str().unwrap() {
        "domain" | "zone" => "zone",
        other => other,
    };
    (
        kind.to_string(),
        target["name"].as_str().unwrap().to_string(),
    )
}

/// `plan`'s changes and findings about `targets`, without what only numbers them: a change's
/// id becomes what it writes, and a finding's `change_ids` the changes it names.
fn restricted(
    plan: &serde_json::Value,
    targets: &std::collections::BTreeSet<(String, String)>,
) -> (Vec<String>, Vec<String>) {
    let mut by_id = BTreeMap::new();
    let mut changes = Vec::new();
    for change in plan["changes"].as_array().unwrap() {
        let mut change = change.clone();
        let id = change.as_object_mut().unwrap().remove("id").unwrap();
        let key = format!("{} {}", change["target"], change["resource"]);
        by_id.insert(id.as_u64().unwrap(), key);
        if targets.contains(&target_key(&change["target"])) {
            changes.push(change.to_string());
        }
    }
    let mut findings = Vec::new();
    for finding in plan["findings"].as_array().unwrap() {
        if !targets.contains(&target_key(&finding["target"])) {
            continue;
        }
        let mut finding = finding.clone();
        let object = finding.as_object_mut().unwrap();
        if let Some(ids) = object.remove("change_ids") {
            let named: Vec<&String> = ids
                .as_array()
                .unwrap()
                .iter()
                .map(|id| &by_id[&id.as_u64().unwrap()])
                .collect();
            object.insert("changes".into(), serde_json::json!(named));
        }
        findings.push(finding.to_string());
    }
    changes.sort();
    findings.sort();
    (changes, findings)
}
