//! Runs a recipe's job the way GitHub Actions would, as far as the recipes need: each step in
//! order, `run:` scripts with `bash -e` in a fresh workspace, GitHub's files (`GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY`, `GITHUB_ENV`, `GITHUB_EVENT_PATH`), `if:` and `${{ }}` evaluated by
//! [`super::expr`]. `uses:` steps have stand-ins:
//!
//! | step | stand-in |
//! |---|---|
//! | `actions/checkout` | a git clone of the commit ([`Job::checkout`]): main's history as `gh/main.log` knows it, each commit's files as [`World::commit`] stored them; for a pull request, the test merge commit of its head into its base; `fetch-depth` as asked |
//! | `dnscron/dnscron` (the action) | puts the `dnscron` cargo built for the tests on `PATH`; with `reviewed-plans`, runs action.yml's `reviewed` step (`.github/action/reviewed-plans.sh`), its outputs the step's |
//! | `actions/upload-artifact` | copies `with.path` into `artifacts/run-<run id>/<with.name>/` (what `gh run download ID` finds) and `artifacts/<with.name>/` (the newest, for the tests) |
//! | `gh` (on `PATH` from the start, as on GitHub's runners) | `gh_stub.sh`: files under `gh/`, every call logged |
//!
//!
//! Every job run is recorded as a workflow run under `gh/runs/<id>.json` (workflow file, branch,
//! commit, conclusion, each step's name and conclusion), which the stub's `gh run list` and
//! `gh run view` answer from; main's history is `gh/main.log` (see [`World::push_main`]).
//!
//! Secrets: `DNSCRON_READ_TOKEN` for every job; `DNSCRON_APPLY_TOKEN` only in a job that
//! declares `environment: dnscron-apply` (an environment secret, as the recipe documents).
//! A repository of several accounts has its own secrets and no `DNSCRON_API_URL` variable
//! ([`World::several_accounts`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::expr::{Contexts, as_string};
use crate::common::git::git;
use crate::common::{dnscron_bin, repo_root};

/// Tokens of the test seed: read scope, and read + dns + manage.
pub const READ_TOKEN: &str = "ci-read-token";
pub const APPLY_TOKEN: &str = "ci-apply-token";

/// What every job of a test shares: the artifact store, the stub `gh`'s state, the API.
pub struct World {
    pub dir: tempfile::TempDir,
    pub api_url: String,
    resolver: String,
    runs: std::cell::Cell<u32>,
    /// `DNSCRON_TIMESTAMP` of the jobs run from now on (the plan's time: the day a job runs).
    timestamp: std::cell::RefCell<String>,
    /// GitHub's clock: each run's creation and each label event is one minute later than the
    /// one before ([`World::tick`]).
    clock: std::cell::Cell<u32>,
    /// A repository of several accounts' secrets and recipes ([`World::several_accounts`]).
    accounts: std::cell::RefCell<Option<Vec<Secret>>>,
}

/// A secret beyond the two above: `(name, value, environment only)`, a secret of the
/// environment `dnscron-apply` or of the repository.
type Secret = (String, String, bool);

/// What starts a workflow: the event, its payload and the files of the commit it runs on.
pub struct Trigger<'a> {
    pub event: &'a str,
    pub sha: &'a str,
    pub payload: Value,
    pub files: &'a Path,
    /// For a pull request, the commit of main it is merged into (its base branch's tip).
    pub base: Option<&'a str>,
}

#[derive(Debug, PartialEq)]
pub enum Outcome {
    Success,
    Failure(i32),
    Skipped,
}

/// A finished job: each step's name and outcome, the job summary and everything it printed.
pub struct JobRun {
    /// The workflow run's id (`gh run list`'s `databaseId`): [`World::run_as`] runs it again.
    pub id: u32,
    pub steps: Vec<(String, Outcome)>,
    pub summary: String,
    /// The workflow commands (`::error …`) the steps printed on stdout, as GitHub reads them.
    pub annotations: String,
    pub log: String,
}

impl JobRun {
    pub fn succeeded(&self) -> bool {
        self.steps
            .iter()
            .all(|(_, o)| !matches!(o, Outcome::Failure(_)))
    }

    /// One line per step: `ok`, `FAILED (exit N)` or `skipped`.
    pub fn steps_text(&self) -> String {
        self.steps
            .iter()
            .map(|(name, o)| match o {
                Outcome::Success => format!("ok       {name}\n"),
                Outcome::Failure(code) => format!("FAILED   {name} (exit {code})\n"),
                Outcome::Skipped => format!("skipped  {name}\n"),
            })
            .collect()
    }
}

impl World {
    /// `resolver`: what `--resolver system` asks in the jobs (`DNSCRON_SYSTEM_RESOLVER`), the
    /// emulator's DNS listener: a runner's resolver, on loopback.
    pub fn new(api_url: &str, resolver: &str) -> World {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["gh", "artifacts", "stub-bin", "action-bin", "commits"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let gh = dir.path().join("stub-bin/gh");
        std::fs::write(&gh, include_str!("gh_stub.sh")).unwrap();
        make_executable(&gh);
        std::os::unix::fs::symlink(dnscron_bin(), dir.path().join("action-bin/dnscron")).unwrap();
        World {
            dir,
            api_url: api_url.to_string(),
            resolver: resolver.to_string(),
            runs: std::cell::Cell::new(0),
            timestamp: std::cell::RefCell::new("2026-01-02T03:04:05Z".to_string()),
            clock: std::cell::Cell::new(0),
            accounts: std::cell::RefCell::new(None),
        }
    }

    /// The repository holds several accounts: `secrets` are added, each `(name, value,
    /// environment only)` (an environment secret of `dnscron-apply`, or a repository one), the
    /// variable `DNSCRON_API_URL` is deleted, and each recipe runs in its several-accounts form
    /// ([`several_accounts_form`]), as docs/ci.md asks.
    pub fn several_accounts(&self, secrets: &[(&str, &str, bool)]) {
        let secrets = secrets
            .iter()
            .map(|(n, v, e)| (n.to_string(), v.to_string(), *e))
            .collect();
        *self.accounts.borrow_mut() = Some(secrets);
    }

    /// The next minute of GitHub's clock, as its API writes times (`2026-01-01T08:01:00Z`).
    pub fn tick(&self) -> String {
        self.clock.set(self.clock.get() + 1);
        let n = self.clock.get();
        format!("2026-01-01T{:02}:{:02}:00Z", 8 + n / 60, n % 60)
    }

    /// A label `action` (`labeled`, `unlabeled`) on pull request `number`, which then carries
    /// `labels`: what `gh api repos/R/issues/N` and its timeline answer from now on.
    pub fn label_event(&self, number: u64, action: &str, labels: &[&str]) {
        let dir = self.gh_dir();
        let path = dir.join(format!("labels/{number}"));
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        let before: Vec<&str> = before.lines().collect();
        let changed: Vec<&str> = match action {
            "labeled" => labels
                .iter()
                .copied()
                .filter(|l| !before.contains(l))
                .collect(),
            _ => before
                .iter()
                .copied()
                .filter(|l| !labels.contains(l))
                .collect(),
        };
        let at = self.tick();
        let timeline = dir.join(format!("timeline/{number}.json"));
        let mut events: Vec<Value> = std::fs::read_to_string(&timeline)
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or_default();
        events.extend(
            changed
                .iter()
                .map(|l| json!({"event": action, "label": {"name": l}, "created_at": at})),
        );
        std::fs::create_dir_all(dir.join("timeline")).unwrap();
        std::fs::create_dir_all(dir.join("labels")).unwrap();
        std::fs::write(&timeline, Value::from(events).to_string()).unwrap();
        let text: String = labels.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, text).unwrap();
    }

    /// A force push to pull request `number`'s branch, in its timeline.
    pub fn force_pushed(&self, number: u64) {
        let timeline = self.gh_dir().join(format!("timeline/{number}.json"));
        let mut events: Vec<Value> = std::fs::read_to_string(&timeline)
            .map(|t| serde_json::from_str(&t).unwrap())
            .unwrap_or_default();
        events.push(json!({"event": "head_ref_force_pushed", "created_at": self.tick()}));
        std::fs::create_dir_all(self.gh_dir().join("timeline")).unwrap();
        std::fs::write(&timeline, Value::from(events).to_string()).unwrap();
    }

    /// The jobs run from now on plan at `at` (RFC 3339): a scheduled job on another day.
    pub fn set_timestamp(&self, at: &str) {
        *self.timestamp.borrow_mut() = at.to_string();
    }

    pub fn gh_dir(&self) -> PathBuf {
        self.dir.path().join("gh")
    }

    pub fn artifacts(&self) -> PathBuf {
        self.dir.path().join("artifacts")
    }

    /// Where the files of commit `sha` are kept (written by the test), for `actions/checkout`.
    pub fn commit(&self, sha: &str) -> PathBuf {
        self.dir.path().join("commits").join(sha)
    }

    /// main's commits, oldest first (`gh/main.log`).
    pub fn main_history(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.gh_dir().join("main.log")).unwrap_or_default();
        log.lines()
            .filter_map(|l| l.split(' ').next())
            .map(str::to_string)
            .collect()
    }

    /// The stub `gh` calls since the last time this was asked, one per line.
    pub fn take_gh_calls(&self) -> String {
        let log = self.gh_dir().join("calls.log");
        let calls = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        calls
    }

    /// Makes `gh api repos/R/commits/SHA/pulls` answer that pull request `number` (head
    /// `head`, changing `files`) was merged as `sha`, and `sha` main's newest commit.
    pub fn merged(&self, sha: &str, number: u64, head: &str, files: &[&str]) {
        let dir = self.gh_dir().join("commits");
        std::fs::create_dir_all(&dir).unwrap();
        let pulls = json!([{"number": number, "merge_commit_sha": sha,
            "head": {"sha": head, "ref": format!("pr-{number}")}}]);
        std::fs::write(dir.join(format!("{sha}.json")), pulls.to_string()).unwrap();
        let dir = self.gh_dir().join("pulls-files");
        std::fs::create_dir_all(&dir).unwrap();
        let listing: Vec<Value> = files.iter().map(|f| json!({"filename": f})).collect();
        std::fs::write(dir.join(number.to_string()), json!(listing).to_string()).unwrap();
        self.push_main(sha, files);
    }

    /// Makes `sha` (changing `files`) main's newest commit, unless main already holds it: one
    /// line `SHA FILE...` of `gh/main.log`, oldest first, for `branches/main` and `compare`.
    pub fn push_main(&self, sha: &str, files: &[&str]) {
        let log = self.gh_dir().join("main.log");
        let mut text = std::fs::read_to_string(&log).unwrap_or_default();
        if !text.lines().any(|l| l.split(' ').next() == Some(sha)) {
            text.push_str(&format!("{sha} {}\n", files.join(" ")));
            std::fs::write(log, text).unwrap();
        }
    }

    /// A run of `workflow` for `sha` that GitHub queued (a push to main): it waits, pending,
    /// until [`World::run_as`] runs it or [`World::cancel`] cancels it.
    pub fn queued(&self, workflow: &str, sha: &str) -> u32 {
        let id = self.next_run_id();
        self.record(id, workflow, sha, "queued", "", &[], ("push", "main"));
        id
    }

    /// GitHub cancelled pending run `id` when a newer one was queued: it never runs.
    pub fn cancel(&self, id: u32, workflow: &str, sha: &str) {
        self.record(
            id,
            workflow,
            sha,
            "completed",
            "cancelled",
            &[],
            ("push", "main"),
        );
    }

    /// Runs the only job of `examples/ci/github/<workflow>`.
    pub fn run(&self, workflow: &str, trigger: &Trigger) -> JobRun {
        let id = self.next_run_id();
        self.run_as(id, workflow, trigger)
    }

    fn next_run_id(&self) -> u32 {
        self.runs.set(self.runs.get() + 1);
        self.runs.get()
    }

    /// What `gh run list`/`gh run view` tell of run `id`; `(event, branch)` and its creation
    /// time are set when the run is first recorded and kept after.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        id: u32,
        workflow: &str,
        sha: &str,
        status: &str,
        conclusion: &str,
        steps: &[Value],
        (event, branch): (&str, &str),
    ) {
        let dir = self.gh_dir().join("runs");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{id}.json"));
        let earlier: Option<Value> = std::fs::read_to_string(&file)
            .ok()
            .map(|t| serde_json::from_str(&t).unwrap());
        let kept = |key: &str, new: String| -> Value {
            earlier
                .as_ref()
                .map_or_else(|| new.into(), |e| e[key].clone())
        };
        let run = json!({
            "databaseId": id, "workflowName": workflow, "headBranch": kept("headBranch", branch.into()),
            "headSha": sha, "event": kept("event", event.into()),
            "createdAt": kept("createdAt", self.tick()),
            "status": status, "conclusion": conclusion,
            "url": format!("https://github.com/acme/dns/actions/runs/{id}"),
            "jobs": [{"steps": steps}],
        });
        std::fs::write(file, run.to_string()).unwrap();
    }

    /// Runs run `id`: one [`World::queued`] earlier, or one that ran before (the "Re-run
    /// jobs" button: the same run, its commit's files, again).
    pub fn run_as(&self, id: u32, workflow: &str, trigger: &Trigger) -> JobRun {
        let path = repo_root().join("examples/ci/github").join(workflow);
        let text = std::fs::read_to_string(&path).unwrap();
        let text = match &*self.accounts.borrow() {
            None => text,
            Some(_) => several_accounts_form(&text),
        };
        self.run_text(id, workflow, &text, trigger)
    }

    /// Runs `workflow` with `from` replaced by `to` in its text (which must contain it): the
    /// refused form of a setting the recipe needs.
    pub fn run_edited(&self, workflow: &str, from: &str, to: &str, trigger: &Trigger) -> JobRun {
        let path = repo_root().join("examples/ci/github").join(workflow);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{workflow} has no {from:?}");
        let id = self.next_run_id();
        self.run_text(id, workflow, &text.replacen(from, to, 1), trigger)
    }

    fn run_text(&self, id: u32, workflow: &str, text: &str, trigger: &Trigger) -> JobRun {
        let doc: Value = serde_saphyr::from_str(text).unwrap();
        let jobs = doc["jobs"].as_object().unwrap();
        assert_eq!(
            jobs.len(),
            1,
            "{workflow}: the runner runs one-job workflows"
        );
        let (_, job) = jobs.iter().next().unwrap();
        let run_dir = self.dir.path().join(format!("run-{id}"));
        let _ = std::fs::remove_dir_all(&run_dir);
        // A pull request's run is on its branch (`pr-N` unless the payload names it).
        let branch = match trigger.payload["pull_request"]["number"].as_u64() {
            Some(n) => trigger.payload["pull_request"]["head"]["ref"]
                .as_str()
                .map_or_else(|| format!("pr-{n}"), str::to_string),
            None => "main".to_string(),
        };
        let origin = (trigger.event, branch.as_str());
        self.record(id, workflow, trigger.sha, "in_progress", "", &[], origin);
        let run = Job::new(self, &run_dir, &doc, job, trigger, id, workflow).run();
        let steps: Vec<Value> = run
            .steps
            .iter()
            .map(|(name, o)| {
                let conclusion = match o {
                    Outcome::Success => "success",
                    Outcome::Failure(_) => "failure",
                    Outcome::Skipped => "skipped",
                };
                json!({"name": name, "conclusion": conclusion})
            })
            .collect();
        let conclusion = if run.succeeded() {
            "success"
        } else {
            "failure"
        };
        self.record(
            id,
            workflow,
            trigger.sha,
            "completed",
            conclusion,
            &steps,
            origin,
        );
        run
    }
}

struct Job<'a> {
    world: &'a World,
    dir: PathBuf,
    workspace: PathBuf,
    job: &'a Value,
    trigger: &'a Trigger<'a>,
    ctx: Contexts,
    env: BTreeMap<String, String>,
    action_on_path: bool,
    run: JobRun,
}

impl<'a> Job<'a> {
    fn new(
        world: &'a World,
        dir: &Path,
        doc: &Value,
        job: &'a Value,
        t: &'a Trigger,
        run_number: u32,
        workflow: &str,
    ) -> Job<'a> {
        let workspace = dir.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let event_path = dir.join("event.json");
        std::fs::write(&event_path, t.payload.to_string()).unwrap();
        let mut secrets = json!({"DNSCRON_READ_TOKEN": READ_TOKEN});
        let in_environment = job["environment"].as_str() == Some("dnscron-apply");
        if in_environment {
            secrets["DNSCRON_APPLY_TOKEN"] = json!(APPLY_TOKEN);
        }
        // Several accounts: their secrets, and no API URL variable (each URL is the file's).
        let vars = match &*world.accounts.borrow() {
            None => json!({"DNSCRON_API_URL": world.api_url}),
            Some(more) => {
                for (name, value, environment_only) in more {
                    if in_environment || !environment_only {
                        secrets[name] = json!(value);
                    }
                }
                json!({})
            }
        };
        let root = json!({
            "github": {
                "event_name": t.event, "event": t.payload, "sha": t.sha,
                "repository": "acme/dns", "token": "ghs_stub-token",
            },
            "inputs": t.payload["inputs"],
            "secrets": secrets,
            "vars": vars,
            "steps": {},
        });
        let path = |name: &str| world.dir.path().join(name).display().to_string();
        let mut env: BTreeMap<String, String> = [
            ("CI", "true".to_string()),
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_REPOSITORY", "acme/dns".into()),
            ("GITHUB_SHA", t.sha.into()),
            ("GITHUB_RUN_ID", run_number.to_string()),
            (
                "GITHUB_WORKFLOW_REF",
                format!("acme/dns/.github/workflows/{workflow}@refs/heads/main"),
            ),
            ("GITHUB_EVENT_NAME", t.event.into()),
            ("GITHUB_EVENT_PATH", event_path.display().to_string()),
            ("GITHUB_WORKSPACE", workspace.display().to_string()),
            ("HOME", dir.display().to_string()),
            ("RUNNER_TEMP", dir.display().to_string()),
            ("GH_STUB_STATE", path("gh")),
            ("GH_STUB_ARTIFACTS", path("artifacts")),
            // Test-only (docs/plan.md): the plan of the test's Nth job run has id N, so two
            // plans never share idempotency keys and the transcripts stay the same.
            ("DNSCRON_PLAN_ID", format!("{run_number:032x}")),
            ("DNSCRON_TIMESTAMP", world.timestamp.borrow().clone()),
            ("DNSCRON_SYSTEM_RESOLVER", world.resolver.clone()),
            ("NO_COLOR", "1".into()),
            ("COLUMNS", "100".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let ctx = Contexts {
            root,
            failed: false,
        };
        for scope in [&doc["env"], &job["env"]] {
            for (k, v) in scope.as_object().into_iter().flatten() {
                env.insert(k.clone(), ctx.interpolate(&as_string(v)));
            }
        }
        Job {
            world,
            dir: dir.to_path_buf(),
            workspace,
            job,
            trigger: t,
            ctx,
            env,
            action_on_path: false,
            run: JobRun {
                id: run_number,
                steps: Vec::new(),
                summary: String::new(),
                annotations: String::new(),
                log: String::new(),
            },
        }
    }

    fn run(mut self) -> JobRun {
        for (i, step) in self.job["steps"].as_array().unwrap().iter().enumerate() {
            let name = step_name(step);
            let outcome = if self.ctx.condition(step["if"].as_str()) {
                self.step(i, step)
            } else {
                Outcome::Skipped
            };
            if matches!(outcome, Outcome::Failure(_)) {
                self.ctx.failed = true;
            }
            self.run.steps.push((name, outcome));
        }
        self.run
    }

    fn step(&mut self, i: usize, step: &Value) -> Outcome {
        let with: BTreeMap<String, String> = step["with"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), self.ctx.interpolate(&as_string(v))))
            .collect();
        match (step["uses"].as_str(), step["run"].as_str()) {
            (Some(uses), None) if with.get("reviewed-plans").is_some_and(|v| !v.is_empty()) => {
                assert!(uses.starts_with("dnscron/dnscron@"), "{uses}");
                self.action_on_path = true;
                self.reviewed_plans(i, step, &with)
            }
            (Some(uses), None) => self.uses(uses, &with),
            (None, Some(script)) => self.script(i, step, script),
            _ => panic!("step {i}: neither uses: nor run:"),
        }
    }

    fn uses(&mut self, uses: &str, with: &BTreeMap<String, String>) -> Outcome {
        let action = uses.split('@').next().unwrap();
        match action {
            "actions/checkout" => self.checkout(with),
            "dnscron/dnscron" => self.action_on_path = true,
            "actions/upload-artifact" => {
                // Kept by run (what `gh run download ID` finds), and by name alone for the
                // tests to read the newest one.
                let src = self.workspace.join(&with["path"]);
                let by_run = format!("run-{}", self.run.id);
                for dest in [
                    self.world.artifacts().join(&by_run).join(&with["name"]),
                    self.world.artifacts().join(&with["name"]),
                ] {
                    std::fs::create_dir_all(&dest).unwrap();
                    let Ok(_) = std::fs::copy(&src, dest.join(src.file_name().unwrap())) else {
                        return Outcome::Failure(1);
                    };
                }
            }
            other => panic!("no stand-in for uses: {other}"),
        }
        Outcome::Success
    }

    /// `actions/checkout`: builds the repository the trigger's commit belongs to in `origin/`
    /// and clones it into the workspace as the action would (`fetch-depth` commits, 1 unless
    /// asked; 0: all, with tags). main's commits are `gh/main.log`'s, up to this run's commit
    /// (or all of them, then this commit, for a commit main doesn't hold), each tagged with its
    /// name so that a script can name it as GitHub's sha; a commit the test stored no files for
    /// keeps its parent's. A pull request's checkout is GitHub's test merge commit: its head
    /// (the trigger's files, on top of `base`) merged into `base`, so HEAD^1 is the base.
    fn checkout(&self, with: &BTreeMap<String, String>) {
        let t = self.trigger;
        let origin = self.dir.join("origin");
        std::fs::create_dir_all(&origin).unwrap();
        git(&origin, &["init", "-q"]);
        let history = self.world.main_history();
        let stop = match (t.event, t.base) {
            ("pull_request", Some(base)) => base,
            ("pull_request", None) => panic!("a pull_request trigger needs its base"),
            _ => t.sha,
        };
        let held = history.iter().position(|c| c == stop);
        for commit in &history[..held.map_or(history.len(), |i| i + 1)] {
            let files = if commit == t.sha {
                t.files.to_path_buf()
            } else {
                self.world.commit(commit)
            };
            self.commit_files(&origin, commit, &files);
        }
        let checkout = if t.event == "pull_request" {
            let number = t.payload["number"].as_u64().unwrap();
            git(&origin, &["checkout", "-q", "-b", "head"]);
            self.commit_files(&origin, t.sha, t.files);
            git(&origin, &["checkout", "-q", stop]);
            let message = format!("Merge {} into {stop}", t.sha);
            git(&origin, &["merge", "-q", "--no-ff", "-m", &message, "head"]);
            let merge = format!("pull/{number}/merge");
            git(&origin, &["tag", &merge]);
            merge
        } else {
            if held.is_none() {
                self.commit_files(&origin, t.sha, t.files);
            }
            t.sha.to_string()
        };
        let depth = with.get("fetch-depth").map_or("1", String::as_str);
        let url = format!("file://{}", origin.display());
        let workspace = self.workspace.display().to_string();
        let mut clone = vec!["clone", "-q", "--branch", &checkout];
        let depth_arg = format!("--depth={depth}");
        if depth != "0" {
            clone.push(&depth_arg);
        }
        clone.extend([url.as_str(), workspace.as_str()]);
        std::fs::remove_dir_all(&self.workspace).unwrap();
        git(&self.dir, &clone);
    }

    /// A commit of `from`'s files (`name` its message and tag), or of the parent's when the
    /// test stored none.
    fn commit_files(&self, repo: &Path, name: &str, from: &Path) {
        if from.is_dir() {
            for entry in std::fs::read_dir(repo).unwrap() {
                let entry = entry.unwrap();
                if entry.file_name() != ".git" {
                    let path = entry.path();
                    if path.is_dir() {
                        std::fs::remove_dir_all(path).unwrap();
                    } else {
                        std::fs::remove_file(path).unwrap();
                    }
                }
            }
            copy_dir(from, repo);
        }
        git(repo, &["add", "-A"]);
        git(repo, &["commit", "-q", "--allow-empty", "-m", name]);
        git(repo, &["tag", name]);
    }

    /// action.yml's `reviewed` step, run as the runner runs a composite action's step: its
    /// `env:` interpolated with the action's inputs (`with:` over the defaults), the script at
    /// `$GITHUB_ACTION_PATH` (the repository), its outputs the calling step's.
    fn reviewed_plans(
        &mut self,
        i: usize,
        step: &Value,
        with: &BTreeMap<String, String>,
    ) -> Outcome {
        let text = std::fs::read_to_string(repo_root().join("action.yml")).unwrap();
        let action: Value = serde_saphyr::from_str(&text).unwrap();
        let mut inputs = serde_json::Map::new();
        for (name, input) in action["inputs"].as_object().unwrap() {
            let value = with
                .get(name)
                .cloned()
                .unwrap_or_else(|| as_string(&input["default"]));
            inputs.insert(name.clone(), Value::String(value));
        }
        let mut ctx = Contexts {
            root: self.ctx.root.clone(),
            failed: false,
        };
        ctx.root["inputs"] = Value::Object(inputs);
        let inner = action["runs"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == "reviewed")
            .expect("action.yml has a step with id reviewed");
        assert!(ctx.condition(inner["if"].as_str()), "{inner}");
        let mut env = serde_json::Map::new();
        for (k, v) in inner["env"].as_object().unwrap() {
            env.insert(k.clone(), Value::String(ctx.interpolate(&as_string(v))));
        }
        env.insert(
            "GITHUB_ACTION_PATH".into(),
            Value::String(repo_root().display().to_string()),
        );
        let as_step = json!({"id": step["id"], "env": env});
        self.script(i, &as_step, inner["run"].as_str().unwrap())
    }

    fn script(&mut self, i: usize, step: &Value, script: &str) -> Outcome {
        let files = ["output", "summary", "env"].map(|f| self.dir.join(format!("step{i}.{f}")));
        for f in &files {
            std::fs::write(f, "").unwrap();
        }
        let script_path = self.dir.join(format!("step{i}.sh"));
        std::fs::write(&script_path, self.ctx.interpolate(script)).unwrap();
        let mut env = self.env.clone();
        for (k, v) in step["env"].as_object().into_iter().flatten() {
            env.insert(k.clone(), self.ctx.interpolate(&as_string(v)));
        }
        let action_bin = self.world.dir.path().join("action-bin");
        let stub_bin = self.world.dir.path().join("stub-bin");
        let mut path = vec![stub_bin.display().to_string(), "/usr/bin:/bin".into()];
        if self.action_on_path {
            path.insert(0, action_bin.display().to_string());
        }
        let out = Command::new("bash")
            .arg("-e")
            .arg(&script_path)
            .env_clear()
            .envs(crate::common::NO_DNS)
            .envs(&env)
            .env("PATH", path.join(":"))
            .env("GITHUB_OUTPUT", &files[0])
            .env("GITHUB_STEP_SUMMARY", &files[1])
            .env("GITHUB_ENV", &files[2])
            .current_dir(&self.workspace)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        for line in stdout.lines().filter(|l| l.starts_with("::")) {
            self.run.annotations.push_str(line);
            self.run.annotations.push('\n');
        }
        self.run.log.push_str(&stdout);
        self.run.log.push_str(&String::from_utf8_lossy(&out.stderr));
        let read = |f: &PathBuf| std::fs::read_to_string(f).unwrap();
        self.run.summary.push_str(&read(&files[1]));
        self.env.extend(key_values(&read(&files[2])));
        if let Some(id) = step["id"].as_str() {
            let outputs: serde_json::Map<String, Value> = key_values(&read(&files[0]))
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect();
            self.ctx.root["steps"][id] = json!({ "outputs": outputs });
        }
        match out.status.code() {
            Some(0) => Outcome::Success,
            code => Outcome::Failure(code.unwrap_or(-1)),
        }
    }
}

/// A recipe as a repository of several accounts uses it: the commented token lines of its
/// dnscron step (`# DNSCRON_TOKEN_ACME: ${{ secrets.… }}`, one per account) uncommented.
pub fn several_accounts_form(text: &str) -> String {
    let mut uncommented = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let body = line.trim_start();
            let indent = &line[..line.len() - body.len()];
            match body.strip_prefix("# DNSCRON_TOKEN_") {
                Some(rest) if rest.contains(": ${{ secrets.") => {
                    uncommented += 1;
                    format!("{indent}DNSCRON_TOKEN_{rest}")
                }
                _ => line.to_string(),
            }
        })
        .collect();
    assert!(
        uncommented > 0,
        "the recipe has no several-accounts token lines"
    );
    lines.join("\n") + "\n"
}

fn step_name(step: &Value) -> String {
    step["name"]
        .as_str()
        .or(step["uses"].as_str().and_then(|u| u.split('@').next()))
        .unwrap_or("run")
        .to_string()
}

/// `KEY=value` lines and `KEY<<DELIM` … `DELIM` blocks, as in `GITHUB_OUTPUT` and `GITHUB_ENV`.
fn key_values(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((key, delim)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delim).collect();
            out.push((key.to_string(), value.join("\n")));
        } else if let Some((key, value)) = line.split_once('=') {
            out.push((key.to_string(), value.to_string()));
        }
    }
    out
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn github_files_take_both_forms() {
    let text = "code=0\nbody<<EOF\nline one\nline=two\nEOF\nempty=\n";
    assert_eq!(
        key_values(text),
        [
            ("code".to_string(), "0".to_string()),
            ("body".into(), "line one\nline=two".into()),
            ("empty".into(), String::new()),
        ]
    );
}
