//! Command-line interface: one file per command. Each command returns a [`CommandResult`];
//! [`main`] prints its error and turns it into an exit code ([`error::exit_code`]), so no
//! command calls `process::exit`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::{CommandResult, ErrorKind};

pub(crate) mod accounts;
mod adopt;
pub(crate) mod api_args;
mod apply;
mod apply_accounts;
mod apply_end;
mod baseline;
mod changed;
mod check;
mod completions;
#[cfg(feature = "controller")]
pub mod controller;
#[cfg(feature = "emulator")]
mod demo;
pub(crate) mod dns_args;
pub(crate) mod doctor;
#[cfg(feature = "emulator")]
mod emulator;
pub mod error;
mod export;
mod fmt;
pub mod import;
mod import_from;
pub(crate) mod logging;
mod man;
mod output;
pub(crate) mod plan;
mod plan_accounts;
mod plan_file;
pub mod reference;
mod retries;
mod reviewed_accounts;
mod runtime;
pub(crate) mod schema;
mod session;
mod show;
mod side_by_side;
mod signals;
mod stamp;
mod trust;
pub(crate) mod validate;

pub use output::write_stdout;

// What `Command`'s variants and `GlobalArgs` carry: public with them, so a caller that parses a
// command line (the tests do) can name what it gets (`unnameable_types`).
pub use accounts::AccountArgs;
pub use adopt::{AdoptArgs, AdoptFormat};
pub use api_args::ApiArgs;
pub use apply::{ApplyArgs, ApplyFormat};
pub use baseline::BaselineArgs;
pub use check::{CheckArgs, CheckFormat};
pub use completions::CompletionsArgs;
#[cfg(feature = "emulator")]
pub use demo::DemoArgs;
pub use dns_args::{ApplyDnsArgs, DnsArgs, ResolverArg};
pub use doctor::DoctorArgs;
#[cfg(feature = "emulator")]
pub use emulator::EmulatorArgs;
pub use export::{ExportArgs, ExportTo};
pub use fmt::FmtArgs;
pub use logging::LogFormat;
pub use plan::{PlanArgs, PlanFormat};
pub use schema::SchemaArgs;
pub use show::ShowArgs;
pub use validate::{ValidateArgs, ValidateFormat};

#[derive(Debug, Parser)]
#[command(
    name = "dnscron",
    version,
    about = "Keep DNS zones, registrar nameservers and cron jobs in git; make the live account match.",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

#[derive(Debug, clap::Args)]
pub struct GlobalArgs {
    /// More log output (-v: debug, -vv: trace). Logs go to stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Log line format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = logging::LogFormat::Text)]
    pub log_format: logging::LogFormat,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check the desired-state files offline; report every problem at once.
    Validate(validate::ValidateArgs),
    /// Rewrite the desired-state files in canonical form (--check: write nothing, show the diff, exit 1).
    Fmt(fmt::FmtArgs),
    /// Read the live account, diff it against the files, show what would change (never writes).
    Plan(plan::PlanArgs),
    /// Render a saved plan file in any plan format (no API access).
    Show(show::ShowArgs),
    /// Make the live account match the files (or execute a saved plan), then verify.
    Apply(apply::ApplyArgs),
    /// Write the live values of drifted records into the files that declare them, in place
    /// (the reverse of apply; read-only on the API; exit 2 when some drift is left).
    Adopt(adopt::AdoptArgs),
    /// Ask each zone's nameservers over DNS whether they serve what the files say (no API
    /// token; exit 0 in sync, 2 differences, 1 a nameserver could not be asked).
    Check(check::CheckArgs),
    /// Write desired-state files that reproduce the live account (plan then shows no changes),
    /// or another tool's files (`--from bind`: zone files; `--from octodns`: a configuration;
    /// `--from dnscontrol`: `dnscontrol print-ir`'s JSON).
    Import(import::ImportArgs),
    /// Write the files as another tool's, offline: `--to bind`, a zone file per zone; `--to
    /// octodns`, an octoDNS configuration and its zone files. Says what they can't hold.
    Export(export::ExportArgs),
    /// Take the account as it is today: accept its error findings and list what no file
    /// declares as unmanaged, so the drift job starts green.
    Baseline(baseline::BaselineArgs),
    /// Check the API URL, the token, the rate-limit headroom and what the server expects.
    Doctor(doctor::DoctorArgs),
    #[cfg(feature = "controller")]
    /// Keep the account in step with a folder, round after round: apply what merged, report
    /// (or, under --policy heal, revert) drift; metrics and probes with --listen.
    Controller(Box<controller::ControllerArgs>),
    #[cfg(feature = "emulator")]
    /// Serve the Hosting Customer API locally from a seed file (for tests and demos).
    Emulator(emulator::EmulatorArgs),
    #[cfg(feature = "emulator")]
    /// Plan, apply and re-plan the example files against an in-process emulator.
    Demo(demo::DemoArgs),
    /// Print the JSON Schema of the desired-state files.
    Schema(schema::SchemaArgs),
    /// Print a shell completion script.
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff); read it with: dnscron man | man -l -
    Man,
}

impl Command {
    /// Whether the command shows rate-limit waits itself (plan's and apply's progress; the
    /// controller's metrics, where its budget makes them routine): then no log line each.
    fn draws_waits(&self) -> bool {
        match self {
            Command::Plan(_) | Command::Apply(_) => true,
            #[cfg(feature = "controller")]
            Command::Controller(_) => true,
            #[cfg(feature = "emulator")]
            Command::Emulator(_) | Command::Demo(_) => false,
            Command::Validate(_)
            | Command::Fmt(_)
            | Command::Show(_)
            | Command::Check(_)
            | Command::Import(_)
            | Command::Export(_)
            | Command::Adopt(_)
            | Command::Baseline(_)
            | Command::Doctor(_)
            | Command::Schema(_)
            | Command::Completions(_)
            | Command::Man => false,
        }
    }
}

/// Entry point used by `main.rs`.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(usage(&err)),
    };
    // plan and apply draw rate-limit waits in their progress: no log line each.
    let waits_drawn = cli.command.draws_waits();
    logging::init(
        cli.global.verbose,
        cli.global.quiet,
        cli.global.log_format,
        waits_drawn,
    );
    let result = run(cli);
    retries::log_summary();
    ExitCode::from(report(result))
}

pub fn run(cli: Cli) -> CommandResult {
    match cli.command {
        Command::Validate(args) => validate::run(args),
        Command::Fmt(args) => fmt::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Show(args) => show::run(args),
        Command::Apply(args) => apply::run(args),
        Command::Adopt(args) => adopt::run(args),
        Command::Check(args) => check::run(args),
        Command::Import(args) => import::run(args),
        Command::Export(args) => export::run(args),
        Command::Baseline(args) => baseline::run(args),
        Command::Doctor(args) => doctor::run(args),
        #[cfg(feature = "controller")]
        Command::Controller(args) => controller::run(*args, cli.global.log_format),
        #[cfg(feature = "emulator")]
        Command::Emulator(args) => emulator::run(args),
        #[cfg(feature = "emulator")]
        Command::Demo(args) => demo::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Man => man::run(),
    }
}

/// Prints clap's message; `--help` and `--version` succeed, a usage error exits 1 (clap's own
/// 2 would read as "changes present" to a drift job using `plan --detailed-exitcode`).
fn usage(err: &clap::Error) -> u8 {
    let _ = err.print();
    if err.use_stderr() {
        error::exit_code(&Err(error::CommandError::new(
            ErrorKind::AlreadyReported,
            "usage error",
        )))
    } else {
        0
    }
}

/// Prints the error (unless already printed) and returns the process exit code.
fn report(result: CommandResult) -> u8 {
    if let Err(err) = &result
        && !matches!(
            err.kind,
            ErrorKind::AlreadyReported | ErrorKind::BrokenPipe | ErrorKind::Interrupted { .. }
        )
    {
        let _ = writeln!(std::io::stderr(), "{err}");
    }
    error::exit_code(&result)
}
