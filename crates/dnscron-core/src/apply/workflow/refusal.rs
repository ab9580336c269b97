//! Why an apply refused to send anything: typed, with the data the binary words it from.

use crate::apply::review_union::UnionError;
use crate::plan::held::Held;
use crate::plan::snapshot::SnapshotError;
use crate::plan::{Change, MakePlanError, PlanError};

/// An apply that sent nothing because its binding refused it (or planning failed).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The reviewed plans can't be one.
    #[error(transparent)]
    Union(#[from] UnionError),
    /// A plan made against one API must not be applied to another.
    #[error("the plan was made against {plan_url} but the API URL is {api_url}")]
    ApiUrl { plan_url: String, api_url: String },
    /// Changes needed now that no reviewed change allows.
    #[error("{} change(s) needed now are not among the reviewed changes; nothing was sent", changes.len())]
    Unreviewed {
        reviewed_by: ReviewedBy,
        changes: Vec<Change>,
    },
    /// Changes an error finding judged from the files holds, none of them accepted
    /// (`plan::held`): a plan is applied whole or not at all, so nothing was sent.
    #[error("{} change(s) are held by error findings; nothing was sent", held.len())]
    HeldByFinding { held: Vec<Held>, plan: HeldIn },
    /// The changes of a saved or reviewed plan break the safety limits, and no plan that
    /// records them lifted holds them (its reviewer did not approve them).
    #[error("{error}")]
    LimitsHeld {
        reviewed_by: ReviewedBy,
        #[source]
        error: PlanError,
    },
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Reading the live state or planning failed (boxed: it is large, and rare).
    #[error(transparent)]
    MakePlan(Box<MakePlanError>),
}

impl From<MakePlanError> for Refusal {
    fn from(err: MakePlanError) -> Self {
        Refusal::MakePlan(Box::new(err))
    }
}

impl From<SnapshotError> for Refusal {
    fn from(err: SnapshotError) -> Self {
        MakePlanError::Snapshot(err).into()
    }
}

/// Which plan holds the changes of [`Refusal::HeldByFinding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldIn {
    /// The plan made now, from the files (or from a saved plan's own desired state).
    Now,
    /// A reviewed or saved plan, as it was made: it can't be applied, whatever the files say
    /// now, since its reviewer saw the change held.
    Reviewed,
}

impl HeldIn {
    /// Refuses `plan` when it holds a change.
    pub(super) fn check(self, plan: &crate::plan::Plan) -> Result<(), Refusal> {
        let held = crate::plan::held::held(plan);
        match held.is_empty() {
            true => Ok(()),
            false => Err(Refusal::HeldByFinding { held, plan: self }),
        }
    }
}

/// What the changes made now were bound to, for whoever words an unreviewed change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewedBy {
    /// The plan a person confirmed.
    Shown,
    /// Reviewed plan files, matched against the desired state of files given now (which may
    /// hold other reviewed plans' changes too).
    Files,
    /// A saved plan, re-planned from its own desired state.
    Saved,
    /// The previous revision of the desired state.
    Revision,
}

impl Refusal {
    /// A saved plan's re-plan failed: the safety limits it kept are a refusal of their own.
    pub(super) fn of_replan(err: PlanError) -> Refusal {
        match err {
            PlanError::Unsafe(_) => Refusal::LimitsHeld {
                reviewed_by: ReviewedBy::Saved,
                error: err,
            },
            PlanError::MissingLive { .. } | PlanError::IncompleteSnapshot { .. } => {
                Refusal::Plan(err)
            }
        }
    }

    /// Planning against reviewed plans failed: the safety limits they kept are a refusal of
    /// their own (no reviewer approved going past them).
    pub(super) fn of_reviewed_plan(err: MakePlanError) -> Refusal {
        match err {
            MakePlanError::Plan(error @ PlanError::Unsafe(_)) => Refusal::LimitsHeld {
                reviewed_by: ReviewedBy::Files,
                error,
            },
            MakePlanError::Plan(_) | MakePlanError::Snapshot(_) => err.into(),
        }
    }
}
