//! The apply outcome for people and machines: text (stdout of `apply`), Markdown (`apply
//! --format markdown`), JSON (`apply --format json`), and the progress lines while it runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;

mod cron_race;
mod dns;
mod dns_words;
mod json;
mod markdown;
mod moved;
pub(crate) mod progress;

pub use json::{FORMAT_VERSION, json};
pub use markdown::markdown;
pub use progress::{Bar, Lines};

use dnscron_api::untrusted::Untrusted as U;
use dnscron_core::apply::{ApplyReport, ApplyResult, ChangeOutcome, ChangeReport, ErrorInfo};
use dnscron_core::apply::{LastRead, Unseen};
use dnscron_core::plan::{Action, Change, Value};

use super::plan::text::plain_change_lines;

/// Long contents (DKIM keys) would make a progress line unreadable; the plan shows them whole.
const SUMMARY_CHARS: usize = 100;

/// A change in one line, as the plan shows it (`- old A 192.0.2.99 (ttl 3600)`), cut to
/// `SUMMARY_CHARS`: the progress lines, the report's lines and its JSON `summary`.
pub fn summary(change: &Change) -> String {
    let text = plain_change_lines(change)
        .into_iter()
        .next()
        .unwrap_or_default();
    if text.chars().count() <= SUMMARY_CHARS {
        return text;
    }
    let mut out: String = text.chars().take(SUMMARY_CHARS - 1).collect();
    out.push('…');
    out
}

/// What became of a change, in the report's words.
fn outcome_words(outcome: ChangeOutcome) -> &'static str {
    match outcome {
        ChangeOutcome::Done => "done",
        ChangeOutcome::Replayed => "replayed",
        ChangeOutcome::AlreadyAbsent => "already absent",
        ChangeOutcome::Failed => "failed",
        ChangeOutcome::NeedsPortalStep => "needs a portal step",
        ChangeOutcome::NotAttempted => "not attempted",
        ChangeOutcome::AlreadyLive => "already in effect",
        ChangeOutcome::NotReady => "not done, not ready",
        ChangeOutcome::IndexMoved => "index moved",
    }
}

/// ` (repair N)` after a change of a repair round.
fn repair_note(round: u32) -> String {
    if round > 0 {
        format!(" (repair {round})")
    } else {
        String::new()
    }
}

fn change_line(out: &mut String, r: &ChangeReport, request_ids: bool) {
    let round = repair_note(r.round);
    let request = r
        .request_id
        .as_deref()
        .filter(|_| request_ids)
        .map(|id| format!("  {}", U(id)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  {:<19} {}: {}{round}{request}",
        outcome_words(r.outcome),
        r.target,
        summary(&r.change)
    );
}

/// `validation_error (HTTP 422)`: the error's type and status.
fn error_kind(error: &ErrorInfo) -> String {
    let kind = error.kind.as_deref().unwrap_or("error");
    let status = error
        .status
        .map(|s| format!(" (HTTP {s})"))
        .unwrap_or_default();
    format!("{}{status}", U(kind))
}

fn error_lines(out: &mut String, error: &ErrorInfo) {
    let _ = writeln!(out, "  {}: {}", error_kind(error), U(&error.message));
    for (field, messages) in &error.details {
        let _ = writeln!(out, "    {}: {}", U(field), U(&messages.join("; ")));
    }
    if let Some(id) = &error.request_id {
        let _ = writeln!(out, "  request_id: {}", U(id));
    }
}

/// `8 done, 1 failed, 1 not attempted`: every count that is not 0 (done always).
fn tally(report: &ApplyReport) -> String {
    let c = &report.counts;
    let mut parts = vec![format!("{} done", c.done)];
    for (n, label) in [
        (c.replayed, "replayed"),
        (c.already_absent, "already absent"),
        (c.failed, "failed"),
        (c.needs_portal_step, "needs a portal step"),
        (c.not_attempted, "not attempted"),
        (c.already_live, "already in effect"),
        (c.not_ready, "not done, not ready"),
        (c.index_moved, "index moved"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    parts.join(", ")
}

fn subject(report: &ApplyReport, change_id: usize) -> String {
    report
        .changes
        .iter()
        .rev()
        .find(|r| r.id == change_id && r.outcome != ChangeOutcome::NotAttempted)
        .map(|r| format!("change {change_id} ({}: {})", r.target, summary(&r.change)))
        .unwrap_or_else(|| format!("change {change_id}"))
}

fn not_visible(out: &mut String, report: &ApplyReport, unseen: &[Unseen], waited_secs: f64) {
    let _ = writeln!(
        out,
        "Not visible yet: the server accepted {} change(s) (a fresh 2xx, not a replay), but reading the live state again after waiting {waited_secs}s still does not show them:",
        unseen.len()
    );
    for u in unseen {
        let request = u.request_id.as_deref().unwrap_or("without a request_id");
        let _ = writeln!(
            out,
            "  {}: {}{}: accepted {request}, read again: {}",
            u.target,
            summary(&u.change),
            repair_note(u.round),
            last_read(&u.read)
        );
    }
    let _ = writeln!(
        out,
        "{}. They were not sent again, which could write them twice: something between dnscron and the API (a cache, a proxy, a lagging replica) may serve stale reads. Run `dnscron plan` in a minute to check.",
        tally(report)
    );
}

/// What the last read shows of an unseen write: `not in the listing`, `still in the listing`,
/// `still <old value>`.
fn last_read(read: &LastRead) -> String {
    match read {
        LastRead::NotListed => "not in the listing".into(),
        LastRead::StillListed => "still in the listing".into(),
        LastRead::StillBefore(Some(before)) => format!("still {}", value_text(before)),
        LastRead::StillBefore(None) => "still as before".into(),
    }
}

fn value_text(value: &Value) -> String {
    match value {
        Value::Record { ttl, content } => format!("{content} (ttl {ttl})"),
        Value::CronJob { schedule, command } => format!("{schedule} {command}"),
        Value::Nameservers { mode, nameservers } => format!("{mode} {}", nameservers.join(" "))
            .trim_end()
            .to_string(),
    }
}

/// `3 created, 2 updated, 4 deleted.`: what is in effect now that apply made (replays and
/// already-absent deletes included, reviewed changes found already in effect not).
fn effect_line(report: &ApplyReport) -> String {
    let (mut created, mut updated, mut deleted) = (0, 0, 0);
    for r in &report.changes {
        if matches!(
            r.outcome,
            ChangeOutcome::Done | ChangeOutcome::Replayed | ChangeOutcome::AlreadyAbsent
        ) {
            match r.action {
                Action::Create => created += 1,
                Action::Update => updated += 1,
                Action::Delete => deleted += 1,
            }
        }
    }
    format!("{created} created, {updated} updated, {deleted} deleted.\n")
}

/// Said when a reviewed plan made without a scope widened the one asked for.
const READ_WHOLE_ACCOUNT: &str =
    "Read the whole account: the reviewed plan was made without --changed-since.";

/// The outcome for people: one line per change with what became of it (without request ids:
/// `-v` and JSON have them), then the result and what was created, updated and deleted.
pub fn text(report: &ApplyReport) -> String {
    render_text(report, false)
}

/// [`text`] with the request id of each change (`apply -v`).
pub fn text_with_request_ids(report: &ApplyReport) -> String {
    render_text(report, true)
}

fn render_text(report: &ApplyReport, request_ids: bool) -> String {
    let mut out = String::new();
    if report.read_whole_account {
        out.push_str(READ_WHOLE_ACCOUNT);
        out.push('\n');
    }
    match &report.result {
        ApplyResult::NoChanges => {
            out.push_str("No changes. The live account matches the files.\n");
            return out;
        }
        ApplyResult::AlreadyApplied => {
            let _ = writeln!(
                out,
                "Already applied: the live account at {} already is what this plan produces; nothing was sent.",
                U(&report.api_url)
            );
            for r in &report.changes {
                change_line(&mut out, r, request_ids);
            }
            return out;
        }
        ApplyResult::ChangedSinceReview {
            changed,
            not_made,
            not_read,
        } => {
            moved::since_review_text(&mut out, report, changed, not_made, not_read);
            return out;
        }
        ApplyResult::ChangedDuringApply { .. } | moved::ran_and_nothing_moved!() => {}
    }
    let _ = writeln!(
        out,
        "Apply of plan {} to {}:",
        report.plan_id,
        U(&report.api_url)
    );
    for r in &report.changes {
        change_line(&mut out, r, request_ids);
    }
    out.push('\n');
    match &report.result {
        ApplyResult::Converged if !report.changed_during_apply.is_empty() => {
            let _ = writeln!(
                out,
                "Apply complete: every change of this plan is in effect ({}); someone else changed the account during the apply (see the warning below).",
                tally(report)
            );
        }
        ApplyResult::Converged => {
            let _ = writeln!(
                out,
                "Apply complete, converged: the live account matches the files ({}).",
                tally(report)
            );
        }
        ApplyResult::NeedsPortalStep {
            change_id,
            continue_url,
        } => {
            let _ = writeln!(
                out,
                "Stopped at {}: a human step is needed in the portal.",
                subject(report, *change_id)
            );
            let _ = writeln!(out, "\n    Continue in the portal: {}\n", U(continue_url));
            let _ = writeln!(
                out,
                "{}. Nothing after change {change_id} was attempted; finish the step in the portal, then run apply again.",
                tally(report)
            );
        }
        ApplyResult::Failed { change_id, error } => {
            let _ = writeln!(out, "Failed at {}:", subject(report, *change_id));
            error_lines(&mut out, error);
            let _ = writeln!(
                out,
                "{}. Nothing after change {change_id} was attempted; fix the cause, then run apply again (completed changes are not repeated).",
                tally(report)
            );
        }
        ApplyResult::Differs { remaining } => {
            let _ = writeln!(
                out,
                "Not converged: after {} round(s) the live account still differs from the files:",
                report.rounds
            );
            for change in remaining {
                for line in plain_change_lines(change) {
                    let _ = writeln!(out, "  {}: {line}", change.target);
                }
            }
            let _ = writeln!(
                out,
                "{}. Something else may be changing the account; run `dnscron plan` to look.",
                tally(report)
            );
        }
        ApplyResult::VerifyFailed { error } => {
            out.push_str(
                "Every change was sent, but verification could not read the live state:\n",
            );
            error_lines(&mut out, error);
            let _ = writeln!(
                out,
                "{}. Run `dnscron plan` to check the result.",
                tally(report)
            );
        }
        ApplyResult::NotVisible {
            unseen,
            waited_secs,
        } => not_visible(&mut out, report, unseen, *waited_secs),
        ApplyResult::Interrupted => {
            let _ = writeln!(
                out,
                "Interrupted: {}. Run apply again to finish; completed changes are not repeated.",
                tally(report)
            );
        }
        ApplyResult::NameserversNotReady { .. } => not_ready(&mut out, report),
        ApplyResult::ChangedDuringApply { overwritten } => {
            moved::overwritten_text(&mut out, report, overwritten)
        }
        ApplyResult::CronIndexMoved { change_id } => cron_race::text(&mut out, report, *change_id),
        ApplyResult::NoChanges
        | ApplyResult::AlreadyApplied
        | ApplyResult::ChangedSinceReview { .. } => {}
    }
    // Accepted but not seen is not in effect as far as anyone can tell: no count for it.
    if !matches!(report.result, ApplyResult::NotVisible { .. }) {
        out.push_str(&effect_line(report));
    }
    out.push_str(&moved::during_apply_text(report));
    out.push_str(&dns::text(report.dns_check.as_ref()));
    out
}

/// What each new nameserver of a refused switch answered (`ready` when it serves the zone), by
/// host; from the error's details when the report has no readiness (a library's own report).
fn not_ready_answers(r: &ChangeReport) -> BTreeMap<String, Vec<String>> {
    let Some(readiness) = &r.readiness else {
        return r.error.iter().flat_map(|e| e.details.clone()).collect();
    };
    readiness
        .servers
        .iter()
        .map(|server| {
            let answered = if server.problems.is_empty() {
                vec!["ready".to_string()]
            } else {
                server
                    .problems
                    .iter()
                    .map(dns_words::problem_text)
                    .collect()
            };
            (server.host.clone(), answered)
        })
        .collect()
}

/// Each refused switch with what its new nameservers answered, and what to do.
fn not_ready(out: &mut String, report: &ApplyReport) {
    for r in report
        .changes
        .iter()
        .filter(|r| r.outcome == ChangeOutcome::NotReady)
    {
        let answers = not_ready_answers(r);
        let hosts: Vec<String> = answers.keys().map(|h| U(h).to_string()).collect();
        let _ = writeln!(
            out,
            "Not done: {} was not switched to {}: they don't serve the zone as the files declare it:",
            r.target,
            hosts.join(", ")
        );
        for (host, lines) in &answers {
            for line in lines {
                let _ = writeln!(out, "  {}: {}", U(host), U(line));
            }
        }
    }
    let _ = writeln!(
        out,
        "{}. Every other change is in effect. Load the zone on those nameservers (or fix the zone file's `nameservers:`), then run apply again (completed changes are not repeated); or pass --allow-unready-nameservers to switch anyway.",
        tally(report)
    );
}

#[cfg(test)]
mod tests;
