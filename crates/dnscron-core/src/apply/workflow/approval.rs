//! Mass-change approvals of reviewed plans (docs/apply.md, "Mass changes"). The caller of the
//! apply approves, plan by plan ([`super::ReviewedPlan::mass_changes_approved`]): a plan file's own
//! record (`options.allow_mass_changes`) is what its reviewer saw, but it was written by whoever
//! made the file (in CI, a pull request's run, which uses the pull request's own copy of the
//! workflow), so it never lifts a limit by itself. An approval covers that plan's changes and no
//! other. When several reviewed plans are applied as one, the plan made now is made with the
//! limits lifted as soon as one of them is approved, and the limits are then checked again on
//! the changes no approved plan holds, zone by zone, as the diff counts them
//! (`plan::safety::check_changes`).

use std::collections::HashSet;

use crate::apply::review::MatchKey;
use crate::plan::safety::{self, OverLimits};
use crate::plan::{Change, Planned};

use super::ReviewedPlan;

/// What the reviewed plans (and the caller) approved.
pub(super) struct Approval {
    /// The caller lifted the limits, or approved every reviewed plan.
    everything: bool,
    /// The changes of the approved plans, when not `everything`.
    approved: HashSet<MatchKey>,
}

impl Approval {
    pub(super) fn of(reviewed: &[ReviewedPlan], lifted_by_caller: bool) -> Approval {
        let everything = lifted_by_caller || reviewed.iter().all(|p| p.mass_changes_approved);
        let approved = match everything {
            true => HashSet::new(),
            false => reviewed
                .iter()
                .filter(|p| p.mass_changes_approved)
                .flat_map(|p| p.plan.changes.iter().map(MatchKey::of))
                .collect(),
        };
        Approval {
            everything,
            approved,
        }
    }

    /// Whether every change may go past the limits (the caller lifted them, or approved every
    /// reviewed plan).
    pub(super) fn everything(&self) -> bool {
        self.everything
    }

    /// Whether the plan made now is made with the limits lifted (then [`Approval::held`] checks
    /// what no approval covers).
    pub(super) fn lifts_limits(&self) -> bool {
        self.everything || !self.approved.is_empty()
    }

    /// The limits the changes of `planned` that no approved plan holds go past.
    pub(super) fn held(&self, planned: &Planned) -> Vec<OverLimits> {
        if self.everything || self.approved.is_empty() {
            // Lifted for all, or made with the limits: the diff has decided already.
            return Vec::new();
        }
        let unapproved: Vec<&Change> = planned
            .plan
            .changes
            .iter()
            .filter(|c| !self.approved.contains(&MatchKey::of(c)))
            .collect();
        safety::check_changes(&planned.plan.desired, &planned.live, &unapproved)
    }
}
