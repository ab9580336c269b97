//! `/status`: the last round and what the controller knows of the account, as versioned JSON
//! for people and scripts (docs/controller.md, "/status"). Text from the server or a file is
//! made safe for a terminal by `untrusted::json_text` over the whole document.

use dnscron_core::apply::Moved;
use dnscron_core::config::accounts::Account;
use dnscron_core::controller::{
    Broken, Pending, Revision, RevisionSource, RoundOutcome, RoundReport, Status,
};
use dnscron_core::plan::{Change, Finding, Severity, TargetRef};
use serde_json::{Value, json};

use super::words;
use crate::render::plan::text::plain_change_lines;

/// The `status_version` of the document: a field removed or changing meaning bumps it.
pub const STATUS_VERSION: u32 = 1;

/// `account`: the account of several whose document it is (its round's error names that
/// account's token source); `None` for a controller of one.
pub fn document(
    report: &RoundReport,
    status: &Status,
    policy: &str,
    account: Option<&Account>,
) -> String {
    let doc = json!({
        "status_version": STATUS_VERSION,
        "policy": policy,
        "round": round(report, status, account),
        "revision": status.revision.as_ref().map(revision),
        "converged": status.converged.as_ref().map(revision),
        "broken_revision": status.broken.as_ref().map(broken),
        "pending": status.pending.as_ref().map(pending),
        "kept_out": status.kept_out.as_ref().map(|k| json!({
            "revision": revision(&k.revision),
            "reason": k.reason.name(),
        })),
        "conflicts": status.conflicts.iter().map(conflict).collect::<Vec<_>>(),
        "suspended": status.suspended,
        "drift": changes_by_target(&status.drift),
        "unapplied": changes_by_target(&status.unapplied),
        "findings": status
            .findings
            .values()
            .flatten()
            .chain(&status.account_findings)
            .map(finding)
            .collect::<Vec<_>>(),
        "sweep": {
            "done": status.sweep_done,
            "total": status.sweep_total,
            "completed": status.sweeps,
        },
        "consecutive_failures": status.consecutive_failures,
    });
    dnscron_api::untrusted::json_text(doc.to_string())
}

fn round(report: &RoundReport, status: &Status, account: Option<&Account>) -> Value {
    let (work, targets) = words::work_of(&report.work);
    let error = match &report.outcome {
        RoundOutcome::Failed(error) => Some(words::error_text(error, account)),
        RoundOutcome::Converged
        | RoundOutcome::Drift
        | RoundOutcome::Baseline
        | RoundOutcome::Pending(_)
        | RoundOutcome::Held(_)
        | RoundOutcome::Refused(_)
        | RoundOutcome::Conflicted => None,
    };
    json!({
        "trigger": words::trigger(report.trigger),
        "finished_at": report.finished_at,
        "duration_seconds": report.duration.as_secs_f64(),
        "work": work,
        "targets": targets.iter().map(target).collect::<Vec<_>>(),
        "outcome": report.outcome.name(),
        "summary": words::round(report, status, account),
        "error": error,
    })
}

fn revision(revision: &Revision) -> Value {
    let source = match revision.source {
        RevisionSource::Git => "git",
        RevisionSource::Digest => "digest",
    };
    json!({ "id": revision.id, "source": source })
}

/// The broken revision and every problem of its files, each at its `file:line:col`.
fn broken(broken: &Broken) -> Value {
    let errors: Vec<Value> = broken
        .diagnostics
        .items
        .iter()
        .map(|d| {
            json!({
                "at": d.location.as_ref().map(ToString::to_string),
                "message": d.message,
            })
        })
        .collect();
    let mut doc = revision(&broken.revision);
    doc["errors"] = Value::Array(errors);
    doc
}

/// A change of a conflicted revision: the value it declares, the one the previous revision
/// declared, and the live one, each as `plan` draws a value.
fn conflict(moved: &Moved) -> Value {
    json!({
        "target": target(&moved.target),
        "change": change(&moved.change),
        "previous": moved.expected,
        "reviewed": moved.change.after,
        "live": moved.live,
    })
}

fn pending(pending: &Pending) -> Value {
    match pending {
        Pending::PortalStep { continue_url } => {
            json!({ "kind": "portal_step", "continue_url": continue_url })
        }
        Pending::Nameservers => json!({ "kind": "nameservers" }),
    }
}

fn target(target: &TargetRef) -> Value {
    json!({ "kind": target.kind, "name": target.name })
}

fn changes_by_target(map: &std::collections::BTreeMap<TargetRef, Vec<Change>>) -> Vec<Value> {
    map.iter()
        .map(|(t, changes)| {
            json!({
                "target": target(t),
                "changes": changes.iter().map(change).collect::<Vec<_>>(),
            })
        })
        .collect()
}

fn change(change: &Change) -> Value {
    json!({
        "action": change.action,
        "lines": plain_change_lines(change),
    })
}

/// The metric's level of a finding's severity.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning | Severity::Blocked | Severity::NeedsPortalStep => "warning",
        Severity::Info => "info",
    }
}

fn finding(finding: &Finding) -> Value {
    json!({
        "code": finding.code.as_str(),
        "level": level(finding.severity),
        "target": target(&finding.target),
        "message": finding.message,
        "accepted": finding.accepted.is_some(),
    })
}
