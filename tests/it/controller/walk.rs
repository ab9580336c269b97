//! docs/controller.md's "Trying it locally", run as written: the emulator command is checked
//! against the real CLI and replaced by the same seed in-process, the controller command runs
//! as a process with exactly the environment its line sets, and each `curl` line is sent as the
//! request it is, with what the docs say of its answer asserted.
//!
//! The controller is another process on its own clock, so the test polls its endpoints (every
//! 50 ms, with a deadline) for what the walk describes: the first round done, the rounds failing
//! during the outage, succeeding after it. The `--interval 2s` the walk gives keeps that short.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use dnscron::cli::Cli;
use dnscron_emulator::Seed;
use serde_json::Value;

use crate::common::emulator::client;
use crate::common::{dnscron_bin, repo_root, send_signal};

const SECTION: &str = "## Trying it locally";
const DEADLINE: Duration = Duration::from_secs(90);

/// The ```sh blocks of the section, in order.
fn blocks() -> Vec<String> {
    let doc = std::fs::read_to_string(repo_root().join("docs/controller.md")).unwrap();
    let start = doc.find(SECTION).expect("the section is there");
    let rest = &doc[start + SECTION.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap_or_default().to_string())
        .collect()
}

/// The value after `flag` in `words`.
fn flag<'a>(words: &'a [&str], flag: &str) -> &'a str {
    let at = words.iter().position(|w| *w == flag).unwrap();
    words[at + 1]
}

/// One `curl` line: its method, URL and body.
fn curl(line: &str) -> (reqwest::Method, String, Option<String>) {
    let (command, body) = match line.split_once(" -d ") {
        Some((command, body)) => (command, Some(body.trim().trim_matches('\'').to_owned())),
        None => (line, None),
    };
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[..2], ["curl", "-s"], "{line}");
    let (method, url) = match words[2..] {
        ["-X", "PUT", url] => (reqwest::Method::PUT, url),
        [url] => (reqwest::Method::GET, url),
        _ => panic!("the test does not know this curl line: {line}"),
    };
    (method, url.to_owned(), body)
}

async fn send(line: &str) -> (u16, String) {
    let (method, url, body) = curl(line);
    let mut request = client().request(method, url);
    if let Some(body) = body {
        request = request.body(body);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Polls `url` until `done` holds for its body, failing at the deadline or when the
/// controller has exited.
async fn until(child: &mut Child, url: &str, what: &str, done: impl Fn(u16, &str) -> bool) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the controller exited ({status}) before {what}");
        }
        if let Ok(response) = client().get(url).send().await {
            let status = response.status().as_u16();
            let body = response.text().await.unwrap_or_default();
            if done(status, &body) {
                return;
            }
        }
        assert!(Instant::now() < deadline, "no {what} within {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value of an unlabelled gauge in an exposition.
fn gauge(exposition: &str, name: &str) -> Option<f64> {
    exposition
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .and_then(|value| value.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_try_it_locally_walk_runs_as_written() {
    let blocks = blocks();
    assert_eq!(blocks.len(), 4, "{blocks:#?}");
    let emulator: Vec<&str> = blocks[0].split_whitespace().collect();
    assert!(Cli::try_parse_from(&emulator).is_ok(), "{emulator:?}");
    assert_eq!(emulator[..2], ["dnscron", "emulator"]);
    let seed = Seed::from_path(repo_root().join(flag(&emulator, "--seed"))).unwrap();
    let emu = dnscron_emulator::start_background(seed).unwrap();
    let emu_addr = emu
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches("/api/v1")
        .to_owned();
    let listen = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().to_string()
    };
    let doc_emu = flag(&emulator, "--listen").to_owned();
    let real = |line: &str| line.replace(&doc_emu, &emu_addr);

    // The controller's line: VAR=value words, then the command.
    let controller_line = blocks[1].trim();
    let words: Vec<&str> = controller_line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "dnscron").unwrap();
    let (env, argv) = words.split_at(at);
    assert!(Cli::try_parse_from(argv).is_ok(), "{argv:?}");
    let doc_listen = flag(argv, "--listen").to_owned();
    let real = |line: &str| real(line).replace(&doc_listen, &listen);
    let mut child = Command::new(dnscron_bin())
        .args(argv[1..].iter().map(|w| real(w)))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", tempfile::tempdir().unwrap().path())
        .envs(env.iter().map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k.to_owned(), real(v))
        }))
        .current_dir(repo_root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    let base = format!("http://{listen}");
    until(
        &mut child,
        &format!("{base}/readyz"),
        "first round",
        |s, _| s == 200,
    )
    .await;
    // The third command: the last round, the base taken, the example account's drift.
    let status_line = real(blocks[2].trim());
    let (code, body) = send(&status_line).await;
    assert_eq!(code, 200, "{body}");
    let status: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status["policy"], "apply", "{status:#}");
    assert!(status["converged"]["id"].is_string(), "{status:#}");
    assert!(!status["round"].is_null(), "{status:#}");
    until(
        &mut child,
        &format!("{base}/status"),
        "drift listed",
        |_, body| {
            serde_json::from_str::<Value>(body)
                .is_ok_and(|s| s["drift"].as_array().is_some_and(|d| !d.is_empty()))
        },
    )
    .await;

    // The outage: rounds fail while it lasts, and succeed once it is off.
    let lines: Vec<String> = blocks[3].lines().map(real).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(send(&lines[0]).await, (200, "{\"active\":true}".to_owned()));
    let metrics = curl(&lines[1]).1;
    until(&mut child, &metrics, "failed rounds", |_, body| {
        gauge(body, "dnscron_controller_consecutive_failures").is_some_and(|n| n >= 1.0)
            && gauge(body, "dnscron_controller_backoff_seconds").is_some_and(|s| s > 0.0)
    })
    .await;
    assert_eq!(
        send(&lines[2]).await,
        (200, "{\"active\":false}".to_owned())
    );
    until(
        &mut child,
        &metrics,
        "a round after the outage",
        |_, body| gauge(body, "dnscron_controller_consecutive_failures") == Some(0.0),
    )
    .await;

    send_signal(child.id(), "TERM");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("demo-token"), "{stderr}");
}
