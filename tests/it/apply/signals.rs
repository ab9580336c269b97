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
    spawn_with(emu, &["apply", "--yes", "--format", "json"], root)
}

/// `dnscron <args> <root>` against `emu`, its output piped.
fn spawn_with(emu: &BackgroundEmulator, args: &[&str], root: &std::path::Path) -> Child {
    command()
        .args(args)
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
    // apply's own progress line of the wait (the pacer's log line shows only with -v).
    read_until(&mut lines, "for the rate limit");
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

/// One zone with no records, declared with one: apply writes once, then verifies.
fn one_write_case(dir: &std::path::Path) -> (dnscron_emulator::Seed, std::path::PathBuf) {
    use dnscron_emulator::{Seed, TokenSeed, ZoneSeed};
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("one.example"));
    let zone = "zone: one.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n";
    let root = write_files(dir, &[("zones/one.yaml".to_string(), zone.to_string())]);
    (seed, root)
}

/// An empty bucket refilled once a minute: the next request is answered 429 with a Retry-After
/// of 60 s, which the client waits out.
fn empty_bucket() -> RateLimit {
    RateLimit {
        enabled: true,
        per_minute: 1,
        burst: 0,
    }
}

/// The wall-clock end of a wait (`(until 20:49:23)`) masked.
fn mask_clock(line: &str) -> String {
    match (line.find("(until "), line.rfind(')')) {
        (Some(start), Some(end)) if end > start => {
            format!("{}(until [TIME]){}", &line[..start], &line[end + 1..])
        }
        _ => line.to_string(),
    }
}

/// Issue 22: SIGINT during verification's rate-limit wait, after every write, stops at once
/// (not after three 60 s waits), prints the report and exits 130.
#[test]
fn sigint_during_verifications_rate_limit_wait_stops_at_once_with_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let (seed, root) = one_write_case(dir.path());
    let emu = emulator_with(seed, gap_settings()[0].clone());
    emu.hold_writes_after(0);
    let mut child = spawn(&emu, &root);
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let held =
        runtime().block_on(async { tokio::time::timeout(LONG, emu.wait_for_held_writes(1)).await });
    assert!(held.is_ok(), "the write was not held in time");
    // The held write already passed the bucket: only verification's read meets the empty one.
    emu.set_rate_limit(empty_bucket());
    emu.release_writes();
    // The progress line of the wait, not the emulator's 429 count: the counters notify when a
    // request arrives, before its 429 is counted, and nothing arrives during the wait.
    let mut stderr = read_until(&mut lines, "waiting its Retry-After");
    let sent = Instant::now();
    send_signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    let took = sent.elapsed();
    assert!(took < LONG / 2, "the wait was not cut short: {took:?}");
    assert_eq!(out.status.code(), Some(130), "128 + SIGINT; {out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["result"], "interrupted", "{doc}");
    assert_eq!(doc["exit_code"], 130, "{doc}");
    assert_eq!(doc["counts"]["done"], 1, "{doc}");
    assert_eq!(doc["counts"]["not_attempted"], 0, "{doc}");
    assert_eq!(writes(&emu), 1, "the write was sent once");
    assert_eq!(emu.counters().rate_limited, 1, "no read after the signal");
    stderr.extend(lines.map(Result::unwrap));
    let stderr: Vec<String> = stderr.iter().map(|l| mask_clock(l)).collect();
    assert_eq!(
        stderr,
        [
            "apply [1/1] zone one.example: + www A 192.0.2.1 (ttl 3600) — done (req_000003)",
            "apply: verifying: reading the changed targets again",
            "apply: the API answered 429; waiting its Retry-After: 60.0s (until [TIME])",
            "",
            "interrupted: finishing the change in flight, then stopping (send it again to stop at once)",
            // The 429's retry, summed up as the command ends (its wait is the pacer's).
            " WARN retried 1 request 1 time (429 Too Many Requests) over 0.0 s",
        ]
    );
    emu.set_rate_limit(RateLimit::off());
}

/// Issue 22: SIGTERM while apply still plans (its first read on the wire, answered only after
/// a minute) ends it at once, exit 143, saying what it stopped and that nothing was sent.
#[test]
fn sigterm_while_planning_says_nothing_was_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (seed, root) = one_write_case(dir.path());
    let emu = emulator_with(seed, gap_settings()[0].clone());
    emu.set_latency(LONG);
    let child = spawn(&emu, &root);
    wait_for_the_first_read(&emu);
    let sent = Instant::now();
    term(child.id());
    let out = child.wait_with_output().unwrap();
    assert!(sent.elapsed() < LONG / 2, "waited for the read");
    assert_eq!(out.status.code(), Some(143), "128 + SIGTERM; {out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "\nSIGTERM: apply stopped while planning, before any write: nothing was sent\n"
    );
    assert_eq!(writes(&emu), 0);
}

/// `plan` only reads; stopped by SIGTERM or SIGINT it says so instead of vanishing, and shows
/// and saves no plan.
#[test]
fn a_signal_while_plan_reads_says_no_plan_was_made() {
    for (signal, code, word) in [("TERM", 143, "SIGTERM"), ("INT", 130, "interrupted")] {
        let dir = tempfile::tempdir().unwrap();
        let (seed, root) = one_write_case(dir.path());
        let emu = emulator_with(seed, gap_settings()[0].clone());
        emu.set_latency(LONG);
        let out_file = dir.path().join("plan.json");
        let out_arg = out_file.to_string_lossy();
        let child = spawn_with(&emu, &["plan", "--out", &out_arg], &root);
        wait_for_the_first_read(&emu);
        send_signal(child.id(), signal);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "128 + SIG{signal}; {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "\n{word}: plan stopped before it finished, no plan was shown or saved: nothing was sent\n"
            )
        );
        assert!(!out_file.exists(), "no plan file");
    }
}

/// Waits until the emulator has the command's first request on the wire (answered late).
fn wait_for_the_first_read(emu: &BackgroundEmulator) {
    let reading = runtime().block_on(async {
        tokio::time::timeout(LONG, emu.wait_for_counters(|c| c.requests >= 1)).await
    });
    assert!(reading.is_ok(), "no read in time");
}
