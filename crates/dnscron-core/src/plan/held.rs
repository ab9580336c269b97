//! Error findings hold the writes they are about (docs/apply.md, "What apply refuses").
//!
//! A change is held when it would write (create or update) what an error finding judged from
//! the files, or from DNS answers, is about, and no `accept:` accepts that finding. A finding
//! judged from DNS (an SPF record past 10 lookups inside a provider's includes, read through
//! the plan's resolver) is about the record the change writes as much as one judged from the
//! files: the receivers that read the record will reject mail the same way, so the pull
//! request's check fails and the write is held until the record is fixed or the finding
//! accepted (docs/health.md, "What holds a change"). Only a plan made with a resolver judges
//! them; apply has none, so it holds by the files' findings and refuses a reviewed plan that
//! held a change when it was made. A finding judged from the account never holds anything: it
//! is about what the account holds, not what the change writes. A delete is never held: it
//! removes the broken thing. What a finding is about:
//!
//! - a record set: `Finding::record`, the name and type a change writes, in the same zone;
//! - a cron job (`cron-never-runs`): the job the site file declares at the finding's
//!   `declared_at`, which is also the `declared_at` of the change that creates it.
//!
//! Findings are complete only once the mail findings are in (`plan::make`), after the changes
//! are ordered, so a held change keeps its place: a plan with one is never executed at all.

use std::collections::{HashMap, HashSet};

use crate::config::model::Desired;
use crate::dns::RecordType;

use super::accept::{Looked, judge_acceptances};
use super::health::mail::mail_findings_of;
use super::model::{Action, Change, Finding, Plan, Resource, Status, Summary, TargetRef};
use crate::finding::Severity;
use crate::finding::{Basis, FindingCode};

/// A held change and the findings that hold it.
#[derive(Clone, Debug, PartialEq)]
pub struct Held {
    pub change: Change,
    pub findings: Vec<Finding>,
}

/// What a change writes, or an unaccepted error finding of the files is about: equal subjects
/// are what holds a change, found through a map so a plan of 100,000 changes and as many
/// findings is held in one pass over each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Subject {
    /// A record set of a zone: its name (lower case) and type.
    RecordSet {
        target: TargetRef,
        name: String,
        rtype: RecordType,
    },
    /// A cron job of a site, by where its file declares it: a cron finding names no record, and
    /// stands where the job is declared, as does the change that creates the job.
    Job {
        target: TargetRef,
        declared_at: String,
    },
}

/// What `change` writes; `None` for a delete (it removes the broken thing) and nameservers.
fn written(change: &Change) -> Option<Subject> {
    let target = change.target.clone();
    match (change.action, &change.resource) {
        (Action::Delete, _) | (_, Resource::Nameservers) => None,
        (Action::Create | Action::Update, Resource::Record { name, rtype, .. }) => {
            Some(Subject::RecordSet {
                target,
                name: name.to_ascii_lowercase(),
                rtype: *rtype,
            })
        }
        (Action::Create | Action::Update, Resource::CronJob { .. }) => {
            let declared_at = change.declared_at.clone()?;
            Some(Subject::Job {
                target,
                declared_at,
            })
        }
    }
}

/// What `finding` holds writes of; `None` unless it is an unaccepted error the files or DNS prove.
fn held_subject(finding: &Finding) -> Option<Subject> {
    if !holds_writes(finding) {
        return None;
    }
    let target = finding.target.clone();
    match (&finding.record, &finding.declared_at) {
        (Some(record), _) => Some(Subject::RecordSet {
            target,
            name: record.name.to_ascii_lowercase(),
            rtype: record.rtype,
        }),
        (None, Some(declared_at)) => Some(Subject::Job {
            target,
            declared_at: declared_at.clone(),
        }),
        (None, None) => None,
    }
}

/// Whether `finding` holds `change` (the held-writes rule for one pair, which the unit tests pin).
#[cfg(test)]
pub(crate) fn holds(finding: &Finding, change: &Change) -> bool {
    held_subject(finding).is_some_and(|about| written(change) == Some(about))
}

/// An unaccepted error finding the files or DNS answers prove.
fn holds_writes(finding: &Finding) -> bool {
    let judged = match finding.code.basis() {
        Basis::Files | Basis::Dns => true,
        Basis::Account => false,
    };
    finding.code.severity() == Severity::Error && judged && finding.accepted.is_none()
}

/// For a plan made only to be bound (apply's re-plans, which leave the reviewed plan's findings
/// to show): of the mail findings of `desired` (judged over all of `files`, `plan::scope`), adds
/// those about a record set a change writes, the ones that may hold it once acceptances are
/// judged. The mail records are judged only when a change writes a record set.
pub(crate) async fn add_findings_of_files(plan: &mut Plan, desired: &Desired, files: &Desired) {
    let written: HashSet<Subject> = plan.changes.iter().filter_map(written).collect();
    if written
        .iter()
        .any(|w| matches!(w, Subject::RecordSet { .. }))
    {
        let mut mail = Vec::new();
        mail_findings_of(files, &desired.zones, None, &mut mail).await;
        plan.findings.extend(
            mail.into_iter()
                .filter(|f| held_subject(f).is_some_and(|about| written.contains(&about))),
        );
    }
}

/// Holds the changes of a plan made only to be bound to a saved one: the files' findings about
/// what it writes ([`add_findings_of_files`]), the files' acceptances judged on the plan's day,
/// then [`hold`].
pub(crate) async fn hold_by_files(plan: &mut Plan, desired: &Desired) {
    add_findings_of_files(plan, desired, desired).await;
    let today = chrono::DateTime::parse_from_rfc3339(&plan.created_at)
        .ok()
        .map(|made| made.with_timezone(&chrono::Utc).date_naive());
    judge_acceptances(&mut plan.findings, desired, today, Looked::Partly);
    hold(plan);
}

/// Marks every change a finding of `plan` holds as [`Status::HeldByFinding`] (its reason names
/// the findings' codes), lists it in those findings' `change_ids`, and counts it in the summary.
pub(crate) fn hold(plan: &mut Plan) {
    let mut about: HashMap<Subject, Vec<usize>> = HashMap::new();
    for (i, finding) in plan.findings.iter().enumerate() {
        if let Some(subject) = held_subject(finding) {
            about.entry(subject).or_default().push(i);
        }
    }
    if about.is_empty() {
        return;
    }
    for change in &mut plan.changes {
        let Some(holding) = written(change).and_then(|w| about.get(&w)) else {
            continue;
        };
        let codes: Vec<FindingCode> = holding.iter().map(|&i| plan.findings[i].code).collect();
        change.status = Status::HeldByFinding;
        change.reason = Some(reason(&codes));
        for &i in holding {
            let ids = &mut plan.findings[i].change_ids;
            if !ids.contains(&change.id) {
                ids.push(change.id);
            }
        }
    }
    plan.summary = Summary::of(&plan.changes);
}

fn reason(codes: &[FindingCode]) -> String {
    let named: Vec<String> = codes.iter().map(|c| format!("`{c}`")).collect();
    match named.as_slice() {
        [one] => format!("held by the error finding {one}, which no `accept:` accepts"),
        many => format!(
            "held by the error findings {}, which no `accept:` accepts",
            many.join(", ")
        ),
    }
}

/// The held changes of `plan`, in plan order, each with the findings that hold it (from the
/// findings' `change_ids`, so a plan read from a file answers too).
pub(crate) fn held(plan: &Plan) -> Vec<Held> {
    let mut by_change: HashMap<usize, Vec<&Finding>> = HashMap::new();
    for finding in plan.findings.iter().filter(|f| holds_writes(f)) {
        for id in &finding.change_ids {
            by_change.entry(*id).or_default().push(finding);
        }
    }
    plan.changes
        .iter()
        .filter(|c| c.is_held())
        .map(|change| Held {
            change: change.clone(),
            findings: by_change
                .get(&change.id)
                .map(|found| found.iter().map(|f| (*f).clone()).collect())
                .unwrap_or_default(),
        })
        .collect()
}

#[cfg(test)]
#[path = "held_tests.rs"]
mod tests;
