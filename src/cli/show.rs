//! `dnscron show PLAN_FILE`: render a saved plan (from `plan --out`) in any plan format, without
//! reading the live account. A CI job plans once and renders the comment, the job summary and
//! the annotations from that one file, so they can't disagree and the API is read only once.
//! A plan file of several accounts (format 6) is shown grouped by account, as `plan` shows it.

use std::path::PathBuf;

use crate::cli::error::{CommandResult, Outcome};
use crate::cli::plan::{PlanFormat, render_plan};
use crate::cli::{logging, write_stdout};
use crate::render::plan::accounts::{self as view, AccountView};
use dnscron_core::plan_file::{PlanFile, accounts_to_json};

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// A plan file written by `dnscron plan --out FILE` (or `dnscron plan --format json`).
    #[arg(value_name = "PLAN_FILE")]
    pub file: PathBuf,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
}

pub(crate) fn run(args: ShowArgs) -> CommandResult {
    let text = match super::plan_file::read_any_hinted(
        &args.file,
        Some("pass the file `dnscron plan --out FILE` wrote"),
    )? {
        PlanFile::One(plan) => render_plan(&plan, args.format)?,
        PlanFile::Accounts(plans) => {
            let views: Vec<AccountView<'_>> = plans
                .iter()
                .map(|a| AccountView {
                    name: &a.name,
                    api_url: &a.api_url,
                    plan: Ok(&a.plan),
                    // A saved plan holds the accounts that were planned.
                    withheld: None,
                })
                .collect();
            match args.format {
                PlanFormat::Text => view::text(&views, logging::use_color_on_stdout()),
                PlanFormat::Json => accounts_to_json(&plans)?,
                PlanFormat::Markdown => view::markdown(&views),
                PlanFormat::Github => view::github(&views),
            }
        }
    };
    write_stdout(&text)?;
    Ok(Outcome::Success)
}
