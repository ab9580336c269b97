//! Saved plans (`plan --out FILE`, `apply --plan FILE`).
//!
//! The file is the plan's JSON (format_version 1, docs/plan.md) plus one top-level key apply
//! needs: `desired`, the validated desired state the plan was made from (every zone and site
//! document), so apply can re-plan for the stale check, for verification and for repairs
//! without the files.
//!
//! Freshness (docs/apply.md): every target's live fingerprint must equal the plan's. When one
//! differs, the plan is still accepted as "already applied" if re-planning the embedded desired
//! state against the live state finds nothing to do; otherwise it is stale and refused.

use serde_json::Value;

use crate::config::model::Desired;
use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{self, Plan, PlanError, TargetRef, fingerprint};

pub const DESIRED_KEY: &str = "desired";

#[derive(Clone, Debug, PartialEq)]
pub struct SavedPlan {
    pub plan: Plan,
    pub desired: Desired,
}

impl SavedPlan {
    pub fn new(plan: Plan, desired: Desired) -> SavedPlan {
        SavedPlan { plan, desired }
    }

    /// The file's text: pretty JSON with a final newline.
    pub fn to_json(&self) -> Result<String, PlanError> {
        let bad = |e: serde_json::Error| PlanError::BadPlanFile {
            message: format!("cannot serialize the plan: {e}"),
        };
        let mut value = serde_json::to_value(&self.plan).map_err(bad)?;
        if let Value::Object(map) = &mut value {
            map.insert(
                DESIRED_KEY.into(),
                serde_json::to_value(&self.desired).map_err(bad)?,
            );
        }
        let mut text = serde_json::to_string_pretty(&value).map_err(bad)?;
        text.push('\n');
        Ok(text)
    }

    /// Reads a file written by `plan --out` (or `plan --format json`); a plan without
    /// `desired` is refused with what to do.
    pub fn from_json(text: &str) -> Result<SavedPlan, PlanError> {
        let plan = Plan::from_json(text)?;
        let mut value: Value = serde_json::from_str(text).map_err(|e| PlanError::BadPlanFile {
            message: e.to_string(),
        })?;
        let desired = value
            .get_mut(DESIRED_KEY)
            .map(Value::take)
            .ok_or_else(|| PlanError::BadPlanFile {
                message: "it has no `desired` section, which `apply --plan` needs (was it made by another tool or an older dnscron?)".into(),
            })?;
        let desired: Desired =
            serde_json::from_value(desired).map_err(|e| PlanError::BadPlanFile {
                message: format!("its `desired` section is not valid: {e}"),
            })?;
        Ok(SavedPlan { plan, desired })
    }
}

/// Whether a saved plan may run against `live`.
#[derive(Clone, Debug, PartialEq)]
pub enum Freshness {
    /// Every fingerprint matches: execute.
    Fresh,
    /// Fingerprints differ but the live state already is what the plan produces: send nothing.
    AlreadyApplied,
    /// Refuse: these targets changed since the plan was made.
    Stale(Vec<TargetRef>),
}

pub fn check(saved: &SavedPlan, live: &LiveSnapshot) -> Result<Freshness, PlanError> {
    let stale = fingerprint::stale_targets(&saved.plan, live);
    if stale.is_empty() {
        return Ok(Freshness::Fresh);
    }
    let replan = plan::diff(&saved.desired, live, &super::diff_options_for(&saved.plan))?;
    if replan.is_empty() {
        Ok(Freshness::AlreadyApplied)
    } else {
        Ok(Freshness::Stale(stale))
    }
}

/// "plan is stale: zone example.com changed since the plan was made" (every stale target).
pub fn stale_message(targets: &[TargetRef]) -> String {
    let names: Vec<String> = targets.iter().map(ToString::to_string).collect();
    format!(
        "plan is stale: {} changed since the plan was made",
        names.join(", ")
    )
}
