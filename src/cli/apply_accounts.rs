//! `dnscron apply PATH` where PATH holds `dnscron-accounts.yaml` (with `--reviewed FILE`,
//! repeatable, or `--plan FILE` alone): every chosen account planned and bound first, side by
//! side, each with its own client and its own reviewed plans (each file's part under its name,
//! as a one-account apply takes several reviewed plans), scoped by `--changed-since` to its own
//! files that changed; if any account is refused or fails, nothing is written in any account
//! (one merge is one review); then the accounts are applied side by side and reported by
//! account.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

use crate::cli::accounts::{self, api_config};
use crate::cli::apply::{ApplyArgs, ApplyFormat};
use crate::cli::error::{
    CommandError, CommandResult, ErrorKind, Outcome, Refused, account_hint, exit_code,
};
use crate::cli::reviewed_accounts::{Bind, bindings};
use crate::cli::side_by_side::{Part, join_all};
use crate::cli::signals::Signals;
use crate::cli::trust::{self, Trust};
use crate::cli::{apply_end, changed, session, stamp, write_stdout};
use crate::render::apply::{self as report, Lines};
use crate::render::plan as render;
use dnscron_api::WriteClient;
use dnscron_core::apply::workflow::{Binding, Execution, Prepared, Workflow};
use dnscron_core::apply::{ApplyReport, Progress};
use dnscron_core::config::accounts::{Account, Accounts};

pub(crate) fn run(args: &ApplyArgs, accounts: &Accounts, chosen: &[&Account]) -> CommandResult {
    let binds = bindings(args, accounts, chosen)?;
    let fresh = args.plan.is_none() && args.reviewed.is_empty();
    if fresh && !args.yes && !std::io::stdin().is_terminal() {
        return Err(CommandError::user(
            "apply asks for confirmation, but stdin is not a terminal",
        )
        .with_hint("review the plan with `dnscron plan`, then run `dnscron apply --yes`; or save it with `dnscron plan --out FILE` and run `dnscron apply --reviewed FILE PATH`"));
    }
    if let (Some(since), Some(first)) = (&args.changed_since, chosen.first()) {
        changed::check_since(std::slice::from_ref(&first.folder), since)?;
    }
    // The merge job runs the reviewed base's successor in a protected environment: an account
    // a pull request moved (or added) is applied here, planned whole, and only what a reviewed
    // plan holds may be written.
    let trust = match &args.changed_since {
        Some(since) => trust::against(accounts, chosen, since)?,
        None => vec![Trust::Scoped; chosen.len()],
    };
    for (account, trust) in chosen.iter().zip(&trust) {
        let what = match trust {
            Trust::Scoped => continue,
            Trust::Whole => format!(
                "its entry (its folder) changed since `{}`",
                args.changed_since.as_deref().unwrap_or_default()
            ),
            Trust::Untrusted(what) => what.clone(),
        };
        eprintln!("apply: account `{}`: {what}: planned whole", account.name);
    }
    let stamp = stamp::plan_stamp();
    let configs = chosen
        .iter()
        .map(|account| api_config(account, &args.api))
        .collect::<Result<Vec<_>, _>>()?;
    let read: Vec<_> = chosen.iter().copied().zip(&configs).collect();
    trust::one_account_per_token(&read)?;
    let mut clients = Vec::new();
    for (((account, bind), config), trust) in chosen.iter().zip(binds).zip(configs).zip(trust) {
        let client = WriteClient::new(config)
            .map_err(|e| accounts::in_account(CommandError::from(e), account))?;
        clients.push((account, client, bind, trust));
    }
    let runtime = session::runtime()?;
    // Until the first write a signal ends the apply at once, nothing sent; from then on every
    // account finishes the change in flight and stops, as one account's apply does.
    let signals = Signals::new();
    signals.listen(&runtime);
    let progress: Arc<dyn Progress> = Arc::new(Lines::new());
    // Plan and bind every account before anything is written anywhere.
    let prepares: Vec<Part<'_, Result<Prepared<'_>, CommandError>>> = clients
        .iter()
        .map(|(account, client, bind, trust)| {
            let stamp = stamp.for_account(&account.name, &account.api_url);
            Box::pin(async move {
                let in_account = |e: CommandError| accounts::in_account(e, account);
                let mut workflow = match bind {
                    Bind::Saved(plan, _) => Workflow::saved(client, (**plan).clone()),
                    Bind::Reviewed(..) | Bind::Fresh { .. } => {
                        let folder = std::slice::from_ref(&account.folder);
                        let desired = session::load_desired(folder).map_err(in_account)?;
                        // The account's files changed since REF, as `apply <its folder>
                        // --changed-since REF` scopes them; whole when its entry changed.
                        let since = match trust {
                            Trust::Scoped => args.changed_since.as_deref(),
                            Trust::Whole | Trust::Untrusted(_) => None,
                        };
                        let changed = since
                            .map(|since| changed::scope(folder, &desired, since))
                            .transpose()
                            .map_err(in_account)?;
                        let binding = match bind {
                            Bind::Reviewed(plans, _) if !plans.is_empty() => {
                                Binding::Reviewed(plans.clone())
                            }
                            Bind::Fresh { confirm: true } => Binding::Confirmed,
                            Bind::Fresh { confirm: false }
                            | Bind::Reviewed(..)
                            | Bind::Saved(..) => Binding::Nothing,
                        };
                        let mut workflow = Workflow::files(client, desired, binding);
                        workflow.changed = changed;
                        workflow
                    }
                };
                workflow.allow_mass_changes = args.allow_mass_changes;
                workflow.stamp = stamp;
                let files = bind.files();
                let prepared = workflow.prepare().await.map_err(|refusal| {
                    in_account(CommandError::from(Refused { refusal, files }))
                })?;
                // An account the review leaves out may have nothing to change; anything it
                // would change nobody reviewed.
                if let Bind::Reviewed(plans, _) = bind
                    && plans.is_empty()
                    && !prepared.plan().is_empty()
                {
                    let holds = match args.reviewed.len() {
                        1 => "the reviewed plan holds no plan of this account",
                        _ => "no reviewed plan holds a plan of this account",
                    };
                    let changes = prepared.plan().changes.len();
                    // A pull request that moved it could not plan it: its check sent no token.
                    if let Trust::Untrusted(what) = trust {
                        return Err(in_account(CommandError::new(
                            ErrorKind::Stale,
                            format!(
                                "{changes} change(s) not reviewed: {what}, so the pull \
                                 request's check could not plan it"
                            ),
                        ))
                        .with_hint(format!(
                            "plan it where its token may go (`dnscron plan --account {} --out \
                             FILE` on main), have that plan reviewed, and apply it with \
                             --reviewed FILE",
                            account.name
                        )));
                    }
                    return Err(in_account(CommandError::new(
                        ErrorKind::Stale,
                        format!("{changes} change(s) not reviewed: {holds}"),
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
        return Err(nothing_written(&names));
    }
    let prepared: Vec<Prepared<'_>> = prepared.into_iter().flatten().collect();
    let writing = || signals.writing();
    let execution = Execution {
        interrupt: Some(&signals.interrupt),
        dns: args.dns.options(args.dns_wait),
        before_writing: Some(&writing),
        ..Execution::new(&*progress)
    };
    // A review that no longer holds in one account (a reviewed value moved since) is known
    // before anything is sent, as a refusal is: then no account writes either. Those accounts
    // are reported (their runs send nothing), the others neither run nor show.
    let stale = |p: &Prepared<'_>| {
        p.unsent_result()
            .is_some_and(|result| apply_end::ending(result).is_err())
    };
    if prepared.iter().any(stale) {
        let (stale, names): (Vec<_>, Vec<_>) = prepared
            .into_iter()
            .zip(chosen)
            .filter(|(p, _)| stale(p))
            .map(|(p, account)| ((p, *account), format!("`{}`", account.name)))
            .unzip();
        let accounts: Vec<&Account> = stale.iter().map(|(_, a)| *a).collect();
        let reports = runtime.block_on(run_all(stale, &execution));
        progress.close();
        // Each of them ends in an error of its own (the review no longer holds): the run's is
        // that nothing was written anywhere.
        let _ = report_all(args, &accounts, reports);
        return Err(nothing_written(&names));
    }
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
    let reports = runtime.block_on(run_all(
        prepared.into_iter().zip(chosen.iter().copied()).collect(),
        &execution,
    ));
    progress.close();
    report_all(args, chosen, reports)
}

/// Runs each account's prepared apply, side by side.
async fn run_all<'a>(
    prepared: Vec<(Prepared<'a>, &'a Account)>,
    execution: &Execution<'_>,
) -> Vec<Result<ApplyReport, CommandError>> {
    let runs: Vec<Part<'_, Result<ApplyReport, CommandError>>> = prepared
        .into_iter()
        .map(|(p, account)| {
            Box::pin(async move {
                p.run(execution)
                    .await
                    .map_err(|refusal| accounts::in_account(CommandError::from(refusal), account))
            }) as Part<'_, _>
        })
        .collect();
    join_all(runs).await
}

/// Nothing was sent to any account: `names` were refused, failed or no longer hold.
fn nothing_written(names: &[String]) -> CommandError {
    CommandError::user(format!(
        "nothing was written in any account: the apply of {} was refused or failed",
        names.join(", ")
    ))
    .with_hint(
        "one review covers every account: fix what each error says, plan again, and apply that",
    )
}

/// Each account's report (or error) under its name, in the chosen format; how the whole run
/// ends: the worst of them.
fn report_all(
    args: &ApplyArgs,
    chosen: &[&Account],
    reports: Vec<Result<ApplyReport, CommandError>>,
) -> CommandResult {
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
                let token = accounts::token_source(account);
                for hint in apply_end::stop_hints(&report.result) {
                    match account_hint(hint.to_string(), &account.name, &token).as_slice() {
                        [same] if same == hint => {
                            eprintln!("hint: account `{}`: {hint}", account.name)
                        }
                        named => named.iter().for_each(|h| eprintln!("hint: {h}")),
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
