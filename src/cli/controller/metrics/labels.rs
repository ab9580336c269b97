//! The label values of the controller's metrics: closed lists, each written the one way the
//! dashboards and alert rules spell it (docs/controller.md). prometheus-client's derive writes a
//! variant's Rust name (`Converged`), so each enum writes its value through `as_str`, an
//! exhaustive match: a new variant can't reach the exposition unnamed.

use std::fmt::Write as _;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};

/// Why a round started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Trigger {
    /// The first round after the process started.
    Start,
    /// The interval elapsed.
    Interval,
    /// DIR holds a new revision.
    Revision,
    /// SIGHUP asked for a round.
    Signal,
    /// A retry after a failed round, once its backoff elapsed.
    Retry,
}

impl Trigger {
    /// Every trigger, so each series exists (at 0) from the first scrape: `rate()` and
    /// `increase()` need a sample before the first increment.
    pub const ALL: [Self; 5] = [
        Self::Start,
        Self::Interval,
        Self::Revision,
        Self::Signal,
        Self::Retry,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Interval => "interval",
            Self::Revision => "revision",
            Self::Signal => "signal",
            Self::Retry => "retry",
        }
    }
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RoundOutcome {
    /// The account matches the files.
    Converged,
    /// Differences left that the policy doesn't write.
    Drift,
    /// A revision waits at a portal step.
    Pending,
    /// Writes held back (suspended, or refused by a safety limit or an error finding).
    Held,
    /// The round failed (API, files, state file).
    Error,
}

impl RoundOutcome {
    /// Every outcome, so each series exists (at 0) from the first scrape.
    pub const ALL: [Self; 5] = [
        Self::Converged,
        Self::Drift,
        Self::Pending,
        Self::Held,
        Self::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Converged => "converged",
            Self::Drift => "drift",
            Self::Pending => "pending",
            Self::Held => "held",
            Self::Error => "error",
        }
    }
}

/// Where a revision id comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RevisionSource {
    /// A git commit id, read from `.git`.
    Git,
    /// A digest of the files' contents (DIR is no git checkout).
    Digest,
}

impl RevisionSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Git => "git",
            Self::Digest => "digest",
        }
    }
}

/// What kind of live state differs from the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DriftKind {
    /// Records of a zone.
    Record,
    /// A domain's nameservers at the registrar.
    Nameservers,
    /// A site's cron jobs.
    Cron,
    /// A zone, domain or site of the account that no file declares.
    Undeclared,
}

impl DriftKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Record => "record",
            Self::Nameservers => "nameservers",
            Self::Cron => "cron",
            Self::Undeclared => "undeclared",
        }
    }
}

/// Why the folder's newest revision is not the one applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeptOut {
    /// Its files don't load (invalid YAML, a failed validation).
    Broken,
    /// An unaccepted error finding holds one of its changes.
    Held,
    /// Its changes (or a heal's reverts) go past the safety limits.
    Refused,
}

impl KeptOut {
    /// Every reason, so each series exists (at 0) from the first scrape: an alert's `for`
    /// starts from a sample, not from a series that appears.
    pub const ALL: [Self; 3] = [Self::Broken, Self::Held, Self::Refused];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Broken => "broken",
            Self::Held => "held",
            Self::Refused => "refused",
        }
    }
}

/// A finding's severity, as the findings gauge labels it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Level {
    Error,
    Warning,
    Info,
}

impl Level {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// One `impl EncodeLabelValue` per enum, each through its `as_str`.
macro_rules! label_value_as_str {
    ($($enum:ty),+) => {$(
        impl EncodeLabelValue for $enum {
            fn encode(&self, encoder: &mut LabelValueEncoder) -> std::fmt::Result {
                encoder.write_str(self.as_str())
            }
        }
    )+};
}

label_value_as_str!(
    Trigger,
    RoundOutcome,
    RevisionSource,
    DriftKind,
    KeptOut,
    Level
);

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct KeptOutLabel {
    pub(super) reason: KeptOut,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct BuildLabels {
    pub(super) version: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct OutcomeLabel {
    pub(super) outcome: RoundOutcome,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct TriggerLabel {
    pub(super) trigger: Trigger,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct RevisionLabels {
    pub(super) revision: String,
    pub(super) source: RevisionSource,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct DriftLabels {
    pub(super) target: String,
    pub(super) kind: DriftKind,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct LevelLabel {
    pub(super) level: Level,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct ApiLabels {
    pub(super) method: String,
    pub(super) route: String,
    pub(super) status: String,
}
