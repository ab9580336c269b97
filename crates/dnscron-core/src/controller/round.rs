//! One round of the controller (docs/controller.md, "Rounds"): look at the folder, then do the
//! one thing most worth the API's time: a new revision's changes first, else the next part of
//! the drift sweep. Every outcome is data; nothing here waits between rounds (`run.rs` does).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use crate::api::{ReadClient, WriteClient, payload};
use crate::apply::workflow::{Execution, LeftAlone, Refusal, Workflow};
use crate::apply::{ApplyReport, ApplyResult, Interrupt, Silent};
use crate::config::model::Desired;
use crate::plan::{Change, MakePlanError, PlanError, TargetRef};

use super::report::{RoundError, RoundOutcome, RoundReport, Status, Trigger, Work};
use super::revision::{self, Probe, Revision};
use super::state::{Converged, StateStore};
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
    /// On a first start (no converged revision), the revision whose whole difference may be
    /// applied: someone reviewed it. Any other revision is taken as the base.
    pub adopt_revision: Option<String>,
    /// How often the folder is looked at for a new revision.
    pub poll: Duration,
    /// Waits before re-reading a write not visible yet (`apply::verify`).
    pub visibility_waits: Vec<Duration>,
}

impl Settings {
    /// The defaults for the folder `dir`: a sweep every 5 minutes, the folder looked at every
    /// second, nothing suspended or adopted.
    pub fn new(dir: PathBuf) -> Settings {
        Settings {
            dir,
            interval: DEFAULT_INTERVAL,
            suspend_file: None,
            adopt_revision: None,
            poll: Duration::from_secs(1),
            visibility_waits: crate::apply::VISIBILITY_WAITS.to_vec(),
        }
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

/// Why the files' revision is not being applied right now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Waiting {
    /// Held or refused: kept out until the next revision.
    KeptOut(String),
    /// At a portal step or waiting for nameservers: tried again each interval.
    Pending(String),
}

pub struct Controller {
    pub(super) mode: Mode,
    pub(super) settings: Settings,
    pub(super) store: StateStore,
    pub(super) files: Option<Files>,
    last_probe: Option<Probe>,
    pub(super) converged: Option<Converged>,
    pub(super) status: Status,
    pub(super) sweep: Vec<TargetRef>,
    /// The account's domain listing read when the sweep began: every part's plan uses it
    /// instead of reading it again.
    pub(super) sweep_domains: Option<Arc<Vec<payload::Domain>>>,
    pub(super) waiting: Option<Waiting>,
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
            sweep: Vec::new(),
            sweep_domains: None,
            waiting: None,
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
        self.settings
            .suspend_file
            .as_ref()
            .is_some_and(|f| f.exists())
    }

    /// Runs one round.
    pub async fn round(&mut self, trigger: Trigger) -> RoundReport {
        let started = Instant::now();
        self.status.suspended = self.suspended();
        // A pending revision is tried again each interval; one kept out (held, or past the
        // limits) when someone asks (SIGHUP: the finding was fixed in the portal, or the mass
        // change applied by a reviewed `apply`) or when the next revision comes.
        let retry = match (&self.waiting, trigger) {
            (Some(Waiting::Pending(_)), Trigger::Interval | Trigger::Signal) => true,
            (Some(Waiting::KeptOut(_)), Trigger::Signal) => true,
            (Some(Waiting::Pending(_) | Waiting::KeptOut(_)) | None, _) => false,
        };
        if retry {
            self.waiting = None;
        }
        let (work, outcome) = match self.refresh_files() {
            Err(error) => (Work::Nothing, RoundOutcome::Failed(error)),
            Ok(()) => self.work().await,
        };
        self.status.consecutive_failures = match &outcome {
            RoundOutcome::Failed(_) => self.status.consecutive_failures.saturating_add(1),
            RoundOutcome::Converged
            | RoundOutcome::Drift
            | RoundOutcome::Pending(_)
            | RoundOutcome::Held(_)
            | RoundOutcome::Refused(_) => 0,
        };
        RoundReport {
            trigger,
            work,
            outcome,
            duration: started.elapsed(),
            finished_at: now_rfc3339(),
        }
    }

    /// Reads the folder when it moved; a revision that does not load is kept out (the last
    /// good one stays in use) and fails this round.
    fn refresh_files(&mut self) -> Result<(), RoundError> {
        let probe = revision::probe(&self.settings.dir)?;
        if self.files.is_some() && self.last_probe.as_ref() == Some(&probe) {
            return Ok(());
        }
        let snapshot = revision::read(&self.settings.dir)?;
        self.last_probe = Some(snapshot.probe);
        if self
            .files
            .as_ref()
            .is_some_and(|f| f.revision == snapshot.revision)
        {
            self.status.broken = None;
            return Ok(());
        }
        let desired = crate::config::load_texts(&snapshot.files).map_err(|diagnostics| {
            self.status.broken = Some(snapshot.revision.clone());
            RoundError::Files {
                revision: snapshot.revision.id.clone(),
                diagnostics: Box::new(diagnostics),
            }
        })?;
        self.status.broken = None;
        self.status.revision = Some(snapshot.revision.clone());
        self.sweep = targets::declared(&desired);
        self.status.sweep_done = 0;
        self.status.sweep_total = self.sweep.len();
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
        let declared = &self.sweep;
        self.status.drift.retain(|t, _| declared.contains(t));
        self.status.unapplied.retain(|t, _| declared.contains(t));
        self.status.findings.retain(|t, _| declared.contains(t));
    }

    async fn work(&mut self) -> (Work, RoundOutcome) {
        let Some(files) = &self.files else {
            return (Work::Nothing, RoundOutcome::Converged);
        };
        let applied = self.converged.as_ref().map(|c| &c.revision);
        let waiting_for = match &self.waiting {
            Some(Waiting::KeptOut(id) | Waiting::Pending(id)) => Some(id),
            None => None,
        };
        let new_revision = self.mode.writes()
            && applied != Some(&files.revision)
            && waiting_for != Some(&files.revision.id);
        // Suspended, the sweep goes on reading (and reports the revision as not applied).
        match new_revision && !self.status.suspended {
            true => self.apply_revision().await,
            false => self.sweep_part().await,
        }
    }
}

/// How a refusal ends a round, and whether it keeps the revision out until the next one (held,
/// or past the safety limits: trying again changes nothing) rather than failing the round.
pub(super) fn refusal_outcome(refusal: Refusal) -> (bool, RoundOutcome) {
    match &refusal {
        Refusal::HeldByFinding { .. } => (true, RoundOutcome::Held(Box::new(refusal))),
        Refusal::LimitsHeld { .. } => (true, RoundOutcome::Refused(Box::new(refusal))),
        Refusal::MakePlan(inner) if is_unsafe(inner) => {
            (true, RoundOutcome::Refused(Box::new(refusal)))
        }
        Refusal::Union(_)
        | Refusal::ApiUrl { .. }
        | Refusal::Unreviewed { .. }
        | Refusal::Plan(_)
        | Refusal::MakePlan(_) => (
            false,
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
) -> Result<(ApplyReport, LeftAlone), Refusal> {
    let prepared = workflow.prepare().await?;
    let left_alone = prepared.left_alone().clone();
    let flag = Arc::clone(writing);
    let before_writing = move || flag.store(true, Ordering::SeqCst);
    let mut execution = Execution::new(&Silent);
    execution.interrupt = Some(interrupt);
    execution.visibility_waits = visibility_waits.to_vec();
    execution.before_writing = Some(&before_writing);
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
