//! `dnscron plan [PATH]...`: read the live account, diff it against the files, show the plan.

use std::path::PathBuf;

use crate::api::ReadClient;
use crate::apply::SavedPlan;
use crate::cli::api_args::ApiArgs;
use crate::cli::logging::use_color_on_stdout;
use crate::cli::session;
use crate::cli::write_stdout;
use crate::config;
use crate::error::{CommandError, CommandResult, Outcome};
use crate::plan::render;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// For people: `+ ~ -` markers, before → after, colored on a terminal.
    #[default]
    Text,
    /// The versioned plan format (docs/plan.md).
    Json,
    /// For pull-request comments and job summaries (at most 60,000 characters).
    Markdown,
    /// GitHub Actions annotations: blocked changes as errors, portal steps as warnings, and
    /// the summary as a notice.
    Github,
}

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t)]
    pub format: PlanFormat,
    /// Also save the plan (JSON, with the desired state) for `dnscron apply --plan FILE`.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Exit 2 when there are changes (0: none, 1: error).
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Print request statistics to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Skip the per-zone safety limits against mass deletes and updates.
    #[arg(long)]
    pub allow_mass_changes: bool,
    #[command(flatten)]
    pub api: ApiArgs,
}

pub fn run(args: PlanArgs) -> CommandResult {
    let desired = match args.format {
        PlanFormat::Github => config::load(&args.paths)
            .map_err(|d| crate::cli::validate::report_diagnostics_github(&d))?,
        _ => session::load_desired(&args.paths)?,
    };
    let config = args.api.into_config()?;
    let mut opts = session::diff_options(&config, args.allow_mass_changes);
    let client = ReadClient::new(config)?;
    let runtime = session::runtime()?;
    let result = runtime.block_on(session::make_plan(&client, &desired, &mut opts));
    if args.stats {
        eprint!("{}", client.stats().render());
    }
    let plan = result?;
    let shown = match args.format {
        PlanFormat::Text => render::text(&plan, use_color_on_stdout()),
        PlanFormat::Json => render::json(&plan),
        PlanFormat::Markdown => render::markdown(&plan),
        PlanFormat::Github => render::github::render(&plan),
    };
    write_stdout(&shown)?;
    if let Some(path) = &args.out {
        let saved = SavedPlan::new(plan.clone(), desired, &opts).to_json()?;
        std::fs::write(path, saved).map_err(|e| {
            CommandError::user(format!("cannot write the plan to {}: {e}", path.display()))
        })?;
        eprintln!(
            "Saved the plan to {}; apply it with `dnscron apply --plan {}`.",
            path.display(),
            path.display()
        );
    }
    if args.detailed_exitcode && !plan.is_empty() {
        Ok(Outcome::ChangesPresent)
    } else {
        Ok(Outcome::Success)
    }
}
