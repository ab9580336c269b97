//! Logs go to stderr so stdout stays machine-readable (`plan --format json | jq`).

use std::ffi::OsString;
use std::io::IsTerminal;

use dnscron_api::{PACING_LOG_TARGET, RETRY_LOG_TARGET};
use tracing_subscriber::EnvFilter;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `level: message` lines for people.
    #[default]
    Text,
    /// One JSON object per line for log pipelines.
    Json,
}

/// Installs the global subscriber once. `RUST_LOG` overrides the level given by `-v`/`-q`.
/// Without `-v`, a retry gets no line of its own (the command ends with one line summing them
/// up, `cli::retries`), nor does a rate-limit wait where the command's progress draws it
/// (`waits_drawn`).
pub(crate) fn init(verbose: u8, quiet: bool, format: LogFormat, waits_drawn: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "info",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    // Other crates stay at warn unless asked: their debug output is noise for users.
    let mut default = format!("warn,dnscron={level}");
    if verbose == 0 {
        default.push_str(&format!(",{RETRY_LOG_TARGET}=error"));
        if waits_drawn {
            default.push_str(&format!(",{PACING_LOG_TARGET}=error"));
        }
    }
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(verbose > 0);
    let result = match format {
        LogFormat::Text => builder
            .without_time()
            .with_ansi(use_color_on_stderr())
            .try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    // A second init (tests calling `run` twice) keeps the first subscriber; nothing to report.
    drop(result);
}

/// Colors only for a person at a terminal that shows them (see `colour_wanted`).
pub(crate) fn use_color_on_stderr() -> bool {
    colour_wanted(std::io::stderr().is_terminal(), env_var)
}

/// Same rule for stdout (plan's colored text output).
pub(crate) fn use_color_on_stdout() -> bool {
    colour_wanted(std::io::stdout().is_terminal(), env_var)
}

/// Whether stderr is a terminal that can redraw a line in place, as apply's bar does: a dumb
/// terminal (Emacs' shell, some CI consoles) prints every redraw as a new line.
pub(crate) fn can_redraw_stderr() -> bool {
    std::io::stderr().is_terminal() && !dumb_terminal(env_var)
}

fn env_var(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// Colour only on a terminal, never with `NO_COLOR` set (no-color.org) and never on
/// `TERM=dumb`, which shows escape codes as text.
fn colour_wanted(is_terminal: bool, var: impl Fn(&str) -> Option<OsString>) -> bool {
    is_terminal && var("NO_COLOR").is_none() && !dumb_terminal(var)
}

fn dumb_terminal(var: impl Fn(&str) -> Option<OsString>) -> bool {
    var("TERM").is_some_and(|term| term == "dumb")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn colour_only_on_a_terminal_that_shows_it() {
        assert!(colour_wanted(true, env(&[("TERM", "xterm-256color")])));
        assert!(colour_wanted(true, env(&[])));
        assert!(!colour_wanted(false, env(&[("TERM", "xterm-256color")])));
        assert!(!colour_wanted(true, env(&[("TERM", "dumb")])));
        assert!(!colour_wanted(true, env(&[("NO_COLOR", "1")])));
        assert!(!colour_wanted(true, env(&[("NO_COLOR", "")])));
    }

    #[test]
    fn a_dumb_terminal_gets_no_redrawn_bar() {
        assert!(dumb_terminal(env(&[("TERM", "dumb")])));
        assert!(!dumb_terminal(env(&[("TERM", "xterm")])));
        assert!(!dumb_terminal(env(&[])));
    }
}
