//! The plan file's top level (format_version 3): the plan's identity, the targets it read, the
//! summary and the findings. Every field is written in this order, as docs/plan.md shows it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::change::Change;
use super::desired::Desired;

/// A saved dnscron plan: what `dnscron plan --out FILE` and `--format json` write and
/// `dnscron apply --plan FILE` reads back.
// Serde names the type in its messages ("expected struct Plan"); those messages are the
// refusals `apply --plan` prints, so the name stays what it was before this type existed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "Plan")]
pub struct PlanFileV3 {
    /// The plan file's format. A reader refuses any other value; make a new plan.
    #[schemars(extend("const" = super::FORMAT_VERSION))]
    pub format_version: u32,
    /// 128 random bits, 32 lower-case hex digits; new for every plan, never derived from content.
    pub plan_id: String,
    /// When the plan was made: RFC 3339, UTC.
    pub created_at: String,
    /// The API base URL the plan was made against.
    pub api_url: String,
    /// What the plan was made with beyond the files; apply re-plans with the same.
    pub options: PlanOptions,
    /// Every zone, domain (registrar side) and site the plan read.
    pub targets: Vec<Target>,
    /// Changes by action.
    pub summary: Summary,
    /// In execution order.
    pub changes: Vec<Change>,
    /// What the reviewer should know that is not itself a change.
    pub findings: Vec<Finding>,
    /// The validated desired state the plan was made from; apply re-plans with it.
    pub desired: Desired,
    /// Present when the plan covers only the targets whose files changed since a commit:
    /// `desired` holds only their declarations, and apply reads only them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
}

/// What a plan limited to a change covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Scope {
    /// The git revision as given.
    pub since: String,
    /// The commit it named when the plan was made.
    pub commit: String,
    /// The zones, domains (nameserver mode) and sites declared, now or at the commit, in a file
    /// that changed.
    pub targets: Vec<TargetRef>,
}

/// The diff options a saved plan keeps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanOptions {
    /// The nameserver `mode` value that selects the service's own nameservers.
    pub hosted_mode_wire_value: String,
    /// The plan was made with the safety limits lifted (`--allow-mass-changes`); apply keeps
    /// the limits for a plan where this is `false`.
    pub allow_mass_changes: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    Zone,
    /// The registrar side of a domain (only with `nameservers:`).
    Domain,
    Site,
}

/// A zone, domain or site the plan read, with a fingerprint of what it read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Target {
    pub kind: TargetKind,
    pub name: String,
    /// `sha256:<hex>` over a canonical text of what was read for the target.
    pub fingerprint: String,
    /// `file:line:col` of the declaration.
    pub declared_at: String,
}

/// Which zone, domain or site a change or finding belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TargetRef {
    pub kind: TargetKind,
    pub name: String,
}

/// Changes by action; `portal_step` and `blocked` count changes with that status (also counted
/// under their action).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub create: usize,
    pub update: usize,
    pub delete: usize,
    pub portal_step: usize,
    pub blocked: usize,
}

/// Something the reviewer should know that is not itself a change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    pub target: TargetRef,
    pub severity: Severity,
    pub message: String,
    /// The ids of the changes this finding is about; absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub change_ids: Vec<usize>,
    /// `file:line:col` of what the finding is about, when a file declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_at: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    NeedsPortalStep,
    Blocked,
    Warning,
    Error,
}
