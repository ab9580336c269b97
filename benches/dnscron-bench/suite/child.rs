//! Running the dnscron CLI as a child process and measuring it: wall time, CPU time and peak
//! resident set size.
//!
//! Peak RSS comes from the kernel's accounting of the exited child (`wait4`'s `ru_maxrss`),
//! read through GNU time (`/usr/bin/time -f`), because this crate forbids `unsafe` and so can't
//! call `wait4` itself. Without GNU time it falls back to polling `/proc/<pid>/status` VmHWM
//! every millisecond, which can miss growth in the last millisecond; the report says which.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::BenchError;
use super::setup::Scratch;

const GNU_TIME: &str = "/usr/bin/time";

pub struct ChildRun {
    pub wall: Duration,
    /// User + system CPU time of the child, when known.
    pub cpu: Option<Duration>,
    pub max_rss_kib: Option<u64>,
    pub stderr: String,
    pub success: bool,
}

/// How peak RSS is measured on this machine (for the report).
pub fn rss_method() -> &'static str {
    if Path::new(GNU_TIME).exists() {
        "`ru_maxrss` of the exited child (`wait4`, read through GNU time)"
    } else {
        "VmHWM of /proc/<pid>/status polled every 1 ms (a lower bound)"
    }
}

/// What to run as `dnscron`: the given binary, else the `dnscron` that cargo built with this
/// target (the same profile: `cargo bench` measures the release binary).
pub fn dnscron_bin(explicit: Option<&Path>) -> PathBuf {
    explicit.map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_dnscron")),
        Path::to_path_buf,
    )
}

/// Runs `bin args…` with `envs`, stdout discarded.
pub fn measure(bin: &Path, args: &[String], envs: &[(&str, &str)]) -> Result<ChildRun, BenchError> {
    if Path::new(GNU_TIME).exists() {
        with_gnu_time(bin, args, envs)
    } else {
        polled(bin, args, envs)
    }
}

fn with_gnu_time(
    bin: &Path,
    args: &[String],
    envs: &[(&str, &str)],
) -> Result<ChildRun, BenchError> {
    let scratch = Scratch::new("time")?;
    let out = scratch.path().join("time.txt");
    let mut cmd = Command::new(GNU_TIME);
    cmd.arg("-o")
        .arg(&out)
        .args(["-f", "%U %S %M"])
        .arg(bin)
        .args(args);
    let started = Instant::now();
    let output = cmd
        .envs(envs.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| BenchError::step("running dnscron under GNU time", e))?;
    let wall = started.elapsed();
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    // A non-zero exit adds a line before ours; ours is the last.
    let fields: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    let (cpu, rss) = match fields.as_slice() {
        [user, sys, rss] => (Some(Duration::from_secs_f64(user + sys)), Some(*rss as u64)),
        _ => (None, None),
    };
    Ok(ChildRun {
        wall,
        cpu,
        max_rss_kib: rss,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        success: output.status.success(),
    })
}

fn polled(bin: &Path, args: &[String], envs: &[(&str, &str)]) -> Result<ChildRun, BenchError> {
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .envs(envs.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| BenchError::step("running dnscron", e))?;
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| vm_hwm(&s))
        {
            peak = peak.max(kib);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => return Err(BenchError::step("waiting for dnscron", e)),
        }
    };
    Ok(ChildRun {
        wall: started.elapsed(),
        cpu: None,
        max_rss_kib: (peak > 0).then_some(peak),
        stderr: String::new(),
        success: status.success(),
    })
}

fn vm_hwm(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_hwm_line() {
        assert_eq!(vm_hwm("Name:\tx\nVmHWM:\t   12345 kB\n"), Some(12345));
        assert_eq!(vm_hwm("Name:\tx\n"), None);
    }
}
