//! `plan --format github`: workflow-command annotations for what a reviewer must act on.
//!
//! Changes held by a finding are `::error` (apply refuses the whole plan while one is held),
//! blocked changes too (the API would refuse them; apply skips them), and changes that
//! need a portal step `::warning` (apply stops there, exit 3, until a human acts); error and
//! warning findings (docs/health.md) follow at the same levels, and findings the files accept as
//! `::notice`s with their reason (seen, not to act on). Each kind is capped at ten annotations;
//! a final `::notice` carries the summary line.

use crate::render::finding;
use crate::render::github::{Annotation, Level, render_capped};

use super::{HELD_STOPS_APPLY, describe, mass_changes, printable, status_label, summary_line};
use dnscron_core::plan::{Change, Finding, Plan, Severity, Status};

pub(crate) fn render(plan: &Plan) -> String {
    let mut out = String::new();
    if let Some(mass) = mass_changes(plan) {
        let zones = mass.zones.iter().map(|over| {
            format!(
                "zone {} ({}): {}",
                printable(over.zone),
                printable(over.declared_at),
                over.limits
            )
        });
        let text = std::iter::once(mass.headline.to_string())
            .chain(zones)
            .collect::<Vec<_>>()
            .join("\n");
        out.push_str(
            &Annotation::new(Level::Warning, text)
                .title("dnscron plan: mass changes approved")
                .render(),
        );
    }
    for (status, level, kind) in [
        (Status::HeldByFinding, Level::Error, "held changes"),
        (Status::Blocked, Level::Error, "blocked changes"),
        (
            Status::NeedsPortalStep,
            Level::Warning,
            "changes that need a portal step",
        ),
    ] {
        let annotations: Vec<Annotation> = plan
            .changes
            .iter()
            .filter(|c| c.status == status)
            .map(|c| annotation(plan, c, level))
            .collect();
        out.push_str(&render_capped(&annotations, kind));
    }
    for (severity, level, kind) in [
        (Severity::Error, Level::Error, "error findings"),
        (Severity::Warning, Level::Warning, "warning findings"),
    ] {
        let annotations: Vec<Annotation> = plan
            .findings
            .iter()
            .filter(|f| f.severity == severity && f.accepted.is_none())
            .map(|f| finding_annotation(plan, f, level))
            .collect();
        out.push_str(&render_capped(&annotations, kind));
    }
    let accepted: Vec<Annotation> = plan
        .findings
        .iter()
        .filter(|f| f.accepted.is_some())
        .map(|f| finding_annotation(plan, f, Level::Notice))
        .collect();
    out.push_str(&render_capped(&accepted, "accepted findings"));
    out.push_str(
        &Annotation::new(Level::Notice, summary_line(&plan.summary, &plan.findings))
            .title("dnscron plan")
            .render(),
    );
    out
}

/// Registrar and schedule findings, placed where the file declares what they are about.
fn finding_annotation(plan: &Plan, finding: &Finding, level: Level) -> Annotation {
    let adopt = crate::render::finding::adoption(finding)
        .map(|line| format!("; {line}"))
        .unwrap_or_default();
    let message = match finding::acceptance(finding) {
        Some(accepted) => format!(
            "{}: {}{adopt} ({accepted})",
            finding.target, finding.message
        ),
        None => format!("{}: {}{adopt}", finding.target, finding.message),
    };
    let title = match finding.accepted {
        Some(_) => format!("dnscron plan: {} (accepted)", finding.code),
        None => format!("dnscron plan: {}", finding.code),
    };
    let a = Annotation::new(level, message).title(title);
    let place = finding
        .declared_at
        .as_deref()
        .or_else(|| plan.target(&finding.target).map(|t| t.declared_at.as_str()));
    match place {
        Some(at) => a.at(at),
        None => a,
    }
}

/// Placed where the change was declared, or for a delete (declared nowhere) at its target.
fn annotation(plan: &Plan, change: &Change, level: Level) -> Annotation {
    let d = describe(change);
    let label = status_label(change.status).unwrap_or("ready");
    let value = d
        .after
        .as_ref()
        .or(d.before.as_ref())
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    let reason = change.reason.as_deref().unwrap_or(label);
    let reason = match change.is_held() {
        true => format!("{reason}: {HELD_STOPS_APPLY}"),
        false => reason.to_string(),
    };
    let from_set = change
        .from_set
        .as_deref()
        .map(|set| format!(" (from record set {})", super::printable(set)))
        .unwrap_or_default();
    let message = format!(
        "{} {} {}{value}{from_set}: {reason}",
        change.action.as_str(),
        change.target,
        d.subject
    );
    let a = Annotation::new(level, message).title(format!("dnscron plan: {label}"));
    let place = change
        .declared_at
        .as_deref()
        .or_else(|| plan.target(&change.target).map(|t| t.declared_at.as_str()));
    match place {
        Some(at) => a.at(at),
        None => a,
    }
}
