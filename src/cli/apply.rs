//! `dnscron apply [PATH]...` (plan, confirm, execute, verify) and `dnscron apply --plan FILE`
//! (execute a saved plan after the stale check). Flow, keys and exit codes: docs/apply.md.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::api::{ApiConfig, WriteClient};
use crate::apply::{
    self, ApplyOptions, ApplyReport, ApplyResult, Bar, Freshness, Lines, Progress, report, saved,
};
use crate::cli::api_args::ApiArgs;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome, exit_code};
use crate::cli::logging::use_color_on_stdout;
use crate::cli::session;
use crate::cli::write_stdout;
use crate::plan::{Plan, render};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ApplyFormat {
    #[default]
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ApplyArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Execute this saved plan (from `plan --out`) instead of planning; never asks.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Don't ask for confirmation (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Skip the per-zone safety limits against mass deletes and updates.
    #[arg(long)]
    pub allow_mass_changes: bool,
    /// Output of the outcome on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: ApplyFormat,
    #[command(flatten)]
    pub api: ApiArgs,
}

pub fn run(args: ApplyArgs) -> CommandResult {
    let fresh_plan = args.plan.is_none();
    if fresh_plan && !args.yes && !std::io::stdin().is_terminal() {
        return Err(CommandError::user(
            "apply asks for confirmation, but stdin is not a terminal",
        )
        .with_hint("review the plan with `dnscron plan`, then run `dnscron apply --yes`; or save it with `dnscron plan --out FILE` and run `dnscron apply --plan FILE`"));
    }
    let bar = std::io::stderr().is_terminal()
        && args.format == ApplyFormat::Text
        && tracing::level_enabled!(tracing::Level::INFO);
    let progress: Arc<dyn Progress> = if bar {
        Arc::new(Bar::new())
    } else {
        Arc::new(Lines::new())
    };
    let mut config = args.api.clone().into_config()?;
    let hook_progress = Arc::clone(&progress);
    config.on_wait = Some(Arc::new(move |event| hook_progress.wait(event)));
    let runtime = session::runtime()?;
    let interrupt = Arc::new(AtomicBool::new(false));
    let report = match &args.plan {
        Some(file) => runtime.block_on(saved_plan(&args, file, config, &*progress, &interrupt))?,
        None => fresh(&args, config, &runtime, &*progress, &interrupt)?,
    };
    progress.close();
    finish(&args, &report)
}

struct Ctx<'a> {
    client: WriteClient,
    progress: &'a dyn Progress,
    interrupt: &'a Arc<AtomicBool>,
}

async fn execute(ctx: &Ctx<'_>, plan: &Plan) -> ApplyReport {
    // Only now: until the first write, Ctrl-C should simply end the process (e.g. at the
    // confirmation prompt). From here on it finishes the change in flight and stops.
    let flag = Arc::clone(ctx.interrupt);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, Ordering::SeqCst);
            eprintln!("\ninterrupted: finishing the change in flight, then stopping");
        }
    });
    let mut opts = ApplyOptions::new(plan, ctx.progress);
    opts.interrupt = Some(ctx.interrupt);
    apply::apply(&ctx.client, plan, &opts).await
}

fn fresh(
    args: &ApplyArgs,
    config: ApiConfig,
    runtime: &tokio::runtime::Runtime,
    progress: &dyn Progress,
    interrupt: &Arc<AtomicBool>,
) -> Result<ApplyReport, CommandError> {
    let desired = session::load_desired(&args.paths)?;
    let ctx = Ctx {
        client: WriteClient::new(config)?,
        progress,
        interrupt,
    };
    let plan = runtime.block_on(session::plan(
        ctx.client.read(),
        &desired,
        args.allow_mass_changes,
    ))?;
    if args.format == ApplyFormat::Text {
        write_stdout(&render::text(&plan, use_color_on_stdout()))?;
    }
    if !plan.is_empty() && !args.yes && !confirm(&plan)? {
        return Err(CommandError::user("apply cancelled; nothing was changed"));
    }
    Ok(runtime.block_on(execute(&ctx, &plan)))
}

/// Asks on the terminal; only `yes` goes ahead.
fn confirm(plan: &Plan) -> Result<bool, CommandError> {
    let mut err = std::io::stderr().lock();
    write!(
        err,
        "\nApply these {} change(s) to the live account? Only `yes` is accepted: ",
        plan.changes.len()
    )?;
    err.flush()?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim() == "yes")
}

async fn saved_plan(
    args: &ApplyArgs,
    file: &Path,
    config: ApiConfig,
    progress: &dyn Progress,
    interrupt: &Arc<AtomicBool>,
) -> Result<ApplyReport, CommandError> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        let context = format!("cannot read the plan file {}", file.display());
        CommandError::quoting(ErrorKind::User, &context, e)
    })?;
    let saved = crate::plan::file::load(&text, &file.display().to_string())
        .map_err(|e| CommandError::from(e).with_hint(format!("file: {}", file.display())))?;
    check_api_url(&saved, &config)?;
    let ctx = Ctx {
        client: WriteClient::new(config)?,
        progress,
        interrupt,
    };
    let live = crate::plan::snapshot::fetch(ctx.client.read(), &saved.desired).await?;
    match saved::check(&saved, &live)? {
        Freshness::Stale(targets) => Err(CommandError::new(
            ErrorKind::Stale,
            saved::stale_message(&targets),
        )
        .with_hint("make a new plan (`dnscron plan --out FILE`), review it and apply that; or run `dnscron apply PATH...`")),
        Freshness::AlreadyApplied => Ok(ApplyReport::new(
            &saved.plan_id,
            ApplyResult::AlreadyApplied,
            0,
            Vec::new(),
        )),
        Freshness::Fresh => {
            if args.format == ApplyFormat::Text {
                write_stdout(&render::text(&saved, use_color_on_stdout()))?;
            }
            Ok(execute(&ctx, &saved).await)
        }
    }
}

/// A plan made against one API must not be applied to another.
fn check_api_url(plan: &Plan, config: &ApiConfig) -> Result<(), CommandError> {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_string();
    if plan.api_url.is_empty() || norm(&plan.api_url) == norm(config.base_url.as_str()) {
        return Ok(());
    }
    Err(CommandError::user(format!(
        "the plan was made against {} but the API URL is {}",
        plan.api_url, config.base_url
    ))
    .with_hint(
        "pass the same --api-url / DNSCRON_API_URL as when the plan was made, or make a new plan",
    ))
}

fn finish(args: &ApplyArgs, report: &ApplyReport) -> CommandResult {
    let shown = match (args.format, &report.result) {
        // The plan shown above already said so.
        (ApplyFormat::Text, ApplyResult::NoChanges) => String::new(),
        (ApplyFormat::Text, ApplyResult::AlreadyApplied) => report::text(report),
        // A blank line after the plan shown above.
        (ApplyFormat::Text, _) => format!("\n{}", report::text(report)),
        (ApplyFormat::Json, _) => report::json(report, exit_code(&ending(&report.result))),
    };
    write_stdout(&shown)?;
    ending(&report.result)
}

/// What an apply's result means for the command; the report above already said why.
pub fn ending(result: &ApplyResult) -> CommandResult {
    match result {
        ApplyResult::Converged | ApplyResult::NoChanges | ApplyResult::AlreadyApplied => {
            Ok(Outcome::Success)
        }
        ApplyResult::NeedsPortalStep { .. } => Ok(Outcome::NeedsHumanStep),
        ApplyResult::Failed { .. }
        | ApplyResult::Differs { .. }
        | ApplyResult::VerifyFailed { .. }
        | ApplyResult::NotVisible { .. }
        | ApplyResult::Interrupted => Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "apply did not converge",
        )),
    }
}
