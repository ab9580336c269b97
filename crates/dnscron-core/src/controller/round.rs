//! One round of the controller (docs/controller.md, "Rounds"): look at the folder, then do the
//! one thing most worth the API's time: a new revision's changes first, else the next part of
//! the drift sweep. Every outcome is data; nothing here waits between rounds (`run.rs` does).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use crate::apply::dns::DnsOptions;
use crate::apply::workflow::{Execution, LeftAlone, Refusal, Workflow};
use crate::apply::{ApplyReport, ApplyResult, Interrupt, Silent};
use crate::config::model::Desired;
use crate::dnscheck::AddressBook;
use crate::plan::{Change, MakePlanError, PlanError, TargetRef};
use dnscron_api::{ReadClient, WriteClient, payload};

use super::backoff::{self, Backoff};
use super::report::{
    Broken, KeptOutReason, RoundError, RoundOutcome, RoundReport, Status, Trigger, Work,
};
use super::requeue::Requeue;
use super::revision::{self, AdoptError, Probe, Revision};
use super::state::{Converged, StateStore};
use super::sweep::Cursor;
use super::targets;

/// What the controller may do, with the client that allows exactly that: under observe it
/// holds a [`ReadClient`], which has no write method.
pub enum Mode {
    /// Never writes: drift and findings reported.
    Observe(ReadClient),
    /// Applies what merged (the difference between the last converged revision and the new
    /// one); drift reported, never reverted.
    ApplyMerged(WriteClient),
    /// Also reverts drift, within the safety limits.
    Heal(WriteClient),
}

impl Mode {
    pub(super) fn read(&self) -> &ReadClient {
        match self {
            Mode::Observe(read) => read,
            Mode::ApplyMerged(write) | Mode::Heal(write) => write.read(),
        }
    }

    pub(super) fn writes(&self) -> bool {
        match self {
            Mode::Observe(_) => false,
            Mode::ApplyMerged(_) | Mode::Heal(_) => true,
        }
    }
}

/// How a controller runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The folder as the user named it (a git-sync link, a ConfigMap mount, a checkout).
    pub dir: PathBuf,
    /// Between two drift sweeps (each drawn with ±10 % jitter).
    pub interval: Duration,
    /// Writes are suspended while this file exists.
    pub suspend_file: Option<PathBuf>,
    /// Also suspends writes while it exists: in a controller of several accounts, the file that
    /// suspends them all (`suspend_file` is then the account's own).
    pub shared_suspend_file: Option<PathBuf>,
    /// On a first start (no converged revision), the revision whose whole difference may be
    /// applied: someone reviewed it. Any other revision is taken as the base.
    pub adopt_revision: Option<String>,
    /// How often the folder is looked at for a new revision.
    pub poll: Duration,
    /// Waits before re-reading a write not visible yet (`apply::verify`).
    pub visibility_waits: Vec<Duration>,
    /// Apply's gate before a switch to custom nameservers: the new nameservers are asked
    /// whether they serve the zone, and a switch they don't serve is not sent (the revision
    /// waits, pending). `None`: switches are sent unchecked, as `apply` is told to. The
    /// post-apply wait is never run by a controller (it is a report, not a gate).
    pub dns: Option<DnsOptions>,
    /// What names a revision of the folder.
    pub identity: Identity,
}

/// What names a revision of the folder the controller reconciles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Identity {
    /// The commit checked out when the folder is in a git repository, else the files' digest.
    Checkout,
    /// The digest of the folder's files, even in a repository: an account's folder in a
    /// repository of several, where a commit that changes another account's files is no new
    /// revision of this one (nothing is read or applied for it).
    Files,
}

impl Settings {
    /// The defaults for the folder `dir`: a sweep every 5 minutes, the folder looked at every
    /// second, nothing suspended or adopted.
    pub fn new(dir: PathBuf) -> Settings {
        Settings {
            dir,
            interval: DEFAULT_INTERVAL,
            suspend_file: None,
            shared_suspend_file: None,
            adopt_revision: None,
            poll: Duration::from_secs(1),
            visibility_waits: crate::apply::VISIBILITY_WAITS.to_vec(),
            dns: Some(readiness_check(AddressBook::new(Vec::new()))),
            identity: Identity::Checkout,
        }
    }
}

/// The nameserver switch check alone (no post-apply wait), reaching nameservers through `book`.
pub fn readiness_check(book: AddressBook) -> DnsOptions {
    DnsOptions {
        wait: Duration::ZERO,
        allow_unready: false,
        ..DnsOptions::new(book)
    }
}

/// Between two drift sweeps: a 300-zone account's sweep takes about 10 minutes at half the
/// bucket, so drift is seen within about 15 minutes; a small account's every 5.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5 * 60);

/// Requests kept free in the budget while a sweep reads, so a new revision's changes go first
/// without waiting (a one-record revision costs 3 to 5).
pub(super) const REVISION_RESERVE: u32 = 12;
/// What a sweep reads per target, about: a zone's records page and its domain's registration.
pub(super) const COST_PER_TARGET: u32 = 2;

/// The last revision of the folder that loaded.
pub(super) struct Files {
    pub(super) revision: Revision,
    pub(super) files: Vec<(PathBuf, String)>,
    pub(super) desired: Desired,
}

/// A revision the controller tried and did not converge: when it is tried again. The sweep and
/// newer revisions go on meanwhile; nothing retries it in a loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Waiting {
    pub(super) id: String,
    pub(super) until: Until,
    /// Failed attempts in a row (the backoff's count); 0 for a pending or kept-out revision.
    pub(super) failures: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Until {
    /// Kept out (held, past the limits): trying again changes nothing until someone asks
    /// (SIGHUP: the finding fixed, the mass change applied by a reviewed `apply`) or the next
    /// revision comes.
    Asked,
    /// Pending (a portal step, nameservers not ready: at the next interval) or failed (after
    /// its backoff), or when someone asks.
    Due(Instant),
}

/// What a round does, chosen in one place ([`Controller::phase`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// No revision of the files loaded yet: nothing to do.
    Idle,
    /// First start: the files' revision becomes the base the next one is applied from.
    Baseline,
    /// A revision's changes: a new revision, or one whose turn came again.
    Revision,
    /// First start told to adopt a revision, the folder holding another: the round fails
    /// (backed off, retried), never taking the folder's revision as the base.
    AdoptMoved,
    /// The next part of the drift sweep.
    Sweep,
}

pub struct Controller {
    pub(super) mode: Mode,
    pub(super) settings: Settings,
    pub(super) store: StateStore,
    pub(super) files: Option<Files>,
    last_probe: Option<Probe>,
    pub(super) converged: Option<Converged>,
    pub(super) status: Status,
    pub(super) cursor: Cursor,
    /// The account's domain listing read when the sweep began: every part's plan uses it
    /// instead of reading it again.
    pub(super) sweep_domains: Option<Arc<Vec<payload::Domain>>>,
    pub(super) waiting: Option<Waiting>,
    /// Rounds failed in a row: the wait before the next one.
    pub(super) backoff: Backoff,
    /// When the next drift sweep is due (the first at once; each next one an interval after
    /// the last ended).
    pub(super) sweep_due: Instant,
    /// Raised to stop: the executor stops after the change in flight.
    pub(super) interrupt: Arc<Interrupt>,
    /// Set while a round's writes are under way (a stop then waits for the one in flight).
    pub(super) writing: Arc<AtomicBool>,
}

impl Controller {
    /// A controller starting from `converged`, what `store` kept (`None`: a first start, also
    /// when the caller could not read the state file: nothing is then written that the
    /// controller can't attribute to a revision it saw converge).
    pub fn new(
        mode: Mode,
        settings: Settings,
        store: StateStore,
        converged: Option<Converged>,
    ) -> Controller {
        let status = Status {
            converged: converged.as_ref().map(|c| c.revision.clone()),
            ..Status::default()
        };
        Controller {
            mode,
            settings,
            store,
            files: None,
            last_probe: None,
            converged,
            status,
            cursor: Cursor::default(),
            sweep_domains: None,
            waiting: None,
            backoff: Backoff::default(),
            sweep_due: Instant::now(),
            interrupt: Arc::new(Interrupt::new()),
            writing: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Raise it to stop (SIGTERM): a round that is writing finishes the change in flight.
    pub fn interrupt(&self) -> Arc<Interrupt> {
        Arc::clone(&self.interrupt)
    }

    /// Whether the folder holds another revision than the one last read (cheap: no file is
    /// read but git's HEAD).
    pub(super) fn folder_moved(&self) -> bool {
        match revision::probe(&self.settings.dir) {
            Ok(probe) => self.last_probe.as_ref() != Some(&probe),
            // Unreadable now: the next round reads it and reports why.
            Err(_) => self.last_probe.is_some(),
        }
    }

    pub(super) fn suspended(&self) -> bool {
        [
            &self.settings.suspend_file,
            &self.settings.shared_suspend_file,
        ]
        .into_iter()
        .flatten()
        .any(|f| f.exists())
    }

    /// Runs one round: looks at the folder, does the one thing its `Phase` says, and says
    /// when the next round is due (`Requeue`).
    pub async fn round(&mut self, trigger: Trigger) -> (RoundReport, Requeue) {
        let started = Instant::now();
        self.status.suspended = self.suspended();
        let (work, outcome) = match self.refresh_files() {
            Err(error) => (Work::Nothing, RoundOutcome::Failed(error)),
            Ok(()) => match self.phase(trigger, started) {
                Phase::Idle => (Work::Nothing, RoundOutcome::Converged),
                Phase::Baseline => self.take_as_base(),
                Phase::AdoptMoved => (Work::Adopted, RoundOutcome::Failed(self.adopt_moved())),
                Phase::Revision => self.apply_revision().await,
                Phase::Sweep => self.sweep_part().await,
            },
        };
        self.status.consecutive_failures = match &outcome {
            RoundOutcome::Failed(_) => self.status.consecutive_failures.saturating_add(1),
            RoundOutcome::Converged
            | RoundOutcome::Drift
            | RoundOutcome::Baseline
            | RoundOutcome::Pending(_)
            | RoundOutcome::Held(_)
            | RoundOutcome::Refused(_)
            | RoundOutcome::Conflicted => 0,
        };
        let report = RoundReport {
            trigger,
            work,
            outcome,
            duration: started.elapsed(),
            finished_at: now_rfc3339(),
        };
        let requeue = self.requeue(&report);
        (report, requeue)
    }

    /// The one thing this round does: a revision not converged when it is its turn (a new one
    /// at once; one pending or failed when it is due; one kept out when someone asks), else
    /// the next part of the drift sweep. Suspended, the sweep goes on reading.
    fn phase(&self, trigger: Trigger, now: Instant) -> Phase {
        let Some(files) = &self.files else {
            return Phase::Idle;
        };
        let unapplied = self.mode.writes()
            && self.converged.as_ref().map(|c| &c.revision) != Some(&files.revision);
        let its_turn = match &self.waiting {
            Some(waiting) if waiting.id == files.revision.id => {
                trigger == Trigger::Signal || matches!(waiting.until, Until::Due(due) if due <= now)
            }
            Some(_) | None => true,
        };
        let adopting = self.settings.adopt_revision.as_deref();
        match (
            unapplied && its_turn && !self.status.suspended,
            &self.converged,
            adopting,
        ) {
            (false, _, _) => Phase::Sweep,
            (true, None, None) => Phase::Baseline,
            (true, None, Some(named)) if named != files.revision.id => Phase::AdoptMoved,
            (true, _, _) => Phase::Revision,
        }
    }

    /// The error of a first start whose folder no longer holds the revision named to adopt.
    fn adopt_moved(&self) -> RoundError {
        RoundError::Adopt(Box::new(AdoptError::Moved {
            adopted: self.settings.adopt_revision.clone().unwrap_or_default(),
            current: self
                .files
                .as_ref()
                .map(|f| f.revision.id.clone())
                .unwrap_or_default(),
        }))
    }

    /// The revision `id` is tried again after a backoff of its own: failures in a row double
    /// it, as for rounds.
    pub(super) fn retry_later(&mut self, id: String) {
        let failures = match &self.waiting {
            Some(waiting) if waiting.id == id => waiting.failures.saturating_add(1),
            Some(_) | None => 1,
        };
        let wait = backoff::bound(failures).mul_f64(0.5 + 0.5 * fastrand::f64());
        self.waiting = Some(Waiting {
            id,
            until: Until::Due(Instant::now() + wait),
            failures,
        });
    }

    /// Reads the folder when it moved. A revision that does not load is kept out: the last
    /// good one stays in use (the round goes on with it), the broken one is reported with its
    /// located errors until a newer revision loads; without a good one the round fails.
    fn refresh_files(&mut self) -> Result<(), RoundError> {
        let probe = revision::probe(&self.settings.dir)?;
        if self.files.is_some() && self.last_probe.as_ref() == Some(&probe) {
            return Ok(());
        }
        let mut snapshot = revision::read(&self.settings.dir)?;
        match self.settings.identity {
            Identity::Checkout => {}
            Identity::Files => {
                snapshot.revision = Revision {
                    id: snapshot.content_digest.clone(),
                    source: revision::RevisionSource::Digest,
                };
            }
        }
        self.last_probe = Some(snapshot.probe);
        if self
            .files
            .as_ref()
            .is_some_and(|f| f.revision == snapshot.revision)
        {
            self.status.broken = None;
            return Ok(());
        }
        let desired = match crate::config::load_texts(&snapshot.files) {
            Ok(desired) => desired,
            Err(diagnostics) => {
                let error = RoundError::Files {
                    revision: snapshot.revision.id.clone(),
                    diagnostics: Box::new(diagnostics.clone()),
                };
                self.status.broken = Some(Broken {
                    revision: snapshot.revision,
                    diagnostics: Box::new(diagnostics),
                });
                return match self.files {
                    Some(_) => Ok(()),
                    None => Err(error),
                };
            }
        };
        self.status.broken = None;
        self.status.revision = Some(snapshot.revision.clone());
        self.cursor.retarget(targets::declared(&desired));
        self.status.sweep_done = self.cursor.done();
        self.status.sweep_total = self.cursor.total();
        self.forget_undeclared();
        self.files = Some(Files {
            revision: snapshot.revision,
            files: snapshot.files,
            desired,
        });
        Ok(())
    }

    /// Drift and findings of targets the new revision no longer declares are no longer known.
    fn forget_undeclared(&mut self) {
        let declared = self.cursor.declared();
        self.status.drift.retain(|t, _| declared.contains(t));
        self.status.unapplied.retain(|t, _| declared.contains(t));
        self.status.findings.retain(|t, _| declared.contains(t));
    }
}

/// How a refusal ends a round, and why it keeps the revision out until the next one (held, or
/// past the safety limits: trying again changes nothing) rather than failing the round.
pub(super) fn refusal_outcome(refusal: Refusal) -> (Option<KeptOutReason>, RoundOutcome) {
    match &refusal {
        Refusal::HeldByFinding { .. } => (
            Some(KeptOutReason::Held),
            RoundOutcome::Held(Box::new(refusal)),
        ),
        Refusal::LimitsHeld { .. } => (
            Some(KeptOutReason::Refused),
            RoundOutcome::Refused(Box::new(refusal)),
        ),
        Refusal::MakePlan(inner) if is_unsafe(inner) => (
            Some(KeptOutReason::Refused),
            RoundOutcome::Refused(Box::new(refusal)),
        ),
        Refusal::Union(_)
        | Refusal::ApiUrl { .. }
        | Refusal::Unreviewed { .. }
        | Refusal::Plan(_)
        | Refusal::MakePlan(_) => (
            None,
            RoundOutcome::Failed(RoundError::Apply(Box::new(refusal))),
        ),
    }
}

/// Every change of the apply is in effect.
pub(super) fn in_effect(result: &ApplyResult) -> bool {
    match result {
        ApplyResult::Converged
        | ApplyResult::NoChanges
        | ApplyResult::AlreadyApplied
        | ApplyResult::ChangedDuringApply { .. } => true,
        ApplyResult::NeedsPortalStep { .. }
        | ApplyResult::CronIndexMoved { .. }
        | ApplyResult::NameserversNotReady { .. }
        | ApplyResult::Failed { .. }
        | ApplyResult::Differs { .. }
        | ApplyResult::VerifyFailed { .. }
        | ApplyResult::NotVisible { .. }
        | ApplyResult::Interrupted
        | ApplyResult::ChangedSinceReview { .. } => false,
    }
}

fn is_unsafe(err: &MakePlanError) -> bool {
    matches!(err, MakePlanError::Plan(PlanError::Unsafe(_)))
}

impl Controller {
    pub(super) async fn execute(
        &self,
        workflow: Workflow<'_>,
    ) -> Result<(ApplyReport, LeftAlone), Refusal> {
        run_workflow(
            workflow,
            &self.interrupt,
            &self.writing,
            &self.settings.visibility_waits,
            &self.settings.dns,
        )
        .await
    }
}

/// Prepares and runs an apply, telling `writing` while its writes are under way.
async fn run_workflow(
    workflow: Workflow<'_>,
    interrupt: &Interrupt,
    writing: &Arc<AtomicBool>,
    visibility_waits: &[Duration],
    dns: &Option<DnsOptions>,
) -> Result<(ApplyReport, LeftAlone), Refusal> {
    let prepared = workflow.prepare().await?;
    let left_alone = prepared.left_alone().clone();
    let flag = Arc::clone(writing);
    let before_writing = move || flag.store(true, Ordering::SeqCst);
    let mut execution = Execution::new(&Silent);
    execution.interrupt = Some(interrupt);
    execution.visibility_waits = visibility_waits.to_vec();
    execution.before_writing = Some(&before_writing);
    execution.dns = dns.clone();
    let report = prepared.run(&execution).await;
    writing.store(false, Ordering::SeqCst);
    Ok((report?, left_alone))
}

pub(super) fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub(super) fn push(
    map: &mut std::collections::BTreeMap<TargetRef, Vec<Change>>,
    target: &TargetRef,
    change: Change,
) {
    map.entry(target.clone()).or_default().push(change);
}
