//! One apply, from a desired state (or a saved plan) to its report: plan, bind the plan to what
//! was confirmed or reviewed, execute. The `dnscron` binary and a controller use this one entry,
//! so a refusal or an "already applied" is decided in one place.
//!
//! Two steps, because a person may stand between them: [`Workflow::prepare`] reads, plans and
//! binds, and returns the plan to show; [`Prepared::run`] executes it (for a confirmed plan it
//! reads again first and runs only what was shown). The caller's "about to write" moment (a
//! signal handler switching from "stop at once" to "finish the change in flight") is a callback,
//! since the core prints nothing and knows no signals.

mod approval;
mod bind;
mod merged;
mod refusal;
mod revision;
#[cfg(test)]
mod tests;

use std::time::Duration;

use crate::config::model::Desired;
use crate::plan::snapshot::LiveSnapshot;
use crate::plan::{Change, MakeOptions, Plan, PlanError, PlanStamp, Scope, make_plan, scope};
use dnscron_api::WriteClient;

use super::dns::DnsOptions;
use super::{ApplyOptions, ApplyReport, Interrupt, Progress, review_union};
use approval::Approval;
use bind::{Bound, Next, Outcome};

pub use merged::LeftAlone;
pub use refusal::{HeldIn, Refusal, ReviewedBy};

/// What binds the changes an apply of files may send.
#[derive(Clone, Debug)]
pub enum Binding {
    /// The plan made now runs as made (`apply --yes`, `demo`).
    Nothing,
    /// A person confirms the plan shown: [`Prepared::run`] reads again and runs it only while it
    /// is still the shown plan's changes from the values shown.
    Confirmed,
    /// Reviewed plans (their union, `review_union::union`): only their changes may run.
    Reviewed(Vec<ReviewedPlan>),
    /// The previous revision's desired state: what it would change into the files' is the
    /// reviewed plan (`revision`).
    Revision(Desired),
    /// A controller's apply of what merged (`revision`): the previous revision's desired state
    /// is the reviewed one, as for `Revision`, but a change nobody reviewed does not refuse the
    /// apply: it is left alone and reported (`Prepared::left_alone`), and the reviewed
    /// changes run, each only from the value the previous revision declared.
    Merged(Desired),
}

/// A reviewed plan, and whether the caller approves its changes past the safety limits. The
/// approval is the caller's to give (in CI, the apply job's, from the pull request's label read
/// when it applies): the file's own `options.allow_mass_changes` never gives it (`approval`).
#[derive(Clone, Debug)]
pub struct ReviewedPlan {
    pub plan: Plan,
    pub mass_changes_approved: bool,
}

/// Where an apply's intent comes from. A saved plan brings its own desired state, so it takes
/// no files and no binding (a saved plan is always bound to itself).
#[derive(Clone, Debug)]
enum Source {
    Files {
        desired: Box<Desired>,
        binding: Binding,
    },
    Saved(Box<Plan>),
}

/// An apply to prepare: what to apply, how it is bound, and the planning options.
pub struct Workflow<'a> {
    client: &'a WriteClient,
    source: Source,
    /// Only the targets that changed since a revision; `None`: not narrowed. A reviewed plan's
    /// own scope is joined with it (`scope::joint`). A saved plan keeps its scope: ignored.
    pub changed: Option<Scope>,
    /// Lift the safety limits (or-ed with what a reviewed or saved plan records).
    pub allow_mass_changes: bool,
    /// The id and time of the plan made now (its id is replaced by a reviewed plan's).
    pub stamp: PlanStamp,
}

/// How the writes run: passed to [`Prepared::run`], after the plan is known (the DNS checks
/// may need the live state it was made from).
pub struct Execution<'a> {
    pub progress: &'a dyn Progress,
    /// Raise it to stop after the change in flight.
    pub interrupt: Option<&'a Interrupt>,
    /// Waits before re-reading a write not visible yet (`ApplyOptions::visibility_waits`).
    pub visibility_waits: Vec<Duration>,
    /// Apply's DNS checks; `None`: neither runs.
    pub dns: Option<DnsOptions>,
    /// Called once, right before the first write is sent (not when nothing will be).
    pub before_writing: Option<&'a (dyn Fn() + Send + Sync)>,
}

impl<'a> Execution<'a> {
    pub fn new(progress: &'a dyn Progress) -> Self {
        Execution {
            progress,
            interrupt: None,
            visibility_waits: super::verify::VISIBILITY_WAITS.to_vec(),
            dns: None,
            before_writing: None,
        }
    }
}

impl<'a> Workflow<'a> {
    /// Applies `desired` (the files), bound by `binding`.
    pub fn files(client: &'a WriteClient, desired: Desired, binding: Binding) -> Self {
        let desired = Box::new(desired);
        Self::of(client, Source::Files { desired, binding })
    }

    /// Applies a saved plan: its own desired state is planned again and runs only if every
    /// change is one of its own.
    pub fn saved(client: &'a WriteClient, saved: Plan) -> Self {
        Self::of(client, Source::Saved(Box::new(saved)))
    }

    fn of(client: &'a WriteClient, source: Source) -> Self {
        Workflow {
            client,
            source,
            changed: None,
            allow_mass_changes: false,
            stamp: PlanStamp::fresh(),
        }
    }

    /// Reads, plans and binds. Refuses (nothing sent) when the binding does not allow the plan
    /// made now; a bound plan with nothing left to send is already its report.
    pub async fn prepare(self) -> Result<Prepared<'a>, Refusal> {
        let client = self.client;
        let bound = match self.source {
            Source::Saved(saved) => bind::saved(client, *saved, self.allow_mass_changes).await?,
            Source::Files { desired, binding } => {
                let options = PlanOptions {
                    allow_mass_changes: self.allow_mass_changes,
                    stamp: self.stamp,
                    changed: self.changed,
                };
                files(client, *desired, binding, options).await?
            }
        };
        Ok(Prepared { client, bound })
    }
}

/// The planning options of an apply of files.
struct PlanOptions {
    allow_mass_changes: bool,
    stamp: PlanStamp,
    changed: Option<Scope>,
}

impl PlanOptions {
    /// `scope` and `health` set by the binding.
    fn make(&self, scope: Option<Scope>, health: bool) -> MakeOptions {
        MakeOptions {
            allow_mass_changes: self.allow_mass_changes,
            stamp: self.stamp.clone(),
            scope,
            health,
            mail_dns: None,
            progress: None,
            account: None,
            domains: None,
        }
    }
}

async fn files(
    client: &WriteClient,
    desired: Desired,
    binding: Binding,
    options: PlanOptions,
) -> Result<Bound, Refusal> {
    let read = client.read();
    match binding {
        Binding::Nothing | Binding::Confirmed => {
            // A plan shown to a person carries the registrar health findings.
            let made = options.make(options.changed.clone(), true);
            let planned = make_plan(read, &desired, &made).await?;
            HeldIn::Now.check(&planned.plan)?;
            let confirm = matches!(binding, Binding::Confirmed) && !planned.plan.is_empty();
            Ok(match confirm {
                true => Bound::to_confirm(planned, desired, options),
                false => Bound::to_execute(planned.plan, planned.live, Vec::new()),
            })
        }
        Binding::Reviewed(given) => {
            let plans: Vec<Plan> = given.iter().map(|r| r.plan.clone()).collect();
            let mut reviewed = review_union::union(&plans)?;
            bind::check_api_url(&reviewed, client)?;
            HeldIn::Reviewed.check(&reviewed)?;
            // The limits are lifted only by the caller now: for every plan, or for the changes
            // of the plans it approves; what a plan file records lifts nothing by itself.
            let approval = Approval::of(&given, options.allow_mass_changes);
            reviewed.options.allow_mass_changes = approval.everything();
            // Reading only the reviewed scope and what changed is what makes an apply on merge
            // cost the change, not the account; a plan made without a scope needs everything.
            let scope = match &options.changed {
                Some(changed) => scope::joint([reviewed.scope.as_ref(), Some(changed)]),
                None => reviewed.scope.clone(),
            };
            let read_whole_account = options.changed.is_some() && scope.is_none();
            let made = PlanOptions {
                allow_mass_changes: approval.lifts_limits(),
                ..options
            }
            .make(scope, false);
            let planned = make_plan(read, &desired, &made)
                .await
                .map_err(Refusal::of_reviewed_plan)?;
            HeldIn::Now.check(&planned.plan)?;
            let held = approval.held(&planned);
            let bound = bind::bind(&reviewed, planned.plan, planned.live, ReviewedBy::Files)?;
            if !held.is_empty() {
                return Err(Refusal::LimitsHeld {
                    reviewed_by: ReviewedBy::Files,
                    error: PlanError::Unsafe(held),
                });
            }
            Ok(bound.reading_whole_account(read_whole_account))
        }
        Binding::Revision(previous) => {
            let made = options.make(options.changed.clone(), false);
            let planned = make_plan(read, &desired, &made).await?;
            HeldIn::Now.check(&planned.plan)?;
            let reviewed = revision::reviewed(&previous, &planned, options.allow_mass_changes)?;
            bind::bind(&reviewed, planned.plan, planned.live, ReviewedBy::Revision)
        }
        Binding::Merged(previous) => merged::bind(read, &desired, &previous, options).await,
    }
}

/// A prepared apply: the plan to show, and what [`Prepared::run`] will do with it.
pub struct Prepared<'a> {
    client: &'a WriteClient,
    bound: Bound,
}

impl Prepared<'_> {
    /// The plan made now (bound: under the reviewed plan's id).
    pub fn plan(&self) -> &Plan {
        &self.bound.plan
    }

    /// The live state the plan was made from.
    pub fn live(&self) -> &LiveSnapshot {
        &self.bound.live
    }

    /// What a [`Binding::Merged`] apply leaves alone (empty for every other binding).
    pub(crate) fn left_alone(&self) -> &LeftAlone {
        &self.bound.left_alone
    }

    /// Whether [`Prepared::run`] executes the plan (false: its report is known already, and
    /// nothing will be sent).
    pub fn executes(&self) -> bool {
        self.bound.executes()
    }

    /// What [`Prepared::run`] will report when it sends nothing (`None`: it executes the
    /// plan), known before anything is sent: an apply of several accounts that must write in
    /// none unless every account's review holds reads it.
    pub fn unsent_result(&self) -> Option<&super::ApplyResult> {
        match &self.bound.next {
            Next::Ready(Outcome::Report(report)) => Some(&report.result),
            Next::Ready(Outcome::Execute { .. }) | Next::Confirm(_) => None,
        }
    }

    /// Executes the plan; for a confirmed plan, reads again first and runs it only while it is
    /// the shown plan's changes from the values shown (else refuses or reports, nothing sent).
    pub async fn run(self, execution: &Execution<'_>) -> Result<ApplyReport, Refusal> {
        let Bound {
            plan,
            live,
            next,
            read_whole_account,
            left_alone: _,
        } = self.bound;
        let (plan, live, outcome) = match next {
            Next::Ready(outcome) => (plan, live, outcome),
            Next::Confirm(again) => bind::again(self.client, plan, again).await?,
        };
        let mut report = match outcome {
            Outcome::Report(report) => *report,
            Outcome::Execute { already_live } => {
                execute(self.client, &plan, &live, execution, &already_live).await
            }
        };
        report.read_whole_account = read_whole_account;
        Ok(report)
    }
}

/// Runs `plan` (made from `live`); reviewed changes already in effect are listed first.
async fn execute(
    client: &WriteClient,
    plan: &Plan,
    live: &LiveSnapshot,
    execution: &Execution<'_>,
    already_live: &[Change],
) -> ApplyReport {
    if let Some(before_writing) = execution.before_writing {
        before_writing();
    }
    let mut opts = ApplyOptions::new(plan, execution.progress);
    opts.interrupt = execution.interrupt;
    opts.visibility_waits = execution.visibility_waits.clone();
    opts.dns = execution.dns.clone().map(|d| d.with_nameservers_of(live));
    super::apply(client, plan, &opts)
        .await
        .with_already_live(already_live)
}
