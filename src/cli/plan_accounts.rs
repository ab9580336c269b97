//! `dnscron plan PATH` where PATH holds `dnscron-accounts.yaml`: every chosen account planned
//! side by side, each exactly as `dnscron plan <its folder>` would plan it with its own URL and
//! token (one client each: its own pacer and rate-limit bucket), then shown grouped by account.
//! An account that fails fails the run, and the others' plans are still shown. While they
//! read, the progress counts each account apart (`read_progress`, `for_accounts`).

use crate::cli::accounts::{self, api_config};
use crate::cli::dns_args::ResolverArg;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::plan::{PlanArgs, PlanFormat, read_progress, write_plan_file};
use crate::cli::side_by_side::{Part, join_all};
use crate::cli::trust::{self, Trust};
use crate::cli::{changed, logging, runtime, signals, stamp, validate, write_stdout};
use crate::render::plan::accounts::{self as view, AccountView};
use crate::render::plan::progress::AccountReads;
use dnscron_api::{ApiConfig, ReadClient};
use dnscron_core::config::accounts::{Account, Accounts};
use dnscron_core::config::model::Desired;
use dnscron_core::dnscheck::QueryOptions;
use dnscron_core::plan::{AccountCheck, MailDns, MakeOptions, Planned, Scope, make_plan_owned};
use dnscron_core::plan_file::{AccountPlan, accounts_to_json};

/// One account's plan, or why it has none (already worded).
pub(crate) struct AccountPlanned {
    pub(crate) name: String,
    pub(crate) api_url: String,
    pub(crate) planned: Result<Planned, CommandError>,
    /// Not planned on purpose (`--changed-since` and a token REF doesn't send there): why, and
    /// where the accounts file declares the account. `planned` then says so too.
    pub(crate) withheld: Option<(String, String)>,
}

pub(crate) fn run(args: &PlanArgs, repo: &Accounts, accounts: &[&Account]) -> CommandResult {
    let planned = plan_accounts(args, repo, accounts)?;
    let views: Vec<AccountView<'_>> = planned
        .iter()
        .map(|a| AccountView {
            name: &a.name,
            api_url: &a.api_url,
            plan: a
                .planned
                .as_ref()
                .map(|p| &p.plan)
                .map_err(|e| without_account(e, &a.name)),
            withheld: a
                .withheld
                .as_ref()
                .map(|(why, at)| (why.as_str(), at.as_str())),
        })
        .collect();
    let failed: Vec<&AccountPlanned> = planned
        .iter()
        .filter(|a| a.planned.is_err() && a.withheld.is_none())
        .collect();
    // A warning, not a failure: the pull request that moves an account must stay mergeable.
    if args.format != PlanFormat::Github {
        for account in planned.iter().filter(|a| a.withheld.is_some()) {
            if let Some((why, at)) = &account.withheld {
                eprintln!(
                    "warning: account `{}` ({at}) not planned: {why}",
                    account.name
                );
            }
        }
    }
    let saved: Vec<AccountPlan> = planned
        .iter()
        .filter_map(|a| {
            a.planned.as_ref().ok().map(|p| AccountPlan {
                name: a.name.clone(),
                // As the client normalized it: the URL the plan was made against.
                api_url: p.plan.api_url.clone(),
                plan: p.plan.clone(),
            })
        })
        .collect();
    // A review covers every chosen account: a file missing one would let an apply bound to it
    // leave that account's changes out without a word.
    if let (Some(path), true) = (&args.out, failed.is_empty()) {
        write_plan_file(path, &accounts_to_json(&saved)?)?;
    }
    write_stdout(&match args.format {
        PlanFormat::Text => view::text(&views, logging::use_color_on_stdout()),
        PlanFormat::Json if planned.iter().all(|a| a.planned.is_ok()) => accounts_to_json(&saved)?,
        PlanFormat::Json => json_with_failures(&planned, &saved)?,
        PlanFormat::Markdown => view::markdown(&views),
        PlanFormat::Github => view::github(&views),
    })?;
    if !failed.is_empty() {
        let names: Vec<String> = failed.iter().map(|a| format!("`{}`", a.name)).collect();
        for account in &failed {
            if let Err(err) = &account.planned
                && err.kind != ErrorKind::AlreadyReported
            {
                eprintln!("{}", err);
            }
        }
        let saved = match &args.out {
            Some(path) => format!("; no plan was saved to {}", path.display()),
            None => String::new(),
        };
        let kind = match failed.iter().find_map(|a| a.planned.as_ref().err()) {
            Some(err) if err.kind != ErrorKind::AlreadyReported => err.kind,
            Some(_) | None => ErrorKind::User,
        };
        return Err(CommandError::new(
            kind,
            format!(
                "the plan of {} {} failed{saved}",
                plural(names.len(), "account", "accounts"),
                names.join(", ")
            ),
        )
        .with_hint(
            "the other accounts' plans are shown above; fix what each error says and plan again",
        ));
    }
    let attention = planned.iter().any(|a| {
        a.planned.as_ref().is_ok_and(|p| {
            !p.plan.is_empty() || p.plan.findings.iter().any(|f| f.needs_attention())
        })
    });
    Ok(if args.detailed_exitcode && attention {
        Outcome::ChangesPresent
    } else {
        Outcome::Success
    })
}

/// `--format json` when some account has no plan: every chosen account in the file's order, a
/// failed one as `{name, api_url, error, hints}` and one withheld by the trust rule as `{name,
/// api_url, not_planned, at}` in place of its plan, so a script never takes a missing account
/// for one without changes. Not a plan file: an entry without `plan` is refused by apply (the
/// `--out` file holds the plans alone).
fn json_with_failures(
    planned: &[AccountPlanned],
    saved: &[AccountPlan],
) -> Result<String, CommandError> {
    let internal = |e: serde_json::Error| {
        CommandError::new(
            ErrorKind::Internal,
            format!("cannot write the plan as JSON: {e}"),
        )
    };
    let document: serde_json::Value =
        serde_json::from_str(&accounts_to_json(saved)?).map_err(internal)?;
    let mut plans = match document.get("accounts") {
        Some(serde_json::Value::Array(plans)) => plans.clone().into_iter(),
        Some(_) | None => Vec::new().into_iter(),
    };
    let mut accounts = Vec::with_capacity(planned.len());
    for account in planned {
        match &account.planned {
            Ok(_) => accounts.extend(plans.next()),
            Err(_) if let Some((why, at)) = &account.withheld => {
                accounts.push(serde_json::json!({
                    "name": account.name,
                    "api_url": account.api_url,
                    "not_planned": why,
                    "at": at,
                }));
            }
            Err(err) => accounts.push(serde_json::json!({
                "name": account.name,
                "api_url": account.api_url,
                "error": without_account(err, &account.name),
                "hints": err.hints(),
            })),
        }
    }
    let mut text = serde_json::to_string_pretty(&serde_json::json!({
        "format_version": document.get("format_version"),
        "accounts": accounts,
    }))
    .map_err(internal)?;
    text.push('\n');
    Ok(dnscron_api::untrusted::json_text(text))
}

/// An account's error as its own place in a view shows it: the account is named by the place.
fn without_account(err: &CommandError, name: &str) -> String {
    let text = err.message_text();
    let context = format!("account `{name}`: ");
    text.strip_prefix(&context).unwrap_or(&text).to_string()
}

/// Every chosen account's plan, read side by side on one runtime.
pub(crate) fn plan_accounts(
    args: &PlanArgs,
    repo: &Accounts,
    accounts: &[&Account],
) -> Result<Vec<AccountPlanned>, CommandError> {
    let resolver = args
        .resolver
        .as_ref()
        .map(ResolverArg::address)
        .transpose()?;
    if let (Some(since), Some(first)) = (&args.changed_since, accounts.first()) {
        changed::check_since(std::slice::from_ref(&first.folder), since)?;
    }
    // Which token may go where is known before any token is read.
    let trust = match &args.changed_since {
        Some(since) => trust::against(repo, accounts, since)?,
        None => vec![Trust::Scoped; accounts.len()],
    };
    let stamp = stamp::plan_stamp();
    let names: Vec<&str> = accounts.iter().map(|a| a.name.as_str()).collect();
    let progress = read_progress("plan").map(|p| p.for_accounts(&names));
    let reads: Vec<_> = (0..accounts.len())
        .map(|index| progress.as_ref().and_then(|p| p.account(index)))
        .collect();
    let loaded: Vec<Result<Loaded, CommandError>> = accounts
        .iter()
        .zip(&trust)
        .map(|(account, trust)| {
            let in_account = |e: CommandError| accounts::in_account(e, account);
            let folder = std::slice::from_ref(&account.folder);
            let desired = validate::load_printing_warnings(folder)
                .map_err(|d| match args.format {
                    PlanFormat::Github => validate::report_diagnostics_github(&d),
                    PlanFormat::Text | PlanFormat::Json | PlanFormat::Markdown => {
                        validate::report_diagnostics(&d)
                    }
                })
                .map_err(|_| {
                    CommandError::user(format!(
                        "account `{}`: its files are invalid (every problem is listed above)",
                        account.name
                    ))
                })?;
            let since = match trust {
                Trust::Untrusted(what) => {
                    let since = args.changed_since.as_deref().unwrap_or_default();
                    return Ok(Loaded::Withheld(trust::not_planned(what, since)));
                }
                // Its entry changed: its folder is not what REF's files describe.
                Trust::Whole => None,
                Trust::Scoped => args.changed_since.as_deref(),
            };
            let scope = since
                .map(|since| changed::scope(folder, &desired, since))
                .transpose()
                .map_err(in_account)?;
            let config = api_config(account, &args.api)?;
            Ok(Loaded::Read(Box::new((desired, scope, config))))
        })
        .collect();
    let read: Vec<(&Account, &ApiConfig)> = accounts
        .iter()
        .zip(&loaded)
        .filter_map(|(account, loaded)| match loaded {
            Ok(Loaded::Read(read)) => Some((*account, &read.2)),
            Ok(Loaded::Withheld(_)) | Err(_) => None,
        })
        .collect();
    trust::one_account_per_token(&read)?;
    let mut withheld = vec![None; accounts.len()];
    let ready: Vec<Result<(ReadClient, _, MakeOptions), CommandError>> = accounts
        .iter()
        .zip(&reads)
        .zip(loaded)
        .zip(&mut withheld)
        .map(|(((account, reads), loaded), withheld)| {
            let in_account = |e: CommandError| accounts::in_account(e, account);
            let (desired, scope, mut config) = match loaded? {
                Loaded::Read(read) => *read,
                Loaded::Withheld(why) => {
                    let err = CommandError::user(format!("not planned: {why}"));
                    *withheld = Some((why, account.location.to_string()));
                    return Err(err);
                }
            };
            if let Some(reads) = reads {
                config.on_wait = Some(reads.wait_hook());
            }
            let client = ReadClient::new(config).map_err(|e| in_account(e.into()))?;
            if let Some(reads) = reads {
                reads.set_stats(client.stats());
            }
            let opts = MakeOptions {
                allow_mass_changes: args.allow_mass_changes,
                stamp: stamp.for_account(&account.name, &account.api_url),
                scope,
                health: true,
                mail_dns: resolver.map(|r| {
                    MailDns::new(
                        r,
                        QueryOptions {
                            timeout: args.dns_timeout,
                            ..QueryOptions::default()
                        },
                    )
                }),
                progress: reads.as_ref().map(|r| r.hook()),
                // Each account's folder is planned whole, as `plan <folder>` plans it.
                account: Some(AccountCheck {
                    folders: vec![account.folder.display().to_string()],
                }),
                domains: None,
            };
            Ok((client, desired, opts))
        })
        .collect();
    let futures: Vec<Part<'_, Result<Planned, CommandError>>> = ready
        .into_iter()
        .zip(accounts)
        .zip(&reads)
        .map(|((ready, account), reads)| {
            let progress = progress.as_ref();
            Box::pin(async move {
                // Read nothing more, whether its plan was made, failed or never started.
                let _finished = reads.as_ref().map(|r| Finished(r));
                let (client, desired, opts) = ready?;
                let planned = make_plan_owned(&client, desired, &opts).await;
                if args.stats {
                    let stats = format!(
                        "account `{}`:\n{}",
                        account.name,
                        crate::render::stats::stats(&client.stats().snapshot())
                    );
                    match progress {
                        Some(progress) => progress.suspend(|| eprint!("{stats}")),
                        None => eprint!("{stats}"),
                    }
                }
                planned.map_err(|e| accounts::in_account(CommandError::from(e), account))
            }) as Part<'_, _>
        })
        .collect();
    let all = async {
        match &progress {
            Some(progress) => progress.alongside(join_all(futures)).await,
            None => join_all(futures).await,
        }
    };
    let results = runtime::block_on(signals::or_stop_plan(all))?;
    Ok(accounts
        .iter()
        .zip(results)
        .zip(withheld)
        .map(|((account, planned), withheld)| AccountPlanned {
            name: account.name.clone(),
            api_url: account.api_url.clone(),
            planned,
            withheld,
        })
        .collect())
}

/// An account's files and client settings, read before any client is made; or why its token
/// is not sent.
enum Loaded {
    Read(Box<(Desired, Option<Scope>, ApiConfig)>),
    Withheld(String),
}

/// Marks an account's reads finished when its part ends, however it ends.
struct Finished<'a>(&'a AccountReads);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
