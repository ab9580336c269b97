//! `dnscron validate [PATH]...`: check the desired-state files offline.

use std::path::PathBuf;

use crate::cli::write_stdout;
use crate::config::{self, Style};
use crate::error::{CommandError, CommandResult, ErrorKind, Outcome};

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
}

pub fn run(args: ValidateArgs) -> CommandResult {
    match config::load(&args.paths) {
        Ok(desired) => {
            let (zones, records, sites, jobs) = desired.counts();
            write_stdout(&format!(
                "valid: {zones} {}, {records} {}, {sites} {}, {jobs} cron {}\n",
                plural(zones, "zone", "zones"),
                plural(records, "record", "records"),
                plural(sites, "site", "sites"),
                plural(jobs, "job", "jobs"),
            ))?;
            Ok(Outcome::Success)
        }
        Err(diags) => Err(report_diagnostics(&diags)),
    }
}

/// Prints every diagnostic to stderr; the returned error prints nothing more. Other commands
/// (plan, apply) call this after `config::load` fails.
pub fn report_diagnostics(diags: &config::Diagnostics) -> CommandError {
    use std::io::Write;
    let text = diags.render(Style::for_stderr());
    let _ = std::io::stderr().write_all(text.as_bytes());
    CommandError::new(ErrorKind::AlreadyReported, "invalid desired-state files")
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
