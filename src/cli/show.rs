//! `dnscron show PLAN_FILE`: render a saved plan (from `plan --out`) in any plan format, without
//! reading the live account. A CI job plans once and renders the comment, the job summary and
//! the annotations from that one file, so they can't disagree and the API is read only once.

use std::path::PathBuf;

use crate::cli::error::{CommandResult, Outcome};
use crate::cli::plan::{PlanFormat, render_plan};
use crate::cli::write_stdout;

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
    let plan = super::plan_file::read(
        &args.file,
        Some("pass the file `dnscron plan --out FILE` wrote"),
    )?;
    write_stdout(&render_plan(&plan, args.format)?)?;
    Ok(Outcome::Success)
}
