//! Saved plans (`apply --plan FILE`, read with `plan_file::load`).
//!
//! A saved plan is not executed as it was saved: its embedded desired state is planned again
//! against the live state now, and that plan runs only when every change of it is one of the
//! saved plan's changes (`review::check`). So a saved plan can be re-run to finish after a
//! portal step or a partial failure, and records the files ignore never make it stale.

use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{self, DiffOptions, Plan, PlanError, PlanStamp};

/// The saved plan's desired state planned against `live`, the way the saved plan was made and
/// at its time (cron next runs are those the reviewer saw).
pub(crate) fn replan(saved: &Plan, live: &LiveSnapshot) -> Result<Plan, PlanError> {
    let opts = DiffOptions {
        stamp: PlanStamp {
            id: saved.plan_id.clone(),
            created_at: saved.created_at.clone(),
        },
        ..super::diff_options_for(saved)
    };
    plan::diff(&saved.desired, live, &opts)
}
