//! SIGTERM during apply (what CI cancellation and Kubernetes send): the report comes out and
//! apply exits 143; a rate-limit wait is cut short at once; a second signal ends it at once.
//! The states are reached through the emulator (its write gate, settings) and apply's own
//! progress lines, never by sleeping.

use std::io::{BufRead, BufReader, Lines, Read};
use std::process::{Child, ChildStderr, Stdio};
use std::time::{Duration, Instant};

use dnscron_emulator::{BackgroundEmulator, RateLimit};
use tempfile::TempDir;

use super::crash::bulk_case;
use super::support::*;
use crate::common::{command, send_signal};

/// Far longer than any of these tests may take: waiting it out would fail them.
const LONG: Duration = Duration::from_secs(60);

fn spawn(emu: &BackgroundEmulator, root: &std::path::Path) -> Child {
    command()
        .args(["apply", "--yes", "--format", "json"])
        .arg(root)
        .env("DNSCRON_TOKEN", "demo-token")
        .env("DNSCRON_API_URL", emu.base_url())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn term(pid: u32) {
    send_signal(pid, "TERM");
}

/// Reads progress lines until one contains `needle`; returns the lines read.
fn read_until(lines: &mut Stderr, needle: &str) -> Vec<String> {
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let found = line.contains(needle);
        seen.push(line);
        if found {
            return seen;
        }
    }
    panic!("apply ended without a line containing {needle:?}: {seen:#?}");
}

type Stderr = Lines<BufReader<ChildStderr>>;

/// `apply` of the bulk case, its first write done and its second held at the emulator (on the
/// wire until `release_writes`, however loaded the machine); its progress lines to read.
fn applying() -> (TempDir, BackgroundEmulator, Child, Stderr) {
    let dir = tempfile::tempdir().unwrap();
    let (seed, root) = bulk_case(dir.path());
    let emu = emulator_with(seed, gap_settings()[0].clone());
    emu.hold_writes_after(1);
    let mut child = spawn(&emu, &root);
    let lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let held =
        runtime().block_on(async { tokio::time::timeout(LONG, emu.wait_for_held_writes(1)).await });
    assert!(held.is_ok(), "no second write held in time");
    (dir, emu, child, lines)
}

#[test]
fn sigterm_during_a_rate_limit_wait_stops_at_once_with_the_report() {
    let (_dir, emu, child, mut lines) = applying();
    // One request a minute from now on: the held write is past the bucket; of the next two,
    // the second waits for it.
    emu.set_rate_limit(RateLimit {
        enabled: true,
        per_minute: 1,
        burst: 1,
    });
    emu.release_writes();
    read_until(&mut lines, "waiting");
    let writes_before = writes(&emu);
    let sent = Instant::now();
    term(child.id());
    let out = child.wait_with_output().unwrap();
    let took = sent.elapsed();
    assert!(took < LONG / 2, "the wait was not cut short: {took:?}");
    assert_eq!(out.status.code(), Some(143), "128 + SIGTERM; {out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["result"], "interrupted", "{doc}");
    assert_eq!(doc["exit_code"], 143, "{doc}");
    assert!(
        doc["counts"]["not_attempted"].as_u64().unwrap() > 0,
        "{doc}"
    );
    assert_eq!(writes(&emu), writes_before, "nothing sent after the signal");
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(
        rest.iter()
            .any(|l| l.starts_with("SIGTERM: finishing the change in flight")),
        "{rest:#?}"
    );
    emu.set_rate_limit(RateLimit::off());
}

#[test]
fn a_second_sigterm_ends_apply_at_once_without_a_report() {
    // The second write is on the payload, held until the emulator is dropped.
    let (_dir, _emu, mut child, mut lines) = applying();
    let sent = Instant::now();
    term(child.id());
    read_until(&mut lines, "SIGTERM: finishing the change in flight");
    term(child.id());
    let status = child.wait().unwrap();
    assert!(sent.elapsed() < LONG / 2, "waited for the write in flight");
    assert_eq!(status.code(), Some(143), "{status:?}");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    assert_eq!(stdout, "", "no report after the second signal");
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert_eq!(rest, ["", "SIGTERM: stopping at once, without a report"]);
}
