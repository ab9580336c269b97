use clap::CommandFactory;

use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::{Cli, write_stdout};

/// `dnscron man`: the roff man page of dnscron on stdout (`dnscron man | man -l -`).
pub fn run() -> CommandResult {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|e| CommandError::quoting(ErrorKind::Internal, "rendering the man page", e))?;
    write_stdout(&String::from_utf8_lossy(&buf))?;
    Ok(Outcome::Success)
}
