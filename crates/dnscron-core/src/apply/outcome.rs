//! What apply did: per change and overall, as data; the `dnscron` binary words it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::dns::DnsCheck;
use crate::plan::{Action, Change, Plan, Resource, TargetRef, Value};
use dnscron_api::ApiError;

/// What happened to one change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeOutcome {
    /// The server ran the request now.
    Done,
    /// The server answered from its idempotency store (`Idempotent-Replayed: true`): the
    /// request had already run under this key. Verification checks the effect is real.
    Replayed,
    /// A delete whose target was already gone (cron job not in the listing, record 404).
    AlreadyAbsent,
    Failed,
    /// The server answered 409 with a continue_url: a human has to act in the portal.
    NeedsPortalStep,
    /// Apply stopped before this change.
    NotAttempted,
    /// A switch to custom nameservers that apply did not send: the new nameservers don't serve
    /// the zone as the files declare it (`readiness` has what each answered).
    NotReady,
    /// A reviewed change the plan made now no longer needs: already in effect (an earlier,
    /// interrupted run of the same reviewed plan, or someone else made it). Nothing was sent.
    AlreadyLive,
    /// A cron delete whose index pointed at another job by the time it arrived (someone changed
    /// the site's jobs meanwhile): this job was not deleted by it; `cron_mixup` says what was.
    IndexMoved,
}

impl ChangeOutcome {
    /// In effect on the server (as far as the response says).
    pub fn succeeded(self) -> bool {
        matches!(
            self,
            ChangeOutcome::Done
                | ChangeOutcome::Replayed
                | ChangeOutcome::AlreadyAbsent
                | ChangeOutcome::AlreadyLive
        )
    }
}

/// An API error as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorInfo {
    /// HTTP status, when the server answered.
    pub status: Option<u16>,
    /// The envelope's `error.type` (`validation_error`, `idempotency_conflict`, …).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub message: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, Vec<String>>,
    pub request_id: Option<String>,
}

impl ErrorInfo {
    pub fn from_api(err: &ApiError) -> ErrorInfo {
        let envelope = err.envelope();
        ErrorInfo {
            status: err.status(),
            kind: err.error_type().map(str::to_string).or_else(|| {
                matches!(
                    err,
                    ApiError::Transport { .. } | ApiError::NoAnswer { .. } | ApiError::Cut { .. }
                )
                .then(|| "network_error".to_string())
            }),
            message: envelope
                .map(|e| e.error.message.clone())
                .unwrap_or_else(|| err.to_string()),
            details: envelope
                .and_then(|e| e.error.details.clone())
                .unwrap_or_default(),
            request_id: err.request_id().map(str::to_string),
        }
    }

    pub fn internal(message: impl Into<String>) -> ErrorInfo {
        ErrorInfo {
            status: None,
            kind: Some("client_error".into()),
            message: message.into(),
            details: BTreeMap::new(),
            request_id: None,
        }
    }
}

/// One change and what became of it.
#[derive(Clone, Debug, Serialize)]
pub struct ChangeReport {
    /// The change's id in the plan it came from (the saved plan for round 0, the
    /// verification re-plan for later rounds).
    pub id: usize,
    /// 0 for the plan's own changes; 1, 2, … for repairs after verification.
    pub round: u32,
    pub action: Action,
    pub target: TargetRef,
    pub resource: Resource,
    /// The change itself, for whoever words the report (its JSON adds a `summary` here).
    #[serde(skip)]
    pub change: Change,
    pub outcome: ChangeOutcome,
    pub idempotency_key: String,
    pub request_id: Option<String>,
    pub replayed: bool,
    /// HTTP attempts for the write (0 when nothing was sent).
    pub attempts: u32,
    pub continue_url: Option<String>,
    pub error: Option<ErrorInfo>,
    /// A switch refused as not ready: what its new nameservers answered.
    #[serde(skip)]
    pub readiness: Option<super::dns::Readiness>,
    /// A cron delete that removed another job (outcome `IndexMoved`): what it removed and
    /// what apply did about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cron_mixup: Option<CronMixUp>,
}

/// A cron job as a listing showed it (server strings: escape them to show them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListedJob {
    pub schedule: String,
    pub command: String,
}

/// What a cron delete removed instead of the job it meant, as the listings before and after it
/// (and its answer, where it names a job that vanished) tell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CronMixUp {
    /// The job the delete removed, when it can be told; `None`: one of `candidates`, which one
    /// cannot be told, so nothing was re-created.
    pub removed: Option<ListedJob>,
    /// The jobs listed before the delete and missing right after it (the delete's and whatever
    /// someone else removed meanwhile).
    pub vanished: Vec<ListedJob>,
    /// The vanished jobs the delete could have reached (listed at or after the meant job).
    pub candidates: Vec<ListedJob>,
    /// The meant job is still listed after the delete (false: gone, though not by this delete).
    pub meant_still_there: bool,
    /// The re-create of `removed`.
    pub recreate: Option<Recreate>,
}

/// The POST that put a wrongly removed cron job back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Recreate {
    pub idempotency_key: String,
    /// `POST /sites/{slug}/cron`'s path.
    pub path: String,
    pub request_id: Option<String>,
    pub replayed: bool,
    /// Set when the re-create failed: the job is missing until someone adds it back.
    pub error: Option<ErrorInfo>,
}

impl Recreate {
    pub fn succeeded(&self) -> bool {
        self.error.is_none()
    }
}

impl ChangeReport {
    pub fn new(change: &Change, round: u32, key: String) -> ChangeReport {
        ChangeReport {
            id: change.id,
            round,
            action: change.action,
            target: change.target.clone(),
            resource: change.resource.clone(),
            change: change.clone(),
            outcome: ChangeOutcome::NotAttempted,
            idempotency_key: key,
            request_id: None,
            replayed: false,
            attempts: 0,
            continue_url: None,
            error: None,
            readiness: None,
            cron_mixup: None,
        }
    }
}

/// How the apply ended.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ApplyResult {
    /// Every change in effect; verification re-planned the touched targets and found nothing.
    Converged,
    /// The plan was empty.
    NoChanges,
    /// A saved plan whose outcome is already the live state: nothing was sent.
    AlreadyApplied,
    /// Stopped at a change the server refused with 409 + continue_url.
    NeedsPortalStep {
        change_id: usize,
        continue_url: String,
    },
    /// Stopped at a change that failed.
    Failed { change_id: usize, error: ErrorInfo },
    /// Every change was sent but verification still finds differences after the last round.
    Differs { remaining: Vec<Change> },
    /// Verification itself could not read the live state.
    VerifyFailed { error: ErrorInfo },
    /// Writes the server accepted (fresh 2xx) that reading again, after waiting, still does
    /// not show: apply stopped instead of sending them twice.
    NotVisible {
        unseen: Vec<super::verify::Unseen>,
        /// Seconds waited for them before the last read.
        waited_secs: f64,
    },
    /// Ctrl-C: stopped before the next change.
    Interrupted,
    /// Every other change is in effect, but these switches to custom nameservers were not
    /// sent: the new nameservers don't serve the zone yet (`--allow-unready-nameservers`
    /// switches anyway).
    NameserversNotReady { change_ids: Vec<usize> },
    /// The reviewed plan no longer holds against the live account (docs/apply.md, "The
    /// contract"): nothing was sent. `changed`: reviewed changes whose thing holds another value
    /// now than the one reviewed (their precondition); `not_made`: reviewed changes not in effect
    /// that the desired state applied now does not produce; `not_read`: reviewed changes whose
    /// target apply did not read, so nothing is known of them.
    ChangedSinceReview {
        changed: Vec<Moved>,
        not_made: Vec<Change>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        not_read: Vec<Change>,
    },
    /// A change of the plan was in effect and someone changed it again while apply ran: left as
    /// it is (never reverted), reported with the value apply wrote and the live one.
    ChangedDuringApply { overwritten: Vec<Moved> },
    /// Stopped at a cron delete whose index pointed at another job by the time it arrived
    /// (the change's `cron_mixup` has what was removed and re-created).
    CronIndexMoved { change_id: usize },
}

/// A thing whose live value is not the one a plan expected.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub target: TargetRef,
    pub resource: Resource,
    /// The value expected: a reviewed change's `before` (changed since review), the value a
    /// change of the plan wrote (overwritten during apply), or what the plan read (anything
    /// else that changed during apply). `None`: no such thing.
    pub expected: Option<Value>,
    /// The value the live account holds now; `None`: no such thing.
    pub live: Option<Value>,
    /// The change concerned, for whoever words it (its JSON adds a `summary`): the reviewed or
    /// planned change, or for anything else what the files would need now.
    #[serde(skip)]
    pub change: Change,
}

impl Moved {
    pub fn new(change: &Change, expected: Option<Value>, live: Option<Value>) -> Moved {
        Moved {
            target: change.target.clone(),
            resource: change.resource.clone(),
            expected,
            live,
            change: change.clone(),
        }
    }
}

/// Everything apply reports. What exit code it means is the CLI's to decide.
#[derive(Clone, Debug, Serialize)]
pub struct ApplyReport {
    pub plan_id: String,
    /// The API base URL written to (the plan's); the text and Markdown headers name it.
    #[serde(skip)]
    pub api_url: String,
    #[serde(flatten)]
    pub result: ApplyResult,
    /// Execution rounds run (1 = no repair needed).
    pub rounds: u32,
    /// Every change of every round, in execution order, not-attempted ones included.
    pub changes: Vec<ChangeReport>,
    pub counts: Counts,
    /// The DNS check after the writes (docs/health.md, "After apply"); `None` when it was
    /// turned off or nothing was applied.
    pub dns_check: Option<DnsCheck>,
    /// What verification found changed during the apply outside the plan (someone else's
    /// edits): left as it is, never reverted; a warning.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed_during_apply: Vec<Moved>,
    /// A narrower scope was asked for, but a reviewed plan was made without one (it covered
    /// everything), so apply read everything the files declare; left out of the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_whole_account: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub done: usize,
    pub replayed: usize,
    pub already_absent: usize,
    pub failed: usize,
    pub needs_portal_step: usize,
    pub not_attempted: usize,
    /// Only review-bound applies have these; left out of the JSON when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub already_live: usize,
    /// Switches refused because the new nameservers were not ready; left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_ready: usize,
    /// Cron deletes that removed another job (`ChangeOutcome::IndexMoved`); left out when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub index_moved: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Counts {
    pub fn of(changes: &[ChangeReport]) -> Counts {
        let mut c = Counts::default();
        for r in changes {
            match r.outcome {
                ChangeOutcome::Done => c.done += 1,
                ChangeOutcome::Replayed => c.replayed += 1,
                ChangeOutcome::AlreadyAbsent => c.already_absent += 1,
                ChangeOutcome::Failed => c.failed += 1,
                ChangeOutcome::NeedsPortalStep => c.needs_portal_step += 1,
                ChangeOutcome::NotAttempted => c.not_attempted += 1,
                ChangeOutcome::AlreadyLive => c.already_live += 1,
                ChangeOutcome::NotReady => c.not_ready += 1,
                ChangeOutcome::IndexMoved => c.index_moved += 1,
            }
        }
        c
    }
}

impl ApplyReport {
    /// The report of applying `plan` (its id and API URL).
    pub fn new(plan: &Plan, result: ApplyResult, rounds: u32, changes: Vec<ChangeReport>) -> Self {
        ApplyReport {
            plan_id: plan.plan_id.clone(),
            api_url: plan.api_url.clone(),
            counts: Counts::of(&changes),
            result,
            rounds,
            changes,
            dns_check: None,
            changed_during_apply: Vec::new(),
            read_whole_account: false,
        }
    }

    /// Lists `changes` (reviewed, no longer needed) first, as already in effect.
    pub fn with_already_live(mut self, changes: &[Change]) -> Self {
        let mut reports: Vec<ChangeReport> = changes
            .iter()
            .map(|c| {
                let mut r = ChangeReport::new(c, 0, String::new());
                r.outcome = ChangeOutcome::AlreadyLive;
                r
            })
            .collect();
        reports.append(&mut self.changes);
        self.changes = reports;
        self.counts = Counts::of(&self.changes);
        self
    }
}
