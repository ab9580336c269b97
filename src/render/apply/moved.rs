//! Things whose live value is not the one a plan expected, in words: reviewed changes that no
//! longer hold (changed since review, not made), changes of the plan someone changed again
//! during the apply, and anything else that moved meanwhile (left as it is).

use std::fmt::Write as _;

use dnscron_api::untrusted::Untrusted as U;
use dnscron_core::apply::{ApplyReport, Moved};
use dnscron_core::plan::{Change, Resource, Value};

use super::markdown::cell;
use super::{summary, tally};

/// The results of a run that sent its changes (or stopped while sending them) and carry no
/// moved thing of their own: every result but the two with nothing to send (`NoChanges`,
/// `AlreadyApplied`) and the two that carry moved things (`ChangedSinceReview`,
/// `ChangedDuringApply`). A pattern, so the matches using it stay exhaustive: a new result
/// fails to compile there until it is placed in this class or beside it.
macro_rules! ran_and_nothing_moved {
    () => {
        dnscron_core::apply::ApplyResult::Converged
            | dnscron_core::apply::ApplyResult::NeedsPortalStep { .. }
            | dnscron_core::apply::ApplyResult::Failed { .. }
            | dnscron_core::apply::ApplyResult::Differs { .. }
            | dnscron_core::apply::ApplyResult::VerifyFailed { .. }
            | dnscron_core::apply::ApplyResult::NotVisible { .. }
            | dnscron_core::apply::ApplyResult::Interrupted
            | dnscron_core::apply::ApplyResult::NameserversNotReady { .. }
            | dnscron_core::apply::ApplyResult::CronIndexMoved { .. }
    };
}
pub(super) use ran_and_nothing_moved;

/// `192.0.2.10 (ttl 300)`, or `absent` for no such thing.
pub(super) fn value_or_absent(value: Option<&Value>) -> String {
    match value {
        Some(v) => U(&super::value_text(v)).to_string(),
        None => "absent".into(),
    }
}

/// What a moved thing is: `www A`, `cron job`, `nameservers`.
fn what(resource: &Resource) -> String {
    match resource {
        Resource::Record { name, rtype, .. } => format!("{} {}", U(name), rtype.as_str()),
        Resource::CronJob { .. } => "cron job".into(),
        Resource::Nameservers => "nameservers".into(),
    }
}

/// `zone x: ~ www A …: reviewed with 192.0.2.10 (ttl 300), live now 203.0.113.77 (ttl 300)`.
fn since_review_line(m: &Moved) -> String {
    line(m, &U(&summary(&m.change)).to_string(), "reviewed with")
}

fn overwritten_line(m: &Moved) -> String {
    line(m, &U(&summary(&m.change)).to_string(), "apply made it")
}

fn moved_line(m: &Moved) -> String {
    line(m, &what(&m.resource), "was")
}

/// `zone x: + www A …`: a reviewed change in one line.
fn reviewed_line(c: &Change) -> String {
    format!("{}: {}", c.target, U(&summary(c)))
}

/// `<target>: <what>: <how> <expected>, live now <live>`; the target comes from a plan file
/// too, so it is escaped like every other part.
fn line(m: &Moved, what: &str, how: &str) -> String {
    format!(
        "{}: {what}: {how} {}, live now {}",
        U(&m.target.to_string()),
        value_or_absent(m.expected.as_ref()),
        value_or_absent(m.live.as_ref())
    )
}

/// The text of a `changed_since_review` result.
pub(super) fn since_review_text(
    out: &mut String,
    report: &ApplyReport,
    changed: &[Moved],
    not_made: &[Change],
    not_read: &[Change],
) {
    // Only what was read can be said to have moved: a reviewed change outside it blames nothing.
    let (plan_id, url) = (&report.plan_id, U(&report.api_url));
    let _ = match changed.is_empty() && not_made.is_empty() {
        true => writeln!(
            out,
            "Not applied: the reviewed plan {plan_id} holds changes for targets this apply did not read, so they can't be checked against the live account at {url}; nothing was sent."
        ),
        false => writeln!(
            out,
            "Not applied: the reviewed plan {plan_id} no longer holds against the live account at {url}; nothing was sent."
        ),
    };
    if !changed.is_empty() {
        let _ = writeln!(
            out,
            "Changed since review: {} reviewed change(s) would overwrite a value nobody reviewed:",
            changed.len()
        );
        for m in changed {
            let _ = writeln!(out, "  {}", since_review_line(m));
        }
    }
    // `Not made: 2 reviewed change(s) are not in effect, …:` and a line for each.
    let mut reviewed = |title: &str, why: &str, changes: &[Change]| {
        if changes.is_empty() {
            return;
        }
        let _ = writeln!(out, "{title}: {} reviewed change(s) {why}:", changes.len());
        for c in changes {
            let _ = writeln!(out, "  {}", reviewed_line(c));
        }
    };
    reviewed(
        "Not made",
        "are not in effect, and the desired state applied now does not make them",
        not_made,
    );
    reviewed(
        "Not read",
        "are for targets this apply did not read, so nothing is known of them",
        not_read,
    );
    for r in &report.changes {
        super::change_line(out, r, false);
    }
}

/// The text of a `changed_during_apply` result.
pub(super) fn overwritten_text(out: &mut String, report: &ApplyReport, overwritten: &[Moved]) {
    let _ = writeln!(
        out,
        "Changed during apply: {} change(s) of this plan were changed again by someone while apply ran; left as they are, not reverted:",
        overwritten.len()
    );
    for m in overwritten {
        let _ = writeln!(out, "  {}", overwritten_line(m));
    }
    let _ = writeln!(out, "{}.", tally(report));
}

/// The warning about everything else that moved during the apply (nothing when nothing did).
pub(super) fn during_apply_text(report: &ApplyReport) -> String {
    let mut out = String::new();
    if report.changed_during_apply.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "warning: changed during apply, left as it is ({} thing(s) outside this plan; dnscron did not touch them):",
        report.changed_during_apply.len()
    );
    for m in &report.changed_during_apply {
        let _ = writeln!(out, "  {}", moved_line(m));
    }
    out
}

/// The Markdown of the same: a list under a bold line, for each kind present.
pub(super) fn markdown(out: &mut String, report: &ApplyReport) {
    use dnscron_core::apply::ApplyResult;
    let mut list = |title: &str, lines: Vec<String>| {
        if lines.is_empty() {
            return;
        }
        let _ = writeln!(out, "**{title}**\n");
        for line in lines {
            let _ = writeln!(out, "- {}", cell(&line));
        }
        out.push('\n');
    };
    match &report.result {
        ApplyResult::ChangedSinceReview {
            changed,
            not_made,
            not_read,
        } => {
            list(
                "Changed since review (nothing was sent): these reviewed changes would overwrite a value nobody reviewed:",
                changed.iter().map(since_review_line).collect(),
            );
            list(
                "Not made (nothing was sent): these reviewed changes are not in effect, and the desired state applied now does not make them:",
                not_made.iter().map(reviewed_line).collect(),
            );
            list(
                "Not read (nothing was sent): these reviewed changes are for targets this apply did not read:",
                not_read.iter().map(reviewed_line).collect(),
            );
        }
        ApplyResult::ChangedDuringApply { overwritten } => list(
            "Changed again by someone during the apply, left as it is:",
            overwritten.iter().map(overwritten_line).collect(),
        ),
        ApplyResult::NoChanges | ApplyResult::AlreadyApplied | ran_and_nothing_moved!() => {}
    }
    list(
        "Warning: changed during apply outside this plan, left as it is:",
        report.changed_during_apply.iter().map(moved_line).collect(),
    );
}
