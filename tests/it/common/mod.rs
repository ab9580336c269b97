//! Shared test builders: run the `dnscron` binary, normalize its output for snapshots.
#![allow(dead_code)]

pub mod emulator;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the `dnscron` binary cargo built for these tests.
pub fn dnscron_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dnscron")
}

/// The repository root (for `examples/`, `schema/`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A `dnscron` invocation with a clean environment: no token, no API URL, no colors, so the
/// developer's shell can't change what a test sees.
pub struct Run {
    cmd: Command,
}

impl Run {
    pub fn new<I, S>(args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut cmd = Command::new(dnscron_bin());
        cmd.args(args)
            .env_remove("DNSCRON_TOKEN")
            .env_remove("DNSCRON_API_URL")
            .env_remove("RUST_LOG")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .current_dir(repo_root());
        Run { cmd }
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Run {
        self.cmd.env(key, value);
        self
    }

    /// Points the command at an API (e.g. an emulator's base URL) with a token in the environment.
    pub fn api(self, base_url: &str, token: &str) -> Run {
        self.env("DNSCRON_API_URL", base_url)
            .env("DNSCRON_TOKEN", token)
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Run {
        self.cmd.current_dir(dir);
        self
    }

    pub fn output(mut self) -> RunOutput {
        let output: Output = self
            .cmd
            .output()
            .unwrap_or_else(|e| panic!("spawn dnscron: {e}"));
        RunOutput {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

#[derive(Debug)]
pub struct RunOutput {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl RunOutput {
    /// `exit: N` + stdout + stderr, the form CLI snapshots take.
    pub fn snapshot(&self) -> String {
        format!(
            "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// insta filters for what changes between runs: loopback ports, request ids, plan ids, times.
pub fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]"),
        (r"req_[0-9a-zA-Z]+", "req_[ID]"),
        (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", "[TIME]"),
        (r"\d+(\.\d+)?\s?(ms|µs|s)\b", "[DURATION]"),
    ]
}
