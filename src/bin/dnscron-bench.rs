//! `dnscron-bench`: the benchmark suite (issue 7). Thin: the logic is in `dnscron::bench`.
//!
//! `cargo run --release --bin dnscron-bench -- [--smoke] [--write BENCHMARKS.md]`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use dnscron::bench::{self, Part, report};

#[derive(Debug, Parser)]
#[command(
    name = "dnscron-bench",
    about = "Benchmarks dnscron against the in-process emulator"
)]
struct Args {
    /// Tiny sizes and no real-rate-limit apply: a few seconds (for CI).
    #[arg(long)]
    smoke: bool,
    /// Also write the figures into this file (the generated part of BENCHMARKS.md).
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
    /// Run only these sections (comma-separated): efficiency, pacing, planner, faults, emulator.
    #[arg(long, value_delimiter = ',')]
    only: Vec<Part>,
    /// A dnscron binary to measure for `plan` (default: this executable runs the same CLI code
    /// in a child process).
    #[arg(long, value_name = "PATH")]
    dnscron_bin: Option<PathBuf>,
}

fn main() -> ExitCode {
    // `dnscron-bench dnscron-cli ARGS…` is `dnscron ARGS…` (the planner's measured child).
    let mut argv = std::env::args_os();
    let program = argv.next();
    if argv.next().is_some_and(|a| a == bench::CLI_MODE) {
        return dnscron::cli::main_from(program.into_iter().chain(argv));
    }
    let args = Args::parse();
    let command = std::iter::once("cargo run --release --bin dnscron-bench --".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let opts = bench::Options {
        smoke: args.smoke,
        only: args.only,
        dnscron_bin: args.dnscron_bin,
        command,
    };
    let report = match bench::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{}", report.text());
    if let Some(path) = args.write {
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        let text = report::splice(&existing, &report.markdown());
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
