//! A controller's apply of what merged (docs/controller.md, "Apply merged changes"): the
//! previous revision that converged is the reviewed state, as for `apply --reviewed`, and each
//! change between it and the new revision runs only while the live value is still the one the
//! previous revision declared. Unlike a reviewed apply, a change nobody reviewed (drift: a
//! portal edit, a record only live) refuses nothing: it is left alone and reported, so drift
//! never blocks what merged and is never reverted under this policy.

use crate::apply::outcome::Moved;
use crate::apply::review::{self, Split};
use crate::config::model::Desired;
use crate::plan::safety;
use crate::plan::{Change, PlanError, Summary, make_plan};
use dnscron_api::ReadClient;

use super::bind::{Bound, Next, Outcome};
use super::{HeldIn, PlanOptions, Refusal, ReviewedBy, revision};
use crate::apply::{ApplyReport, ApplyResult};

/// What an apply of merged changes did not send.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeftAlone {
    /// Changes the files need now that were not sent: drift (no change between the two
    /// revisions is one of them, or the live value moved from what the previous revision
    /// declared).
    pub changes: Vec<Change>,
    /// Changes between the revisions whose thing holds another value than the previous
    /// revision declared, with both values: someone moved it; not overwritten.
    pub moved: Vec<Moved>,
}

pub(super) async fn bind(
    read: &ReadClient,
    desired: &Desired,
    previous: &Desired,
    options: PlanOptions,
) -> Result<Bound, Refusal> {
    // Made with the limits lifted: drift left alone must not count against them; they are
    // checked below on what will be sent.
    let mut made = options.make(options.changed.clone(), false);
    made.allow_mass_changes = true;
    let planned = make_plan(read, desired, &made).await?;
    let reviewed = revision::reviewed(previous, &planned, options.allow_mass_changes)?;
    let Split {
        reviewed: sent,
        left,
        moved,
    } = review::split(&reviewed, &planned.plan);
    let mut plan = review::bound(&reviewed, planned.plan);
    plan.changes = sent;
    plan.summary = Summary::of(&plan.changes);
    plan.options.allow_mass_changes = options.allow_mass_changes;
    HeldIn::Now.check(&plan)?;
    if !options.allow_mass_changes {
        let refs: Vec<&Change> = plan.changes.iter().collect();
        let over = safety::check_changes(&plan.desired, &planned.live, &refs);
        if !over.is_empty() {
            return Err(Refusal::LimitsHeld {
                reviewed_by: ReviewedBy::Revision,
                error: PlanError::Unsafe(over),
            });
        }
    }
    let outcome = match plan.is_empty() {
        true => {
            let report = ApplyReport::new(&plan, ApplyResult::NoChanges, 0, Vec::new());
            Outcome::Report(Box::new(report))
        }
        false => Outcome::Execute {
            already_live: Vec::new(),
        },
    };
    Ok(Bound {
        plan,
        live: planned.live,
        next: Next::Ready(outcome),
        read_whole_account: false,
        left_alone: LeftAlone {
            changes: left,
            moved,
        },
    })
}
