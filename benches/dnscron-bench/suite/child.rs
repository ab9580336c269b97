//! Running the dnscron CLI as a child process and measuring it: wall time, CPU time and peak
//! resident set size.
//!
//! Peak RSS comes from the kernel's accounting of the exited child (`wait4`'s `ru_maxrss`),
//! read through GNU time (`/usr/bin/time -f`), because this crate forbids `unsafe` and so can't
//! call `wait4` itself; CPU time from bash's `time` around it, in milliseconds (GNU time's are
//! centiseconds). Without GNU time it falls back to polling `/proc/<pid>/status` VmHWM
//! every millisecond, which can miss growth in the last millisecond; the report says which.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::setup::Scratch;
use super::workload::TOKEN;
use super::{BenchError, millis};

const GNU_TIME: &str = "/usr/bin/time";

pub struct ChildRun {
    pub wall: Duration,
    /// User + system CPU time of the child, when known.
    pub cpu: Option<Duration>,
    pub max_rss_kib: Option<u64>,
    /// Empty unless asked for ([`measure_with_output`]).
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
}

/// How peak RSS is measured on this machine (for the report).
pub fn rss_method() -> &'static str {
    if Path::new(GNU_TIME).exists() {
        "`ru_maxrss` of the exited child (`wait4`, read through GNU time; CPU through bash's \
         `time`, in ms, including GNU time's own ≈ 1 ms)"
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
        with_gnu_time(bin, args, envs, Stdio::null())
    } else {
        polled(bin, args, envs)
    }
}

/// Like [`measure`], with stdout kept (to check what the child found). Without GNU time the
/// figures come from polling, which can't also read the output: stdout stays empty.
pub fn measure_with_output(
    bin: &Path,
    args: &[String],
    envs: &[(&str, &str)],
) -> Result<ChildRun, BenchError> {
    if Path::new(GNU_TIME).exists() {
        with_gnu_time(bin, args, envs, Stdio::piped())
    } else {
        polled(bin, args, envs)
    }
}

/// The program's file name, for messages.
fn program(bin: &Path) -> String {
    bin.file_name().map_or_else(
        || bin.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What every measured `dnscron` child gets: the bench token, plain output.
pub const DNSCRON_ENV: [(&str, &str); 2] = [("DNSCRON_TOKEN", TOKEN), ("NO_COLOR", "1")];

/// `dnscron plan DIR` against `api_url`, as the planner sections run it.
pub fn plan_args(dir: &str, api_url: &str) -> Vec<String> {
    ["plan", dir, "--api-url", api_url, "--allow-mass-changes"]
        .map(String::from)
        .to_vec()
}

/// Runs `dnscron args…` once to warm up and then `runs` times, calling `after(measured)` after
/// each; an unsuccessful run is an error carrying the first lines of its stderr.
pub fn repeat(
    bin: &Path,
    args: &[String],
    runs: usize,
    mut after: impl FnMut(bool),
) -> Result<Runs, BenchError> {
    let mut measured = Vec::with_capacity(runs);
    for i in 0..=runs {
        let run = measure(bin, args, &DNSCRON_ENV)?;
        after(i > 0);
        if !run.success {
            let what = format!(
                "dnscron {} (child)",
                args.first().map_or("", String::as_str)
            );
            return Err(BenchError::step(&what, run.stderr_head()));
        }
        if i > 0 {
            measured.push(run);
        }
    }
    Ok(Runs::of(&measured))
}

impl ChildRun {
    /// The first lines of stderr, for an error message.
    pub fn stderr_head(&self) -> String {
        self.stderr.lines().take(5).collect::<Vec<_>>().join(" | ")
    }
}

/// Several runs of one command summed up: median wall and CPU, largest peak RSS.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Runs {
    pub count: usize,
    pub wall: Duration,
    /// Unknown when any run's is.
    pub cpu: Option<Duration>,
    pub rss_kib: Option<u64>,
}

impl Runs {
    pub fn of(runs: &[ChildRun]) -> Runs {
        Runs {
            count: runs.len(),
            wall: median(runs.iter().map(|r| r.wall).collect()),
            cpu: runs
                .iter()
                .map(|r| r.cpu)
                .collect::<Option<Vec<_>>>()
                .map(median),
            rss_kib: runs.iter().filter_map(|r| r.max_rss_kib).max(),
        }
    }

    /// `wall / CPU / peak RSS`.
    pub fn show(&self) -> String {
        format!(
            "{} / {} / {}",
            millis(self.wall),
            self.cpu.map_or("unknown".into(), millis),
            self.rss_kib.map_or("unknown".into(), mib)
        )
    }
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

pub fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// bash's `time` keyword reads the waited-for children's rusage in microseconds and prints
/// milliseconds, where GNU time prints centiseconds, truncated (a 59 ms run shows as 50 ms). So
/// bash times GNU time (adding GNU time's own ≈ 1 ms) and GNU time reports the peak RSS. `$0` is
/// the file for bash's figures; the child's stderr goes to fd 3, the original stderr.
const TIMED: &str = r#"TIMEFORMAT="%3U %3S"; { time "$@" 2>&3; } 3>&2 2>"$0""#;

fn with_gnu_time(
    bin: &Path,
    args: &[String],
    envs: &[(&str, &str)],
    stdout: Stdio,
) -> Result<ChildRun, BenchError> {
    let scratch = Scratch::new("time")?;
    let out = scratch.path().join("time.txt");
    let bash_out = scratch.path().join("bash-time.txt");
    let mut cmd = Command::new("bash");
    cmd.args(["-c", TIMED])
        .arg(&bash_out)
        .arg(GNU_TIME)
        .arg("-o")
        .arg(&out)
        .args(["-f", "%U %S %M"])
        .arg(bin)
        .args(args);
    let started = Instant::now();
    let output = cmd
        .envs(envs.iter().copied())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| BenchError::step(&format!("running {} under GNU time", program(bin)), e))?;
    let wall = started.elapsed();
    let gnu = last_numbers(&out);
    let precise = match last_numbers(&bash_out).as_slice() {
        [user, sys] => Some(Duration::from_secs_f64(user + sys)),
        _ => None,
    };
    let (cpu, rss) = match gnu.as_slice() {
        [user, sys, rss] => (
            precise.or(Some(Duration::from_secs_f64(user + sys))),
            Some(*rss as u64),
        ),
        _ => (precise, None),
    };
    Ok(ChildRun {
        wall,
        cpu,
        max_rss_kib: rss,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        success: output.status.success(),
    })
}

/// The numbers on the last line of a file (GNU time adds a line before its own on a non-zero
/// exit).
fn last_numbers(file: &Path) -> Vec<f64> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect()
}

fn polled(bin: &Path, args: &[String], envs: &[(&str, &str)]) -> Result<ChildRun, BenchError> {
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .envs(envs.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| BenchError::step(&format!("running {}", program(bin)), e))?;
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
            Err(e) => {
                return Err(BenchError::step(
                    &format!("waiting for {}", program(bin)),
                    e,
                ));
            }
        }
    };
    Ok(ChildRun {
        wall: started.elapsed(),
        cpu: None,
        max_rss_kib: (peak > 0).then_some(peak),
        stdout: String::new(),
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
