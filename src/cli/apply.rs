//! `dnscron apply [PATH]...` (plan, confirm, execute, verify) and `dnscron apply --plan FILE`
//! (execute a saved plan after the stale check). Flow, keys and exit codes: docs/apply.md.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::accounts::{AccountArgs, Repository, RepositoryError};
use crate::cli::api_args::{ApiArgs, parse_duration};
use crate::cli::dns_args::ApplyDnsArgs;
use crate::cli::error::{CommandError, CommandResult, Refused};
use crate::cli::logging::use_color_on_stdout;
use crate::cli::signals::Signals;
use crate::cli::{session, write_stdout};
use crate::render::apply::{Bar, Lines};
use crate::render::plan as render;
use dnscron_api::WriteClient;
use dnscron_core::apply::Progress;
use dnscron_core::apply::workflow::{Binding, Execution, ReviewedPlan, Workflow};
use dnscron_core::plan::Plan;

// `demo` (behind the emulator feature) and the exit-code tests read an apply's ending too.
#[cfg(any(feature = "emulator", test))]
pub(crate) use super::apply_end::ending;
use super::apply_end::finish;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ApplyFormat {
    /// For people: each change with its outcome, then the summary and the DNS check.
    #[default]
    Text,
    /// For scripts: one document with every change's outcome and the summary (docs/apply.md).
    Json,
    /// For a CI job summary: what was done, what was not, where to continue.
    Markdown,
}

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Execute this saved plan (from `plan --out`): its own desired state is planned again and
    /// runs only if every change is one of the plan's; never asks. Takes no PATH.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["paths", "reviewed"])]
    pub plan: Option<PathBuf>,
    /// Plan PATH now and apply only the changes this reviewed plan (from `plan --out`) holds;
    /// any other change refuses the whole apply, with nothing sent. Never asks. Repeatable:
    /// several reviewed plans (of one API URL) allow the changes of any of them; in a
    /// repository of several accounts, each account is bound to its part of every file.
    #[arg(long, value_name = "PLAN_FILE", action = clap::ArgAction::Append)]
    pub reviewed: Vec<PathBuf>,
    /// Don't ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Lift the per-zone safety limits (`safety:`): deletes, content updates and TTL-only
    /// updates (a `defaults.ttl` change) past them are applied, for every plan this apply runs.
    #[arg(long)]
    pub allow_mass_changes: bool,
    /// Approve the changes of this reviewed plan (one of the --reviewed files) past the safety
    /// limits: deletes, content updates and TTL-only updates. Repeatable. The approval is
    /// yours, given now: what a plan file records (`plan --allow-mass-changes`) approves
    /// nothing by itself, and the other plans' changes stay within the limits. Over several
    /// accounts: the file's part in each account.
    #[arg(long, value_name = "PLAN_FILE", action = clap::ArgAction::Append, requires = "reviewed")]
    pub allow_mass_changes_in: Vec<PathBuf>,
    /// Output of the outcome on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: ApplyFormat,
    /// After writing records, ask the zone's nameservers until they serve the changes, for
    /// at most this long (e.g. 10s, 500ms); 0 turns the check off. A nameserver still behind
    /// is a warning, never a failure.
    #[arg(
        long,
        env = "DNSCRON_DNS_WAIT",
        value_name = "DURATION",
        default_value = "10s",
        value_parser = parse_duration
    )]
    pub dns_wait: Duration,
    #[command(flatten)]
    pub dns: ApplyDnsArgs,
    /// `check`'s option, refused here (see [`refuse_resolver`]); taken as any text, and hidden,
    /// so that a user who carries it over from `check` learns why rather than "unexpected
    /// argument".
    #[arg(long, hide = true, value_name = "IP[:PORT]")]
    pub resolver: Option<String>,
    #[command(flatten)]
    pub api: ApiArgs,
    /// Apply only the zones, domains and sites declared (now or at REF) in files that differ
    /// from git revision REF, as `plan --changed-since` does; with --reviewed, added to the
    /// reviewed plan's own scope. Takes no --plan (a saved plan keeps its scope). Over several
    /// accounts, each account's files changed since REF scope that account.
    #[arg(long, value_name = "REF", conflicts_with = "plan")]
    pub changed_since: Option<String>,
    #[command(flatten)]
    pub account: AccountArgs,
}

/// Apply never discovers nameservers: the post-apply check asks the ones the API's record
/// listing names, the switch check a switch's new ones; only their addresses are looked up.
/// A resolver for NS discovery would be silently unused, so it is an error.
fn refuse_resolver(args: &ApplyArgs) -> Result<(), CommandError> {
    match &args.resolver {
        None => Ok(()),
        Some(_) => Err(CommandError::user(
            "apply does not take --resolver: it discovers no nameservers (it asks the ones the API names for each zone, and a switch's new ones), so a resolver would go unused",
        )
        .with_hint("drop --resolver (it is `dnscron check`'s, for zones without custom nameservers); to reach a nameserver at a given address, pass --nameserver-address HOST=IP[:PORT]")),
    }
}

/// Each `--allow-mass-changes-in` names one of the `--reviewed` files, as given.
fn check_approvals(args: &ApplyArgs) -> Result<(), CommandError> {
    match args
        .allow_mass_changes_in
        .iter()
        .find(|f| !args.reviewed.contains(f))
    {
        None => Ok(()),
        Some(file) => Err(CommandError::user(format!(
            "--allow-mass-changes-in {} names no --reviewed plan: an approval covers the changes of a plan this apply is bound to",
            file.display()
        ))
        .with_hint("give the same path to --reviewed and to --allow-mass-changes-in")),
    }
}

pub(crate) fn run(args: ApplyArgs) -> CommandResult {
    refuse_resolver(&args)?;
    check_approvals(&args)?;
    let repository = Repository::discover(&args.paths, &args.account)
        .map_err(RepositoryError::into_command_error)?;
    if let Repository::Many { accounts, .. } = &repository {
        return super::apply_accounts::run(&args, accounts, &repository.chosen());
    }
    let fresh = args.plan.is_none() && args.reviewed.is_empty();
    if fresh && !args.yes && !std::io::stdin().is_terminal() {
        return Err(CommandError::user(
            "apply asks for confirmation, but stdin is not a terminal",
        )
        .with_hint("review the plan with `dnscron plan`, then run `dnscron apply --yes`; or save it with `dnscron plan --out FILE` and run `dnscron apply --reviewed FILE PATH...`"));
    }
    let bar = crate::cli::logging::can_redraw_stderr()
        && args.format == ApplyFormat::Text
        && tracing::level_enabled!(tracing::Level::INFO);
    let progress: Arc<dyn Progress> = if bar {
        Arc::new(Bar::new())
    } else {
        Arc::new(Lines::new())
    };
    let signals = Signals::new();
    let mut config = args.api.clone().into_config()?;
    let hook_progress = Arc::clone(&progress);
    let hook_signals = Arc::clone(&signals);
    config.on_wait = Some(Arc::new(move |event| {
        hook_signals.interrupt.pausing(event.wait);
        hook_progress.wait(event);
    }));
    let runtime = session::runtime()?;
    signals.listen(&runtime);
    let files = args.plan.as_slice().iter().chain(&args.reviewed);
    let plans = files.clone().map(|f| super::plan_file::read(f, None));
    let plans = plans.collect::<Result<Vec<Plan>, _>>()?;
    let files: Vec<PathBuf> = files.cloned().collect();
    let client = WriteClient::new(config)?;
    let workflow = workflow(&args, &client, plans)?;
    let refused = |refusal| Refused {
        refusal,
        files: &files,
    };
    let prepared = runtime.block_on(workflow.prepare()).map_err(refused)?;
    // A bound apply that will send nothing reports why instead of showing its plan.
    let plan_shown = args.format == ApplyFormat::Text && (fresh || prepared.executes());
    if plan_shown {
        write_stdout(&render::text(prepared.plan(), use_color_on_stdout()))?;
    }
    if fresh && !args.yes && !prepared.plan().is_empty() {
        signals.asking();
        if !confirm(prepared.plan())? {
            return Err(CommandError::user("apply cancelled; nothing was changed"));
        }
        signals.planning();
    }
    // Until the first write a signal ends apply at once, nothing having been sent; from then on
    // it finishes the change in flight and stops.
    let writing = || signals.writing();
    let execution = Execution {
        interrupt: Some(&signals.interrupt),
        dns: args.dns.options(args.dns_wait),
        before_writing: Some(&writing),
        ..Execution::new(&*progress)
    };
    let report = runtime
        .block_on(prepared.run(&execution))
        .map_err(refused)?;
    progress.close();
    finish(&args, &report, signals.received(), plan_shown)
}

/// The apply `args` ask for: a saved plan (`plans`, from --plan), or the files bound to the
/// reviewed plans (from --reviewed), to the plan a person confirms, or to nothing (--yes).
fn workflow<'a>(
    args: &ApplyArgs,
    client: &'a WriteClient,
    mut plans: Vec<Plan>,
) -> Result<Workflow<'a>, CommandError> {
    let mut workflow = match (&args.plan, plans.pop()) {
        (Some(_), Some(saved)) => Workflow::saved(client, saved),
        (_, last) => {
            plans.extend(last);
            let desired = session::load_desired(&args.paths)?;
            let changed = args
                .changed_since
                .as_deref()
                .map(|since| super::changed::scope(&args.paths, &desired, since))
                .transpose()?;
            let binding = match (plans.is_empty(), args.yes) {
                (false, _) => Binding::Reviewed(reviewed_plans(args, plans)),
                (true, true) => Binding::Nothing,
                (true, false) => Binding::Confirmed,
            };
            let mut workflow = Workflow::files(client, desired, binding);
            workflow.changed = changed;
            workflow
        }
    };
    workflow.allow_mass_changes = args.allow_mass_changes;
    workflow.stamp = super::stamp::plan_stamp();
    Ok(workflow)
}

/// The `--reviewed` plans (in their order), each approved for mass changes when
/// `--allow-mass-changes-in` names its file.
fn reviewed_plans(args: &ApplyArgs, plans: Vec<Plan>) -> Vec<ReviewedPlan> {
    plans
        .into_iter()
        .zip(&args.reviewed)
        .map(|(plan, file)| ReviewedPlan {
            plan,
            mass_changes_approved: args.allow_mass_changes_in.contains(file),
        })
        .collect()
}

/// Asks on the terminal; only `yes` goes ahead.
fn confirm(plan: &Plan) -> Result<bool, CommandError> {
    let mut err = std::io::stderr().lock();
    write!(
        err,
        "\nApply these {} change(s) to the live account at {}? Only `yes` is accepted: ",
        plan.changes.len(),
        plan.api_url
    )?;
    err.flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}
