//! Error findings hold the writes they are about (docs/apply.md, "What apply refuses").
//!
//! A change is held when it would write (create or update) what an error finding judged from
//! the files alone is about, and no `accept:` accepts that finding. A finding judged from DNS
//! answers or from the account never holds anything: the same files could be right tomorrow,
//! and a reviewer could not reproduce the refusal from the files. A delete is never held: it
//! removes the broken thing. What a finding is about:
//!
//! - a record set: `Finding::record`, the name and type a change writes, in the same zone;
//! - a cron job (`cron-never-runs`): the job the site file declares at the finding's
//!   `declared_at`, which is also the `declared_at` of the change that creates it.
//!
//! Findings are complete only once the mail findings are in (`plan::make`), after the changes
//! are ordered, so a held change keeps its place: a plan with one is never executed at all.

use super::finding_code::{Basis, FindingCode};
use super::model::{Action, Change, Finding, Plan, Resource, Severity, Status, Summary};

/// A held change and the findings that hold it.
#[derive(Clone, Debug, PartialEq)]
pub struct Held {
    pub change: Change,
    pub findings: Vec<Finding>,
}

/// Whether `finding` holds `change`.
pub fn holds(finding: &Finding, change: &Change) -> bool {
    if !holds_writes(finding) || finding.target != change.target {
        return false;
    }
    match change.action {
        Action::Delete => false,
        Action::Create | Action::Update => is_about(finding, change),
    }
}

/// An unaccepted error finding the files alone prove.
fn holds_writes(finding: &Finding) -> bool {
    finding.code.severity() == Severity::Error
        && finding.code.basis() == Basis::Files
        && finding.accepted.is_none()
}

/// Whether `finding` is about the thing `change` writes.
fn is_about(finding: &Finding, change: &Change) -> bool {
    match &change.resource {
        Resource::Record { name, rtype, .. } => finding
            .record
            .as_ref()
            .is_some_and(|r| r.rtype == *rtype && r.name.eq_ignore_ascii_case(name)),
        // A cron finding names no record; it stands where the job is declared, and so does the
        // change that creates that job.
        Resource::CronJob { .. } => {
            finding.record.is_none()
                && finding.declared_at.is_some()
                && finding.declared_at == change.declared_at
        }
        Resource::Nameservers => false,
    }
}

/// The findings of `findings` that hold a change of `plan`: what a plan made only to be bound
/// (apply's, which leaves the reviewed plan's findings to show) needs of the files' findings.
pub(crate) fn holding(plan: &Plan, findings: Vec<Finding>) -> impl Iterator<Item = Finding> {
    findings
        .into_iter()
        .filter(|f| plan.changes.iter().any(|c| holds(f, c)))
}

/// Marks every change a finding of `plan` holds as [`Status::HeldByFinding`] (its reason names
/// the findings' codes), lists it in those findings' `change_ids`, and counts it in the summary.
pub fn hold(plan: &mut Plan) {
    for change in &mut plan.changes {
        let codes: Vec<FindingCode> = plan
            .findings
            .iter()
            .filter(|f| holds(f, change))
            .map(|f| f.code)
            .collect();
        if codes.is_empty() {
            continue;
        }
        change.status = Status::HeldByFinding;
        change.reason = Some(reason(&codes));
    }
    for finding in &mut plan.findings {
        for change in &plan.changes {
            if holds(finding, change) && !finding.change_ids.contains(&change.id) {
                finding.change_ids.push(change.id);
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
pub fn held(plan: &Plan) -> Vec<Held> {
    plan.changes
        .iter()
        .filter(|c| c.is_held())
        .map(|change| Held {
            change: change.clone(),
            findings: plan
                .findings
                .iter()
                .filter(|f| f.change_ids.contains(&change.id) && holds_writes(f))
                .cloned()
                .collect(),
        })
        .collect()
}

#[cfg(test)]
#[path = "held_tests.rs"]
mod tests;
