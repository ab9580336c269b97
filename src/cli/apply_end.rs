//! How an apply ends: its report on stdout in the chosen format, and what it means for the exit
//! code (`cli::error::exit_code` maps it).

use std::io::Write;

use crate::cli::apply::{ApplyArgs, ApplyFormat};
use crate::cli::error::{
    CHANGED_DURING_APPLY_HINT, CHANGED_SINCE_REVIEW_HINT, CommandError, CommandResult, ErrorKind,
    NOT_READ_HINT, Outcome, exit_code, status_hint,
};
use crate::cli::write_stdout;
use dnscron_core::apply::{ApplyReport, ApplyResult};

use crate::render::apply as report;

/// Prints the report; `signal` is the first signal received during the apply, if any;
/// `plan_shown`: the plan was printed above it.
pub(crate) fn finish(
    args: &ApplyArgs,
    report: &ApplyReport,
    signal: Option<u8>,
    plan_shown: bool,
) -> CommandResult {
    let ending = ending_after(&report.result, signal);
    let text = if tracing::enabled!(tracing::Level::DEBUG) {
        report::text_with_request_ids
    } else {
        report::text
    };
    let shown = match (args.format, &report.result) {
        // The plan shown above already said so; a review-bound apply showed none, so says it.
        (ApplyFormat::Text, ApplyResult::NoChanges) if plan_shown => String::new(),
        (ApplyFormat::Text, ApplyResult::NoChanges) => text(report),
        (ApplyFormat::Text, ApplyResult::AlreadyApplied) => text(report),
        // Nothing was sent, and a review-bound apply showed no plan above.
        (ApplyFormat::Text, ApplyResult::ChangedSinceReview { .. }) => text(report),
        // A blank line after the plan shown above.
        (ApplyFormat::Text, _) => format!("\n{}", text(report)),
        (ApplyFormat::Json, _) => report::json(report, exit_code(&ending)),
        (ApplyFormat::Markdown, _) => report::markdown(report),
    };
    write_stdout(&shown)?;
    // Before the hint that ends the apply, as before any command's error.
    super::retries::log_summary();
    for hint in stop_hints(&report.result) {
        let _ = writeln!(std::io::stderr(), "hint: {hint}");
    }
    ending
}

/// The hint a read would get for the same error (a 401 mid-apply means the same as on a read).
pub(crate) fn stop_hints(result: &ApplyResult) -> Vec<&'static str> {
    match result {
        ApplyResult::Failed { error, .. } | ApplyResult::VerifyFailed { error } => error
            .status
            .and_then(|status| status_hint(status, None))
            .into_iter()
            .collect(),
        ApplyResult::ChangedSinceReview {
            changed,
            not_made,
            not_read,
        } => {
            let moved = !changed.is_empty() || !not_made.is_empty();
            let hints = [
                (moved, CHANGED_SINCE_REVIEW_HINT),
                (!not_read.is_empty(), NOT_READ_HINT),
            ];
            hints
                .into_iter()
                .filter(|(given, _)| *given)
                .map(|(_, hint)| hint)
                .collect()
        }
        ApplyResult::ChangedDuringApply { .. } => vec![CHANGED_DURING_APPLY_HINT],
        // Their report says what to do, or nothing is to be done.
        ApplyResult::Converged
        | ApplyResult::NoChanges
        | ApplyResult::AlreadyApplied
        | ApplyResult::NeedsPortalStep { .. }
        | ApplyResult::Differs { .. }
        | ApplyResult::NotVisible { .. }
        | ApplyResult::Interrupted
        | ApplyResult::NameserversNotReady { .. }
        | ApplyResult::CronIndexMoved { .. } => Vec::new(),
    }
}

/// What an apply's result means for the command; the report already said why.
pub(crate) fn ending(result: &ApplyResult) -> CommandResult {
    ending_after(result, None)
}

fn ending_after(result: &ApplyResult, signal: Option<u8>) -> CommandResult {
    match result {
        ApplyResult::Converged | ApplyResult::NoChanges | ApplyResult::AlreadyApplied => {
            Ok(Outcome::Success)
        }
        ApplyResult::NeedsPortalStep { .. } => Ok(Outcome::NeedsHumanStep),
        ApplyResult::Interrupted => Err(CommandError::new(
            ErrorKind::Interrupted {
                signal: signal.unwrap_or(crate::cli::signals::SIGINT),
            },
            "apply was interrupted",
        )),
        ApplyResult::Failed { .. }
        | ApplyResult::Differs { .. }
        | ApplyResult::VerifyFailed { .. }
        | ApplyResult::NotVisible { .. }
        | ApplyResult::NameserversNotReady { .. }
        | ApplyResult::CronIndexMoved { .. } => Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "apply did not converge",
        )),
        // Nothing was sent: the reviewed plan's preconditions no longer hold.
        ApplyResult::ChangedSinceReview { .. } => Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "the reviewed plan no longer holds",
        )),
        // A change of the plan took and was changed again by someone: not what was reviewed.
        ApplyResult::ChangedDuringApply { .. } => Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "a change of the plan was changed again during the apply",
        )),
    }
}
