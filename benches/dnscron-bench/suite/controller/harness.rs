//! What the controller's measurements share: DIR laid out the way git-sync keeps it, the
//! controller built as `dnscron controller --policy apply --api-share 50` builds it, every
//! request it sends logged with its time, and its rounds followed from the observer.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dnscron_api::{ApiConfig, ResponseHook, Token, WriteClient};
use dnscron_core::controller::{
    Controller, Converged, Event, Mode, Settings, StateStore, Work, api_config, revision,
};
use dnscron_emulator::{Emulator, EmulatorHandle, RateLimit};
use tokio::sync::watch;
use tokio::time::Instant;

use super::super::BenchError;
use super::super::big_account;
use super::super::setup::Scratch;
use super::super::workload::{Account, TOKEN};

/// The spec's bucket (a minute's refill, from the API's description), as `dnscron controller`
/// reads it, and the share the controller spends.
pub use dnscron_core::controller::BUCKET_PER_MINUTE;
pub const SHARE_PERCENT: u8 = 50;

/// DIR as git-sync keeps it: `root/rev-N/` is a git worktree of the repository `root/.git`
/// holding a revision's files (its `.git` file names `root/.git/worktrees/rev-N`, whose HEAD is
/// the commit, detached), `root/current` is a symlink to the newest, replaced by a rename
/// (atomic: a reader sees one revision or the next). The controller reads the commit id from
/// those files without a git binary, and the bench needs none either: it writes them itself.
pub struct GitSyncRoot {
    scratch: Scratch,
    revisions: u32,
}

impl GitSyncRoot {
    /// The root with `account`'s files as its first revision.
    pub fn new(name: &str, account: &Account) -> Result<GitSyncRoot, BenchError> {
        let mut root = GitSyncRoot {
            scratch: Scratch::new(name)?,
            revisions: 0,
        };
        // The state file's folder exists, as the volume it is kept on does in a pod.
        let state = root.scratch.path().join("state");
        std::fs::create_dir_all(state).map_err(|e| BenchError::Setup(e.to_string()))?;
        root.publish(account)?;
        Ok(root)
    }

    /// The directory the controller is pointed at.
    pub fn current(&self) -> PathBuf {
        self.scratch.path().join("current")
    }

    /// The state file, in a folder beside the revisions.
    pub fn state_file(&self) -> PathBuf {
        self.scratch.path().join("state").join("controller.json")
    }

    /// Writes `account`'s files as the next revision and swaps `current` to it, as git-sync
    /// does: a new link `current.tmp`, renamed over `current`.
    pub fn publish(&mut self, account: &Account) -> Result<(), BenchError> {
        self.revisions += 1;
        let name = format!("rev-{}", self.revisions);
        let io = |what: &str, e: std::io::Error| BenchError::Setup(format!("{what}: {e}"));
        let worktree = self.scratch.path().join(&name);
        account
            .write_files(&worktree)
            .map_err(|e| io("writing a revision's files", e))?;
        self.check_out(&name, &worktree)
            .map_err(|e| io("writing the worktree's git files", e))?;
        let temp = self.scratch.path().join("current.tmp");
        std::os::unix::fs::symlink(&name, &temp).map_err(|e| io("linking current.tmp", e))?;
        std::fs::rename(&temp, self.current()).map_err(|e| io("swapping current", e))
    }

    /// Makes `worktree` a worktree of `root/.git` at this revision's commit, as `git worktree
    /// add --detach` leaves it.
    fn check_out(&self, name: &str, worktree: &std::path::Path) -> std::io::Result<()> {
        let admin = self
            .scratch
            .path()
            .join(".git")
            .join("worktrees")
            .join(name);
        std::fs::create_dir_all(&admin)?;
        std::fs::write(admin.join("HEAD"), format!("{}\n", commit(self.revisions)))?;
        std::fs::write(admin.join("commondir"), "../..\n")?;
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: ../.git/worktrees/{name}\n"),
        )
    }
}

/// The commit id of the bench's revision `n` (a SHA-1's length, as git's default writes).
pub fn commit(n: u32) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("dnscron-bench revision {n}"));
    digest[..20].iter().map(|b| format!("{b:02x}")).collect()
}

/// One attempt the controller's client made, when its answer came (the clock of the runtime:
/// simulated on a paused one).
#[derive(Clone, Debug)]
pub struct Sent {
    pub at: Instant,
    pub method: String,
    pub route: &'static str,
    pub status: Option<u16>,
}

/// Every attempt, in order, through the client's response hook (what the metrics count).
#[derive(Clone, Default)]
pub struct RequestLog(Arc<Mutex<Vec<Sent>>>);

impl RequestLog {
    pub fn hook(&self) -> ResponseHook {
        let log = self.clone();
        Arc::new(move |event| {
            log.lock().push(Sent {
                at: Instant::now(),
                method: event.method.clone(),
                route: event.route,
                status: event.status,
            });
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Sent>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn range(&self, from: usize, to: usize) -> Vec<Sent> {
        let log = self.lock();
        log[from.min(log.len())..to.min(log.len())].to_vec()
    }

    pub fn all(&self) -> Vec<Sent> {
        self.lock().clone()
    }

    pub fn times(&self) -> Vec<Instant> {
        self.lock().iter().map(|s| s.at).collect()
    }
}

/// A controller under `--policy apply` at half the spec's bucket, its state file in `root`,
/// sweeping every `interval`, its attempts kept in `log` if given; `converged`: what the
/// state file holds when it starts.
pub fn controller(
    emulator: &EmulatorHandle,
    root: &GitSyncRoot,
    interval: Duration,
    log: Option<&RequestLog>,
    converged: Option<Converged>,
) -> Result<Controller, BenchError> {
    let setup = |e: &dyn std::fmt::Display| BenchError::Setup(e.to_string());
    let token = Token::new(TOKEN).map_err(|e| setup(&e))?;
    let config = ApiConfig::new(&emulator.base_url(), token).map_err(|e| setup(&e))?;
    let mut config = api_config(config, SHARE_PERCENT, BUCKET_PER_MINUTE);
    config.on_response = log.map(RequestLog::hook);
    let client = WriteClient::new(config).map_err(|e| setup(&e))?;
    let settings = Settings {
        interval,
        ..Settings::new(root.current())
    };
    let store = StateStore::new(Some(root.state_file()), root.current());
    Ok(Controller::new(
        Mode::ApplyMerged(client),
        settings,
        store,
        converged,
    ))
}

/// The folder's current revision kept in the state file as converged (a controller that
/// applied it before a restart), read back as the command reads it when it starts.
pub fn converged_now(root: &GitSyncRoot) -> Result<Converged, BenchError> {
    let snapshot =
        revision::read(&root.current()).map_err(|e| BenchError::step("reading DIR", e))?;
    let desired = dnscron_core::config::load_texts(&snapshot.files)
        .map_err(|d| BenchError::step("loading DIR", d))?;
    let converged = Converged {
        revision: snapshot.revision,
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        files: snapshot.files,
        desired,
    };
    let store = StateStore::new(Some(root.state_file()), root.current());
    store
        .save(&converged)
        .map_err(|e| BenchError::step("saving the state", e))?;
    store
        .load()
        .map_err(|e| BenchError::step("loading the state", e))?
        .ok_or_else(|| BenchError::step("loading the state", "nothing kept"))
}

/// What the observer has seen of the rounds so far.
#[derive(Clone, Debug, Default)]
pub struct Rounds {
    pub finished: u64,
    /// Parts of drift sweeps finished, and whole sweeps.
    pub sweep_parts: u64,
    pub sweeps: u64,
    /// The attempts (as [`RequestLog`] indexes) and the server's request count at the start
    /// and end of the last round that applied a revision.
    pub applied: Option<Applied>,
    /// Rounds that failed.
    pub failed: u64,
    /// The revision last converged, as the controller names it.
    pub converged: Option<String>,
    started_at_log: usize,
    started_at_server: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct Applied {
    pub log: (usize, usize),
    pub server: (u64, u64),
    pub converged: bool,
}

/// An observer for [`Controller::run`] that keeps [`Rounds`] in `rounds`.
fn follow(
    rounds: watch::Sender<Rounds>,
    log: RequestLog,
    emulator: EmulatorHandle,
) -> impl Fn(Event<'_>) + Send + Sync {
    move |event| match event {
        Event::RoundStarted { .. } => rounds.send_modify(|r| {
            r.started_at_log = log.len();
            r.started_at_server = emulator.counters().requests;
        }),
        Event::RoundFinished { report, status } => rounds.send_modify(|r| {
            r.finished += 1;
            r.sweeps = status.sweeps;
            r.converged = status.converged.as_ref().map(|c| c.id.clone());
            let failed = matches!(
                report.outcome,
                dnscron_core::controller::RoundOutcome::Failed(_)
            );
            r.failed += u64::from(failed);
            match &report.work {
                Work::Swept { .. } => r.sweep_parts += 1,
                Work::Applied { .. } => {
                    r.applied = Some(Applied {
                        log: (r.started_at_log, log.len()),
                        server: (r.started_at_server, emulator.counters().requests),
                        converged: !failed && status.converged == status.revision,
                    });
                }
                Work::Adopted | Work::Nothing => {}
            }
        }),
        Event::Alert { .. } | Event::Waiting { .. } => {}
    }
}

/// The resident set (VmRSS, KiB) and open file descriptors of this process.
pub fn resources() -> Result<(u64, usize), BenchError> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| BenchError::step("reading /proc/self/status", e))?;
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| BenchError::step("reading VmRSS", "no VmRSS line"))?;
    let fds = std::fs::read_dir("/proc/self/fd")
        .map_err(|e| BenchError::step("reading /proc/self/fd", e))?
        .count();
    Ok((rss, fds))
}

/// Runs `work` on tokio's paused clock; with the wall clock it took.
pub fn on_paused_clock<T>(
    work: impl Future<Output = Result<T, BenchError>>,
) -> Result<(T, Duration), BenchError> {
    let wall = std::time::Instant::now();
    let done = paused_runtime()?.block_on(work)?;
    Ok((done, wall.elapsed()))
}

/// The emulator on loopback, in the current runtime, holding `account` at the spec's bucket
/// with a domain registered for every zone.
pub async fn emulator(account: &Account) -> Result<Emulator, BenchError> {
    let seed = big_account::seed(account, RateLimit::default());
    dnscron_emulator::start(seed, std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .map_err(|e| BenchError::Setup(e.to_string()))
}

/// An observer for [`Controller::run`] and what it has seen, starting from nothing.
pub fn watched(
    log: &RequestLog,
    emulator: EmulatorHandle,
) -> (
    impl Fn(Event<'_>) + Send + Sync + use<>,
    watch::Receiver<Rounds>,
) {
    let (rounds, seen) = watch::channel(Rounds::default());
    (follow(rounds, log.clone(), emulator), seen)
}

/// A runtime on tokio's paused clock: sleeps and the rate limit's minutes take no real time.
pub fn paused_runtime() -> Result<tokio::runtime::Runtime, BenchError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .map_err(|e| BenchError::Setup(e.to_string()))
}
