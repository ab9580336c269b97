//! `check`'s mail findings (docs/health.md#mail-findings): the same findings as plan's, judged
//! from the files, in check's text, JSON and GitHub views.

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

/// `Findings:` and one line per finding, marked as plan marks them; empty without findings.
pub fn text(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let mut out = String::from("Findings:\n");
    for f in findings {
        out.push_str(&finding::text_lines(f, "  ", |_, label| label.to_string()));
    }
    out
}

/// The `findings` array of check's JSON: code, target, record set, severity, message (escaped
/// line by line as every view draws it, so `jq -r` prints no escape sequence) and where it is
/// declared.
pub fn json(findings: &[Finding]) -> serde_json::Value {
    findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "code": f.code,
                "target": { "kind": f.target.kind.as_str(), "name": f.target.name },
                "record": f.record,
                "severity": severity_word(f.severity),
                "message": finding::detail(f),
                "declared_at": f.declared_at,
            })
        })
        .collect()
}

/// An annotation per finding (info as a notice), on the line that declares the record.
pub fn github(findings: &[Finding]) -> Vec<Annotation> {
    findings
        .iter()
        .map(|f| {
            let level = match f.severity {
                Severity::Error => Level::Error,
                Severity::Warning | Severity::NeedsPortalStep | Severity::Blocked => Level::Warning,
                Severity::Info => Level::Notice,
            };
            // The workflow command encodes the detail's line breaks (`%0A`).
            let message = format!("{}: {}", f.target, finding::detail(f));
            let a = Annotation::new(level, message).title(format!("dnscron check: {}", f.code));
            match &f.declared_at {
                Some(at) => a.at(at),
                None => a,
            }
        })
        .collect()
}

/// `, findings: 1 error, 2 warnings` for the summary line; empty without errors or warnings.
pub fn summary_part(findings: &[Finding]) -> Option<String> {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
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
    (!parts.is_empty()).then(|| format!("findings: {}", parts.join(", ")))
}
