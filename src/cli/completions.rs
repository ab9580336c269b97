use clap::CommandFactory;

use crate::cli::error::{CommandResult, Outcome};
use crate::cli::{Cli, write_stdout};

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for.
    pub shell: clap_complete::Shell,
}

/// `dnscron completions SHELL`: a completion script on stdout, generated from the clap model so
/// it never drifts from the real flags.
pub(crate) fn run(args: CompletionsArgs) -> CommandResult {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "dnscron", &mut buf);
    write_stdout(&String::from_utf8_lossy(&buf))?;
    Ok(Outcome::Success)
}
