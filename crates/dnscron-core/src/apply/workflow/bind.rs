//! Binding a plan made now to the plan that was reviewed or confirmed (`review::check_live`):
//! refused when a change nobody reviewed is needed, reported (nothing sent) when a reviewed
//! change no longer holds or nothing is left to do, executed otherwise.

use crate::apply::review::{self, Review};
use crate::apply::{ApplyReport, ApplyResult};
use crate::config::model::Desired;
use crate::plan::snapshot::{self, LiveSnapshot};
use crate::plan::{self, Change, MakeOptions, Plan, PlanStamp, Planned, make_plan};
use dnscron_api::WriteClient;

use super::{HeldIn, PlanOptions, Refusal, ReviewedBy};

/// A plan made now and what running it will do.
pub(super) struct Bound {
    pub(super) plan: Plan,
    pub(super) live: LiveSnapshot,
    pub(super) next: Next,
    /// A narrower scope was asked for, but the reviewed plans cover everything.
    pub(super) read_whole_account: bool,
    /// What a controller's apply of merged changes does not send.
    pub(super) left_alone: super::LeftAlone,
}

pub(super) enum Next {
    Ready(Outcome),
    /// A person is to confirm the plan; then it is made again and bound to the one shown.
    Confirm(Box<Again>),
}

pub(super) enum Outcome {
    /// Send the plan; reviewed changes already in effect are reported first.
    Execute { already_live: Vec<Change> },
    /// Nothing to send: this is the report (boxed: it is large).
    Report(Box<ApplyReport>),
}

/// What making the plan again after the confirmation needs.
pub(super) struct Again {
    desired: Desired,
    allow_mass_changes: bool,
    stamp: PlanStamp,
}

impl Bound {
    pub(super) fn to_execute(plan: Plan, live: LiveSnapshot, already_live: Vec<Change>) -> Bound {
        Bound {
            plan,
            live,
            next: Next::Ready(Outcome::Execute { already_live }),
            read_whole_account: false,
            left_alone: Default::default(),
        }
    }

    pub(super) fn to_confirm(planned: Planned, desired: Desired, options: PlanOptions) -> Bound {
        let again = Again {
            desired,
            allow_mass_changes: options.allow_mass_changes,
            stamp: options.stamp,
        };
        Bound {
            plan: planned.plan,
            live: planned.live,
            next: Next::Confirm(Box::new(again)),
            read_whole_account: false,
            left_alone: Default::default(),
        }
    }

    pub(super) fn reading_whole_account(mut self, read_whole_account: bool) -> Bound {
        self.read_whole_account = read_whole_account;
        self
    }

    pub(super) fn executes(&self) -> bool {
        match &self.next {
            Next::Ready(Outcome::Execute { .. }) | Next::Confirm(_) => true,
            Next::Ready(Outcome::Report(_)) => false,
        }
    }
}

/// `apply --plan`: the saved plan's own desired state, planned again against the live state
/// now, bound to the saved plan.
pub(super) async fn saved(
    client: &WriteClient,
    mut saved: Plan,
    allow_mass_changes: bool,
) -> Result<Bound, Refusal> {
    check_api_url(&saved, client)?;
    HeldIn::Reviewed.check(&saved)?;
    saved.options.allow_mass_changes |= allow_mass_changes;
    let live = snapshot::fetch(client.read(), &saved.desired).await?;
    let mut now = crate::apply::saved::replan(&saved, &live).map_err(Refusal::of_replan)?;
    // The files' findings as a plan made now judges them (the saved desired state may be older
    // than the rules): those that hold a change refuse the apply.
    plan::held::hold_by_files(&mut now, &saved.desired).await;
    HeldIn::Now.check(&now)?;
    // The saved desired state is the scope's already; the plan shown says so.
    now.scope = saved.scope.clone();
    bind(&saved, now, live, ReviewedBy::Saved)
}

/// The plan shown and confirmed is the contract (docs/apply.md, "The contract"): the account is
/// read again after the answer, which may have taken minutes, and the plan made then runs only
/// if it is the shown plan's changes from the values shown.
pub(super) async fn again(
    client: &WriteClient,
    shown: Plan,
    again: Box<Again>,
) -> Result<(Plan, LiveSnapshot, Outcome), Refusal> {
    let made = MakeOptions {
        allow_mass_changes: again.allow_mass_changes,
        stamp: again.stamp,
        scope: shown.scope.clone(),
        health: false,
        mail_dns: None,
        progress: None,
        account: None,
        domains: None,
    };
    let now = make_plan(client.read(), &again.desired, &made).await?;
    let review = checked(&shown, &now.plan, &now.live, ReviewedBy::Shown)?;
    let plan = review::bound(&shown, now.plan);
    // Everything shown already in effect still runs (and ends as no changes), as it always did.
    let outcome = match review.holds() {
        true => Outcome::Execute {
            already_live: review.already_live,
        },
        false => Outcome::Report(Box::new(changed_since_review(&plan, review))),
    };
    Ok((plan, now.live, outcome))
}

/// Runs `now` only if every change of it is one of `reviewed`'s (docs/apply.md,
/// "Review-bound apply"); reviewed changes `now` no longer needs are reported as in effect.
pub(super) fn bind(
    reviewed: &Plan,
    now: Plan,
    live: LiveSnapshot,
    reviewed_by: ReviewedBy,
) -> Result<Bound, Refusal> {
    let review = checked(reviewed, &now, &live, reviewed_by)?;
    let plan = review::bound(reviewed, now);
    let outcome = if !review.holds() {
        Outcome::Report(Box::new(changed_since_review(&plan, review)))
    } else if plan.is_empty() {
        let result = match reviewed.is_empty() {
            true => ApplyResult::NoChanges,
            false => ApplyResult::AlreadyApplied,
        };
        let report = ApplyReport::new(&plan, result, 0, Vec::new());
        Outcome::Report(Box::new(report.with_already_live(&review.already_live)))
    } else {
        Outcome::Execute {
            already_live: review.already_live,
        }
    };
    Ok(Bound {
        plan,
        live,
        next: Next::Ready(outcome),
        read_whole_account: false,
        left_alone: Default::default(),
    })
}

/// The review of `now` against `reviewed`, refused when a change nobody reviewed is needed.
fn checked(
    reviewed: &Plan,
    now: &Plan,
    live: &LiveSnapshot,
    reviewed_by: ReviewedBy,
) -> Result<Review, Refusal> {
    let review = review::check_live(reviewed, now, live)?;
    if !review.is_reviewed() {
        return Err(Refusal::Unreviewed {
            reviewed_by,
            changes: review.unreviewed,
        });
    }
    Ok(review)
}

/// The report of a reviewed plan whose preconditions no longer hold: nothing sent.
fn changed_since_review(plan: &Plan, review: Review) -> ApplyReport {
    let result = ApplyResult::ChangedSinceReview {
        changed: review.changed,
        not_made: review.not_made,
        not_read: review.not_read,
    };
    ApplyReport::new(plan, result, 0, Vec::new()).with_already_live(&review.already_live)
}

/// A plan made against one API must not be applied to another.
pub(super) fn check_api_url(plan: &Plan, client: &WriteClient) -> Result<(), Refusal> {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_string();
    let api_url = client.read().base_url().to_string();
    // A loaded plan always has an API URL (`plan_file::load` refuses an empty one).
    if norm(&plan.api_url) == norm(&api_url) {
        return Ok(());
    }
    Err(Refusal::ApiUrl {
        plan_url: plan.api_url.clone(),
        api_url,
    })
}
