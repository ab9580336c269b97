//! `dnscron baseline DIR`: the first day (docs/ci.md, "Start green"). Plans the folder against
//! the whole account, then writes what the drift job would alert on today as taken: `accept:`
//! entries for its error findings and an `unmanaged:` document for what no file declares. The
//! files are reloaded afterwards; if they no longer load, every file is put back as it was.

use std::path::{Path, PathBuf};

use dnscron_api::ReadClient;
use dnscron_api::untrusted::Untrusted;
use dnscron_core::config;
use dnscron_core::config::accounts::Account;
use dnscron_core::dnscheck::QueryOptions;
use dnscron_core::import::baseline::{self, Baseline, FileAcceptances};
use dnscron_core::plan::{AccountCheck, MailDns, MakeOptions, make_plan_owned};

use super::accounts::{self, AccountArgs, Named, Repository};
use super::api_args::ApiArgs;
use super::dns_args::{ResolverArg, parse_resolver_arg};
use super::error::{CommandError, CommandResult, ErrorKind, Outcome};
use super::{runtime, signals, validate, write_stdout};

/// The file the `unmanaged:` list goes to, in the folder; an existing one gets a new document.
const UNMANAGED_FILE: &str = "unmanaged.yaml";

#[derive(Debug, clap::Args)]
pub struct BaselineArgs {
    /// The folder of desired-state files (what the drift job plans).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub api: ApiArgs,
    /// Follow SPF includes outside the account through this resolver (`system`: the
    /// machine's own), as the drift job's `plan --resolver` does, so their findings are
    /// accepted too.
    #[arg(long, value_name = "IP[:PORT]|system", value_parser = parse_resolver_arg)]
    pub resolver: Option<ResolverArg>,
    #[command(flatten)]
    pub account: AccountArgs,
}

pub(crate) fn run(args: BaselineArgs) -> CommandResult {
    if !args.dir.is_dir() {
        return Err(CommandError::user(format!(
            "{} is not a folder",
            Untrusted(&args.dir.display().to_string())
        ))
        .with_hint("pass the folder the drift job plans, e.g. `dnscron baseline dns/`"));
    }
    let repository =
        Repository::discover_for_api(std::slice::from_ref(&args.dir), &args.account, &args.api)?;
    let mail_dns = args
        .resolver
        .as_ref()
        .map(ResolverArg::address)
        .transpose()?;
    // What each folder is planned with: the flags' API for one account, each account's own
    // for several (its token to its URL only).
    let mut targets: Vec<Target<'_>> = Vec::new();
    match &repository {
        Repository::One { .. } => {
            targets.push((None, args.dir.clone(), args.api.clone().into_config()?));
        }
        Repository::Many { .. } => {
            for account in repository.chosen() {
                let config = accounts::api_config(account, &args.api)?;
                targets.push((Some(account), account.folder.clone(), config));
            }
            let read: Vec<_> = targets
                .iter()
                .filter_map(|(account, _, config)| account.map(|a| (a, config)))
                .collect();
            super::trust::one_account_per_token(&read)?;
        }
    }
    let mut loaded = Vec::new();
    let mut problems = config::Diagnostics::default();
    for (_, dir, _) in &targets {
        match validate::load_printing_warnings(std::slice::from_ref(dir)) {
            Ok(desired) => loaded.push(desired),
            Err(diags) => problems.items.extend(diags.items),
        }
    }
    if !problems.is_empty() {
        return Err(validate::report_diagnostics(&problems));
    }
    let planned = plan_side_by_side(&targets, &loaded, mail_dns)?;
    let mut by_hand: Vec<Refused> = Vec::new();
    for (((name, dir, _), desired), plan) in targets.iter().zip(&loaded).zip(planned) {
        let today = chrono::DateTime::parse_from_rfc3339(&plan.created_at)
            .map(|made| made.with_timezone(&chrono::Utc).date_naive())
            .unwrap_or_else(|_| chrono::Utc::now().date_naive());
        let taken = baseline::baseline(desired, &plan.findings, today);
        let written = write(dir, &taken).map_err(|e| match name {
            Some(account) => accounts::in_account(e, account),
            None => e,
        })?;
        if let Some(account) = name {
            write_stdout(&format!("account `{}`:\n", account.name))?;
        }
        let named = match name {
            Some(account) => Named::Account {
                root: &args.dir,
                name: &account.name,
            },
            None => Named::Folder(dir),
        };
        write_stdout(&summary(named, &taken, &written))?;
        by_hand.extend(written.refused);
    }
    if by_hand.is_empty() {
        Ok(Outcome::Success)
    } else {
        Err(refused_error(&by_hand.iter().collect::<Vec<_>>()))
    }
}

/// A folder to baseline: its account (none: the flags' API), the folder, its client settings.
type Target<'a> = (Option<&'a Account>, PathBuf, dnscron_api::ApiConfig);

/// Every target's plan against its whole account, the accounts' reads side by side (each
/// client with its own rate limit), with `plan`'s progress (each account counted apart); the
/// first failure fails the command before anything is written anywhere.
fn plan_side_by_side(
    targets: &[Target<'_>],
    loaded: &[config::model::Desired],
    mail_dns: Option<std::net::SocketAddr>,
) -> Result<Vec<dnscron_core::plan::Plan>, CommandError> {
    let names: Vec<&str> = targets
        .iter()
        .filter_map(|(account, _, _)| account.map(|a| a.name.as_str()))
        .collect();
    let progress = super::plan::read_progress("baseline").map(|p| p.for_accounts(&names));
    let mut clients = Vec::new();
    let mut reads = Vec::new();
    for (index, (_, _, config)) in targets.iter().enumerate() {
        let mut config = config.clone();
        let account = progress.as_ref().and_then(|p| p.account(index));
        if let Some(account) = &account {
            config.on_wait = Some(account.wait_hook());
        }
        let client = ReadClient::new(config)?;
        if let Some(account) = &account {
            account.set_stats(client.stats());
        }
        clients.push(client);
        reads.push(account);
    }
    let all = async {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, ((((_, dir, _), desired), client), reads)) in targets
            .iter()
            .zip(loaded)
            .zip(&clients)
            .zip(&reads)
            .enumerate()
        {
            let opts = MakeOptions {
                stamp: super::stamp::plan_stamp(),
                health: true,
                mail_dns: mail_dns.map(|r| MailDns::new(r, QueryOptions::default())),
                account: Some(AccountCheck {
                    folders: vec![dir.display().to_string()],
                }),
                progress: reads.as_ref().map(|r| r.hook()),
                ..MakeOptions::default()
            };
            let client = client.clone();
            let desired = desired.clone();
            let reads = reads.clone();
            tasks.spawn(async move {
                let planned = make_plan_owned(&client, desired, &opts).await;
                if let Some(reads) = reads {
                    reads.finish();
                }
                (index, planned.map(|p| p.plan))
            });
        }
        let mut done = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            done.push(joined);
        }
        Ok::<_, dnscron_core::plan::MakePlanError>(done)
    };
    let results = runtime::block_on(signals::or_stop_plan(async {
        match &progress {
            Some(progress) => progress.alongside(all).await,
            None => all.await,
        }
    }))??;
    let mut plans = Vec::new();
    for joined in results {
        let (index, plan) = joined
            .map_err(|e| CommandError::quoting(ErrorKind::Internal, "planning an account", e))?;
        let plan = plan.map_err(|e| {
            let err = CommandError::from(e);
            match targets[index].0 {
                Some(account) => accounts::in_account(err, account),
                None => err,
            }
        })?;
        plans.push((index, plan));
    }
    plans.sort_by_key(|(index, _)| *index);
    Ok(plans.into_iter().map(|(_, plan)| plan).collect())
}

/// A file whose entries could not be added as text.
struct Refused {
    acceptances: FileAcceptances,
    why: baseline::EditRefusal,
}

#[derive(Default)]
struct Written {
    files: Vec<PathBuf>,
    unmanaged: Option<PathBuf>,
    refused: Vec<Refused>,
}

/// Every edit, then a reload of the folder; on any failure every file is put back.
fn write(dir: &Path, taken: &Baseline) -> Result<Written, CommandError> {
    let mut written = Written::default();
    let mut edits: Vec<(PathBuf, Option<String>, String)> = Vec::new();
    for a in &taken.accept {
        let before = std::fs::read_to_string(&a.file)?;
        match baseline::with_acceptances(&before, &a.entries) {
            Ok(after) => {
                edits.push((a.file.clone(), Some(before), after));
                written.files.push(a.file.clone());
            }
            Err(why) => written.refused.push(Refused {
                acceptances: a.clone(),
                why,
            }),
        }
    }
    if !taken.unmanaged.is_empty() {
        let path = dir.join(UNMANAGED_FILE);
        let before = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        let document = baseline::unmanaged_document(&taken.unmanaged);
        let after = match &before {
            Some(text) if text.ends_with('\n') || text.is_empty() => {
                format!("{text}---\n{document}")
            }
            Some(text) => format!("{text}\n---\n{document}"),
            None => document,
        };
        edits.push((path.clone(), before, after));
        written.unmanaged = Some(path);
    }
    for (path, _, after) in &edits {
        if let Err(e) = std::fs::write(path, after) {
            restore(&edits);
            return Err(e.into());
        }
    }
    if let Err(problems) = config::load(&[dir.to_path_buf()]) {
        restore(&edits);
        return Err(CommandError::internal(format!(
            "the files no longer load after the baseline's edits ({} problems, e.g. {}); every file was put back",
            problems.len(),
            problems.items.first().map_or("?", |i| i.message.as_str())
        ))
        .with_hint("please report it with the files; the entries can be added by hand (docs/health.md, \"Accepting a finding\")"));
    }
    Ok(written)
}

fn restore(edits: &[(PathBuf, Option<String>, String)]) {
    for (path, before, _) in edits {
        let _ = match before {
            Some(text) => std::fs::write(path, text),
            None => std::fs::remove_file(path),
        };
    }
}

fn summary(named: Named<'_>, taken: &Baseline, written: &Written) -> String {
    let mut out = String::new();
    for a in taken
        .accept
        .iter()
        .filter(|a| written.files.contains(&a.file))
    {
        out.push_str(&format!(
            "{}: accepted {} in {}\n",
            Untrusted(&a.target),
            entries(&a.entries),
            Untrusted(&a.file.display().to_string())
        ));
    }
    if let Some(path) = &written.unmanaged {
        let u = &taken.unmanaged;
        let listed: Vec<String> = [
            ("zone", &u.zones),
            ("domain", &u.domains),
            ("site", &u.sites),
        ]
        .iter()
        .flat_map(|(kind, names)| names.iter().map(move |n| format!("{kind} {n}")))
        .collect();
        out.push_str(&format!(
            "left unmanaged in {}: {}\n",
            Untrusted(&path.display().to_string()),
            Untrusted(&listed.join(", "))
        ));
    }
    for f in &taken.expired {
        out.push_str(&format!(
            "{}: the acceptance of {} no longer covers it (expired, or the finding got worse); renew its `until` or `value` by hand if it still holds\n",
            Untrusted(&f.target.to_string()),
            f.code
        ));
    }
    if out.is_empty() {
        out.push_str("Nothing to take as it is: no error finding and nothing undeclared.\n");
    }
    if written.refused.is_empty() {
        out.push_str(&format!(
            "Next: review and commit the files; `dnscron plan {named} --detailed-exitcode` exits 0 until something changes.\n",
        ));
    }
    out
}

fn entries(entries: &[baseline::AcceptEntry]) -> String {
    entries
        .iter()
        .map(|e| match e.figure {
            Some(figure) => format!(
                "{} {} at {figure} until {}",
                e.finding,
                Untrusted(&e.name),
                e.until
            ),
            None => format!("{} {} until {}", e.finding, Untrusted(&e.name), e.until),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn refused_error(refused: &[&Refused]) -> CommandError {
    let lines: Vec<String> = refused
        .iter()
        .map(|r| {
            format!(
                "  {} ({}): {}; add by hand: {}",
                Untrusted(&r.acceptances.file.display().to_string()),
                r.why,
                Untrusted(&r.acceptances.target),
                entries(&r.acceptances.entries)
            )
        })
        .collect();
    CommandError::user(format!(
        "{} file(s) could not take their `accept:` entries as text; nothing else is missing:\n{}",
        refused.len(),
        lines.join("\n")
    ))
    .with_hint(format!(
        "add each entry to the file's `accept:` list with `reason: {}`, its `until` and its figure as `value` (docs/health.md, \"Accepting a finding\")",
        baseline::ADOPTION_REASON
    ))
}
