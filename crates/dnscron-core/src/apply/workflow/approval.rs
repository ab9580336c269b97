//! Mass-change approvals of reviewed plans (docs/apply.md, "Mass changes"). A plan made with
//! the safety limits lifted records it (`options.allow_mass_changes`), and its reviewer saw
//! that: the approval covers that plan's changes and no other. When several reviewed plans are
//! applied as one, the plan made now is made with the limits lifted as soon as one of them was
//! approved, and the limits are then checked again on the changes no approved plan holds, zone
//! by zone, as the diff counts them (`plan::safety::check_changes`).

use std::collections::HashSet;

use crate::apply::review::MatchKey;
use crate::plan::safety::{self, OverLimits};
use crate::plan::{Change, Plan, Planned};

/// What the reviewed plans (and the caller) approved.
pub(super) struct Approval {
    /// The caller lifted the limits, or every reviewed plan was approved.
    everything: bool,
    /// The changes of the approved plans, when not `everything`.
    approved: HashSet<MatchKey>,
}

impl Approval {
    pub(super) fn of(reviewed: &[Plan], lifted_by_caller: bool) -> Approval {
        let everything = lifted_by_caller || reviewed.iter().all(|p| p.options.allow_mass_changes);
        let approved = match everything {
            true => HashSet::new(),
            false => reviewed
                .iter()
                .filter(|p| p.options.allow_mass_changes)
                .flat_map(|p| p.changes.iter().map(MatchKey::of))
                .collect(),
        };
        Approval {
            everything,
            approved,
        }
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
