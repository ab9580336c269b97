//! One round of the controller (docs/controller.md, "Rounds"): look at the folder, then do the
//! one thing most worth the API's time: a new revision's changes first, else the next part of
//! the drift sweep. Every outcome is data; nothing here waits between rounds (`run.rs` does).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::time::Instant;

use crate::api::{ReadClient, WriteClient, payload};
use crate::apply::workflow::{Binding, Execution, LeftAlone, Refusal, Workflow};
use crate::apply::{ApplyReport, ApplyResult, Interrupt, Silent};
use crate::config::model::Desired;
use crate::plan::{
    AccountCheck, Change, Finding, MakeOptions, MakePlanError, PlanError, PlanStamp, TargetRef,
    account_findings, make_plan,
};

use super::report::{Pending, RoundError, RoundOutcome, RoundReport, Status, Trigger, Work};
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
    fn read(&self) -> &ReadClient {
        match self {
            Mode::Observe(read) => read,
            Mode::ApplyMerged(write) | Mode::Heal(write) => write.read(),
        }
    }

    fn writes(&self) -> bool {
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
const COST_PER_TARGET: u32 = 2;

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
    store: StateStore,
    pub(super) files: Option<Files>,
    last_probe: Option<Probe>,
    converged: Option<Converged>,
    pub(super) status: Status,
    pub(super) sweep: Vec<TargetRef>,
    /// The account's domain listing read when the sweep began: every part's plan uses it
    /// instead of reading it again.
    sweep_domains: Option<Arc<Vec<payload::Domain>>>,
    pub(super) waiting: Option<Waiting>,
    /// Raised to stop: the executor stops after the change in flight.
    pub(super) interrupt: Arc<Interrupt>,
    /// Set while a round's writes are under way (a stop then waits for the one in flight).
    pub(super) writing: Arc<AtomicBool>,
}

impl Controller {
    /// A controller starting from what `store` kept (see [`Controller::start`] for a state
    /// file that can't be read).
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

    /// A new revision under apply or heal.
    async fn apply_revision(&mut self) -> (Work, RoundOutcome) {
        let Some(files) = &self.files else {
            return (Work::Nothing, RoundOutcome::Converged);
        };
        let desired = files.desired.clone();
        let revision = files.revision.clone();
        let (binding, targets) = match (&self.mode, &self.converged) {
            (Mode::Observe(_), _) => return self.sweep_part().await,
            (Mode::ApplyMerged(_) | Mode::Heal(_), None) => {
                if self.settings.adopt_revision.as_deref() != Some(revision.id.as_str()) {
                    return self.take_as_base();
                }
                (Binding::Nothing, targets::declared(&desired))
            }
            (Mode::ApplyMerged(_), Some(base)) => (
                Binding::Merged(base.desired.clone()),
                targets::changed(&base.desired, &desired),
            ),
            (Mode::Heal(_), Some(base)) => {
                (Binding::Nothing, targets::changed(&base.desired, &desired))
            }
        };
        let client = match &self.mode {
            Mode::ApplyMerged(client) | Mode::Heal(client) => client,
            Mode::Observe(_) => return self.sweep_part().await,
        };
        let from = self.converged.as_ref().map(|c| c.revision.id.as_str());
        let stamp = stamp_of(from.unwrap_or(""), &revision.id);
        let mut workflow = Workflow::files(client, desired, binding);
        workflow.changed = Some(targets::scope("revision", &revision.id, targets.clone()));
        workflow.stamp = stamp;
        let executed = self.execute(workflow).await;
        self.after_revision(revision, targets, executed)
    }

    /// First start: the files' revision is the base the next one is applied from; nothing is
    /// written (the next sweep reports what differs as drift).
    fn take_as_base(&mut self) -> (Work, RoundOutcome) {
        let outcome = match self.converge() {
            Ok(()) => RoundOutcome::Converged,
            Err(error) => RoundOutcome::Failed(error),
        };
        (Work::Adopted, outcome)
    }

    /// The files' revision is the converged one from now on.
    fn converge(&mut self) -> Result<(), RoundError> {
        let Some(files) = &self.files else {
            return Ok(());
        };
        let converged = Converged {
            revision: files.revision.clone(),
            at: now_rfc3339(),
            files: files.files.clone(),
            desired: files.desired.clone(),
        };
        self.status.converged = Some(converged.revision.clone());
        self.status.unapplied.clear();
        self.waiting = None;
        self.status.pending = None;
        let saved = self.store.save(&converged);
        self.converged = Some(converged);
        saved.map_err(RoundError::from)
    }

    fn after_revision(
        &mut self,
        revision: Revision,
        targets: Vec<TargetRef>,
        executed: Result<(ApplyReport, LeftAlone), Refusal>,
    ) -> (Work, RoundOutcome) {
        let (report, left_alone) = match executed {
            Ok(done) => done,
            Err(refusal) => return self.refused(revision, targets, refusal),
        };
        for target in &targets {
            self.status.drift.remove(target);
        }
        for change in &left_alone.changes {
            push(&mut self.status.drift, &change.target, change.clone());
        }
        let outcome = match &report.result {
            // Someone changed a written value again during the apply: the revision's writes
            // were made; what moved is drift, which the next sweep reads.
            ApplyResult::Converged
            | ApplyResult::NoChanges
            | ApplyResult::AlreadyApplied
            | ApplyResult::ChangedDuringApply { .. } => match self.converge() {
                Ok(()) if left_alone.changes.is_empty() => RoundOutcome::Converged,
                Ok(()) => RoundOutcome::Drift,
                Err(error) => RoundOutcome::Failed(error),
            },
            ApplyResult::NeedsPortalStep { continue_url, .. } => self.pending(
                revision,
                Pending::PortalStep {
                    continue_url: continue_url.clone(),
                },
            ),
            ApplyResult::NameserversNotReady { .. } => self.pending(revision, Pending::Nameservers),
            ApplyResult::Failed { .. }
            | ApplyResult::Differs { .. }
            | ApplyResult::VerifyFailed { .. }
            | ApplyResult::NotVisible { .. }
            | ApplyResult::Interrupted
            | ApplyResult::CronIndexMoved { .. }
            | ApplyResult::ChangedSinceReview { .. } => {
                RoundOutcome::Failed(RoundError::NotConverged(Box::new(report.clone())))
            }
        };
        let work = Work::Applied {
            targets,
            report: Some(Box::new(report)),
            left_alone,
        };
        (work, outcome)
    }

    fn pending(&mut self, revision: Revision, pending: Pending) -> RoundOutcome {
        self.waiting = Some(Waiting::Pending(revision.id));
        self.status.pending = Some(pending.clone());
        RoundOutcome::Pending(pending)
    }

    /// A revision the apply refused: held or past the limits (kept out until the next
    /// revision), or a failure to read (tried again after the backoff).
    fn refused(
        &mut self,
        revision: Revision,
        targets: Vec<TargetRef>,
        refusal: Refusal,
    ) -> (Work, RoundOutcome) {
        let work = Work::Applied {
            targets,
            report: None,
            left_alone: LeftAlone::default(),
        };
        let (kept_out, outcome) = refusal_outcome(refusal);
        if kept_out {
            self.waiting = Some(Waiting::KeptOut(revision.id));
        }
        (work, outcome)
    }

    /// The next part of the drift sweep: as many targets as the API budget has room for (all
    /// of them without a budget), and the account's listings when a sweep begins.
    async fn sweep_part(&mut self) -> (Work, RoundOutcome) {
        let Some(files) = &self.files else {
            return (Work::Nothing, RoundOutcome::Converged);
        };
        let desired = files.desired.clone();
        let revision = files.revision.id.clone();
        if self.status.sweep_done >= self.sweep.len() {
            self.status.sweep_done = 0;
        }
        if self.status.sweep_done == 0
            && let Err(error) = self.read_account(&desired).await
        {
            return (Work::Nothing, RoundOutcome::Failed(error));
        }
        let part = self.next_part();
        let scope = targets::scope("sweep", &revision, part.clone());
        let heal = match &self.mode {
            Mode::Heal(client) if !self.status.suspended => Some(client),
            Mode::Heal(_) | Mode::Observe(_) | Mode::ApplyMerged(_) => None,
        };
        let (changes, findings, healed, refusal) = match heal {
            Some(client) => {
                let mut workflow = Workflow::files(client, desired.clone(), Binding::Nothing);
                workflow.changed = Some(scope.clone());
                match self.execute(workflow).await {
                    Ok((report, _)) if in_effect(&report.result) => {
                        (Vec::new(), Vec::new(), Some(Box::new(report)), None)
                    }
                    Ok((report, _)) => {
                        let error = RoundError::NotConverged(Box::new(report));
                        return (Work::Nothing, RoundOutcome::Failed(error));
                    }
                    Err(refusal) => match self.read_part(&desired, &scope).await {
                        Ok((changes, findings)) => (changes, findings, None, Some(refusal)),
                        Err(error) => return (Work::Nothing, RoundOutcome::Failed(error)),
                    },
                }
            }
            None => match self.read_part(&desired, &scope).await {
                Ok((changes, findings)) => (changes, findings, None, None),
                Err(error) => return (Work::Nothing, RoundOutcome::Failed(error)),
            },
        };
        self.record_part(&part, changes, findings);
        self.status.sweep_done += part.len();
        if self.status.sweep_done >= self.sweep.len() {
            self.status.sweeps += 1;
        }
        let work = Work::Swept {
            targets: part,
            healed,
        };
        let outcome = match refusal {
            Some(refusal) => refusal_outcome(refusal).1,
            None if self.status.drift.is_empty() && self.status.unapplied.is_empty() => {
                RoundOutcome::Converged
            }
            None => RoundOutcome::Drift,
        };
        (work, outcome)
    }

    async fn read_account(&mut self, desired: &Desired) -> Result<(), RoundError> {
        let check = AccountCheck {
            folders: vec![self.settings.dir.display().to_string()],
        };
        let today = Some(chrono::Utc::now().date_naive());
        let findings = account_findings(self.mode.read(), desired, &check, today)
            .await
            .map_err(|e| RoundError::Account(Box::new(e)))?;
        self.status.account_findings = findings.findings;
        self.sweep_domains = Some(findings.domains);
        Ok(())
    }

    /// The targets of the next part: at least one, at most what the budget has room for
    /// beside the reserve for a new revision.
    fn next_part(&self) -> Vec<TargetRef> {
        let left = &self.sweep[self.status.sweep_done.min(self.sweep.len())..];
        let fits = match self.mode.read().budget_room() {
            None => left.len(),
            Some(room) => (room.saturating_sub(REVISION_RESERVE) / COST_PER_TARGET) as usize,
        };
        left[..fits.clamp(1, left.len().max(1)).min(left.len())].to_vec()
    }

    /// Whether the budget has room for a worthwhile next part of a sweep under way: half the
    /// share beyond the reserve (or all that is left to read), so the sweep goes in a few big
    /// parts rather than many one-target ones, each of which costs its round; else the loop
    /// waits for room rather than spend the reserve.
    pub(super) fn room_for_part(&self) -> bool {
        let read = self.mode.read();
        let (Some(room), Some(budget)) = (read.budget_room(), read.budget()) else {
            return true;
        };
        let left = self.sweep.len().saturating_sub(self.status.sweep_done);
        let left_cost = u32::try_from(left)
            .unwrap_or(u32::MAX)
            .saturating_mul(COST_PER_TARGET);
        let half_share = budget.per_minute.saturating_sub(REVISION_RESERVE) / 2;
        let wanted = half_share.min(left_cost).max(COST_PER_TARGET);
        room >= REVISION_RESERVE + wanted
    }

    /// A sweep is under way (begun, not finished).
    pub(super) fn sweeping(&self) -> bool {
        self.status.sweep_done > 0 && self.status.sweep_done < self.sweep.len()
    }

    /// What a part of the sweep found, replacing what earlier sweeps knew of its targets. A
    /// difference on a target a revision not yet converged changes is that revision's, not
    /// drift.
    fn record_part(&mut self, part: &[TargetRef], changes: Vec<Change>, findings: Vec<Finding>) {
        let unapplied = match (&self.converged, &self.files) {
            (Some(base), Some(files)) if base.revision != files.revision && self.mode.writes() => {
                targets::changed(&base.desired, &files.desired)
            }
            _ => Vec::new(),
        };
        for target in part {
            self.status.drift.remove(target);
            self.status.unapplied.remove(target);
            self.status.findings.remove(target);
        }
        for change in changes {
            let map = match unapplied.contains(&change.target) {
                true => &mut self.status.unapplied,
                false => &mut self.status.drift,
            };
            let target = change.target.clone();
            push(map, &target, change);
        }
        for finding in findings {
            let target = finding.target.clone();
            self.status
                .findings
                .entry(target)
                .or_default()
                .push(finding);
        }
    }
}

fn push(
    map: &mut std::collections::BTreeMap<TargetRef, Vec<Change>>,
    target: &TargetRef,
    change: Change,
) {
    map.entry(target.clone()).or_default().push(change);
}

/// How a refusal ends a round, and whether it keeps the revision out until the next one (held,
/// or past the safety limits: trying again changes nothing) rather than failing the round.
fn refusal_outcome(refusal: Refusal) -> (bool, RoundOutcome) {
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
fn in_effect(result: &ApplyResult) -> bool {
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
    async fn execute(&self, workflow: Workflow<'_>) -> Result<(ApplyReport, LeftAlone), Refusal> {
        run_workflow(
            workflow,
            &self.interrupt,
            &self.writing,
            &self.settings.visibility_waits,
        )
        .await
    }

    /// A part's differences and findings, read only, with the sweep's domain listing.
    async fn read_part(
        &self,
        desired: &Desired,
        scope: &crate::plan::Scope,
    ) -> Result<(Vec<Change>, Vec<Finding>), RoundError> {
        let options = MakeOptions {
            // Drift is reported whatever its size; only writes keep to the limits.
            allow_mass_changes: true,
            scope: Some(scope.clone()),
            domains: self.sweep_domains.clone(),
            ..MakeOptions::default()
        };
        let planned = make_plan(self.mode.read(), desired, &options)
            .await
            .map_err(|e| RoundError::Read(Box::new(e)))?;
        Ok((planned.plan.changes, planned.plan.findings))
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

/// The plan id of the apply from revision `from` to `to`: the same for every try of the same
/// step, so a write retried after a crash or a restart sends the key it sent before (the
/// server answers it from its record instead of writing twice).
fn stamp_of(from: &str, to: &str) -> PlanStamp {
    let mut hash = Sha256::new();
    hash.update(b"dnscron controller\0");
    hash.update(from.as_bytes());
    hash.update([0]);
    hash.update(to.as_bytes());
    let digest = hash.finalize();
    let id: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    PlanStamp {
        id,
        created_at: now_rfc3339(),
    }
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
