//! `dnscron plan [PATH]...`: read the live account, diff it against the files, show the plan.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::cli::accounts::{AccountArgs, Repository};
use crate::cli::api_args::ApiArgs;
use crate::cli::dns_args::parse_timeout;
use crate::cli::dns_args::{ResolverArg, parse_resolver_arg};
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::output::StdoutSink;
use crate::cli::{changed, logging, runtime, signals, validate, write_stdout};
use crate::render::github::{Annotation, Level};
use crate::render::plan as render;
use crate::render::plan::progress::PlanProgress;
use dnscron_api::ReadClient;
use dnscron_core::dnscheck::QueryOptions;
use dnscron_core::plan::MakePlanError;
use dnscron_core::plan::{
    AccountCheck, MailDns, MakeOptions, Plan, ReadProgress, ReadProgressHook, make_plan_owned,
};

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Desired-state files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
    /// Also write the plan as JSON to FILE, the plan a reviewer approves: `dnscron apply
    /// --reviewed FILE PATH...` then applies only changes it holds (the CI recipes' way),
    /// `dnscron apply --plan FILE` executes it as saved.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Exit 2 when there are changes, an error-level finding the files do not accept, or (in a
    /// plan of folders) a zone, domain or site of the account no file declares (drift
    /// detection; see docs/health.md); 0 means none of these, 1 an error.
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Print request statistics (by route, pages, retries, 429s, rate-limit wait) to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Plan even when a zone goes past its safety limits (`safety:`): more deletes, content
    /// updates or TTL-only updates (a `defaults.ttl` change) than they allow. The saved plan
    /// records it.
    #[arg(long)]
    pub allow_mass_changes: bool,
    #[command(flatten)]
    pub api: ApiArgs,
    /// Plan only the zones, domains and sites declared (now or at REF) in files that differ
    /// from git revision REF, e.g. the merge base of a pull request; nothing else is read.
    /// Uncommitted and untracked files count as changed. See docs/plan.md.
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// Read SPF `include:`/`redirect=` domains outside the account's zones from this
    /// recursive resolver, to count their DNS lookups (docs/health.md#mail-findings); `system`:
    /// the machine's own (/etc/resolv.conf's first, e.g. a CI runner's). Without it they are
    /// not followed and the SPF finding names them. An error judged from DNS holds the change
    /// that writes its record, as one judged from the files does.
    #[arg(long, value_name = "IP[:PORT]|system", value_parser = parse_resolver_arg)]
    pub resolver: Option<ResolverArg>,
    /// Seconds to wait for one answer of --resolver (each of 2 UDP tries, then TCP), e.g. 0.5.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_timeout)]
    pub dns_timeout: Duration,
    #[command(flatten)]
    pub account: AccountArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// For people: `+ ~ -` markers, before → after, colored on a terminal.
    Text,
    /// The versioned plan file (docs/plan.md), desired state included: the same bytes as
    /// `--out` writes.
    Json,
    /// For pull-request comments and job summaries (at most 60,000 characters).
    Markdown,
    /// GitHub Actions annotations: blocked changes as errors, portal steps as warnings, and
    /// the summary as a notice.
    Github,
}

pub(crate) fn run(args: PlanArgs) -> CommandResult {
    let repository = Repository::discover_for_api(&args.paths, &args.account, &args.api)?;
    if let Repository::Many { accounts, .. } = &repository {
        return super::plan_accounts::run(&args, accounts, &repository.chosen());
    }
    let desired = validate::load_printing_warnings(&args.paths).map_err(|d| match args.format {
        PlanFormat::Github => validate::report_diagnostics_github(&d),
        PlanFormat::Text | PlanFormat::Json | PlanFormat::Markdown => {
            validate::report_diagnostics(&d)
        }
    })?;
    let scope = args
        .changed_since
        .as_deref()
        .map(|since| changed::scope(&args.paths, &desired, since))
        .transpose()?;
    let account = whole_account(&args.paths);
    let resolver = args
        .resolver
        .as_ref()
        .map(ResolverArg::address)
        .transpose()?;
    let progress = read_progress("plan");
    let mut config = args.api.into_config()?;
    if let Some(progress) = &progress {
        config.on_wait = Some(progress.wait_hook());
    }
    let client = ReadClient::new(config)?;
    let progress = progress.map(|p| Arc::new(p.with_stats(client.stats())));
    let opts = MakeOptions {
        allow_mass_changes: args.allow_mass_changes,
        stamp: super::stamp::plan_stamp(),
        scope,
        health: true,
        mail_dns: resolver.map(|r| {
            let query = QueryOptions {
                timeout: args.dns_timeout,
                ..QueryOptions::default()
            };
            MailDns::new(r, query)
        }),
        progress: progress
            .clone()
            .map(|p| ReadProgressHook(p as Arc<dyn ReadProgress>)),
        account,
        domains: None,
    };
    let plan = make_plan_owned(&client, desired, &opts);
    let plan = async {
        match &progress {
            Some(progress) => progress.alongside(plan).await,
            None => plan.await,
        }
    };
    let planned = runtime::block_on(signals::or_stop_plan(plan))?.map_err(|e| {
        let at = failure_location(&e);
        annotate_failure(CommandError::from(e), args.format, at)
    })?;
    if args.stats {
        eprint!(
            "{}",
            crate::render::stats::stats(&client.stats().snapshot())
        );
    }
    if let Some(path) = &args.out {
        write_plan_file(path, &render::json(&planned.plan)?)?;
    }
    if args.format == PlanFormat::Text {
        // Drawn as it is written: the text of a large zone's findings is never held whole.
        let mut out = StdoutSink::lock();
        render::text::render_to(&planned.plan, logging::use_color_on_stdout(), &mut out);
        out.finish()?;
    } else {
        write_stdout(&render_plan(&planned.plan, args.format)?)?;
    }
    let attention =
        !planned.plan.is_empty() || planned.plan.findings.iter().any(|f| f.needs_attention());
    // The process ends here: freeing every declared and live record one by one would only
    // cost time (tens of milliseconds for 100,000 records) before the OS takes the memory back.
    std::mem::forget(planned);
    Ok(if args.detailed_exitcode && attention {
        Outcome::ChangesPresent
    } else {
        Outcome::Success
    })
}

/// The reads of `command` (`plan`, `import`): a bar on a terminal, a line a minute otherwise;
/// none with `--quiet`.
pub(crate) fn read_progress(command: &'static str) -> Option<PlanProgress> {
    use std::io::IsTerminal;
    if !tracing::level_enabled!(tracing::Level::INFO) {
        return None;
    }
    let progress = if std::io::stderr().is_terminal() {
        PlanProgress::bar()
    } else {
        PlanProgress::lines(|line| {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        })
    };
    Some(progress.named(command))
}

/// A plan of whole folders is compared with the whole account: what the account holds beyond
/// the folders' files is theirs to declare. A single file holds part of the files only, so it
/// reads none of that; a scoped plan of folders reads only what its change stops declaring
/// (`MakeOptions::account`).
fn whole_account(paths: &[PathBuf]) -> Option<AccountCheck> {
    let folders = paths.iter().all(|p| p.is_dir());
    folders.then(|| AccountCheck {
        folders: paths.iter().map(|p| p.display().to_string()).collect(),
    })
}

/// The file:line:col of the declaration whose live read failed, if the failure was a read.
fn failure_location(err: &MakePlanError) -> Option<String> {
    match err {
        MakePlanError::Snapshot(e) => e.location().map(ToString::to_string),
        MakePlanError::Plan(_) => None,
    }
}

/// With `--format github`, a plan that fails (an API error, a zone refused by its safety
/// limits) also becomes an `::error` annotation, so the run's summary says why; on the file
/// that declared what could not be read, when the failure was a read.
fn annotate_failure(err: CommandError, format: PlanFormat, at: Option<String>) -> CommandError {
    if format == PlanFormat::Github {
        let annotation = Annotation::new(Level::Error, err.body()).title("dnscron plan");
        let line = match at {
            Some(at) => annotation.at(&at),
            None => annotation,
        }
        .render();
        if let Err(pipe) = write_stdout(&line) {
            return pipe;
        }
    }
    err
}

pub(crate) fn render_plan(plan: &Plan, format: PlanFormat) -> Result<String, CommandError> {
    Ok(match format {
        PlanFormat::Text => render::text::render(plan, logging::use_color_on_stdout()),
        PlanFormat::Json => render::json(plan)?,
        PlanFormat::Markdown => render::markdown::render(plan),
        PlanFormat::Github => render::github::render(plan),
    })
}

/// Writes through a temporary file and a rename, so an interrupted run never leaves half a plan
/// that `apply --plan` would then reject with a confusing parse error.
pub(crate) fn write_plan_file(path: &Path, json: &str) -> Result<(), CommandError> {
    let tmp = path.with_extension("json.tmp");
    let write = std::fs::write(&tmp, json).and_then(|()| std::fs::rename(&tmp, path));
    write.map_err(|e| {
        let context = format!("writing the plan to {}", path.display());
        CommandError::quoting(ErrorKind::User, &context, e)
            .with_hint("check that the directory exists and is writable")
    })
}
