//! The apply outcome as Markdown, for a CI job summary (`apply --format markdown`): the result
//! in a heading, what was done and what was not in a table, and where to continue.

use std::fmt::Write as _;

use super::{error_kind, summary, tally};
use dnscron_core::apply::{ApplyReport, ApplyResult, ChangeOutcome, ErrorInfo};

/// Markdown of `report`; the heading names the result, the table lists every change.
pub fn markdown(report: &ApplyReport) -> String {
    let mut out = format!("### dnscron apply: {}\n\n", headline(&report.result));
    let _ = writeln!(
        out,
        "Apply of plan `{}` to `{}`: {}.\n",
        report.plan_id,
        cell(&report.api_url),
        tally(report)
    );
    if report.read_whole_account {
        let _ = writeln!(out, "{}\n", super::READ_WHOLE_ACCOUNT);
    }
    match &report.result {
        ApplyResult::NeedsPortalStep { continue_url, .. } => {
            let _ = writeln!(
                out,
                "**A human step is needed in the portal:** {continue_url}\n\nFinish it there, then re-run this job: the changes already done are reported as in effect, the rest is applied.\n"
            );
        }
        ApplyResult::Failed { error, .. } | ApplyResult::VerifyFailed { error } => {
            let _ = writeln!(out, "**Error:** {}\n", error_text(error));
        }
        ApplyResult::Interrupted => {
            out.push_str("Re-run this job to finish; completed changes are not repeated.\n\n");
        }
        ApplyResult::NameserversNotReady { .. } => {
            out.push_str("**A switch to custom nameservers was not sent: they don't serve the zone as the files declare it yet.** Every other change is in effect. Load the zone on them and re-run this job, or apply with `--allow-unready-nameservers`.\n\n");
            for r in report
                .changes
                .iter()
                .filter(|r| r.outcome == ChangeOutcome::NotReady)
            {
                for (host, answers) in &super::not_ready_answers(r) {
                    for answer in answers {
                        let _ = writeln!(out, "- `{}`: {}", cell(host), cell(answer));
                    }
                }
            }
            out.push('\n');
        }
        ApplyResult::NotVisible {
            unseen,
            waited_secs,
        } => {
            let _ = writeln!(
                out,
                "**{} accepted write(s) still not visible after {waited_secs}s**; nothing was sent twice. Re-run this job once the account shows them.\n",
                unseen.len()
            );
        }
        ApplyResult::CronIndexMoved { change_id } => {
            super::cron_race::markdown(&mut out, report, *change_id);
        }
        ApplyResult::Converged
        | ApplyResult::NoChanges
        | ApplyResult::AlreadyApplied
        | ApplyResult::Differs { .. }
        | ApplyResult::ChangedSinceReview { .. }
        | ApplyResult::ChangedDuringApply { .. } => {}
    }
    super::moved::markdown(&mut out, report);
    if report.changes.is_empty() {
        return out;
    }
    out.push_str("| | change | outcome |\n|---|---|---|\n");
    for r in &report.changes {
        let _ = writeln!(
            out,
            "| {} | {}: `{}`{} | {} |",
            mark(r.outcome),
            r.target,
            cell(&summary(&r.change)),
            if r.round > 0 {
                format!(" (repair {})", r.round)
            } else {
                String::new()
            },
            super::outcome_words(r.outcome)
        );
    }
    if let ApplyResult::NotVisible { unseen, .. } = &report.result {
        let _ = writeln!(
            out,
            "\n{} change(s) were accepted but do not show in the live state yet; they were not sent again. Run `dnscron plan` in a minute to check.",
            unseen.len()
        );
    }
    out.push_str(&super::dns::markdown(report.dns_check.as_ref()));
    if let ApplyResult::Differs { remaining } = &report.result {
        let _ = writeln!(
            out,
            "\n{} change(s) still differ after {} round(s); something else may be changing the account.",
            remaining.len(),
            report.rounds
        );
    }
    out
}

fn headline(result: &ApplyResult) -> &'static str {
    match result {
        ApplyResult::Converged => "converged",
        ApplyResult::NoChanges => "no changes",
        ApplyResult::AlreadyApplied => "already applied",
        ApplyResult::NeedsPortalStep { .. } => "stopped, needs a portal step",
        ApplyResult::Failed { .. } => "failed",
        ApplyResult::Differs { .. } => "not converged",
        ApplyResult::VerifyFailed { .. } => "verification failed",
        ApplyResult::NotVisible { .. } => "accepted but not visible yet",
        ApplyResult::Interrupted => "interrupted",
        ApplyResult::NameserversNotReady { .. } => "nameserver switch not done, not ready",
        ApplyResult::ChangedSinceReview {
            changed, not_made, ..
        } if changed.is_empty() && not_made.is_empty() => {
            "reviewed changes outside what was read, nothing sent"
        }
        ApplyResult::ChangedSinceReview { .. } => "reviewed plan no longer holds, nothing sent",
        ApplyResult::ChangedDuringApply { .. } => "changed again during the apply",
        ApplyResult::CronIndexMoved { .. } => "stopped, a cron delete reached another job",
    }
}

fn mark(outcome: ChangeOutcome) -> &'static str {
    match outcome {
        ChangeOutcome::Done | ChangeOutcome::Replayed | ChangeOutcome::AlreadyAbsent => "✅",
        ChangeOutcome::AlreadyLive => "☑️",
        ChangeOutcome::Failed => "❌",
        ChangeOutcome::NeedsPortalStep => "✋",
        ChangeOutcome::NotAttempted => "⏸️",
        ChangeOutcome::NotReady => "🚫",
        ChangeOutcome::IndexMoved => "⚠️",
    }
}

fn error_text(error: &ErrorInfo) -> String {
    let request = error
        .request_id
        .as_deref()
        .map(|id| format!(", request_id `{id}`"))
        .unwrap_or_default();
    format!("{}: {}{request}", error_kind(error), cell(&error.message))
}

/// Text inside a table cell or a code span: no line breaks, no cell separators, no backticks.
pub(super) fn cell(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
        .replace('|', "\\|")
        .replace('`', "'")
}
