//! The findings `check` and `validate` judge from the files alone (docs/health.md#mail-findings;
//! validate adds the cron schedules'): the same findings as plan's, with the files' acceptances,
//! in their text, JSON and GitHub views.

use crate::render::finding;
use crate::render::github::{Annotation, Level};
use dnscron_core::plan::{Finding, Severity};

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::NeedsPortalStep => "needs_portal_step",
        Severity::Blocked => "blocked",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

/// `Findings:` and one line per finding, marked as plan marks them, then `Accepted findings:`;
/// empty without findings.
pub(crate) fn text(findings: &[Finding]) -> String {
    let (open, accepted) = finding::open_and_accepted(findings);
    let mut out = String::new();
    for (title, findings) in [("Findings:", open), ("Accepted findings:", accepted)] {
        if findings.is_empty() {
            continue;
        }
        out.push_str(title);
        out.push('\n');
        for f in findings {
            out.push_str(&finding::text_lines(f, "  ", |_, label| label.to_string()));
        }
    }
    out
}

/// The `findings` array of check's JSON: code, target, record set, severity, message (escaped
/// line by line as every view draws it, so `jq -r` prints no escape sequence), where it is
/// declared and, as in plan's JSON, the files' acceptance (absent when none).
pub(crate) fn json(findings: &[Finding]) -> serde_json::Value {
    findings
        .iter()
        .map(|f| {
            let mut finding = serde_json::json!({
                "code": f.code,
                "target": { "kind": f.target.kind.as_str(), "name": f.target.name },
                "record": f.record,
                "severity": severity_word(f.severity),
                "message": finding::detail(f),
                "declared_at": f.declared_at,
            });
            if let Some(accepted) = &f.accepted {
                finding["accepted"] = serde_json::json!(accepted);
            }
            finding
        })
        .collect()
}

/// An annotation per finding (info and accepted ones as notices), on the line that declares the
/// record; `command` names the command in the title.
pub(crate) fn github(findings: &[Finding], command: &str) -> Vec<Annotation> {
    findings
        .iter()
        .map(|f| {
            let level = match (f.accepted.is_some(), f.severity) {
                (true, _) | (false, Severity::Info) => Level::Notice,
                (false, Severity::Error) => Level::Error,
                (false, Severity::Warning | Severity::NeedsPortalStep | Severity::Blocked) => {
                    Level::Warning
                }
            };
            // The workflow command encodes the detail's line breaks (`%0A`).
            let (message, title) = match finding::acceptance(f) {
                Some(accepted) => (
                    format!(
                        "{}: {} ({})",
                        f.target,
                        finding::detail(f),
                        dnscron_api::untrusted::Untrusted(&accepted)
                    ),
                    format!("dnscron {command}: {} (accepted)", f.code),
                ),
                None => (
                    format!("{}: {}", f.target, finding::detail(f)),
                    format!("dnscron {command}: {}", f.code),
                ),
            };
            let a = Annotation::new(level, message).title(title);
            match &f.declared_at {
                Some(at) => a.at(at),
                None => a,
            }
        })
        .collect()
}

/// `findings: 1 error, 2 warnings, 1 accepted` for the summary line; `None` without errors,
/// warnings or accepted findings. Accepted ones are counted apart, never as errors.
pub(crate) fn summary_part(findings: &[Finding]) -> Option<String> {
    let open = |severity| {
        findings
            .iter()
            .filter(|f| f.severity == severity && f.accepted.is_none())
            .count()
    };
    let (errors, warnings) = (open(Severity::Error), open(Severity::Warning));
    let accepted = findings.iter().filter(|f| f.accepted.is_some()).count();
    let mut parts = Vec::new();
    if errors > 0 {
        parts.push(format!(
            "{errors} error{}",
            if errors == 1 { "" } else { "s" }
        ));
    }
    if warnings > 0 {
        parts.push(format!(
            "{warnings} warning{}",
            if warnings == 1 { "" } else { "s" }
        ));
    }
    if accepted > 0 {
        parts.push(format!("{accepted} accepted"));
    }
    (!parts.is_empty()).then(|| format!("findings: {}", parts.join(", ")))
}
