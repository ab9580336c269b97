//! The benchmark suite (issue 7): request efficiency, rate-limit pacing, planner speed and memory,
//! apply under faults, the emulator's GET throughput, dnscron beside octoDNS (issue 14), a big
//! account changed in a few zones (issue 21), importing a BIND zone file (issue 31), and the
//! controller (issue 30): a merged revision live, a simulated day within its API share, memory
//! flat over thousands of rounds.
//!
//! Every section generates its workload ([`workload`]), starts the emulator in this process on
//! 127.0.0.1:0 and runs dnscron's public library API (config loading, `make_plan`, the apply
//! executor) or the `dnscron` binary cargo built with this target, in a child process, against it.
//! Each figure is printed beside its target and its theoretical bound; the bounds come from the
//! generated workload, never from what dnscron did. `main.rs` is the command line; the
//! integration tests include this module too (tests/it/bench.rs), so `cargo test` runs it at smoke
//! size and its unit tests.

mod apply_runs;
mod big_account;
mod bind_import;
mod child;
mod controller;
mod efficiency;
mod gets;
pub mod machine;
pub mod octodns;
mod octodns_files;
mod pacing;
mod planner;
pub mod report;
mod setup;
pub mod workload;

use std::path::PathBuf;
use std::str::FromStr;

use report::{Report, Section};

/// The sections, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Efficiency,
    Pacing,
    Planner,
    Faults,
    Emulator,
    Octodns,
    BigAccount,
    BindImport,
    Controller,
    ControllerAccounts,
}

impl Part {
    pub const ALL: [Part; 10] = [
        Part::Efficiency,
        Part::Pacing,
        Part::Planner,
        Part::Faults,
        Part::Emulator,
        Part::Octodns,
        Part::BigAccount,
        Part::BindImport,
        Part::Controller,
        Part::ControllerAccounts,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Part::Efficiency => "efficiency",
            Part::Pacing => "pacing",
            Part::Planner => "planner",
            Part::Faults => "faults",
            Part::Emulator => "emulator",
            Part::Octodns => "octodns",
            Part::BigAccount => "bigaccount",
            Part::BindImport => "bindimport",
            Part::Controller => "controller",
            Part::ControllerAccounts => "controlleraccounts",
        }
    }
}

impl FromStr for Part {
    type Err = String;
    fn from_str(s: &str) -> Result<Part, String> {
        Part::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Part::ALL.iter().map(|p| p.as_str()).collect();
                format!("unknown part `{s}`; use one of {}", names.join(", "))
            })
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Tiny sizes, no real-rate-limit apply: a few seconds, for CI.
    pub smoke: bool,
    /// Sections to run (all when empty).
    pub only: Vec<Part>,
    /// A `dnscron` binary to measure `plan` with; default: the one cargo built with the bench.
    pub dnscron_bin: Option<PathBuf>,
    /// An `octodns-sync` to compare with (section 6); without it the section says how to enable it.
    pub octodns: Option<PathBuf>,
    /// The command line, as recorded in BENCHMARKS.md.
    pub command: String,
}

impl Options {
    fn runs(&self, part: Part) -> bool {
        self.only.is_empty() || self.only.contains(&part)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("benchmark setup failed: {0}")]
    Setup(String),
    #[error("{what} failed: {message}")]
    Step { what: String, message: String },
}

impl BenchError {
    pub fn step(what: &str, message: impl std::fmt::Display) -> BenchError {
        BenchError::Step {
            what: what.into(),
            message: message.to_string(),
        }
    }
}

/// Runs the selected sections and returns the report (print it with `Report::text`).
pub fn run(opts: &Options) -> Result<Report, BenchError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let mut sections: Vec<Section> = Vec::new();
    for part in Part::ALL.into_iter().filter(|p| opts.runs(*p)) {
        eprintln!("dnscron-bench: {} …", part.as_str());
        let load_before = machine::load_1min();
        let mut section = match part {
            Part::Efficiency => runtime.block_on(efficiency::run(opts.smoke))?,
            Part::Pacing => runtime.block_on(pacing::run(opts.smoke))?,
            Part::Planner => planner::run(&runtime, opts)?,
            Part::Faults => runtime.block_on(apply_runs::faults(opts.smoke))?,
            Part::Emulator => runtime.block_on(gets::run(opts.smoke))?,
            Part::Octodns => octodns::run(opts)?,
            Part::BigAccount => runtime.block_on(big_account::run(opts.smoke))?,
            Part::BindImport => bind_import::run(opts)?,
            Part::Controller => controller::run(&runtime, opts.smoke)?,
            Part::ControllerAccounts => controller::accounts_section(opts.smoke)?,
        };
        section.load = format!("{load_before} → {}", machine::load_1min());
        sections.push(section);
    }
    Ok(Report {
        machine: machine::Machine::describe(),
        command: opts.command.clone(),
        date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        smoke: opts.smoke,
        sections,
    })
}

/// `x / bound` as a ratio, or "n/a" when the bound is zero.
pub(crate) fn ratio(x: f64, bound: f64) -> String {
    if bound > 0.0 {
        format!("{:.3}", x / bound)
    } else {
        "n/a".into()
    }
}

pub(crate) fn secs(d: std::time::Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

pub(crate) fn millis(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}
