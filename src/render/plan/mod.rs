//! The three views of a plan: `text` for terminals, `json` for machines and `plan --out`,
//! `markdown` for PR comments and job summaries. They share the wording below.

pub(crate) mod accounts;
pub(crate) mod github;
pub(crate) mod json;
pub(crate) mod markdown;
pub mod progress;
pub(crate) mod text;
mod words;

use dnscron_core::plan::{
    Action, Change, Finding, Plan, Resource, Severity, Status, Summary, TargetRef, Value,
};

pub use json::render as json;
pub use markdown::{MAX_LEN as MARKDOWN_MAX_LEN, render as markdown};
pub use text::render as text;

/// Shown by every view of a plan made with `--allow-mass-changes`: the reviewer approves the
/// lifted limits along with the changes (apply keeps them lifted for this plan's changes only).
pub(crate) struct MassChanges<'a> {
    pub headline: &'static str,
    /// The zones past their limits.
    pub zones: Vec<ZoneOverLimits<'a>>,
}

/// One zone past its limits: its name and place as the plan holds them (untrusted: each view
/// escapes them its way), and every limit with its figures, in our words.
pub(crate) struct ZoneOverLimits<'a> {
    pub zone: &'a str,
    pub declared_at: &'a str,
    pub limits: String,
}

const APPROVED_OVER: &str = "Mass changes approved for this plan (made with --allow-mass-changes): the zones' safety limits are lifted for its changes only, here and when this plan is applied; a later plan is limited again. Past the limits:";
const APPROVED_UNDER: &str = "Mass changes approved for this plan (made with --allow-mass-changes), though none of its changes go past the zones' safety limits: they are lifted for its changes only, here and when this plan is applied; a later plan is limited again.";

/// What the approval of mass changes covers, for a plan made with it.
pub(crate) fn mass_changes(plan: &Plan) -> Option<MassChanges<'_>> {
    if !plan.options.allow_mass_changes {
        return None;
    }
    let headline = match plan.over_limits.is_empty() {
        true => APPROVED_UNDER,
        false => APPROVED_OVER,
    };
    let zones = plan
        .over_limits
        .iter()
        .map(|over| ZoneOverLimits {
            zone: &over.zone,
            declared_at: &over.declared_at,
            limits: over
                .exceeded
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        })
        .collect();
    Some(MassChanges { headline, zones })
}

/// Contents longer than this (and every TXT) get a word diff instead of `old → new` on one line.
const LONG: usize = 48;

/// The summary sentence, e.g. `Plan: 3 to create, 1 to update, 2 to delete, 1 needs a portal step.`
/// Error and warning `findings` are counted after it (`Findings need attention: 1 error.`), with
/// changes or without (see `no_changes_line`): a reader skimming for the summary must not miss
/// them. Findings the files accept are counted apart: they need no attention now.
pub fn summary_line(summary: &Summary, findings: &[Finding]) -> String {
    if summary.create + summary.update + summary.delete == 0 {
        return no_changes_line(findings);
    }
    let mut line = format!(
        "Plan: {} to create, {}, {} to delete",
        summary.create,
        updates(summary),
        summary.delete
    );
    if summary.portal_step > 0 {
        let verb = if summary.portal_step == 1 {
            "needs"
        } else {
            "need"
        };
        line.push_str(&format!(", {} {verb} a portal step", summary.portal_step));
    }
    if summary.blocked > 0 {
        line.push_str(&format!(", {} blocked", summary.blocked));
    }
    match summary.held {
        0 => {}
        1 => line.push_str(", 1 held by a finding"),
        n => line.push_str(&format!(", {n} held by findings")),
    }
    line.push('.');
    if let Some(findings) = findings_sentence(findings) {
        line.push_str(&format!(" {findings}"));
    }
    line
}

/// `N to update`, with how many of them change only the TTL when some do: a reviewer reads a
/// large update count differently when it is a TTL change.
fn updates(summary: &Summary) -> String {
    match summary.update_ttl_only {
        0 => format!("{} to update", summary.update),
        ttl_only => format!("{} to update ({ttl_only} TTL-only)", summary.update),
    }
}

/// `No changes. The live account matches the files.`, then the findings sentence when any
/// (`Findings need attention: 2 warnings.`): one form, the all-clear being the sentence alone.
fn no_changes_line(findings: &[Finding]) -> String {
    let clear = "No changes. The live account matches the files.";
    match findings_sentence(findings) {
        None => clear.into(),
        Some(sentence) => format!("{clear} {sentence}"),
    }
}

/// The summary over the accounts that were planned while others failed: their changes, or
/// `No changes in the 2 planned accounts.` (never the all-clear, which would claim the failed
/// ones match too), with the findings sentence.
pub(crate) fn planned_part_line(summary: &Summary, findings: &[Finding], planned: usize) -> String {
    if summary.create + summary.update + summary.delete > 0 {
        return summary_line(summary, findings);
    }
    let accounts = if planned == 1 { "account" } else { "accounts" };
    let line = format!("No changes in the {planned} planned {accounts}.");
    match findings_sentence(findings) {
        None => line,
        Some(sentence) => format!("{line} {sentence}"),
    }
}

/// What the summary says about findings: those needing attention, and those accepted apart
/// (`Findings need attention: 1 error; 1 accepted.`, or `1 finding accepted.` alone).
fn findings_sentence(findings: &[Finding]) -> Option<String> {
    let accepted = findings.iter().filter(|f| f.accepted.is_some()).count();
    match (attention(findings), accepted) {
        (None, 0) => None,
        (Some(attention), 0) => Some(format!("Findings need attention: {attention}.")),
        (Some(attention), n) => Some(format!(
            "Findings need attention: {attention}; {n} accepted."
        )),
        (None, 1) => Some("1 finding accepted.".into()),
        (None, n) => Some(format!("{n} findings accepted.")),
    }
}

/// `2 errors, 1 warning`; `None` without error or warning findings the files do not accept
/// (info, portal-step and blocked ones come with their changes, which the summary counts).
fn attention(findings: &[Finding]) -> Option<String> {
    let count = |severity| {
        findings
            .iter()
            .filter(|f| f.severity == severity && f.accepted.is_none())
            .count()
    };
    let counts: Vec<String> = [
        (count(Severity::Error), "error"),
        (count(Severity::Warning), "warning"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}{}", if n == 1 { "" } else { "s" }))
    .collect();
    (!counts.is_empty()).then(|| counts.join(", "))
}

pub(crate) fn marker(action: Action) -> char {
    match action {
        Action::Create => '+',
        Action::Update => '~',
        Action::Delete => '-',
    }
}

pub(crate) fn status_label(status: Status) -> Option<&'static str> {
    match status {
        Status::Ready => None,
        Status::NeedsPortalStep => Some("needs a portal step"),
        Status::Blocked => Some("blocked"),
        Status::HeldByFinding => Some("held by a finding"),
    }
}

/// What apply does with a plan that holds a change, said under each held change.
pub(crate) const HELD_STOPS_APPLY: &str = "apply sends nothing while any change is held";

/// A change in words, independent of the output format.
pub(crate) struct Described {
    /// `www A`, `cron`, `nameservers`.
    pub subject: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub ttl_before: Option<u32>,
    pub ttl_after: Option<u32>,
    /// Show a word diff on separate lines rather than `before → after`.
    pub long: bool,
}

pub(crate) fn describe(change: &Change) -> Described {
    let subject = match &change.resource {
        Resource::Record { name, rtype, .. } => format!("{} {rtype}", printable(name)),
        Resource::CronJob { .. } => "cron".into(),
        Resource::Nameservers => "nameservers".into(),
    };
    let is_txt = matches!(&change.resource, Resource::Record { rtype, .. } if *rtype == dnscron_core::dns::RecordType::TXT);
    let (before, ttl_before) = split(change.before.as_ref(), is_txt);
    let (after, ttl_after) = split(change.after.as_ref(), is_txt);
    let long = change.action == Action::Update
        && before != after
        && (is_txt
            || before.as_ref().is_some_and(|b| b.len() > LONG)
            || after.as_ref().is_some_and(|a| a.len() > LONG));
    Described {
        subject,
        before,
        after,
        ttl_before,
        ttl_after,
        long,
    }
}

fn split(value: Option<&Value>, is_txt: bool) -> (Option<String>, Option<u32>) {
    match value {
        None => (None, None),
        Some(Value::Record { ttl, content }) if is_txt => (Some(quote(content)), Some(*ttl)),
        Some(Value::Record { ttl, content }) => (Some(printable(content)), Some(*ttl)),
        Some(Value::CronJob { schedule, command }) => (
            Some(format!(
                "\"{}\" {}",
                printable(schedule),
                printable(command)
            )),
            None,
        ),
        Some(Value::Nameservers { mode, nameservers }) if nameservers.is_empty() => {
            (Some(printable(mode)), None)
        }
        Some(Value::Nameservers { mode, nameservers }) => (
            Some(printable(&format!("{mode} ({})", nameservers.join(", ")))),
            None,
        ),
    }
}

/// Server data shown on a terminal or in a log: through the one escaping of untrusted text, so a
/// hostile or broken value can't rewrite the screen, fake plan lines or run a workflow command.
/// What a plan limited to a change covers, in words; `shown` draws the file-given revision and
/// commit (escaped for the view). `None` for a plan of everything.
pub(crate) fn scope_line(plan: &Plan, shown: impl Fn(&str) -> String) -> Option<String> {
    use dnscron_core::plan::TargetKind;
    let scope = plan.scope.as_ref()?;
    let commit: String = scope.commit.chars().take(12).collect();
    let parts: Vec<String> = [
        (TargetKind::Zone, "zone", "zones"),
        (
            TargetKind::Domain,
            "domain's nameservers",
            "domains' nameservers",
        ),
        (TargetKind::Site, "site", "sites"),
    ]
    .into_iter()
    .filter_map(|(kind, one, many)| match scope.count(kind) {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    })
    .collect();
    let covered = if parts.is_empty() {
        "no zone or site".to_string()
    } else {
        parts.join(", ")
    };
    Some(format!(
        "Only what changed since {} ({}): {covered}. Nothing else was read: drift elsewhere is a full plan's to find.",
        shown(&scope.since),
        shown(&commit),
    ))
}

pub(crate) fn printable(text: &str) -> String {
    dnscron_api::untrusted::escape(text).into_owned()
}

/// TXT text shown between quotes, as the file's `content:` holds it: a backslash stays one
/// (a DMARC record's `\;` reads as the file has it, not `\\;`); a quote inside is `\"`, unsafe
/// characters escaped. The quotes only delimit it, so spaces at its ends stay visible.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            c if dnscron_api::untrusted::is_unsafe_char(c) => {
                out.push_str(&dnscron_api::untrusted::escape_char(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `(ttl 300)` or `(ttl 600 → 3600)`, empty for non-records.
pub(crate) fn ttl_text(d: &Described) -> String {
    match (d.ttl_before, d.ttl_after) {
        (Some(b), Some(a)) if a != b => format!("(ttl {b} → {a})"),
        (_, Some(t)) | (Some(t), None) => format!("(ttl {t})"),
        (None, None) => String::new(),
    }
}

/// The changes of `target`, in plan order.
pub(crate) fn changes_of<'a>(plan: &'a Plan, target: &TargetRef) -> Vec<&'a Change> {
    plan.changes
        .iter()
        .filter(|c| &c.target == target)
        .collect()
}

/// Every target with changes, in the plan's target order (then any others, defensively).
pub(crate) fn targets_with_changes(plan: &Plan) -> Vec<TargetRef> {
    let mut out: Vec<TargetRef> = plan
        .targets
        .iter()
        .map(|t| t.target_ref())
        .filter(|t| plan.changes.iter().any(|c| &c.target == t))
        .collect();
    for c in &plan.changes {
        if !out.contains(&c.target) {
            out.push(c.target.clone());
        }
    }
    out
}

/// Summary counts of one target's changes.
pub(crate) fn target_counts(changes: &[&Change]) -> String {
    let count = |a: Action| changes.iter().filter(|c| c.action == a).count();
    format!(
        "{} to create, {} to update, {} to delete",
        count(Action::Create),
        count(Action::Update),
        count(Action::Delete)
    )
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn txt_is_shown_as_the_file_has_it() {
        // A DMARC record written `v=DMARC1\; p=reject` (octoDNS's escape, kept literally).
        assert_eq!(quote("v=DMARC1\\; p=reject"), "\"v=DMARC1\\; p=reject\"");
        // What can't be shown as it is still is: a quote inside, a control character.
        assert_eq!(quote("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert!(!quote("a\u{1b}[31mb").contains('\u{1b}'));
    }
}
