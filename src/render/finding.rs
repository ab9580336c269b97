//! One finding at a glance, the same in `plan`, `check`, `validate` and every format: a short
//! head line with its severity, code, what it is about and where the file declares it; the
//! detail under it; for a finding the files accept, the acceptance under that.

use std::borrow::Cow;
use std::fmt::Write as _;

use dnscron_api::untrusted::{escape, escape_lines};
use dnscron_core::plan::{Finding, Severity, TargetKind};

/// The head line's parts; each view draws the label in its own way (colour, bold, a prefix).
pub(crate) struct Head {
    pub mark: &'static str,
    pub label: &'static str,
    /// An ANSI SGR colour for the label.
    pub color: &'static str,
    /// `[code] target, NAME TYPE (change 3) at file:line:col`, escaped for a terminal.
    pub about: String,
}

pub(crate) fn head(f: &Finding) -> Head {
    let (mark, label, color) = match f.accepted {
        None => match f.severity {
            Severity::Info => ("i", "info", "2"),
            Severity::NeedsPortalStep => ("!", "needs a portal step", "35"),
            Severity::Blocked => ("!", "blocked", "31"),
            Severity::Warning => ("!", "warning", "33"),
            Severity::Error => ("x", "error", "31"),
        },
        // Dimmed with a mark of its own: seen, decided, and not what a reader acts on now.
        Some(_) => ("-", accepted_label(f.severity), "2"),
    };
    let about = about(f);
    // Most heads need no escaping: keep the string rather than copy it.
    let escaped = match escape(&about) {
        Cow::Owned(escaped) => Some(escaped),
        Cow::Borrowed(_) => None,
    };
    Head {
        mark,
        label,
        color,
        about: escaped.unwrap_or(about),
    }
}

/// What the finding is about, unescaped: the views escape it for their medium.
pub(crate) fn about(f: &Finding) -> String {
    // Written into one string: a plan of a large zone draws thousands of findings.
    let mut out = format!("[{}] {}", f.code, f.target);
    if let Some(r) = &f.record {
        let _ = write!(out, ", {} {}", r.name, r.rtype);
    }
    out.push_str(&change_ids(&f.change_ids));
    if let Some(at) = &f.declared_at {
        out.push_str(" at ");
        out.push_str(at);
    }
    out
}

/// `accepted error`, …: the severity is kept, so a reader sees what was accepted.
fn accepted_label(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "accepted info",
        Severity::NeedsPortalStep => "accepted portal step",
        Severity::Blocked => "accepted blocked",
        Severity::Warning => "accepted warning",
        Severity::Error => "accepted error",
    }
}

/// `accepted at dns/a.yaml:3:5 for 11 lookups until 2026-12-31: REASON`, unescaped (the
/// reason is the files'); `None` for a finding no entry accepts. An entry written before
/// figures were recorded covers any figure, and the line says how to record this one.
pub(crate) fn acceptance(f: &Finding) -> Option<String> {
    let a = f.accepted.as_ref()?;
    let until = a
        .until
        .map(|day| format!(" until {}", day.format("%Y-%m-%d")))
        .unwrap_or_default();
    let figure = match (a.figure, f.figure) {
        (Some(accepted), _) => format!(" for {accepted}"),
        (None, Some(now)) => format!(
            " for any figure (add `value: {}` to the entry to accept {now} and no worse)",
            now.value()
        ),
        (None, None) => String::new(),
    };
    Some(format!(
        "accepted at {}{figure}{until}: {}",
        a.declared_at, a.reason
    ))
}

/// The findings still to act on, then those the files accept, each in their order.
pub(crate) fn open_and_accepted(findings: &[Finding]) -> (Vec<&Finding>, Vec<&Finding>) {
    findings.iter().partition(|f| f.accepted.is_none())
}

fn change_ids(ids: &[usize]) -> String {
    match ids {
        [] => String::new(),
        [one] => format!(" (change {one})"),
        many => format!(
            " (changes {})",
            many.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// For a zone, domain or site the account has and no file declares: the command that writes
/// its file into the folder the plan read, and the other way out, unescaped.
pub(crate) fn adoption(f: &Finding) -> Option<String> {
    let folder = shell_word(f.adopt_into.as_deref()?);
    let name = shell_word(&f.target.name);
    let (command, list) = match f.target.kind {
        TargetKind::Zone => (
            format!("adopt it: dnscron import --zone {name} --out {folder}"),
            "zones",
        ),
        TargetKind::Domain => (
            format!("move its DNS here: dnscron import --probe {name} --out {folder}"),
            "domains",
        ),
        TargetKind::Site => (
            format!("adopt it: dnscron import --site {name} --out {folder}"),
            "sites",
        ),
    };
    Some(format!(
        "{command}; or, to leave it alone, add to an `unmanaged:` document: `{list}: [{{ name: {}, reason: \"…\" }}]`",
        f.target.name
    ))
}

/// A word a POSIX shell reads back as `text`: quoted unless it is plainly safe.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The plain-text lines of one finding, indented by `indent`, the label painted by `paint`.
pub(crate) fn text_lines(
    f: &Finding,
    indent: &str,
    paint: impl Fn(&str, &str) -> String,
) -> String {
    let h = head(f);
    let detail = detail(f);
    // Pushed piece by piece into one string: a plan of a large zone draws thousands of these.
    let mut out = String::with_capacity(2 * indent.len() + h.about.len() + detail.len() + 32);
    let mut line = |text: &str, inner: &str| {
        out.push_str(indent);
        out.push_str(inner);
        out.push_str(text);
        out.push('\n');
    };
    line(
        &format!("{} {} {}", h.mark, paint(h.color, h.label), h.about),
        "",
    );
    for text in detail.lines() {
        line(text, "    ");
    }
    if let Some(adopt) = adoption(f) {
        line(&escape(&adopt), "    ");
    }
    if let Some(accepted) = acceptance(f) {
        line(&escape(&accepted), "    ");
    }
    out
}

/// The detail under the head line, escaped line by line: its first line is a sentence, the
/// lines after it (the SPF lookup tree) are drawn as they are, their indentation kept.
pub(crate) fn detail(f: &Finding) -> std::borrow::Cow<'_, str> {
    escape_lines(&f.message)
}
