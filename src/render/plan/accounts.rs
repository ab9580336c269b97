//! A plan of several accounts in each view: every account's plan as one account's plan is
//! shown, under a heading that names the account, and the totals over every account last (text)
//! or first (Markdown, for a PR comment read top-down). An account whose plan failed is shown
//! in its place with why, so a reader never takes a missing account for one without changes.

use dnscron_core::plan::{Finding, Plan, Summary};

use super::markdown::{self, MAX_LEN, code, escape};
use super::{planned_part_line, printable, summary_line};
use crate::render::github::{Annotation, Level};

/// One account's part: its plan, or the words of why it has none.
pub(crate) struct AccountView<'a> {
    pub(crate) name: &'a str,
    pub(crate) api_url: &'a str,
    pub(crate) plan: Result<&'a Plan, String>,
    /// Not planned on purpose, and not a failure: a scoped plan sends its token nowhere the
    /// revision it compares with doesn't (the words, and where the accounts file declares it).
    pub(crate) withheld: Option<(&'a str, &'a str)>,
}

impl AccountView<'_> {
    /// Why it has no plan, whether withheld or failed.
    fn not_planned(&self) -> Option<String> {
        match (&self.plan, self.withheld) {
            (Ok(_), _) => None,
            (Err(_), Some((why, at))) => Some(format!("{why} ({at})")),
            (Err(why), None) => Some(why.clone()),
        }
    }
}

/// Room for the head of the Markdown view (title, table, totals) before the accounts' parts.
const HEAD_RESERVE: usize = 200;

/// `Accounts: 2 planned, 1 failed. Plan: …` over every planned account. While any account
/// failed, nothing is claimed of it: the planned ones' summary never reads as the all-clear,
/// and the failed ones are named as unknown.
pub(crate) fn totals_line(accounts: &[AccountView<'_>]) -> String {
    let (head, unknown) = totals(accounts, |name| format!("`{}`", printable(name)));
    match unknown {
        Some(unknown) => format!("{head} {unknown}"),
        None => head,
    }
}

/// The totals' words, and the sentence naming the failed accounts (each through `name`, so
/// that Markdown can set it as code while the rest is escaped text).
fn totals(accounts: &[AccountView<'_>], name: impl Fn(&str) -> String) -> (String, Option<String>) {
    let plans: Vec<&Plan> = accounts
        .iter()
        .filter_map(|a| a.plan.as_ref().ok().copied())
        .collect();
    let failed: Vec<String> = accounts
        .iter()
        .filter(|a| a.plan.is_err() && a.withheld.is_none())
        .map(|a| name(a.name))
        .collect();
    let withheld: Vec<String> = accounts
        .iter()
        .filter(|a| a.withheld.is_some())
        .map(|a| name(a.name))
        .collect();
    let mut summary = Summary::default();
    let mut findings: Vec<Finding> = Vec::new();
    for plan in &plans {
        let s = &plan.summary;
        summary.create += s.create;
        summary.update += s.update;
        summary.update_ttl_only += s.update_ttl_only;
        summary.delete += s.delete;
        summary.portal_step += s.portal_step;
        summary.blocked += s.blocked;
        summary.held += s.held;
        findings.extend(plan.findings.iter().cloned());
    }
    let mut head = format!("Accounts: {} planned", plans.len());
    if !withheld.is_empty() {
        head.push_str(&format!(
            ", {} not planned (planned on merge)",
            withheld.len()
        ));
    }
    if !failed.is_empty() {
        head.push_str(&format!(", {} failed", failed.len()));
    }
    // Nothing is claimed of an account without a plan: neither a failed one nor one withheld.
    let unknown: Vec<String> = [
        match failed.len() {
            0 => None,
            1 => Some(format!(
                "Nothing is known of account {}: its plan failed.",
                failed.join(", ")
            )),
            _ => Some(format!(
                "Nothing is known of accounts {}: their plans failed.",
                failed.join(", ")
            )),
        },
        match withheld.len() {
            0 => None,
            1 => Some(format!(
                "Account {} is planned on merge, by apply, against the reviewed files.",
                withheld.join(", ")
            )),
            _ => Some(format!(
                "Accounts {} are planned on merge, by apply, against the reviewed files.",
                withheld.join(", ")
            )),
        },
    ]
    .into_iter()
    .flatten()
    .collect();
    if unknown.is_empty() {
        head.push_str(&format!(". {}", summary_line(&summary, &findings)));
        return (head, None);
    }
    head.push('.');
    if !plans.is_empty() {
        head.push(' ');
        head.push_str(&planned_part_line(&summary, &findings, plans.len()));
    }
    (head, Some(unknown.join(" ")))
}

pub(crate) fn text(accounts: &[AccountView<'_>], color: bool) -> String {
    let bold = |t: &str| {
        if color {
            format!("\x1b[1m{t}\x1b[0m")
        } else {
            t.to_string()
        }
    };
    let mut out = String::new();
    for account in accounts {
        out.push_str(&bold(&format!("=== account `{}` ===", account.name)));
        out.push('\n');
        match (&account.plan, account.not_planned()) {
            (Ok(plan), _) => out.push_str(&super::text::render(plan, color)),
            (Err(_), why) => out.push_str(&format!(
                "Live account: {}\n\nNot planned: {}\n",
                printable(account.api_url),
                why.unwrap_or_default()
            )),
        }
        out.push('\n');
    }
    out.push_str(&bold(&totals_line(accounts)));
    out.push('\n');
    out
}

/// An error's folded lines as one: a table cell and a paragraph have no line breaks, and the
/// fold's indentation would show as a run of spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn markdown(accounts: &[AccountView<'_>]) -> String {
    let mut out = format!("### dnscron plan: {} accounts\n\n", accounts.len());
    out.push_str("| account | live account | plan |\n|---|---|---|\n");
    for account in accounts {
        let plan = match (&account.plan, account.not_planned()) {
            (Ok(plan), _) => escape(&summary_line(&plan.summary, &plan.findings)),
            (Err(_), why) => format!(
                "**not planned**: {}",
                escape(&one_line(&why.unwrap_or_default()))
            ),
        };
        out.push_str(&format!(
            "| {} | {} | {plan} |\n",
            code(account.name),
            code(account.api_url)
        ));
    }
    let (head, unknown) = totals(accounts, code);
    let unknown = unknown.map(|u| format!(" {u}")).unwrap_or_default();
    out.push_str(&format!("\n**{}{unknown}**\n\n", escape(&head)));
    // Each account gets an equal share of what is left, so the last one is never cut to nothing.
    let share = MAX_LEN.saturating_sub(out.len() + HEAD_RESERVE) / accounts.len().max(1);
    for account in accounts {
        let title = format!("Account {}", code(account.name));
        match (&account.plan, account.not_planned()) {
            (Ok(plan), _) => out.push_str(&markdown::render_within(plan, &title, share)),
            (Err(_), why) => out.push_str(&format!(
                "### {title}\n\nLive account: {}\n\n**Not planned**: {}\n",
                code(account.api_url),
                escape(&one_line(&why.unwrap_or_default()))
            )),
        }
        out.push('\n');
    }
    out
}

/// Every account's annotations, their titles naming the account; a failed account is an
/// `::error`; the totals a final `::notice`.
pub(crate) fn github(accounts: &[AccountView<'_>]) -> String {
    let mut out = String::new();
    for account in accounts {
        match (&account.plan, account.withheld) {
            (Ok(plan), _) => {
                let titled = format!("title=dnscron plan (account {})", account.name);
                out.push_str(&super::github::render(plan).replace("title=dnscron plan", &titled));
            }
            (Err(_), Some((why, at))) => out.push_str(
                &Annotation::new(Level::Warning, format!("not planned: {why}"))
                    .title(format!("dnscron plan (account {})", account.name))
                    .at(at)
                    .render(),
            ),
            (Err(why), None) => out.push_str(
                &Annotation::new(Level::Error, format!("not planned: {why}"))
                    .title(format!("dnscron plan (account {})", account.name))
                    .render(),
            ),
        }
    }
    out.push_str(
        &Annotation::new(Level::Notice, totals_line(accounts))
            .title("dnscron plan")
            .render(),
    );
    out
}
