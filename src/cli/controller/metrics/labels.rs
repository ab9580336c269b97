//! The label values of the controller's metrics: closed lists, each written the one way the
//! dashboards and alert rules spell it (docs/controller.md). A round's outcome, its trigger and
//! why a revision is kept out are the core's names (`RoundOutcome::name`, `Trigger::name`,
//! `KeptOutReason::name`), the words `/status`, the logs and the webhook use. The metrics' own
//! lists are enums written through `as_str`, an exhaustive match: prometheus-client's derive
//! would write a variant's Rust name (`Record`), and a new variant can't reach the exposition
//! unnamed.

use std::fmt::Write as _;

use dnscron_core::controller::KeptOutReason;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};

/// The `reason` of `dnscron_controller_revision_kept_out` for a revision whose files don't load;
/// the others are the core's `KeptOutReason::name`s.
pub const BROKEN: &str = "broken";

/// Every `reason` of the kept-out gauge.
pub(super) fn kept_out_reasons() -> impl Iterator<Item = &'static str> {
    std::iter::once(BROKEN).chain(KeptOutReason::ALL.map(KeptOutReason::name))
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

label_value_as_str!(RevisionSource, DriftKind, Level);

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct KeptOutLabel {
    pub(super) reason: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct BuildLabels {
    pub(super) version: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct OutcomeLabel {
    pub(super) outcome: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, EncodeLabelSet)]
pub(super) struct TriggerLabel {
    pub(super) trigger: &'static str,
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

/// Whose series: an account of a repository of several (`account="NAME"`), or, for a controller
/// of one account, none (no label at all, so its series are those of before several accounts
/// were possible). Names come from `dnscron-accounts.yaml`: as many values as accounts.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct AccountLabel(Option<std::sync::Arc<str>>);

impl AccountLabel {
    pub(super) fn named(name: &str) -> Self {
        Self(Some(std::sync::Arc::from(name)))
    }
}

impl EncodeLabelSet for AccountLabel {
    fn encode(
        &self,
        encoder: &mut prometheus_client::encoding::LabelSetEncoder,
    ) -> std::fmt::Result {
        match &self.0 {
            Some(name) => [("account", &**name)].encode(encoder),
            None => Ok(()),
        }
    }
}
