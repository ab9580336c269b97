//! The terminal view: changes grouped by target with `+ ~ -` markers, before → after, a word
//! diff for long contents, findings, then the summary line. Colors only when `color` is set
//! (the caller decides: a TTY and no NO_COLOR).

use super::{
    Described, HELD_STOPS_APPLY, changes_of, describe, marker, mass_changes, printable,
    status_label, summary_line, targets_with_changes, ttl_text,
};
use crate::render::finding;
use dnscron_core::plan::{Action, Change, Plan, Resource, Target, Value};

struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn bold(&self, t: &str) -> String {
        self.wrap("1", t)
    }
    fn dim(&self, t: &str) -> String {
        self.wrap("2", t)
    }
    fn action(&self, action: Action, t: &str) -> String {
        self.wrap(action_code(action), t)
    }
}

fn action_code(action: Action) -> &'static str {
    match action {
        Action::Create => "32",
        Action::Update => "33",
        Action::Delete => "31",
    }
}

/// Where the text goes, piece by piece: a `String`, or stdout as it is drawn (a plan of a
/// 100,000-record zone is megabytes of findings, which need not be held at once).
pub(crate) trait Sink {
    fn push_str(&mut self, text: &str);

    fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }
}

impl Sink for String {
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }
}

/// The whole plan as text, ending with the summary line and a newline.
pub fn render(plan: &Plan, color: bool) -> String {
    let mut out = String::new();
    render_to(plan, color, &mut out);
    out
}

/// [`render`], into `out`.
pub(crate) fn render_to(plan: &Plan, color: bool, out: &mut impl Sink) {
    let paint = Paint { on: color };
    if !plan.api_url.is_empty() {
        // What was read, and what an apply of this plan writes to.
        out.push_str(&format!("Live account: {}\n\n", printable(&plan.api_url)));
    }
    if let Some(line) = super::scope_line(plan, printable) {
        out.push_str(&format!("{line}\n\n"));
    }
    if let Some(mass) = mass_changes(plan) {
        out.push_str(&format!("{}\n", paint.wrap("1;33", mass.headline)));
        for over in &mass.zones {
            out.push_str(&format!(
                "  zone {} ({}): {}\n",
                printable(over.zone),
                printable(over.declared_at),
                over.limits
            ));
        }
        out.push('\n');
    }
    for target in targets_with_changes(plan) {
        let declared = plan
            .target(&target)
            .map(|t: &Target| {
                let at = printable(&t.declared_at);
                format!(" {}", paint.dim(&format!("({at})")))
            })
            .unwrap_or_default();
        let name = printable(&target.to_string());
        out.push_str(&format!("{}{declared}\n", paint.bold(&name)));
        for change in changes_of(plan, &target) {
            for line in change_lines(change, &paint) {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out.push('\n');
    }
    let (open, accepted) = finding::open_and_accepted(&plan.findings);
    for (title, findings) in [("Findings:", open), ("Accepted findings:", accepted)] {
        if findings.is_empty() {
            continue;
        }
        out.push_str(&format!("{}\n", paint.bold(title)));
        for f in findings {
            out.push_str(&finding::text_lines(f, "  ", |color, label| {
                paint.wrap(color, label)
            }));
        }
        out.push('\n');
    }
    out.push_str(&paint.bold(&summary_line(&plan.summary, &plan.findings)));
    out.push('\n');
}

/// The lines of one change, without indentation; plain when `color` is false (markdown uses this).
pub(crate) fn plain_change_lines(change: &Change) -> Vec<String> {
    change_lines(change, &Paint { on: false })
}

fn change_lines(change: &Change, paint: &Paint) -> Vec<String> {
    let d = describe(change);
    let mark = marker(change.action).to_string();
    let status = status_label(change.status)
        .map(|s| format!("  [{s}]"))
        .unwrap_or_default();
    let ttl = ttl_text(&d);
    let ttl = if ttl.is_empty() {
        ttl
    } else {
        format!(" {}", paint.dim(&ttl))
    };
    let head = format!(
        "{} {}",
        paint.action(change.action, &mark),
        paint.bold(&d.subject)
    );
    if d.long {
        let mut lines = vec![format!("{head}{ttl}{status}")];
        lines.extend(word_diff_lines(&d, paint));
        lines.extend(held_line(change, paint));
        lines.extend(next_runs_line(change, paint));
        lines.extend(readiness_line(change, paint));
        lines.extend(set_line(change, paint));
        return lines;
    }
    let value = match (&d.before, &d.after, change.action) {
        (Some(b), Some(a), Action::Update) if a != b => format!(" {b} → {a}"),
        (_, Some(a), _) => format!(" {a}"),
        (Some(b), None, _) => format!(" {b}"),
        (None, None, _) => String::new(),
    };
    let mut lines = vec![format!("{head}{value}{ttl}{status}")];
    lines.extend(held_line(change, paint));
    lines.extend(next_runs_line(change, paint));
    lines.extend(readiness_line(change, paint));
    lines.extend(set_line(change, paint));
    lines
}

/// Under a held change: the findings that hold it (its reason) and what that means for apply.
fn held_line(change: &Change, paint: &Paint) -> Option<String> {
    let reason = change.reason.as_deref().filter(|_| change.is_held())?;
    Some(paint.wrap(
        "31",
        &format!("    {}: {HELD_STOPS_APPLY}", printable(reason)),
    ))
}

/// For a record from a record set: which set, and where in its file, since the zone's own
/// file does not show the record.
fn set_line(change: &Change, paint: &Paint) -> Option<String> {
    let set = change.from_set.as_deref()?;
    let at = change
        .declared_at
        .as_deref()
        .map(|at| format!(" ({})", printable(at)))
        .unwrap_or_default();
    Some(paint.dim(&format!("    from record set {}{at}", printable(set))))
}

/// Under a switch to custom nameservers: apply asks them first (docs/health.md, "Before a
/// nameserver switch"), so a reviewer knows the switch may be held, and how to skip that.
fn readiness_line(change: &Change, paint: &Paint) -> Option<String> {
    let to_custom = matches!(
        (&change.resource, &change.after),
        (Resource::Nameservers, Some(Value::Nameservers { mode, .. })) if mode == "custom"
    );
    to_custom.then(|| {
        paint.dim(&format!(
            "    apply first asks the new nameservers whether they serve {} and holds the switch if they don't (--allow-unready-nameservers skips the check)",
            printable(&change.target.name)
        ))
    })
}

/// A created cron job's next run times (UTC), under the change.
fn next_runs_line(change: &Change, paint: &Paint) -> Option<String> {
    (!change.next_runs.is_empty()).then(|| {
        paint.dim(&format!(
            "    next runs (UTC): {}",
            printable(&change.next_runs.join(", "))
        ))
    })
}

/// `- old` / `+ new` with the changed words highlighted; without color, a third line marks them
/// `[-removed-]{+added+}` (git's word-diff notation) so the difference is visible in logs too.
fn word_diff_lines(d: &Described, paint: &Paint) -> Vec<String> {
    let before = d.before.clone().unwrap_or_default();
    let after = d.after.clone().unwrap_or_default();
    // Quoted TXT: diff the text inside the quotes, so the quotes never count as changed.
    let quoted = |s: &str| s.len() >= 2 && s.starts_with('"') && s.ends_with('"');
    let q = if quoted(&before) && quoted(&after) {
        "\""
    } else {
        ""
    };
    let inner = |s: &str| -> String {
        if q.is_empty() {
            s.to_string()
        } else {
            s[1..s.len() - 1].to_string()
        }
    };
    let (old, new) = super::words::diff(&inner(&before), &inner(&after));
    let show = |segments: &super::words::Segments, code: &str| -> String {
        let body: String = segments
            .iter()
            .map(|(changed, text)| {
                if *changed {
                    paint.wrap(&format!("1;4;{code}"), text)
                } else {
                    paint.wrap(code, text)
                }
            })
            .collect();
        format!("{q}{body}{q}")
    };
    let mut lines = vec![
        format!(
            "    {} {}",
            paint.action(Action::Delete, "-"),
            show(&old, "31")
        ),
        format!(
            "    {} {}",
            paint.action(Action::Create, "+"),
            show(&new, "32")
        ),
    ];
    if !paint.on {
        let marked = super::words::marked(&inner(&before), &inner(&after));
        lines.push(format!("    ~ {q}{marked}{q}"));
    }
    lines
}
