//! Saved plans (`apply --plan FILE`, read with `plan::file::load`).
//!
//! Freshness (docs/apply.md): every target's live fingerprint must equal the plan's. When one
//! differs, the plan is still accepted as "already applied" if re-planning the embedded desired
//! state against the live state finds nothing to do; otherwise it is stale and refused.

use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{self, Plan, PlanError, TargetRef, fingerprint};

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

pub fn check(saved: &Plan, live: &LiveSnapshot) -> Result<Freshness, PlanError> {
    let stale = fingerprint::stale_targets(saved, live);
    if stale.is_empty() {
        return Ok(Freshness::Fresh);
    }
    let replan = plan::diff(&saved.desired, live, &super::diff_options_for(saved))?;
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
