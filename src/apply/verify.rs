//! After the last change: read the touched targets again and re-plan them. An empty plan means
//! converged; anything left is either a stale replay (a stored success whose effect is not in
//! the live state now) or a change someone else made meanwhile.

use std::collections::BTreeSet;

use crate::api::ReadClient;
use crate::config::model::Desired;
use crate::plan::{self, Change, DiffOptions, Plan, TargetKind, TargetRef};

use super::outcome::ErrorInfo;

/// The part of `desired` that declares `targets` (a zone's document covers its zone and its
/// domain's nameservers).
pub fn restrict(desired: &Desired, targets: &BTreeSet<TargetRef>) -> Desired {
    let has = |kind: TargetKind, name: &str| {
        targets
            .iter()
            .any(|t| t.kind == kind && t.name.eq_ignore_ascii_case(name))
    };
    Desired {
        zones: desired
            .zones
            .iter()
            .filter(|z| {
                has(TargetKind::Zone, z.zone.as_str()) || has(TargetKind::Domain, z.zone.as_str())
            })
            .cloned()
            .collect(),
        sites: desired
            .sites
            .iter()
            .filter(|s| has(TargetKind::Site, &s.slug))
            .cloned()
            .collect(),
    }
}

/// The targets `changes` touch.
pub fn touched(changes: &[Change]) -> BTreeSet<TargetRef> {
    changes.iter().map(|c| c.target.clone()).collect()
}

/// Re-reads the live state of `desired`'s targets and plans them again. Safety limits are off:
/// the plan being verified already passed them, and what remains is a subset of it.
pub async fn replan(
    client: &ReadClient,
    desired: &Desired,
    opts: &DiffOptions,
) -> Result<Plan, ErrorInfo> {
    let live = plan::snapshot::fetch(client, desired)
        .await
        .map_err(|e| ErrorInfo::internal(e.to_string()))?;
    let opts = DiffOptions {
        allow_mass_changes: true,
        ..opts.clone()
    };
    plan::diff(desired, &live, &opts).map_err(|e| ErrorInfo::internal(e.to_string()))
}
