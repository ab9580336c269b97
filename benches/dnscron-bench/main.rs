//! `dnscron-bench`: the benchmark suite (issue 7), a bench target so that it stays out of the
//! library's API and out of `cargo install`. Thin: the logic is in `suite`.
//!
//! `cargo bench --bench dnscron-bench -- [--smoke] [--only PARTS] [--write BENCHMARKS.md]
//! [--octodns PATH]`

// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![deny(clippy::wildcard_enum_match_arm)]

// `cargo clippy --all-targets` builds this harness-less target with `cfg(test)` but strips its
// `#[test]` functions, leaving the unit-test modules' imports unused; they run in tests/it.
#[cfg_attr(test, allow(unused_imports))]
mod suite;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use suite::{Part, report};

/// The command that runs this target, as recorded in BENCHMARKS.md.
const COMMAND: &str = "cargo bench --bench dnscron-bench --";

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
    /// Run only these sections (comma-separated): efficiency, pacing, planner, faults, emulator,
    /// octodns, bigaccount, bindimport, controller, controlleraccounts.
    #[arg(long, value_delimiter = ',')]
    only: Vec<Part>,
    /// A dnscron binary to measure for `plan` (default: the one cargo built with this bench).
    #[arg(long, value_name = "PATH")]
    dnscron_bin: Option<PathBuf>,
    /// An `octodns-sync` executable: section 6 plans the same zone with it, side by side.
    #[arg(long, value_name = "PATH")]
    octodns: Option<PathBuf>,
    /// Passed by `cargo bench` to every bench target; nothing to do here.
    #[arg(long, hide = true)]
    bench: bool,
}

/// The command is written into BENCHMARKS.md, which must not name this machine's folders: an
/// absolute path (e.g. `--octodns /home/me/venv/bin/octodns-sync`) is shown by its file name.
fn portable_arg(arg: &str) -> String {
    let (prefix, value) = match arg.split_once('=') {
        Some((flag, value)) if flag.starts_with("--") => (format!("{flag}="), value),
        _ => (String::new(), arg),
    };
    let path = std::path::Path::new(value);
    match path.file_name() {
        Some(name) if path.is_absolute() => format!("{prefix}…/{}", name.to_string_lossy()),
        _ => arg.to_string(),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let command = std::iter::once(COMMAND.to_string())
        .chain(
            std::env::args()
                .skip(1)
                .filter(|a| a != "--bench")
                .map(|a| portable_arg(&a)),
        )
        .collect::<Vec<_>>()
        .join(" ");
    let opts = suite::Options {
        smoke: args.smoke,
        only: args.only,
        dnscron_bin: args.dnscron_bin,
        octodns: args.octodns,
        command,
    };
    let report = match suite::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{}", report.text());
    if let Some(path) = args.write {
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = report::keep_unrun(&existing, &report.markdown());
        let text = report::splice(&existing, &generated);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
