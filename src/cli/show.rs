//! `dnscron show PLAN_FILE`: render a saved plan (from `plan --out`) in any plan format, without
//! reading the live account. A CI job plans once and renders the comment, the job summary and
//! the annotations from that one file, so they can't disagree and the API is read only once.

use std::path::PathBuf;

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::plan::{PlanFormat, render_plan};
use crate::cli::write_stdout;

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// A plan file written by `dnscron plan --out FILE`.
    #[arg(value_name = "PLAN_FILE")]
    pub file: PathBuf,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
}

pub fn run(args: ShowArgs) -> CommandResult {
    let text = std::fs::read_to_string(&args.file).map_err(|e| {
        let context = format!("cannot read the plan file {}", args.file.display());
        CommandError::quoting(ErrorKind::User, &context, e)
            .with_hint("pass the file `dnscron plan --out FILE` wrote")
    })?;
    let origin = args.file.display().to_string();
    let plan = dnscron_core::plan_file::load(&text, &origin)
        .map_err(|e| CommandError::from(e).with_hint(format!("file: {origin}")))?;
    write_stdout(&render_plan(&plan, args.format)?)?;
    Ok(Outcome::Success)
}
