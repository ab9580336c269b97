//! Shared test builders: run the `dnscron` binary and check everything it did.
#![allow(dead_code)]

pub mod emulator;
pub mod git;
pub mod progress;

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Path of the `dnscron` binary cargo built for these tests.
pub fn dnscron_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dnscron")
}

/// The repository root (for `examples/`, `schema/`).
/// A copy of examples/dns (its zones, sites and unmanaged list) in `to`.
pub fn copy_examples(to: &Path) {
    let from = repo_root().join("examples/dns");
    for dir in ["zones", "sites"] {
        std::fs::create_dir_all(to.join(dir)).unwrap();
        for entry in std::fs::read_dir(from.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, to.join(dir).join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(from.join("unmanaged.yaml"), to.join("unmanaged.yaml")).unwrap();
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `dnscron` with an empty environment but PATH, HOME (the system's temporary directory),
/// NO_COLOR, COLUMNS and [`NO_DNS`], started in the repository root: for tests that drive the
/// process themselves (signals, pipes); the others use [`Test`].
/// Sends signal `name` (`INT`, `TERM`, …) to process `pid`, as CI cancellation or Ctrl-C would.
pub fn send_signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{name} {pid} failed");
}

pub fn command() -> Command {
    let mut cmd = Command::new(dnscron_bin());
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        // `check` and apply's DNS checks never ask the system resolver in a test: it may send
        // to an address off this machine.
        .env("DNSCRON_NO_SYSTEM_RESOLVER", "1")
        .envs(NO_DNS)
        .current_dir(repo_root());
    cmd
}

/// Apply's DNS checks turned off: they ask the zones' real nameservers (ns1.veldhost.net, …)
/// through the system resolver, and tests talk to 127.0.0.1 only. The tests of those checks
/// turn them on again (`.env(…)`) with every nameserver mapped to an emulator's DNS.
pub const NO_DNS: [(&str, &str); 2] = [
    ("DNSCRON_DNS_WAIT", "0"),
    ("DNSCRON_ALLOW_UNREADY_NAMESERVERS", "true"),
];

/// One `dnscron` invocation and what it must do. An expectation left unset means "exit 0" and
/// "prints nothing", never "don't care", so a new warning or a changed exit code fails the
/// test that did not ask for it.
///
/// The child starts from an empty environment (only PATH, a temporary HOME, NO_COLOR,
/// COLUMNS and [`NO_DNS`]), so the developer's shell (a token, an API URL, RUST_LOG) can't leak in.
#[must_use = "a Test does nothing until .run() or .snapshot()"]
pub struct Test {
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    current_dir: PathBuf,
    stdin: Option<String>,
    status: i32,
    stdout: String,
    stderr: String,
}

/// What a run printed, once its expectations held.
#[derive(Debug)]
pub struct Output {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// `exit: N` + stdout + stderr, the form CLI snapshots take.
    pub fn snapshot(&self) -> String {
        format!(
            "exit: Some({})\n--- stdout\n{}--- stderr\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

impl Default for Test {
    fn default() -> Self {
        Test::new()
    }
}

impl Test {
    pub fn new() -> Test {
        Test {
            args: Vec::new(),
            envs: Vec::new(),
            current_dir: repo_root(),
            stdin: None,
            status: 0,
            stdout: String::new(),
            stderr: String::new(),
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Test {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Test {
        self.envs.push((key.into(), value.as_ref().to_os_string()));
        self
    }

    /// Fixes the id and time a new plan is stamped with (the test-only variables of
    /// docs/plan.md): this test's 1st, 2nd, … plan gets id `0…01`, `0…02`, …, so snapshots show
    /// real ids and keys, and two plans on one emulator never share their idempotency keys.
    pub fn plan_stamp(self) -> Test {
        thread_local! {
            static PLANS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        let n = PLANS.with(|plans| {
            plans.set(plans.get() + 1);
            plans.get()
        });
        self.env("DNSCRON_PLAN_ID", format!("{n:032x}"))
            .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
    }

    /// Points the command at an API (e.g. an emulator's base URL) with a token in the environment.
    pub fn api(self, base_url: &str, token: &str) -> Test {
        self.env("DNSCRON_API_URL", base_url)
            .env("DNSCRON_TOKEN", token)
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Test {
        self.current_dir = dir.as_ref().to_path_buf();
        self
    }

    pub fn stdin(mut self, input: impl Into<String>) -> Test {
        self.stdin = Some(input.into());
        self
    }

    pub fn expect_status(mut self, status: i32) -> Test {
        self.status = status;
        self
    }

    pub fn expect_stdout(mut self, stdout: impl Into<String>) -> Test {
        self.stdout = stdout.into();
        self
    }

    pub fn expect_stderr(mut self, stderr: impl Into<String>) -> Test {
        self.stderr = stderr.into();
        self
    }

    /// Runs and asserts status, stdout and stderr in full.
    #[track_caller]
    pub fn run(self) -> Output {
        let expected = Output {
            status: self.status,
            stdout: self.stdout.clone(),
            stderr: self.stderr.clone(),
        };
        let out = self.execute();
        assert_eq!(
            mask_ports(&out.snapshot()),
            mask_ports(&expected.snapshot()),
            "dnscron output differs"
        );
        out
    }

    /// Runs and asserts the status and stderr in full; returns stdout for a test that checks
    /// it as a whole in another form (parsed JSON, a file it must equal).
    #[track_caller]
    pub fn run_for_stdout(self) -> String {
        let (status, stderr) = (self.status, self.stderr.clone());
        let out = self.execute();
        assert_eq!(
            (out.status, mask_ports(&out.stderr)),
            (status, mask_ports(&stderr)),
            "dnscron status or stderr differs; stdout:\n{}",
            out.stdout
        );
        out.stdout
    }

    /// Runs and returns status, stdout and stderr in one text for an insta snapshot (see
    /// `assert_cli_snapshot!`), which then checks all three in full.
    pub fn snapshot(self) -> String {
        self.execute().snapshot()
    }

    fn execute(self) -> Output {
        let home = tempfile::tempdir().expect("temporary HOME");
        let mut cmd = command();
        cmd.args(&self.args)
            .env("HOME", home.path())
            .envs(self.envs.iter().map(|(k, v)| (k, v)))
            .current_dir(&self.current_dir)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn dnscron: {e}"));
        if let Some(input) = &self.stdin {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            pipe.write_all(input.as_bytes()).expect("write stdin");
        }
        let output = child.wait_with_output().expect("wait for dnscron");
        Output {
            status: output
                .status
                .code()
                .unwrap_or_else(|| panic!("dnscron ended by a signal: {:?}", output.status)),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// The stdout part of an `Output::snapshot()` text (e.g. JSON to parse).
pub fn stdout_of(snapshot: &str) -> &str {
    snapshot
        .split_once("--- stdout\n")
        .and_then(|(_, rest)| rest.split_once("--- stderr\n"))
        .map(|(stdout, _)| stdout)
        .unwrap_or_default()
}

/// `127.0.0.1:[PORT]` for every `127.0.0.1:<digits>`: the emulator's port changes between runs,
/// so exact comparisons mask it on both sides, as `filters()` does for snapshots. An expectation
/// may thus name the emulator's real URL or write `127.0.0.1:[PORT]`.
pub fn mask_ports(text: &str) -> String {
    const HOST: &str = "127.0.0.1:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HOST) {
        let after = &rest[at + HOST.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at + HOST.len()]);
        out.push_str(if digits > 0 { "[PORT]" } else { "" });
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// insta filters for what changes between runs: temporary paths, loopback ports, the emulator's
/// request ids and durations. (Plan ids and times are fixed with `Test::plan_stamp`.) Temporary
/// paths go first: a random name ending in a digit and `s` (`.tmpQx7Z3s`) would otherwise lose
/// its end to the duration filter and fail the snapshot, about once in 400 names.
pub fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"[^\s(`\[]*/\.tmp[A-Za-z0-9_]+", "[TMP]"),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]"),
        (r"req_[0-9a-zA-Z]+", "req_[ID]"),
        (r"\d+(\.\d+)?\s?(ms|µs|s)\b", "[DURATION]"),
    ]
}

#[test]
fn filters_mask_a_temporary_name_whole_even_when_it_ends_like_a_duration() {
    let text = "/tmp/.tmpQx7Z3s/plan.json: 127.0.0.1:41234 req_000012 in 12ms";
    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!(text, @"[TMP]/plan.json: 127.0.0.1:[PORT] req_[ID] in [DURATION]");
    });
}

#[test]
fn mask_ports_masks_every_loopback_port_and_nothing_else() {
    assert_eq!(
        mask_ports("http://127.0.0.1:8080/v1 127.0.0.1:5 127.0.0.1: 127.0.0.10:80 end"),
        "http://127.0.0.1:[PORT]/v1 127.0.0.1:[PORT] 127.0.0.1: 127.0.0.10:80 end"
    );
}

/// An insta snapshot of a `Test` (status, stdout and stderr in full) with the run-to-run
/// differences (`filters()`) masked.
macro_rules! assert_cli_snapshot {
    ($test:expr $(,)?) => {
        insta::with_settings!({ filters => $crate::common::filters() }, {
            insta::assert_snapshot!($test.snapshot());
        })
    };
    ($name:expr, $test:expr $(,)?) => {
        insta::with_settings!({ filters => $crate::common::filters() }, {
            insta::assert_snapshot!($name, $test.snapshot());
        })
    };
}
pub(crate) use assert_cli_snapshot;
