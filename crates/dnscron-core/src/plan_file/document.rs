//! The plan file's top level (format_version 5): the plan's identity, the targets it read, the
//! summary and the findings. Every field is written in this order, as docs/plan.md shows it.
//! `PlanFileV5` is its own type, converted from and to `plan::Plan` here: it writes its own
//! version, each change with its request, and the desired state as documents re-checked on
//! load. Its leaves (options, targets, summary, findings, scope) are the model's own.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::change::{Change, Request};
use super::desired::Desired;
use super::{FORMAT_VERSION, FromFileError, checks};
use crate::config;
use crate::plan::model::{self as plan, Finding, PlanOptions, Summary, Target};
use crate::plan::request::RequestError;
use crate::plan::{OverLimits, Scope};

/// A saved dnscron plan: what `dnscron plan --out FILE` and `--format json` write and
/// `dnscron apply --plan FILE` reads back.
// Serde names the type in its messages ("expected struct Plan"); those messages are the
// refusals `apply --plan` prints, so the name stays what it was before this type existed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename = "Plan")]
pub(crate) struct PlanFileV5 {
    /// The plan file's format. A reader refuses any other value; make a new plan.
    #[schemars(extend("const" = super::FORMAT_VERSION))]
    pub(crate) format_version: u32,
    /// 128 random bits, 32 lower-case hex digits; new for every plan, never derived from content.
    pub(crate) plan_id: String,
    /// When the plan was made: RFC 3339, UTC.
    pub(crate) created_at: String,
    /// The API base URL the plan was made against.
    pub(crate) api_url: String,
    /// What the plan was made with beyond the files; apply re-plans with the same.
    pub(crate) options: PlanOptions,
    /// The zones whose changes go past their safety limits, with every limit each passes: only
    /// in a plan made with the limits lifted (`options.allow_mass_changes`), and what that
    /// approval covers. Absent: no zone goes past a limit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) over_limits: Vec<OverLimits>,
    /// Every zone, domain (registrar side) and site the plan read.
    pub(crate) targets: Vec<Target>,
    /// Changes by action.
    pub(crate) summary: Summary,
    /// In execution order.
    pub(crate) changes: Vec<Change>,
    /// What the reviewer should know that is not itself a change.
    pub(crate) findings: Vec<Finding>,
    /// The validated desired state the plan was made from; apply re-plans with it.
    pub(crate) desired: Desired,
    /// Present when the plan covers only the targets whose files changed since a commit:
    /// `desired` holds only their declarations, and apply reads only them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) scope: Option<Scope>,
}

// Inherent functions, not `TryFrom`: a public trait impl would make this crate-private document
// part of the public API (`unnameable_types`); callers go through `to_json` and `load`.
impl PlanFileV5 {
    /// The model → the file. The plan is taken apart field by field (no `..`), so a field added
    /// to the model fails to compile here until someone decides whether the file carries it (and
    /// bumps `FORMAT_VERSION` if so). Fails only for a change that names no request (which no
    /// planner makes).
    pub(crate) fn of(p: &plan::Plan) -> Result<Self, RequestError> {
        let plan::Plan {
            plan_id,
            created_at,
            api_url,
            options,
            targets,
            summary,
            changes,
            findings,
            desired,
            scope,
            over_limits,
        } = p;
        let changes = changes
            .iter()
            .map(|c| Change::of(c, options))
            .collect::<Result<_, _>>()?;
        Ok(PlanFileV5 {
            format_version: FORMAT_VERSION,
            plan_id: plan_id.clone(),
            created_at: created_at.clone(),
            api_url: api_url.clone(),
            options: options.clone(),
            over_limits: over_limits.clone(),
            targets: targets.clone(),
            summary: *summary,
            changes,
            findings: findings.clone(),
            desired: Desired::of(desired),
            scope: scope.clone(),
        })
    }

    /// The file → the model, checked: a value that deserialized is not yet a plan apply may run.
    /// Every change must have the data its request needs and show the request it derives, and
    /// the desired state goes through the YAML loader's rules again (derived values such as
    /// canonical contents are recomputed, never trusted from the file).
    pub(crate) fn into_plan(self) -> Result<plan::Plan, FromFileError> {
        let PlanFileV5 {
            format_version,
            plan_id,
            created_at,
            api_url,
            options,
            over_limits,
            targets,
            summary,
            changes,
            findings,
            desired,
            scope,
        } = self;
        if format_version != FORMAT_VERSION {
            return Err(FromFileError::UnsupportedFormat {
                found: format_version,
            });
        }
        checks::plan_id(&plan_id).map_err(FromFileError::PlanId)?;
        checks::api_url(&api_url).map_err(FromFileError::ApiUrl)?;
        if let Some(s) = &scope {
            checks::scope(&s.since, &s.commit).map_err(FromFileError::Scope)?;
        }
        let (changes, requests): (Vec<plan::Change>, Vec<Request>) =
            changes.into_iter().map(Change::into_model).unzip();
        for (index, (c, written)) in changes.iter().zip(&requests).enumerate() {
            written.check(index, c, &options)?;
        }
        let desired =
            config::revalidate(&desired.into_unchecked()).map_err(FromFileError::Desired)?;
        Ok(plan::Plan {
            plan_id,
            created_at,
            api_url,
            options,
            targets,
            summary,
            changes,
            findings,
            desired,
            scope,
            over_limits,
        })
    }
}
