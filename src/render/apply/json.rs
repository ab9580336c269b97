//! The apply outcome as JSON (`apply --format json`).

use serde::Serialize;
use serde_json::{Map, Value};

use dnscron_core::apply::dns::DnsCheck;
use dnscron_core::apply::{ApplyReport, ApplyResult, ChangeReport, Counts, Moved};

use super::dns_words::{problem_text, skip_reason};
use super::moved::ran_and_nothing_moved;
use super::{last_read, summary};
use crate::cli::error::NOT_READY_HINT;

/// Version of the JSON outcome document.
pub const FORMAT_VERSION: u32 = 1;

/// Pretty JSON with a final newline: `format_version`, `plan_id`, `result` (+ its fields),
/// `exit_code` (the caller's: the CLI decides exit codes), `rounds`, every change with its
/// outcome, and `counts`.
pub fn json(report: &ApplyReport, exit_code: u8) -> String {
    let doc = JsonReport {
        format_version: FORMAT_VERSION,
        plan_id: &report.plan_id,
        result: &report.result,
        exit_code,
        rounds: report.rounds,
        changes: &report.changes,
        counts: report.counts,
        dns_check: report.dns_check.as_ref(),
        changed_during_apply: &report.changed_during_apply,
        read_whole_account: report.read_whole_account,
    };
    let text = serde_json::to_value(&doc).and_then(|mut value| {
        add_summaries(&mut value, report);
        word_not_ready(&mut value, report);
        word_dns_check(&mut value, report);
        word_unseen(&mut value, report);
        serde_json::to_string_pretty(&value)
    });
    let mut out = text.unwrap_or_else(|e| {
        serde_json::json!({ "result": "failed", "error": format!("cannot serialize the report: {e}") })
            .to_string()
    });
    out.push('\n');
    dnscron_api::untrusted::json_text(out)
}

/// Each change's `summary`, after its `resource` (an unseen write's after its `target`): the
/// core reports the change itself, the wording is ours.
/// A moved thing's (`changed`, `overwritten`, `changed_during_apply`) after its `resource`.
fn add_summaries(doc: &mut Value, report: &ApplyReport) {
    let changes = report.changes.iter().map(|r| &r.change);
    insert_after(doc.get_mut("changes"), "resource", changes);
    if let ApplyResult::NotVisible { unseen, .. } = &report.result {
        insert_after(
            doc.get_mut("unseen"),
            "target",
            unseen.iter().map(|u| &u.change),
        );
    }
    match &report.result {
        ApplyResult::ChangedSinceReview {
            changed,
            not_made,
            not_read,
        } => {
            insert_after(
                doc.get_mut("changed"),
                "resource",
                changed.iter().map(|m| &m.change),
            );
            insert_after(doc.get_mut("not_made"), "resource", not_made.iter());
            insert_after(doc.get_mut("not_read"), "resource", not_read.iter());
        }
        ApplyResult::ChangedDuringApply { overwritten } => {
            insert_after(
                doc.get_mut("overwritten"),
                "resource",
                overwritten.iter().map(|m| &m.change),
            );
        }
        ApplyResult::NoChanges | ApplyResult::AlreadyApplied | ran_and_nothing_moved!() => {}
    }
    insert_after(
        doc.get_mut("changed_during_apply"),
        "resource",
        report.changed_during_apply.iter().map(|m| &m.change),
    );
}

/// A refused switch's message gets what to do, and its details what each server answered in
/// our words (an unresolved host names the flag that gives it an address).
fn word_not_ready(doc: &mut Value, report: &ApplyReport) {
    let Some(Value::Array(items)) = doc.get_mut("changes") else {
        return;
    };
    for (item, r) in items.iter_mut().zip(&report.changes) {
        let (Some(error), Some(_)) = (&r.error, &r.readiness) else {
            continue;
        };
        let Some(Value::Object(fields)) = item.get_mut("error") else {
            continue;
        };
        let message = format!("{}; {}", error.message, NOT_READY_HINT);
        fields.insert("message".into(), Value::String(message));
        if let Ok(details) = serde_json::to_value(super::not_ready_answers(r)) {
            insert_field(fields, "message", "details", details);
        }
    }
}

/// The DNS check's skip reason, and each nameserver's problems (when it has some), in our
/// words.
fn word_dns_check(doc: &mut Value, report: &ApplyReport) {
    let zones = match &report.dns_check {
        Some(DnsCheck::Skipped { reason }) => {
            if let Some(Value::Object(fields)) = doc.get_mut("dns_check") {
                let words = Value::String(skip_reason(*reason).into());
                fields.insert("reason".into(), words);
            }
            return;
        }
        Some(DnsCheck::Ran { zones, .. }) => zones,
        None => return,
    };
    for (z, zone) in zones.iter().enumerate() {
        for (n, ns) in zone.nameservers.iter().enumerate() {
            if ns.problems.is_empty() {
                continue;
            }
            let pointer = format!("/dns_check/zones/{z}/nameservers/{n}");
            if let Some(Value::Object(fields)) = doc.pointer_mut(&pointer) {
                let problems = ns.problems.iter().map(|p| problem_text(p).into()).collect();
                insert_field(fields, "polls", "problems", Value::Array(problems));
            }
        }
    }
}

/// What the last read showed of each unseen write, after its `request_id`.
fn word_unseen(doc: &mut Value, report: &ApplyReport) {
    let (ApplyResult::NotVisible { unseen, .. }, Some(Value::Array(items))) =
        (&report.result, doc.get_mut("unseen"))
    else {
        return;
    };
    for (item, u) in items.iter_mut().zip(unseen) {
        if let Value::Object(fields) = item {
            let read = Value::String(last_read(&u.read));
            insert_field(fields, "request_id", "read", read);
        }
    }
}

fn insert_after<'a>(
    list: Option<&mut Value>,
    key: &str,
    changes: impl Iterator<Item = &'a dnscron_core::plan::Change>,
) {
    let Some(Value::Array(items)) = list else {
        return;
    };
    for (item, change) in items.iter_mut().zip(changes) {
        if let Value::Object(fields) = item {
            insert_field(fields, key, "summary", Value::String(summary(change)));
        }
    }
}

fn insert_field(fields: &mut Map<String, Value>, after: &str, key: &str, value: Value) {
    let at = fields
        .keys()
        .position(|k| k == after)
        .map_or(fields.len(), |i| i + 1);
    fields.shift_insert(at, key.to_string(), value);
}

#[derive(Serialize)]
struct JsonReport<'a> {
    format_version: u32,
    plan_id: &'a str,
    #[serde(flatten)]
    result: &'a ApplyResult,
    exit_code: u8,
    rounds: u32,
    changes: &'a [ChangeReport],
    counts: Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    dns_check: Option<&'a DnsCheck>,
    #[serde(skip_serializing_if = "<[Moved]>::is_empty")]
    changed_during_apply: &'a [Moved],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    read_whole_account: bool,
}
