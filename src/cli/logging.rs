//! Logs go to stderr so stdout stays machine-readable (`plan --format json | jq`).

use dnscron_core::api::{pacer, retry};
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
pub fn init(verbose: u8, quiet: bool, format: LogFormat, waits_drawn: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "info",
        (false, 1) => "debug",
        (false, _) => "trace",
    };
    // Other crates stay at warn unless asked: their debug output is noise for users.
    let mut default = format!("warn,dnscron={level}");
    if verbose == 0 {
        default.push_str(&format!(",{}=error", retry::LOG_TARGET));
        if waits_drawn {
            default.push_str(&format!(",{}=error", pacer::LOG_TARGET));
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

/// Colors only for a person at a terminal, and never when NO_COLOR is set (no-color.org).
pub fn use_color_on_stderr() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// Same rule for stdout (plan's colored text output).
pub fn use_color_on_stdout() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}
