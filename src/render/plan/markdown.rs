//! The PR-comment / job-summary view: the summary first, deletions called out, findings, then
//! one collapsible `<details>` section per target. Never longer than [`MAX_LEN`] bytes (GitHub
//! caps comments at 65,536 characters): sections that don't fit are cut with a note.

use super::{
    HELD_STOPS_APPLY, changes_of, describe, mass_changes, summary_line, target_counts,
    targets_with_changes,
};
use dnscron_core::plan::{
    Action, Change, Finding, FindingCode, Plan, Severity, TargetRef, not_followed_terms,
};

use super::text::plain_change_lines;
use crate::render::finding;
use dnscron_api::untrusted::escape_lines;

/// Upper bound of the output, in bytes (so also in characters).
pub const MAX_LEN: usize = 60_000;

/// At most this many deletions and findings are listed before the details.
const MAX_LISTED: usize = 100;

/// Room kept for the closing note.
const RESERVE: usize = 600;

pub fn render(plan: &Plan) -> String {
    render_within(plan, "dnscron plan", MAX_LEN)
}

/// [`render`] under the heading `title` (markdown, already escaped), in at most `max_len`
/// bytes: one account's part of a plan of several shares the comment's budget.
pub(crate) fn render_within(plan: &Plan, title: &str, max_len: usize) -> String {
    let mut out = format!("### {title}\n\n");
    if !plan.api_url.is_empty() {
        out.push_str(&format!("Live account: {}\n\n", code(&plan.api_url)));
    }
    if let Some(line) = super::scope_line(plan, code) {
        out.push_str(&format!("{line}\n\n"));
    }
    if let Some(mass) = mass_changes(plan) {
        out.push_str(&format!("> [!WARNING]\n> {}\n", escape(mass.headline)));
        for over in &mass.zones {
            out.push_str(&format!(
                "> - zone {} ({}): {}\n",
                code(over.zone),
                code(over.declared_at),
                over.limits
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "**{}**\n\n",
        summary_line(&plan.summary, &plan.findings)
    ));
    out.push_str(&held(plan));
    out.push_str(&deletions(plan));
    out.push_str(&findings(plan));
    let head_len = out.len();
    let targets = targets_with_changes(plan);
    let mut shown = 0;
    let mut cut_lines = 0;
    for target in &targets {
        let section = section(plan, target, None);
        if out.len() + section.len() + RESERVE <= max_len {
            out.push_str(&section);
            shown += 1;
            continue;
        }
        let budget = max_len.saturating_sub(out.len() + RESERVE);
        let (partial, omitted) = partial_section(plan, target, budget);
        if let Some(partial) = partial {
            out.push_str(&partial);
            cut_lines = omitted;
            shown += 1;
        }
        break;
    }
    let hidden = targets.len() - shown;
    if hidden > 0 || cut_lines > 0 {
        out.push_str(&format!(
            "> [!NOTE]\n> Output truncated to stay under {max_len} characters: {cut_lines} more line(s) of the last section and {hidden} more target(s) are not shown. Run `dnscron plan` or use `--format json` for the full plan.\n"
        ));
    }
    debug_assert!(out.len() <= max_len || head_len > max_len);
    out
}

/// The changes held by findings, first: they decide whether the plan can be applied at all.
fn held(plan: &Plan) -> String {
    let held: Vec<&Change> = plan.changes.iter().filter(|c| c.is_held()).collect();
    let head = format!(
        "**This plan holds {} change(s): {HELD_STOPS_APPLY}.** Fix what each finding below is about, or accept the finding (`accept:` in the file that declares what it is about).",
        held.len()
    );
    caution(&head, &held, |c| {
        let d = describe(c);
        let what = format!(
            "{} {} {}",
            super::marker(c.action),
            d.subject,
            d.after.unwrap_or_default()
        );
        let why = escape(c.reason.as_deref().unwrap_or_default());
        format!("{}: {why}", code(what.trim()))
    })
}

fn deletions(plan: &Plan) -> String {
    let mut dels: Vec<_> = plan
        .changes
        .iter()
        .filter(|c| c.action == Action::Delete)
        .collect();
    // Grouped by target in the plan's target order (execution order interleaves them).
    let position = |c: &&Change| {
        plan.targets
            .iter()
            .position(|t| t.kind == c.target.kind && t.name == c.target.name)
    };
    dels.sort_by_key(position);
    let head = format!("**This plan deletes {} item(s):**", dels.len());
    caution(&head, &dels, |c| {
        let d = describe(c);
        let what = format!("{} {}", d.subject, d.before.unwrap_or_default());
        code(what.trim())
    })
}

/// A caution block: `head`, then one `target: item` line per change (at most [`MAX_LISTED`]);
/// nothing without changes.
fn caution(head: &str, changes: &[&Change], item: impl Fn(&Change) -> String) -> String {
    if changes.is_empty() {
        return String::new();
    }
    let mut out = format!("> [!CAUTION]\n> {head}\n");
    for c in changes.iter().take(MAX_LISTED) {
        out.push_str(&format!(
            "> - {}: {}\n",
            escape(&c.target.to_string()),
            item(c)
        ));
    }
    if changes.len() > MAX_LISTED {
        out.push_str(&format!("> - … and {} more\n", changes.len() - MAX_LISTED));
    }
    out.push('\n');
    out
}

/// The findings to act on, then those the files accept under a heading of their own (the drift
/// issue's body lists them apart).
fn findings(plan: &Plan) -> String {
    let (open, accepted) = finding::open_and_accepted(&plan.findings);
    // `spf-not-followed`: one line per include across the account, not one per record (most
    // zones share a few providers' includes); JSON and the text view keep every record.
    let (not_followed, open): (Vec<&Finding>, Vec<&Finding>) = open.into_iter().partition(|f| {
        f.code == FindingCode::SpfNotFollowed && !not_followed_terms(&f.message).is_empty()
    });
    let mut out = finding_list("**Findings**", &open, &not_followed_lines(&not_followed));
    out.push_str(&finding_list("**Accepted findings**", &accepted, ""));
    out
}

/// The `spf-not-followed` findings as one line per term not followed (an include, a redirect),
/// with the records whose count it leaves open, in the order the plan lists them.
fn not_followed_lines(findings: &[&Finding]) -> String {
    let mut terms: Vec<(&str, &str, Vec<&Finding>)> = Vec::new();
    for f in findings {
        for (term, why) in not_followed_terms(&f.message) {
            match terms.iter_mut().find(|(t, _, _)| *t == term) {
                Some((_, _, records)) => records.push(f),
                None => terms.push((term, why, vec![f])),
            }
        }
    }
    let mut out = String::new();
    for (term, why, records) in terms.iter().take(MAX_LISTED) {
        const SHOWN: usize = 5;
        let names: Vec<String> = records
            .iter()
            .take(SHOWN)
            .map(|f| {
                let at = f
                    .declared_at
                    .as_ref()
                    .map(|at| format!(" at {at}"))
                    .unwrap_or_default();
                match &f.record {
                    Some(r) => format!("{} {} ({}){at}", r.name, r.rtype, f.target.name),
                    None => format!("{}{at}", f.target.name),
                }
            })
            .collect();
        let more = match records.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let records_word = if records.len() == 1 {
            "record"
        } else {
            "records"
        };
        out.push_str(&format!(
            "- note \\[spf-not-followed\\] {}: not followed ({}), so the lookups of {} SPF {records_word} are not all counted: {}{more}\n",
            code(term),
            escape(why),
            records.len(),
            escape(&names.join("; ")),
        ));
    }
    if terms.len() > MAX_LISTED {
        out.push_str(&format!(
            "- … and {} more includes not followed\n",
            terms.len() - MAX_LISTED
        ));
    }
    out
}

fn finding_list(title: &str, findings: &[&Finding], grouped: &str) -> String {
    if findings.is_empty() && grouped.is_empty() {
        return String::new();
    }
    let mut out = format!("{title}\n\n");
    for f in findings.iter().take(MAX_LISTED) {
        let label = match (f.accepted.is_some(), f.severity) {
            (true, _) => finding::head(f).label,
            (false, Severity::Info) => "note",
            (false, Severity::NeedsPortalStep) => "**needs a portal step**",
            (false, Severity::Blocked) => "**blocked**",
            (false, Severity::Warning) => "**warning**",
            (false, Severity::Error) => "**error**",
        };
        // A backslash at the end of a line is CommonMark's hard line break: the detail goes
        // under the head, inside the same list item.
        // The acceptance and the command that adopts what no file declares go under the head,
        // before the detail (which may end in a fenced block).
        let notes: String = [finding::acceptance(f), finding::adoption(f)]
            .into_iter()
            .flatten()
            .map(|note| format!("  {}\\\n", escape(&note)))
            .collect();
        out.push_str(&format!(
            "- {label} {}\\\n{notes}{}",
            escape(&finding::about(f)),
            detail(f)
        ));
    }
    if findings.len() > MAX_LISTED {
        out.push_str(&format!("- … and {} more\n", findings.len() - MAX_LISTED));
    }
    out.push_str(grouped);
    out.push('\n');
    out
}

/// A finding's detail inside its list item: the sentence as free text, then the lines after it
/// (the SPF lookup tree) in a code block, with a fence longer than any run of backticks in them.
fn detail(f: &Finding) -> String {
    let (first, rest) = f.message.split_once('\n').unwrap_or((&f.message, ""));
    let mut out = format!("  {}\n", escape(first));
    if rest.is_empty() {
        return out;
    }
    let rest = escape_lines(rest);
    let rest: Vec<&str> = rest.lines().collect();
    let longest = rest
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    out.push_str(&format!("\n  {fence}\n"));
    for line in rest {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str(&format!("  {fence}\n"));
    out
}

/// A `<details>` section; `limit` keeps only that many change lines.
fn section(plan: &Plan, target: &TargetRef, limit: Option<usize>) -> String {
    let changes = changes_of(plan, target);
    let lines: Vec<String> = changes.iter().flat_map(|c| plain_change_lines(c)).collect();
    let shown = limit.unwrap_or(lines.len()).min(lines.len());
    let body = lines[..shown].join("\n");
    let fence = fence_for(&body);
    let declared = plan
        .target(target)
        .map(|t| format!(" <sub>{}</sub>", escape(&t.declared_at)))
        .unwrap_or_default();
    format!(
        "<details><summary>{}: {}{declared}</summary>\n\n{fence}diff\n{body}\n{fence}\n\n</details>\n\n",
        escape(&target.to_string()),
        target_counts(&changes),
    )
}

/// The longest prefix of a target's section that fits `budget`, and how many lines were cut.
fn partial_section(plan: &Plan, target: &TargetRef, budget: usize) -> (Option<String>, usize) {
    let total = section_line_count(plan, target);
    // Binary search over the number of lines kept.
    let (mut lo, mut hi) = (0usize, total);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if section(plan, target, Some(mid)).len() <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        return (None, 0);
    }
    (Some(section(plan, target, Some(lo))), total - lo)
}

fn section_line_count(plan: &Plan, target: &TargetRef) -> usize {
    changes_of(plan, target)
        .iter()
        .map(|c| plain_change_lines(c).len())
        .sum()
}

/// A code fence longer than any backtick run in `body`.
fn fence_for(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for ch in body.chars() {
        if ch == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// Inline code that survives any content: HTML `<code>` with the text escaped.
pub(super) fn code(text: &str) -> String {
    format!("<code>{}</code>", escape(text))
}

/// Escapes what Markdown/HTML would interpret in free text.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '`' => out.push_str("&#96;"),
            '*' | '_' | '[' | ']' | '|' | '\\' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' => out.push(' '),
            c if dnscron_api::untrusted::is_unsafe_char(c) => {
                out.push_str(&dnscron_api::untrusted::escape_char(c));
            }
            c => out.push(c),
        }
    }
    out
}
