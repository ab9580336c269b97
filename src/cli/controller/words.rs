//! The controller's words: what it says when it starts, after each round and when a condition
//! starts or clears (the log lines, and the webhook's text for the conditions). Everything from
//! the server or a file goes through `untrusted::escape`.

use std::fmt::Write;

use dnscron_api::ApiError;
use dnscron_api::untrusted::Untrusted;
use dnscron_core::apply::workflow::Refusal;
use dnscron_core::config::accounts::Account;
use dnscron_core::controller::{
    AlertKind, Converged, Pending, Revision, RevisionSource, RoundError, RoundOutcome, RoundReport,
    Start, StateStore, Status, Transition, Trigger, WaitReason, Work, resolve_adopted,
};
use dnscron_core::plan::snapshot::SnapshotError;
use dnscron_core::plan::{MakePlanError, Severity, TargetRef};

use super::args::ControllerArgs;
use crate::cli::error::CommandError;

/// Where the controller starts from, said: the converged revision kept, and on a first start
/// the full id of the revision `--adopt-revision` names (refused, exit 1, when the folder's
/// history names no such revision or the folder holds another one).
pub(crate) struct Starting {
    pub converged: Option<Converged>,
    pub adopt: Option<String>,
}

/// How the controller starts; `account` names it among several (every line of one says whose).
pub(crate) fn starting(
    args: &ControllerArgs,
    dir: &std::path::Path,
    store: &StateStore,
    account: Option<&str>,
) -> Result<Starting, CommandError> {
    let policy = args.policy.name();
    let who = account
        .map(|name| format!("account {name}: "))
        .unwrap_or_default();
    let (converged, unreadable) = match store.start() {
        Start::Converged(converged) => (Some(*converged), None),
        Start::First { unreadable } => (None, unreadable),
    };
    if let (Some(converged), Some(file)) = (&converged, store.file()) {
        tracing::info!(
            "{who}controller ({policy}) starting from revision {}, the last converged (state file {})",
            short(&converged.revision),
            file.display()
        );
        if args.adopt_revision.is_some() {
            tracing::info!(
                "{who}--adopt-revision is not used: a revision converged already (it applies on a first start only)"
            );
        }
        return Ok(Starting {
            converged: Some(converged.clone()),
            adopt: None,
        });
    }
    let adopt = match &args.adopt_revision {
        Some(id) => Some(resolve_adopted(dir, id).map_err(CommandError::from)?),
        None => None,
    };
    let first = match &adopt {
        Some(id) => format!(
            "revision {} is adopted: its whole difference from the account is applied",
            Untrusted(id.get(..19).unwrap_or(id))
        ),
        None => {
            "the folder's revision becomes the base: nothing is written until the next revision"
                .to_string()
        }
    };
    match (unreadable, store.file()) {
        (Some(error), _) => tracing::warn!(
            "{who}{}; starting as on a first start: {first}",
            one_line(&CommandError::from_error(
                crate::cli::error::ErrorKind::User,
                error
            ))
        ),
        (None, Some(file)) => tracing::info!(
            "{who}controller ({policy}) starting: no converged revision in {} yet; {first}",
            file.display()
        ),
        (None, None) => tracing::warn!(
            "{who}controller ({policy}) starting without --state-file: a restart forgets the last converged revision, and what merged while it was down is reported as drift, not applied; {first}"
        ),
    }
    Ok(Starting { converged, adopt })
}

/// A revision as people read it: a commit's first 12 digits, a digest's first 12 after
/// `sha256:`.
pub(crate) fn short(revision: &Revision) -> String {
    let id = Untrusted(&revision.id).to_string();
    match revision.source {
        RevisionSource::Git => id.chars().take(12).collect(),
        RevisionSource::Digest => id.chars().take("sha256:".len() + 12).collect(),
    }
}

pub(crate) fn trigger(trigger: Trigger) -> &'static str {
    trigger.name()
}

/// A round as fields for log pipelines (`--log-format json`): the names `/status` uses.
pub(crate) struct Fields {
    /// The full id of the revision in use (empty before one loaded).
    pub revision: String,
    /// Rounds since the process started, this one included.
    pub round: u64,
    pub trigger: &'static str,
    pub work: &'static str,
    pub outcome: &'static str,
    /// How many targets the round read or applied.
    pub targets: usize,
    pub duration_seconds: f64,
    /// The kind of failure (`RoundError::kind`), empty when the round did not fail.
    pub error_code: &'static str,
}

pub(crate) fn fields(report: &RoundReport, status: &Status, round: u64) -> Fields {
    let (work, targets) = work_of(&report.work);
    Fields {
        revision: status
            .revision
            .as_ref()
            .map(|r| Untrusted(&r.id).to_string())
            .unwrap_or_default(),
        round,
        trigger: trigger(report.trigger),
        work,
        outcome: report.outcome.name(),
        targets: targets.len(),
        duration_seconds: report.duration.as_secs_f64(),
        error_code: match &report.outcome {
            RoundOutcome::Failed(error) => error.kind(),
            RoundOutcome::Converged
            | RoundOutcome::Drift
            | RoundOutcome::Baseline
            | RoundOutcome::Pending(_)
            | RoundOutcome::Held(_)
            | RoundOutcome::Refused(_)
            | RoundOutcome::Conflicted => "",
        },
    }
}

/// The work's name (as `/status` gives it) and its targets.
pub(crate) fn work_of(work: &Work) -> (&'static str, &[TargetRef]) {
    match work {
        Work::Adopted => ("adopted", &[]),
        Work::Applied { targets, .. } => ("applied", targets.as_slice()),
        Work::Swept { targets, .. } => ("swept", targets.as_slice()),
        Work::Nothing => ("nothing", &[]),
    }
}

/// The line a round ends with: what it did, then how it ended.
pub(crate) fn round(report: &RoundReport, status: &Status, account: Option<&Account>) -> String {
    let mut out = match &report.work {
        Work::Adopted => match &status.revision {
            Some(r) => format!(
                "revision {} taken as the base (no converged revision): nothing written",
                short(r)
            ),
            None => "no revision to take as the base".to_string(),
        },
        Work::Applied {
            targets,
            report: applied,
            left_alone,
        } => {
            let revision = status.revision.as_ref().map(short).unwrap_or_default();
            let sent = applied
                .as_ref()
                .map_or(0, |r| r.counts.done + r.counts.replayed);
            let mut line = format!(
                "revision {revision}: {} over {}",
                count(sent, "change applied", "changes applied"),
                targets_text(targets)
            );
            if !left_alone.changes.is_empty() {
                let _ = write!(
                    line,
                    "; {} left alone (drift, never reverted)",
                    count(left_alone.changes.len(), "change", "changes")
                );
            }
            line
        }
        Work::Swept { targets, healed } => {
            let revision = status.revision.as_ref().map(short).unwrap_or_default();
            let mut line = format!(
                "revision {revision}: swept {} ({} of {} this sweep)",
                targets_text(targets),
                status.sweep_done,
                status.sweep_total
            );
            if let Some(healed) = healed {
                let _ = write!(
                    line,
                    "; {} reverted",
                    count(
                        healed.counts.done + healed.counts.replayed,
                        "drifted change",
                        "drifted changes"
                    )
                );
            }
            line
        }
        Work::Nothing => match &status.revision {
            Some(r) => format!("revision {}: nothing done", short(r)),
            None => "no revision loaded yet".to_string(),
        },
    };
    // A base taken reads nothing: the sweep that follows says what differs.
    if let (Work::Adopted, RoundOutcome::Baseline) = (&report.work, &report.outcome) {
        out.push_str("; the sweep that follows reports what differs");
    } else {
        let _ = write!(out, " — {}", outcome(&report.outcome, status, account));
    }
    out
}

fn outcome(outcome: &RoundOutcome, status: &Status, account: Option<&Account>) -> String {
    match outcome {
        RoundOutcome::Converged => "in sync".to_string(),
        RoundOutcome::Drift => drift_summary(status),
        RoundOutcome::Baseline => "taken as the base".to_string(),
        RoundOutcome::Conflicted => conflicts_text(status),
        RoundOutcome::Pending(pending) => pending_text(pending),
        RoundOutcome::Held(refusal) => format!(
            "kept out until the next revision: {} (fix the files or accept the finding)",
            chain(refusal.as_ref())
        ),
        RoundOutcome::Refused(refusal) => format!(
            "refused, nothing sent: {} (a mass change is applied by `dnscron apply --allow-mass-changes`, reviewed)",
            chain(refusal.as_ref())
        ),
        RoundOutcome::Failed(error) => format!("failed: {}", error_text(error, account)),
    }
}

/// A conflicted revision's changes: what it declares, what is live instead.
fn conflicts_text(status: &Status) -> String {
    let named: Vec<String> = status
        .conflicts
        .iter()
        .take(5)
        .map(|m| {
            format!(
                "{} (the revision declares {}, live {})",
                target_text(&m.target),
                value_text(m.change.after.as_ref()),
                value_text(m.live.as_ref())
            )
        })
        .collect();
    let more = status.conflicts.len().saturating_sub(named.len());
    let more = match more {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "conflicted, kept out: {} moved since the previous revision: {}{more} (settle it in the files or the portal; tried again each interval)",
        count(
            status.conflicts.len(),
            "value it changes",
            "values it changes"
        ),
        named.join(", ")
    )
}

fn value_text(value: Option<&dnscron_core::plan::Value>) -> String {
    use dnscron_core::plan::Value;
    let text = match value {
        None => return "nothing".to_string(),
        Some(Value::Record { ttl, content }) => format!("{content} (TTL {ttl})"),
        Some(Value::CronJob { schedule, command }) => format!("{schedule} {command}"),
        Some(Value::Nameservers { mode, nameservers }) => {
            format!("{mode} {}", nameservers.join(" "))
        }
    };
    Untrusted(&text).to_string()
}

fn pending_text(pending: &Pending) -> String {
    match pending {
        Pending::PortalStep { continue_url } => format!(
            "waiting for a step in the portal: {} (its changes are kept and applied after it)",
            Untrusted(continue_url)
        ),
        Pending::Nameservers => {
            "waiting for the new nameservers to serve the zone before switching".to_string()
        }
    }
}

/// The words of a round's error, on one line, with what the controller does about it, and
/// what to do about an HTTP error as the CLI's hints say it (`account`: the account of several
/// whose round it was, so that a hint about the token names that account's own token source).
pub(crate) fn error_text(error: &RoundError, account: Option<&Account>) -> String {
    let text = match error {
        RoundError::Files {
            revision,
            diagnostics,
        } => format!(
            "revision {} is kept out: {}",
            Untrusted(revision.get(..19).unwrap_or(revision)),
            problems_text(diagnostics)
        ),
        RoundError::NotConverged(report) => apply_stopped(report),
        RoundError::Adopt(adopt) => {
            format!("{}; {}", chain(error), crate::cli::error::adopt_hint(adopt))
        }
        RoundError::Revision(_)
        | RoundError::State(_)
        | RoundError::Read(_)
        | RoundError::Account(_)
        | RoundError::Apply(_) => chain(error),
    };
    let mut out = text;
    for hint in hints(error, account) {
        let _ = write!(out, "; hint: {}", Untrusted(&hint));
    }
    out
}

/// The CLI's hints for what failed a round: a read's API error (in its chain) as `api_hint`
/// words it, a zone list without the files' zones (another account's token?) as `plan` says
/// it, a write's HTTP error as apply's report ends; for an account of several, a hint about
/// the token or the API's URL names the account's own (`account_hint`).
fn hints(error: &RoundError, account: Option<&Account>) -> Vec<String> {
    let hints: Vec<String> = match error {
        RoundError::NotConverged(report) => crate::cli::apply_end::stop_hints(&report.result)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        RoundError::Read(_) | RoundError::Account(_) | RoundError::Apply(_) => {
            match snapshot_error(error) {
                Some(SnapshotError::NotListed {
                    declared, missing, ..
                }) => crate::cli::error::not_listed_hints(missing.len(), *declared),
                Some(
                    SnapshotError::MissingZone { .. }
                    | SnapshotError::MissingDomain { .. }
                    | SnapshotError::MissingSite { .. }
                    | SnapshotError::Api { .. }
                    | SnapshotError::Listing { .. }
                    | SnapshotError::Internal(_),
                )
                | None => api_error_in(error)
                    .and_then(crate::cli::error::api_hint)
                    .map(std::borrow::Cow::into_owned)
                    .into_iter()
                    .collect(),
            }
        }
        // Their own words say what to do (or the adopt hint does).
        RoundError::Revision(_)
        | RoundError::Files { .. }
        | RoundError::State(_)
        | RoundError::Adopt(_) => Vec::new(),
    };
    match account {
        None => hints,
        Some(account) => {
            let token = crate::cli::accounts::token_source(account);
            hints
                .into_iter()
                .flat_map(|hint| crate::cli::error::account_hint(hint, &account.name, &token))
                .collect()
        }
    }
}

/// The failed read of the live state a round's error is (its chain skips it: the errors that
/// wrap it are transparent).
fn snapshot_error(error: &RoundError) -> Option<&SnapshotError> {
    let read = match error {
        RoundError::Account(snapshot) => return Some(snapshot),
        RoundError::Read(read) => read.as_ref(),
        RoundError::Apply(refusal) => match refusal.as_ref() {
            Refusal::MakePlan(read) => read.as_ref(),
            Refusal::Union(_)
            | Refusal::ApiUrl { .. }
            | Refusal::Unreviewed { .. }
            | Refusal::HeldByFinding { .. }
            | Refusal::LimitsHeld { .. }
            | Refusal::Plan(_) => return None,
        },
        RoundError::Revision(_)
        | RoundError::Files { .. }
        | RoundError::State(_)
        | RoundError::NotConverged(_)
        | RoundError::Adopt(_) => return None,
    };
    match read {
        MakePlanError::Snapshot(snapshot) => Some(snapshot),
        MakePlanError::Plan(_) => None,
    }
}

/// The API's error in `error`'s source chain, if an answer (or no answer) of the API is what
/// failed it.
fn api_error_in<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a ApiError> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(api) = error.downcast_ref::<ApiError>() {
            return Some(api);
        }
        next = error.source();
    }
    None
}

/// How many problems a revision's files have, and the first with its `file:line:col`.
fn problems_text(diagnostics: &dnscron_core::config::Diagnostics) -> String {
    let first = diagnostics.items.first().map(|d| match &d.location {
        Some(at) => format!("{at}: {}", d.message),
        None => d.message.clone(),
    });
    format!(
        "{} in its files{}",
        count(diagnostics.items.len(), "problem", "problems"),
        first
            .map(|f| format!(", first: {}", Untrusted(&f)))
            .unwrap_or_default()
    )
}

fn apply_stopped(report: &dnscron_core::apply::ApplyReport) -> String {
    use dnscron_core::apply::ApplyResult;
    let what = match &report.result {
        ApplyResult::Failed { change_id, error } => {
            let request = error
                .request_id
                .as_ref()
                .map(|id| format!(", request id {}", Untrusted(id)))
                .unwrap_or_default();
            format!(
                "change {change_id} failed: {}{request}",
                Untrusted(&error.message)
            )
        }
        ApplyResult::Differs { remaining } => format!(
            "{} still differ after the repair rounds",
            count(remaining.len(), "change", "changes")
        ),
        ApplyResult::VerifyFailed { error } => {
            format!(
                "reading the account again failed: {}",
                Untrusted(&error.message)
            )
        }
        ApplyResult::NotVisible { unseen, .. } => format!(
            "{} the server accepted are not visible yet (not sent again)",
            count(unseen.len(), "write", "writes")
        ),
        ApplyResult::Interrupted => "stopped".to_string(),
        ApplyResult::CronIndexMoved { change_id } => {
            format!("the cron job of change {change_id} moved while it was deleted")
        }
        ApplyResult::ChangedSinceReview { .. } => "the account changed since".to_string(),
        ApplyResult::Converged
        | ApplyResult::NoChanges
        | ApplyResult::AlreadyApplied
        | ApplyResult::ChangedDuringApply { .. }
        | ApplyResult::NeedsPortalStep { .. }
        | ApplyResult::NameserversNotReady { .. } => "stopped".to_string(),
    };
    format!("the apply did not converge: {what}; it is tried again (the same idempotency keys)")
}

/// An error and its causes on one line; the texts are the library's (server text in them is
/// escaped where it is kept).
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            let _ = write!(out, ": {text}");
        }
        source = cause.source();
    }
    Untrusted(&out.replace('\n', "; ")).to_string()
}

fn one_line(error: &CommandError) -> String {
    error.body().replace('\n', "; ")
}

fn drift_summary(status: &Status) -> String {
    let mut parts = Vec::new();
    if !status.drift.is_empty() {
        parts.push(format!(
            "drift: {} in {}",
            count(status.drift_changes(), "change", "changes"),
            count(status.drift.len(), "target", "targets")
        ));
    }
    if !status.unapplied.is_empty() {
        let n: usize = status.unapplied.values().map(Vec::len).sum();
        parts.push(format!(
            "{} of a revision not applied",
            count(n, "change", "changes")
        ));
    }
    let errors = status
        .open_findings()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if errors > 0 {
        parts.push(count(errors, "error finding", "error findings"));
    }
    match parts.is_empty() {
        true => "in sync".to_string(),
        false => parts.join(", "),
    }
}

/// A condition's line (and webhook text).
pub(crate) fn alert(
    kind: AlertKind,
    transition: Transition,
    status: &Status,
    report: &RoundReport,
    account: Option<&Account>,
) -> String {
    let revision = status.revision.as_ref().map(short).unwrap_or_default();
    match (kind, transition) {
        (AlertKind::Drift, Transition::Raised | Transition::Changed) => {
            format!("dnscron: revision {revision}: {}", drift_detail(status))
        }
        (AlertKind::Drift, Transition::Cleared) => {
            format!("dnscron: drift cleared: the account matches revision {revision}")
        }
        (AlertKind::Findings, Transition::Raised | Transition::Changed) => {
            let errors = status
                .open_findings()
                .filter(|f| f.severity == Severity::Error)
                .count();
            format!(
                "dnscron: {} not accepted (GET /status lists them; fix the files or add accept: entries)",
                count(errors, "error finding", "error findings")
            )
        }
        (AlertKind::Findings, Transition::Cleared) => "dnscron: no error finding left".to_string(),
        (AlertKind::Failing, Transition::Raised | Transition::Changed) => {
            let why = match &report.outcome {
                RoundOutcome::Failed(error) => error_text(error, account),
                RoundOutcome::Converged
                | RoundOutcome::Drift
                | RoundOutcome::Baseline
                | RoundOutcome::Pending(_)
                | RoundOutcome::Held(_)
                | RoundOutcome::Refused(_)
                | RoundOutcome::Conflicted => "unknown".to_string(),
            };
            format!("dnscron: rounds fail, retrying with backoff: {why}")
        }
        (AlertKind::Failing, Transition::Cleared) => "dnscron: rounds succeed again".to_string(),
        (AlertKind::BrokenRevision, Transition::Raised | Transition::Changed) => {
            let Some(broken) = &status.broken else {
                return "dnscron: the folder's revision does not load".to_string();
            };
            let in_use = match &status.revision {
                Some(r) => format!("revision {} stays in use", short(r)),
                None => "no revision is in use yet, nothing is written".to_string(),
            };
            format!(
                "dnscron: revision {} does not load ({}); {in_use}",
                short(&broken.revision),
                problems_text(&broken.diagnostics)
            )
        }
        (AlertKind::BrokenRevision, Transition::Cleared) => {
            format!("dnscron: the folder's revision {revision} loads again")
        }
        (AlertKind::Conflicted, Transition::Raised | Transition::Changed) => {
            format!(
                "dnscron: revision {revision} not applied: {}",
                conflicts_text(status)
            )
        }
        (AlertKind::Held | AlertKind::Refused, Transition::Raised | Transition::Changed) => {
            format!(
                "dnscron: revision {revision} not applied: {}",
                outcome(&report.outcome, status, account)
            )
        }
        (AlertKind::Held | AlertKind::Refused | AlertKind::Conflicted, Transition::Cleared) => {
            "dnscron: nothing is kept out any more".to_string()
        }
        (AlertKind::Pending, Transition::Raised | Transition::Changed) => match &status.pending {
            Some(pending) => format!("dnscron: revision {revision} {}", pending_text(pending)),
            None => format!("dnscron: revision {revision} waits"),
        },
        (AlertKind::Pending, Transition::Cleared) => {
            "dnscron: nothing waits at a portal step any more".to_string()
        }
        (AlertKind::Suspended, Transition::Raised | Transition::Changed) => {
            "dnscron: writes suspended (the suspend file exists); reads and reports go on"
                .to_string()
        }
        (AlertKind::Suspended, Transition::Cleared) => "dnscron: writes resumed".to_string(),
    }
}

/// Drift by target, at most 10 named.
fn drift_detail(status: &Status) -> String {
    let mut out = format!(
        "drift: the live account differs from the files in {} in {} (not reverted unless the \
         policy is heal)",
        count(status.drift_changes(), "change", "changes"),
        count(status.drift.len(), "target", "targets")
    );
    let named: Vec<String> = status
        .drift
        .iter()
        .take(10)
        .map(|(t, changes)| format!("{} ({})", target_text(t), changes.len()))
        .collect();
    let _ = write!(out, ": {}", named.join(", "));
    if status.drift.len() > 10 {
        let _ = write!(out, " and {} more", status.drift.len() - 10);
    }
    out
}

pub(crate) fn waiting(wait: std::time::Duration, reason: WaitReason, failures: u32) -> String {
    let secs = wait.as_secs_f64();
    match reason {
        WaitReason::Interval => format!("next sweep in {secs:.0}s"),
        WaitReason::Budget => format!("sweep goes on in {secs:.0}s (API budget)"),
        WaitReason::Backoff => format!(
            "retrying in {secs:.1}s ({} in a row)",
            count(failures as usize, "failed round", "failed rounds")
        ),
    }
}

fn targets_text(targets: &[TargetRef]) -> String {
    match targets {
        [] => "no target".to_string(),
        [one] => target_text(one),
        [first, .., last] => format!(
            "{} targets ({} … {})",
            targets.len(),
            target_text(first),
            target_text(last)
        ),
    }
}

fn target_text(target: &TargetRef) -> String {
    Untrusted(&target.to_string()).to_string()
}

fn count(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dnscron_core::config::{Diagnostic, Diagnostics};
    use dnscron_core::controller::Broken;

    #[test]
    fn a_broken_first_revision_is_named_and_no_revision_is_said_to_stay() {
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(Diagnostic::general("expected a mapping"));
        let status = Status {
            broken: Some(Broken {
                revision: Revision {
                    id: "0123456789abcdef0123456789abcdef01234567".into(),
                    source: RevisionSource::Git,
                },
                diagnostics: Box::new(diagnostics),
            }),
            ..Status::default()
        };
        let report = RoundReport {
            trigger: Trigger::Start,
            work: Work::Nothing,
            outcome: RoundOutcome::Converged,
            duration: std::time::Duration::ZERO,
            finished_at: String::new(),
        };
        assert_eq!(
            alert(
                AlertKind::BrokenRevision,
                Transition::Raised,
                &status,
                &report,
                None
            ),
            "dnscron: revision 0123456789ab does not load (1 problem in its files, first: expected a mapping); no revision is in use yet, nothing is written"
        );
    }

    /// A first start whose folder moved off the revision named to adopt is worded with both
    /// ids and what to do, like the refusal at the start; and its kind is its own.
    #[test]
    fn a_folder_that_moved_off_the_adopted_revision_is_worded_with_what_to_do() {
        let error = RoundError::Adopt(Box::new(dnscron_core::controller::AdoptError::Moved {
            adopted: "0123456789abcdef0123456789abcdef01234567".into(),
            current: "89abcdef0123456789abcdef0123456789abcdef".into(),
        }));
        assert_eq!(error.kind(), "adopt");
        assert_eq!(
            error_text(&error, None),
            "the folder moved from revision 0123456789abcdef0123456789abcdef01234567, the one named to adopt, to 89abcdef0123456789abcdef0123456789abcdef before it was applied: nothing is applied or taken as the base; the folder's new revision was named by nobody, so the controller writes nothing and retries: review that revision's whole difference (`dnscron plan` over DIR) and restart with --adopt-revision naming it, or without --adopt-revision to take it as the base"
        );
    }
}
