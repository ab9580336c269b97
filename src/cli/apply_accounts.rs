//! `dnscron apply PATH` where PATH holds `dnscron-accounts.yaml` (with `--reviewed FILE`, or
//! `--plan FILE` alone): every chosen account planned and bound first, side by side, each with
//! its own client and its own reviewed plan (the file's part under its name); if any account is
//! refused or fails, nothing is written in any account (one merge is one review); then the
//! accounts are applied side by side and reported by account.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use crate::cli::accounts::api_config;
use crate::cli::apply::{ApplyArgs, ApplyFormat};
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome, Refused, exit_code};
use crate::cli::side_by_side::{Part, join_all};
use crate::cli::signals::Signals;
use crate::cli::{apply_end, session, stamp, write_stdout};
use crate::render::apply::{self as report, Lines};
use crate::render::plan as render;
use dnscron_api::WriteClient;
use dnscron_core::apply::workflow::{Binding, Execution, Prepared, ReviewedPlan, Workflow};
use dnscron_core::apply::{ApplyReport, Progress};
use dnscron_core::config::accounts::{Account, Accounts};
use dnscron_core::plan::Plan;
use dnscron_core::plan_file::{AccountPlan, PlanFile};

/// What binds one account's apply.
enum Bind {
    /// The account's part of the reviewed file, or none: then any change is not reviewed.
    Reviewed(Option<Plan>),
    /// The account's part of the saved plan (`--plan`).
    Saved(Plan),
    /// `--yes`, or a person confirms every account's plan at once.
    Fresh { confirm: bool },
}

pub(crate) fn run(args: &ApplyArgs, accounts: &Accounts, chosen: &[&Account]) -> CommandResult {
    if args.reviewed.len() > 1 {
        return Err(CommandError::user(
            "in a repository of several accounts, apply takes one --reviewed plan: the file \
             `dnscron plan --out FILE` wrote for every account",
        )
        .with_hint("plan the accounts again into one file, have it reviewed, and apply that"));
    }
    let file = args.plan.as_ref().or(args.reviewed.first());
    let saved = file.map(|f| read_accounts(f, accounts)).transpose()?;
    let fresh = saved.is_none();
    if fresh && !args.yes && !std::io::stdin().is_terminal() {
        return Err(CommandError::user(
            "apply asks for confirmation, but stdin is not a terminal",
        )
        .with_hint("review the plan with `dnscron plan`, then run `dnscron apply --yes`; or save it with `dnscron plan --out FILE` and run `dnscron apply --reviewed FILE PATH`"));
    }
    let stamp = stamp::plan_stamp();
    let mut clients = Vec::new();
    for account in chosen {
        let config = api_config(account, &args.api)?;
        let client = WriteClient::new(config).map_err(|e| {
            CommandError::from(e).with_context(&format!("account `{}`", account.name))
        })?;
        let part = saved.as_ref().map(|plans: &Vec<AccountPlan>| {
            plans
                .iter()
                .find(|p| p.name == account.name)
                .map(|p| p.plan.clone())
        });
        let bind = match (part, args.plan.is_some()) {
            (Some(Some(plan)), true) => Bind::Saved(plan),
            (Some(None), true) => {
                return Err(CommandError::user(format!(
                    "the saved plan holds no plan of account `{}`",
                    account.name
                ))
                .with_hint("choose the accounts it holds with --account NAME"));
            }
            (Some(plan), false) => Bind::Reviewed(plan),
            (None, _) => Bind::Fresh { confirm: !args.yes },
        };
        clients.push((account, client, bind));
    }
    let runtime = session::runtime()?;
    // Until the first write a signal ends the apply at once, nothing sent; from then on every
    // account finishes the change in flight and stops, as one account's apply does.
    let signals = Signals::new();
    signals.listen(&runtime);
    let progress: Arc<dyn Progress> = Arc::new(Lines::new());
    let files: Vec<PathBuf> = file.cloned().into_iter().collect();
    // Plan and bind every account before anything is written anywhere.
    let prepares: Vec<Part<'_, Result<Prepared<'_>, CommandError>>> = clients
        .iter()
        .map(|(account, client, bind)| {
            let files = &files;
            let stamp = stamp.for_account(&account.name, &account.api_url);
            Box::pin(async move {
                let in_account =
                    |e: CommandError| e.with_context(&format!("account `{}`", account.name));
                let mut workflow = match bind {
                    Bind::Saved(plan) => Workflow::saved(client, plan.clone()),
                    Bind::Reviewed(Some(plan)) => {
                        let desired = session::load_desired(std::slice::from_ref(&account.folder))
                            .map_err(in_account)?;
                        let reviewed = ReviewedPlan {
                            plan: plan.clone(),
                            mass_changes_approved: !args.allow_mass_changes_in.is_empty(),
                        };
                        Workflow::files(client, desired, Binding::Reviewed(vec![reviewed]))
                    }
                    Bind::Reviewed(None) | Bind::Fresh { .. } => {
                        let desired = session::load_desired(std::slice::from_ref(&account.folder))
                            .map_err(in_account)?;
                        let binding = match bind {
                            Bind::Fresh { confirm: true } => Binding::Confirmed,
                            Bind::Fresh { confirm: false } | Bind::Reviewed(_) | Bind::Saved(_) => {
                                Binding::Nothing
                            }
                        };
                        Workflow::files(client, desired, binding)
                    }
                };
                workflow.allow_mass_changes = args.allow_mass_changes;
                workflow.stamp = stamp;
                let prepared = workflow.prepare().await.map_err(|refusal| {
                    in_account(CommandError::from(Refused { refusal, files }))
                })?;
                // An account the review leaves out may have nothing to change; anything it
                // would change nobody reviewed.
                if let Bind::Reviewed(None) = bind
                    && !prepared.plan().is_empty()
                {
                    return Err(in_account(CommandError::new(
                        ErrorKind::Stale,
                        format!(
                            "{} change(s) not reviewed: the reviewed plan holds no plan of this \
                             account",
                            prepared.plan().changes.len()
                        ),
                    ))
                    .with_hint(
                        "plan every account into one file (`dnscron plan --out FILE`), have it \
                         reviewed, and apply that; or choose the reviewed accounts with \
                         --account NAME",
                    ));
                }
                Ok(prepared)
            }) as Part<'_, _>
        })
        .collect();
    let prepared = runtime.block_on(join_all(prepares));
    let failed = prepared.iter().any(Result::is_err);
    if failed {
        let mut names = Vec::new();
        for (account, result) in chosen.iter().zip(prepared) {
            if let Err(err) = result {
                if err.kind != ErrorKind::AlreadyReported {
                    eprintln!("{err}");
                }
                names.push(format!("`{}`", account.name));
            }
        }
        return Err(CommandError::user(format!(
            "nothing was written in any account: the apply of {} was refused or failed",
            names.join(", ")
        ))
        .with_hint(
            "one review covers every account: fix what each error says, plan again, and apply \
             that",
        ));
    }
    let prepared: Vec<Prepared<'_>> = prepared.into_iter().flatten().collect();
    let show = args.format == ApplyFormat::Text;
    if show || (fresh && !args.yes) {
        let mut text = String::new();
        for (account, p) in chosen.iter().zip(&prepared) {
            text.push_str(&format!("=== account `{}` ===\n", account.name));
            text.push_str(&render::text(p.plan(), false));
            text.push('\n');
        }
        write_stdout(&text)?;
    }
    let changes: usize = prepared.iter().map(|p| p.plan().changes.len()).sum();
    if fresh && !args.yes && changes > 0 && !confirm(changes, chosen.len())? {
        return Err(CommandError::user("apply cancelled; nothing was changed"));
    }
    let writing = || signals.writing();
    let execution = Execution {
        interrupt: Some(&signals.interrupt),
        dns: args.dns.options(args.dns_wait),
        before_writing: Some(&writing),
        ..Execution::new(&*progress)
    };
    let runs: Vec<Part<'_, Result<ApplyReport, CommandError>>> = prepared
        .into_iter()
        .zip(chosen)
        .map(|(p, account)| {
            let execution = &execution;
            Box::pin(async move {
                p.run(execution).await.map_err(|refusal| {
                    CommandError::from(refusal).with_context(&format!("account `{}`", account.name))
                })
            }) as Part<'_, _>
        })
        .collect();
    let reports = runtime.block_on(join_all(runs));
    progress.close();
    let mut worst: CommandResult = Ok(Outcome::Success);
    let mut json = Vec::new();
    for (account, report) in chosen.iter().zip(reports) {
        let ending = match report {
            Ok(report) => {
                let ending = apply_end::ending(&report.result);
                match args.format {
                    ApplyFormat::Text => write_stdout(&format!(
                        "=== account `{}` ===\n{}\n",
                        account.name,
                        report::text(&report)
                    ))?,
                    ApplyFormat::Markdown => write_stdout(&format!(
                        "### Account `{}`\n\n{}\n",
                        account.name,
                        report::markdown(&report)
                    ))?,
                    // One document for a script: each account's report under its name.
                    ApplyFormat::Json => {
                        let one: serde_json::Value =
                            serde_json::from_str(&report::json(&report, exit_code(&ending)))
                                .map_err(|e| {
                                    CommandError::quoting(
                                        ErrorKind::Internal,
                                        "reading back an apply report",
                                        e,
                                    )
                                })?;
                        json.push(serde_json::json!({ "account": account.name, "report": one }));
                    }
                }
                ending
            }
            Err(err) => {
                eprintln!("{err}");
                Err(err)
            }
        };
        worst = match (worst, ending) {
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            (Ok(Outcome::NeedsHumanStep), Ok(_)) | (Ok(_), Ok(Outcome::NeedsHumanStep)) => {
                Ok(Outcome::NeedsHumanStep)
            }
            (Ok(a), Ok(_)) => Ok(a),
        };
    }
    if args.format == ApplyFormat::Json {
        let mut text = serde_json::to_string_pretty(&serde_json::json!({ "accounts": json }))
            .map_err(|e| {
                CommandError::quoting(ErrorKind::Internal, "writing the apply report", e)
            })?;
        text.push('\n');
        write_stdout(&text)?;
    }
    // Each account's report or error is above; only how the run ends is left.
    worst.map_err(|e| match e.kind {
        ErrorKind::Interrupted { .. } => e,
        ErrorKind::User
        | ErrorKind::Config
        | ErrorKind::Api
        | ErrorKind::Stale
        | ErrorKind::HeldByFinding
        | ErrorKind::AlreadyReported
        | ErrorKind::BrokenPipe
        | ErrorKind::DnsUnreachable
        | ErrorKind::Internal => CommandError::new(ErrorKind::AlreadyReported, e.message_text()),
    })
}

/// The reviewed or saved file of several accounts, each part matching an account of the
/// repository by name and API URL.
fn read_accounts(
    file: &std::path::Path,
    accounts: &Accounts,
) -> Result<Vec<AccountPlan>, CommandError> {
    let plans = match super::plan_file::read_any(file)? {
        PlanFile::Accounts(plans) => plans,
        PlanFile::One(_) => {
            return Err(CommandError::user(format!(
                "{} is the plan of one account, and {} holds several",
                file.display(),
                accounts.file.display()
            ))
            .with_hint(
                "plan the repository (`dnscron plan --out FILE PATH`) and apply that file",
            ));
        }
    };
    for part in &plans {
        match accounts.accounts.iter().find(|a| a.name == part.name) {
            None => {
                return Err(CommandError::user(format!(
                    "{} holds a plan of account `{}`, which {} does not declare",
                    file.display(),
                    part.name,
                    accounts.file.display()
                ))
                .with_hint(
                    "make a new plan of the repository as it is, have it reviewed, and apply that",
                ));
            }
            Some(a) if !same_url(&a.api_url, &part.api_url) => {
                return Err(CommandError::user(format!(
                    "{} planned account `{}` at {}, and {} now puts it at {}: nothing was sent",
                    file.display(),
                    part.name,
                    dnscron_api::untrusted::escape(&part.api_url),
                    accounts.file.display(),
                    a.api_url
                ))
                .with_hint(
                    "make a new plan of the repository as it is, have it reviewed, and apply that",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(plans)
}

fn confirm(changes: usize, accounts: usize) -> Result<bool, CommandError> {
    let mut err = std::io::stderr().lock();
    write!(
        err,
        "\nApply these {changes} change(s) to {accounts} live account(s)? Only `yes` is accepted: "
    )?;
    err.flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

/// The accounts file's URL as the client normalizes it (what a plan records) against a plan's.
fn same_url(declared: &str, planned: &str) -> bool {
    dnscron_api::parse_base_url(declared).is_ok_and(|u| u.as_str() == planned)
}
