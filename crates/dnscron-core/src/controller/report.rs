//! What a round did and what the controller knows of the account, as data: the binary draws
//! them (logs, `/status`, metrics, the webhook) and words every error.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::apply::workflow::{LeftAlone, Refusal};
use crate::apply::{ApplyReport, Moved};
use crate::config::Diagnostics;
use crate::plan::snapshot::SnapshotError;
use crate::plan::{Change, Finding, MakePlanError, TargetRef};

use super::revision::{AdoptError, Revision, RevisionError};
use super::state::StateError;

/// Why a round started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The first round of the process.
    Start,
    /// The interval passed (or a drift sweep goes on with its next part).
    Interval,
    /// The folder holds a new revision.
    Revision,
    /// Someone asked (SIGHUP).
    Signal,
    /// The suspend file appeared or went away (looked at as often as the folder).
    SuspendFile,
    /// The wait after a failed round passed.
    Retry,
}

impl Trigger {
    /// Every trigger, in the order of [`Trigger::name`].
    pub const ALL: [Trigger; 6] = [
        Trigger::Start,
        Trigger::Interval,
        Trigger::Revision,
        Trigger::Signal,
        Trigger::SuspendFile,
        Trigger::Retry,
    ];

    /// The one name of the trigger: `/status`, the logs and the metrics' label use it.
    pub fn name(self) -> &'static str {
        match self {
            Trigger::Start => "start",
            Trigger::Interval => "interval",
            Trigger::Revision => "revision",
            Trigger::Signal => "signal",
            Trigger::SuspendFile => "suspend_file",
            Trigger::Retry => "retry",
        }
    }
}

/// The one thing a round did.
#[derive(Debug)]
pub enum Work {
    /// No converged revision yet: the files' revision is taken as the base, nothing written.
    Adopted,
    /// A revision's changes over `targets`: the apply's report (`None`: refused before
    /// anything was sent, the outcome says why); under the default policy, what it left alone.
    Applied {
        targets: Vec<TargetRef>,
        report: Option<Box<ApplyReport>>,
        left_alone: LeftAlone,
    },
    /// A part of the drift sweep: `targets` read (and under heal, reverted: `healed`).
    Swept {
        targets: Vec<TargetRef>,
        healed: Option<Box<ApplyReport>>,
    },
    /// Nothing to do before the next round (a revision that failed to load, and no good one).
    Nothing,
}

/// How a round ended.
#[derive(Debug)]
pub enum RoundOutcome {
    /// Everything the round looked at is as the files say.
    Converged,
    /// Drift (or findings) left, reported.
    Drift,
    /// First start: the files' revision was taken as the base the next one is applied from;
    /// nothing was read or written, so nothing is known to be in effect yet.
    Baseline,
    /// A change of the revision was left alone because the live value moved from what the
    /// previous revision declared ([`Status::conflicts`]): kept out, tried again each interval,
    /// until the next revision, a heal or a fix in the portal settles it.
    Conflicted,
    /// A revision waits: at a portal step (its changes kept, applied after the step), or for
    /// new nameservers to serve its zones.
    Pending(Pending),
    /// The revision holds a change an error finding holds: kept out, the last converged one
    /// stays.
    Held(Box<Refusal>),
    /// Writes past the safety limits (a mass revert under heal, or a revision's mass change):
    /// refused and reported, never done.
    Refused(Box<Refusal>),
    /// The round failed; the next one comes after the backoff.
    Failed(RoundError),
}

impl RoundOutcome {
    /// Every outcome's name, in the order of [`RoundOutcome::name`].
    pub const NAMES: [&'static str; 8] = [
        "converged",
        "drift",
        "baseline",
        "pending",
        "held",
        "refused",
        "conflicted",
        "error",
    ];

    /// The one name of the outcome: `/status`, the metrics' label, the logs and the webhook
    /// use it.
    pub fn name(&self) -> &'static str {
        match self {
            RoundOutcome::Converged => "converged",
            RoundOutcome::Drift => "drift",
            RoundOutcome::Baseline => "baseline",
            RoundOutcome::Pending(_) => "pending",
            RoundOutcome::Held(_) => "held",
            RoundOutcome::Refused(_) => "refused",
            RoundOutcome::Conflicted => "conflicted",
            RoundOutcome::Failed(_) => "error",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pending {
    PortalStep { continue_url: String },
    Nameservers,
}

/// Why a round failed. The controller keeps the last good revision and goes on.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error(transparent)]
    Revision(#[from] RevisionError),
    /// The files of the folder's revision don't load.
    #[error("the files of revision {revision} are not valid")]
    Files {
        revision: String,
        diagnostics: Box<Diagnostics>,
    },
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Read(Box<MakePlanError>),
    #[error(transparent)]
    Account(Box<SnapshotError>),
    #[error(transparent)]
    Apply(Box<Refusal>),
    /// The writes stopped before every change was in effect (the report says where).
    #[error("the apply did not converge")]
    NotConverged(Box<ApplyReport>),
    /// A first start told to adopt a revision finds the folder holding another one.
    #[error(transparent)]
    Adopt(Box<AdoptError>),
}

impl RoundError {
    /// What kind of failure this is, for "told once": the same kind round after round is one
    /// condition, whatever request ids or counts its words carry.
    pub fn kind(&self) -> &'static str {
        match self {
            RoundError::Revision(_) => "revision",
            RoundError::Files { .. } => "files",
            RoundError::State(_) => "state",
            RoundError::Read(_) => "read",
            RoundError::Account(_) => "account",
            RoundError::Apply(_) => "apply",
            RoundError::NotConverged(_) => "not-converged",
            RoundError::Adopt(_) => "adopt",
        }
    }
}

/// One round.
#[derive(Debug)]
pub struct RoundReport {
    pub trigger: Trigger,
    pub work: Work,
    pub outcome: RoundOutcome,
    pub duration: Duration,
    /// RFC 3339, UTC.
    pub finished_at: String,
}

/// What the controller knows after its last round: the whole account as far as the current
/// sweep has read it.
#[derive(Debug, Default)]
pub struct Status {
    /// The revision of the files in use (the last that loaded).
    pub revision: Option<Revision>,
    /// The last revision that converged (the one applied).
    pub converged: Option<Revision>,
    /// The folder's newest revision, when it does not load, with its located errors: kept
    /// out, the last good revision staying in use, until a newer revision loads.
    pub broken: Option<Broken>,
    pub pending: Option<Pending>,
    /// A revision that loads but is kept out (held, refused, conflicted), and why.
    pub kept_out: Option<KeptOut>,
    /// The changes of the revision kept out as conflicted: each with the value the previous
    /// revision declared (`expected`), the live one, and the change (its `after` is the value
    /// the revision declares).
    pub conflicts: Vec<Moved>,
    pub suspended: bool,
    /// Differences between the files and the account nobody merged, by target: reported, and
    /// reverted only under heal.
    pub drift: BTreeMap<TargetRef, Vec<Change>>,
    /// Differences a revision not yet converged makes (held, refused or pending): not drift.
    pub unapplied: BTreeMap<TargetRef, Vec<Change>>,
    /// Findings of the targets read, by target, and of the account as a whole.
    pub findings: BTreeMap<TargetRef, Vec<Finding>>,
    pub account_findings: Vec<Finding>,
    /// The current sweep: targets read so far, of how many.
    pub sweep_done: usize,
    pub sweep_total: usize,
    /// Full sweeps finished.
    pub sweeps: u64,
    pub consecutive_failures: u32,
}

impl Status {
    /// Findings not accepted, of every target and the account.
    pub fn open_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .values()
            .flatten()
            .chain(&self.account_findings)
            .filter(|f| f.accepted.is_none())
    }

    pub fn drift_changes(&self) -> usize {
        self.drift.values().map(Vec::len).sum()
    }
}

/// A revision of the folder that does not load.
#[derive(Debug)]
pub struct Broken {
    pub revision: Revision,
    /// Every problem, each with its `file:line:col` where it has one.
    pub diagnostics: Box<Diagnostics>,
}

/// A revision that loads and is not applied until something changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptOut {
    pub revision: Revision,
    pub reason: KeptOutReason,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptOutReason {
    /// A change is held by an unaccepted error finding of the files.
    Held,
    /// Its changes go past a zone's safety limits.
    Refused,
    /// A change would overwrite a value that moved since the previous revision.
    Conflicted,
}

impl KeptOutReason {
    /// Every reason, in the order of [`KeptOutReason::name`].
    pub const ALL: [KeptOutReason; 3] = [
        KeptOutReason::Held,
        KeptOutReason::Refused,
        KeptOutReason::Conflicted,
    ];

    /// The same name as the round outcome that keeps it out.
    pub fn name(self) -> &'static str {
        match self {
            KeptOutReason::Held => "held",
            KeptOutReason::Refused => "refused",
            KeptOutReason::Conflicted => "conflicted",
        }
    }
}

/// A condition told once when it starts (or changes) and once when it clears.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AlertKind {
    /// Drift in the account after a whole sweep.
    Drift,
    /// Unaccepted error findings after a whole sweep.
    Findings,
    /// Rounds fail.
    Failing,
    /// The folder's newest revision does not load.
    BrokenRevision,
    /// A revision is kept out by an error finding.
    Held,
    /// A revision is kept out: a change of it would overwrite a value that moved.
    Conflicted,
    /// Writes past the safety limits were refused.
    Refused,
    /// A revision waits at a portal step or for nameservers.
    Pending,
    /// Writes are suspended.
    Suspended,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    Raised,
    /// Raised before, and what it is about changed.
    Changed,
    Cleared,
}

/// What the controller tells its front end, as it happens.
#[derive(Debug)]
pub enum Event<'a> {
    RoundStarted {
        trigger: Trigger,
    },
    RoundFinished {
        report: &'a RoundReport,
        status: &'a Status,
    },
    Alert {
        kind: AlertKind,
        transition: Transition,
        status: &'a Status,
        /// The round that raised or cleared it.
        report: &'a RoundReport,
    },
    /// The loop waits this long before the next round (the next interval, a backoff, room in
    /// the API budget), unless a revision or a signal comes first.
    Waiting {
        wait: Duration,
        reason: WaitReason,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitReason {
    Interval,
    Backoff,
    Budget,
}
