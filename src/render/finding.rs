//! One finding at a glance, the same in `plan`, `check`, `validate` and every format: a short
//! head line with its severity, code, what it is about and where the file declares it; the
//! detail under it; for a finding the files accept, the acceptance under that.

use dnscron_api::untrusted::{escape, escape_lines};
use dnscron_core::plan::{Finding, Severity, TargetKind};

/// The head line's parts; each view draws the label in its own way (colour, bold, a prefix).
pub struct Head {
    pub mark: &'static str,
    pub label: &'static str,
    /// An ANSI SGR colour for the label.
    pub color: &'static str,
    /// `[code] target, NAME TYPE (change 3) at file:line:col`, escaped for a terminal.
    pub about: String,
}

pub fn head(f: &Finding) -> Head {
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
    Head {
        mark,
        label,
        color,
        about: escape(&about(f)).into_owned(),
    }
}

/// What the finding is about, unescaped: the views escape it for their medium.
pub fn about(f: &Finding) -> String {
    let record = f
        .record
        .as_ref()
        .map(|r| format!(", {} {}", r.name, r.rtype))
        .unwrap_or_default();
    let at = f
        .declared_at
        .as_ref()
        .map(|at| format!(" at {at}"))
        .unwrap_or_default();
    format!(
        "[{}] {}{record}{}{at}",
        f.code,
        f.target,
        change_ids(&f.change_ids)
    )
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
pub fn acceptance(f: &Finding) -> Option<String> {
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
pub fn open_and_accepted(findings: &[Finding]) -> (Vec<&Finding>, Vec<&Finding>) {
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
pub fn adoption(f: &Finding) -> Option<String> {
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
pub fn text_lines(f: &Finding, indent: &str, paint: impl Fn(&str, &str) -> String) -> String {
    let h = head(f);
    let mut out = format!(
        "{indent}{} {} {}\n",
        h.mark,
        paint(h.color, h.label),
        h.about
    );
    for line in detail(f).lines() {
        out.push_str(&format!("{indent}    {line}\n"));
    }
    if let Some(adopt) = adoption(f) {
        out.push_str(&format!("{indent}    {}\n", escape(&adopt)));
    }
    if let Some(accepted) = acceptance(f) {
        out.push_str(&format!("{indent}    {}\n", escape(&accepted)));
    }
    out
}

/// The detail under the head line, escaped line by line: its first line is a sentence, the
/// lines after it (the SPF lookup tree) are drawn as they are, their indentation kept.
pub fn detail(f: &Finding) -> std::borrow::Cow<'_, str> {
    escape_lines(&f.message)
}
