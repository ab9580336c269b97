//! `dnscron controller DIR` when DIR holds `dnscron-accounts.yaml` (docs/controller.md, "Several
//! accounts"): one core loop per account, side by side, each with its own client and pacer (its
//! own bucket, the `--api-share` of it), state file, rounds, backoff and suspension. One
//! account's outage, broken files or suspension holds back no other: each loop only ever waits
//! for its own account.
//!
//! The accounts file is looked at every second: an account added starts, one removed stops
//! (the write in flight finishes first), one whose folder, API URL or token source changed is
//! reported in `/status` and the logs and goes on as it started until a restart
//! (`controller::accounts::compare` decides). `/status` groups the accounts' documents by name;
//! `/readyz` turns ready once every account has finished its first round (or failed to start).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dnscron_api::{ReadClient, WriteClient};
use dnscron_core::apply::Interrupt;
use dnscron_core::config::Diagnostics;
use dnscron_core::config::accounts::{self as file, Account, Accounts};
use dnscron_core::controller::accounts::{AccountsChange, compare, per_account_path};
use dnscron_core::controller::{
    BUCKET_PER_MINUTE, Controller, Identity, Mode, OnceOutcome, RunEnd, Settings, StateLock,
    StateStore, api_config,
};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::args::{ControllerArgs, Policy};
use super::front::{Front, listen_for_signals};
use super::http::Shared;
use super::words;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};

/// How often the accounts file is looked at (as the folder is).
const POLL: Duration = Duration::from_secs(1);

/// What `/status` says of every account, and of the accounts file.
#[derive(Debug)]
pub struct Board {
    file: PathBuf,
    inner: Mutex<BoardInner>,
}

#[derive(Debug, Default)]
struct BoardInner {
    accounts: BTreeMap<String, Entry>,
    /// The accounts file's problems when its last edit does not load (the accounts go on as
    /// they were).
    file_errors: Vec<Value>,
    restart_required: Vec<(String, Vec<&'static str>)>,
    removed: Vec<String>,
}

#[derive(Debug)]
enum Entry {
    /// Started; its last round's document once it finished one.
    Running(Option<Value>),
    /// Its client could not be made (a token missing, a URL refused): tried again each
    /// `--interval`.
    NotStarted(String),
}

impl Board {
    pub fn new(file: PathBuf) -> Board {
        Board {
            file,
            inner: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BoardInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Account `name` finished a round; `document` is its `/status` document.
    pub fn round_finished(&self, name: &str, document: String, shared: &Shared) {
        let value = serde_json::from_str(&document).unwrap_or(Value::Null);
        self.lock()
            .accounts
            .insert(name.to_owned(), Entry::Running(Some(value)));
        self.publish(shared);
    }

    fn started(&self, name: &str) {
        self.lock()
            .accounts
            .insert(name.to_owned(), Entry::Running(None));
    }

    fn not_started(&self, name: &str, error: String) {
        self.lock()
            .accounts
            .insert(name.to_owned(), Entry::NotStarted(error));
    }

    fn removed(&self, name: &str) {
        let mut inner = self.lock();
        inner.accounts.remove(name);
        inner.removed.push(name.to_owned());
    }

    fn file_state(&self, errors: Vec<Value>, restart_required: Vec<(String, Vec<&'static str>)>) {
        let mut inner = self.lock();
        inner.file_errors = errors;
        inner.restart_required = restart_required;
    }

    /// Every account has something to report: a finished round, or why it did not start.
    fn ready(&self) -> bool {
        self.lock().accounts.values().all(|entry| match entry {
            Entry::Running(document) => document.is_some(),
            Entry::NotStarted(_) => true,
        })
    }

    /// The status document and readiness, as they are now.
    pub fn publish(&self, shared: &Shared) {
        shared.set_status(self.document());
        if self.ready() {
            shared.set_ready();
        }
    }

    pub fn document(&self) -> String {
        let inner = self.lock();
        let accounts: serde_json::Map<String, Value> = inner
            .accounts
            .iter()
            .map(|(name, entry)| {
                let value = match entry {
                    Entry::Running(document) => json!({
                        "state": "running",
                        "status": document,
                    }),
                    Entry::NotStarted(error) => json!({
                        "state": "not_started",
                        "error": error,
                    }),
                };
                (name.clone(), value)
            })
            .collect();
        let doc = json!({
            "status_version": super::status_json::STATUS_VERSION,
            "accounts_file": {
                "path": self.file.display().to_string(),
                "errors": inner.file_errors,
                "restart_required": inner.restart_required.iter().map(|(name, fields)| json!({
                    "account": name,
                    "changed": fields,
                })).collect::<Vec<_>>(),
                "removed": inner.removed,
            },
            "accounts": accounts,
        });
        dnscron_api::untrusted::json_text(doc.to_string())
    }
}

/// An account's loop under way.
struct Running {
    account: Account,
    interrupt: Arc<Interrupt>,
    round_now: Arc<Notify>,
    front: Arc<Front>,
    task: JoinHandle<RunEnd>,
    /// Its state file's lock, held while it runs.
    _lock: Option<StateLock>,
}

/// A controller of several accounts: the flags, the root front (server metrics, webhook), the
/// status board, and each account's loop.
pub struct Fleet {
    args: ControllerArgs,
    root: Arc<Front>,
    board: Arc<Board>,
    running: BTreeMap<String, Running>,
    /// Accounts whose client could not be made, as the file declares them.
    waiting: BTreeMap<String, Account>,
}

pub fn run(
    args: ControllerArgs,
    dir: &Path,
    accounts: Accounts,
    chosen: Vec<String>,
    json: bool,
) -> CommandResult {
    let runtime = crate::cli::session::runtime()?;
    let _context = runtime.enter();
    let once = args.once;
    let mut fleet = Fleet::new(args, json, &accounts)?;
    let stop = Arc::new(Interrupt::new());
    let hup = Arc::new(Notify::new());
    listen_for_signals(Arc::clone(&stop), Arc::clone(&hup));
    let ends = runtime.block_on(fleet.run(dir, accounts, &chosen, stop, hup))?;
    // The worst account decides, as `plan` over several accounts exits.
    let failed = ends.contains(&RunEnd::Once(OnceOutcome::Failed));
    let left = ends.contains(&RunEnd::Once(OnceOutcome::Left));
    match (failed || fleet.not_started() > 0, left) {
        (true, _) if once => Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "an account's round failed",
        )),
        (_, true) if once => Ok(Outcome::ChangesPresent),
        _ => Ok(Outcome::Success),
    }
}

impl Fleet {
    /// Inside a runtime (the webhook's task is made here).
    pub fn new(
        args: ControllerArgs,
        json: bool,
        accounts: &Accounts,
    ) -> Result<Fleet, CommandError> {
        if args.adopt_revision.is_some() {
            return Err(CommandError::user(format!(
                "--adopt-revision names one folder's revision, and {} holds several accounts",
                file::ACCOUNTS_FILE
            ))
            .with_hint(
                "each account's first start takes its folder as the base; to apply an account's \
                 whole difference once, run `dnscron apply --account NAME` on that folder",
            ));
        }
        let root = Arc::new(Front::for_accounts(&args, json)?);
        Ok(Fleet {
            args,
            root,
            board: Arc::new(Board::new(accounts.file.clone())),
            running: BTreeMap::new(),
            waiting: BTreeMap::new(),
        })
    }

    /// What the HTTP server serves: every account's metrics, `/status`, readiness.
    pub fn shared(&self) -> Arc<Shared> {
        Arc::clone(self.root.shared())
    }

    /// Accounts whose client could not be made (a token missing): they are tried again.
    pub fn not_started(&self) -> usize {
        self.waiting.len()
    }

    /// Runs every chosen account until `stop` (with `--once`: until each has swept once);
    /// `hup` asks every account for a round now. Each account's end, in the file's order.
    pub async fn run(
        &mut self,
        dir: &Path,
        accounts: Accounts,
        chosen: &[String],
        stop: Arc<Interrupt>,
        hup: Arc<Notify>,
    ) -> Result<Vec<RunEnd>, CommandError> {
        let server = match self.args.listen {
            Some(addr) => Some(self.root.serve(addr, Arc::clone(&stop)).await?),
            None => None,
        };
        for account in accounts.select(chosen).unwrap_or_default() {
            self.start(account.clone());
        }
        self.board.publish(self.root.shared());
        let once = self.args.once;
        if !once {
            self.watch(dir, accounts, chosen, &stop, &hup).await;
        }
        let mut ends = Vec::new();
        for (_, running) in std::mem::take(&mut self.running) {
            if !once {
                running.interrupt.raise();
            }
            ends.push(running.task.await.unwrap_or(RunEnd::Stopped));
        }
        stop.raise();
        if let Some(server) = server {
            let _ = server.await;
        }
        self.root.flush_webhook().await;
        Ok(ends)
    }

    /// Until told to stop: SIGHUP to every account; the accounts file's edits; accounts that
    /// did not start, tried again each interval.
    async fn watch(
        &mut self,
        dir: &Path,
        accounts: Accounts,
        chosen: &[String],
        stop: &Interrupt,
        hup: &Notify,
    ) {
        let mut last_text = std::fs::read_to_string(&accounts.file).ok();
        let mut retry_at = tokio::time::Instant::now() + self.args.interval;
        loop {
            tokio::select! {
                () = stop.raised() => return,
                () = hup.notified() => {
                    for running in self.running.values() {
                        running.round_now.notify_one();
                    }
                    retry_at = tokio::time::Instant::now();
                }
                () = tokio::time::sleep(POLL) => {}
            }
            let text = std::fs::read_to_string(&accounts.file).ok();
            if text != last_text {
                last_text = text;
                self.reread(dir, chosen).await;
            }
            if tokio::time::Instant::now() >= retry_at && !self.waiting.is_empty() {
                retry_at = tokio::time::Instant::now() + self.args.interval;
                for account in std::mem::take(&mut self.waiting).into_values() {
                    self.start(account);
                }
                self.board.publish(self.root.shared());
            }
        }
    }

    /// The accounts file changed: what it now says, against what runs.
    async fn reread(&mut self, dir: &Path, chosen: &[String]) {
        let known: Vec<Account> = self
            .running
            .values()
            .map(|r| r.account.clone())
            .chain(self.waiting.values().cloned())
            .collect();
        let now = match file::discover(&[dir.to_path_buf()]) {
            Ok(Some(now)) => now,
            Ok(None) => {
                tracing::warn!(
                    "{} is gone from {}: every account goes on as it started",
                    file::ACCOUNTS_FILE,
                    dir.display()
                );
                let error =
                    json!({"at": null, "message": format!("{} is gone", file::ACCOUNTS_FILE)});
                self.board.file_state(vec![error], Vec::new());
                self.board.publish(self.root.shared());
                return;
            }
            Err(diagnostics) => {
                tracing::warn!(
                    "{} does not load ({}): every account goes on as it was",
                    file::ACCOUNTS_FILE,
                    dnscron_api::untrusted::Untrusted(&first_problem(&diagnostics))
                );
                self.board.file_state(errors(&diagnostics), Vec::new());
                self.board.publish(self.root.shared());
                return;
            }
        };
        let AccountsChange {
            added,
            removed,
            restart_required,
        } = compare(&known, &now, chosen);
        for name in removed {
            tracing::info!(
                "account {name}: gone from {}: stopping it",
                file::ACCOUNTS_FILE
            );
            self.waiting.remove(&name);
            if let Some(running) = self.running.remove(&name) {
                running.interrupt.raise();
                let _ = running.task.await;
                running.front.metrics().forget_account();
            }
            self.board.removed(&name);
        }
        for account in added {
            tracing::info!(
                "account {}: added to {}: starting it",
                account.name,
                file::ACCOUNTS_FILE
            );
            self.start(account);
        }
        let restart: Vec<(String, Vec<&'static str>)> = restart_required
            .into_iter()
            .map(|(name, fields)| (name, fields.into_iter().map(|f| f.key()).collect()))
            .collect();
        for (name, fields) in &restart {
            tracing::warn!(
                "account {name}: its {} changed in {}: it goes on as it started until the controller restarts",
                fields.join(", "),
                file::ACCOUNTS_FILE
            );
        }
        self.board.file_state(Vec::new(), restart);
        self.board.publish(self.root.shared());
    }

    /// Starts `account`'s loop, or records why it could not start.
    fn start(&mut self, account: Account) {
        let name = account.name.clone();
        match self.spawn(&account) {
            Ok(running) => {
                self.board.started(&name);
                self.running.insert(name, running);
            }
            Err(error) => {
                let line = error.body().replace('\n', "; ");
                tracing::error!("account {name}: not started: {line}");
                self.board.not_started(&name, line);
                self.waiting.insert(name, account);
            }
        }
    }

    fn spawn(&self, account: &Account) -> Result<Running, CommandError> {
        let args = &self.args;
        // An entry added while running is held to "one token, one account" as the start was.
        let with_running: Vec<&Account> = self
            .running
            .values()
            .map(|running| &running.account)
            .chain(std::iter::once(account))
            .collect();
        crate::cli::trust::one_token_each(&with_running, &args.api)?;
        let front = Arc::new(self.root.account(account, Arc::clone(&self.board)));
        let config = crate::cli::accounts::api_config(account, &args.api)?;
        let mut config = api_config(config, args.api_share, BUCKET_PER_MINUTE);
        config.on_response = Some(front.response_hook());
        config.on_wait = Some(front.wait_hook());
        let in_account = |e: CommandError| e.with_context(&format!("account `{}`", account.name));
        let mode = match args.policy {
            Policy::Observe => {
                Mode::Observe(ReadClient::new(config).map_err(|e| in_account(e.into()))?)
            }
            Policy::Apply => {
                Mode::ApplyMerged(WriteClient::new(config).map_err(|e| in_account(e.into()))?)
            }
            Policy::Heal => Mode::Heal(WriteClient::new(config).map_err(|e| in_account(e.into()))?),
        };
        let state_file = args
            .state_file
            .as_ref()
            .map(|f| per_account_path(f, &account.name));
        let lock = match &state_file {
            Some(file) => Some(StateLock::acquire(file).map_err(|error| {
                CommandError::from_error(ErrorKind::User, error).with_hint(
                    "stop the other controller of this account first (one per state file)",
                )
            })?),
            None => None,
        };
        let store = StateStore::new(state_file, account.folder.clone());
        let starting = words::starting(args, &account.folder, &store, Some(&account.name))?;
        let settings = Settings {
            interval: args.interval,
            suspend_file: args
                .suspend_file
                .as_ref()
                .map(|f| per_account_path(f, &account.name)),
            shared_suspend_file: args.suspend_file.clone(),
            adopt_revision: None,
            dns: args.dns.options(Duration::ZERO),
            identity: Identity::Files,
            ..Settings::new(account.folder.clone())
        };
        let controller = Controller::new(mode, settings, store, starting.converged);
        let interrupt = controller.interrupt();
        let round_now = Arc::new(Notify::new());
        let task = {
            let front = Arc::clone(&front);
            let round_now = Arc::clone(&round_now);
            let once = args.once;
            tokio::spawn(async move { front.run_loop(controller, once, &round_now).await })
        };
        Ok(Running {
            account: account.clone(),
            interrupt,
            round_now,
            front,
            task,
            _lock: lock,
        })
    }
}

fn errors(diagnostics: &Diagnostics) -> Vec<Value> {
    diagnostics
        .items
        .iter()
        .map(|d| {
            json!({
                "at": d.location.as_ref().map(ToString::to_string),
                "message": d.message,
            })
        })
        .collect()
}

fn first_problem(diagnostics: &Diagnostics) -> String {
    diagnostics
        .items
        .first()
        .map_or_else(String::new, |d| match &d.location {
            Some(at) => format!("{at}: {}", d.message),
            None => d.message.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::controller::metrics::Metrics;

    /// Ready once every account has finished a round or failed to start; the document groups
    /// the accounts by name, each with its own.
    #[test]
    fn ready_when_every_account_has_something_to_report() {
        let shared = Shared::new(Metrics::for_accounts());
        let board = Board::new(PathBuf::from("repo/dnscron-accounts.yaml"));
        board.started("alpha");
        board.started("beta");
        board.publish(&shared);
        assert!(!shared.is_ready());
        board.round_finished("alpha", r#"{"status_version":1}"#.into(), &shared);
        assert!(!shared.is_ready());
        board.not_started("beta", "no token".into());
        board.publish(&shared);
        assert!(shared.is_ready());
        let doc: Value = serde_json::from_str(&shared.status().unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({
                "status_version": 1,
                "accounts_file": {
                    "path": "repo/dnscron-accounts.yaml",
                    "errors": [],
                    "restart_required": [],
                    "removed": [],
                },
                "accounts": {
                    "alpha": {"state": "running", "status": {"status_version": 1}},
                    "beta": {"state": "not_started", "error": "no token"},
                },
            })
        );
    }
}
