//! The transport cases through the `dnscron` binary: `--timeout`, no write after a refused
//! read, the token hint of a 401 during apply, the base-URL check, and the `-v`/`-vv` request
//! log. Real time, so deadlines are in milliseconds.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{Raw, Step};
use crate::client::stub::{CANARY, Reply, Seen, Stub};
use crate::common::{Test, filters};

/// A folder with one zone that declares one record.
fn files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("zones")).unwrap();
    std::fs::write(
        dir.path().join("zones/example.com.yaml"),
        "zone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n",
    )
    .unwrap();
    dir
}

/// Runs `dnscron ARGS… DIR` against `base_url` and returns the snapshot text (status, stdout
/// and stderr in full) with the folder shown as `DIR`; the token must appear nowhere.
async fn run(base_url: &str, args: &[&str]) -> String {
    let dir = files();
    let path = dir.path().to_string_lossy().into_owned();
    // The zone's file, not its folder: a folder's plan also reads the account's listings,
    // which these stand-ins don't serve.
    let mut test = Test::new()
        .plan_stamp()
        .api(base_url, CANARY)
        .args(args)
        .arg(format!("{path}/zones/example.com.yaml"));
    test = test.env("COLUMNS", "200");
    let out = tokio::task::spawn_blocking(move || test.snapshot())
        .await
        .unwrap();
    assert!(!out.contains(CANARY), "{out}");
    out.replace(&path, "DIR")
}

/// `out` with its stderr's log entries (a line and the indented lines under it) in request
/// order: plan reads the records and the domain list at once, so the order they are answered
/// in, and even a `-vv` header block between another request's lines, is not theirs to keep.
fn by_request(out: &str) -> String {
    let Some((head, stderr)) = out.split_once("--- stderr\n") else {
        return out.to_string();
    };
    let mut entries: Vec<String> = Vec::new();
    for line in stderr.lines() {
        match entries.last_mut() {
            Some(entry) if line.starts_with(' ') => {
                entry.push_str(line);
                entry.push('\n');
            }
            _ => entries.push(format!("{line}\n")),
        }
    }
    // The request (`GET /path?query`) is what follows the target; stable, so a request's
    // status line stays before its headers.
    let request = |entry: &String| {
        let after = entry.split_once(": ").map_or("", |(_, rest)| rest);
        after.split_once(": ").map_or(after, |(r, _)| r).to_string()
    };
    entries.sort_by_key(request);
    format!("{head}--- stderr\n{}", entries.concat())
}

/// Plan also reads the domain list (registrar findings): an account without domains.
fn no_domains() -> Reply {
    Reply::ok(json!({"domains": [], "meta": {"has_more": false}}))
}

/// Hangs on every request but the domain list.
fn hang_but_domains(_: usize, line: &str) -> Vec<Step> {
    match line.contains("/domains") {
        true => super::json("200 OK", r#"{"domains": [], "meta": {"has_more": false}}"#),
        false => vec![Step::Hang],
    }
}

fn listing(records: serde_json::Value) -> Reply {
    Reply::ok(
        json!({"records": records, "nameservers": ["ns1.veldhost.net"], "meta": {"has_more": false}}),
    )
}

macro_rules! snapshot {
    ($name:expr, $out:expr) => {{
        let mut filters = filters();
        filters.push((r"(?m)^(  date: ).*$", "$1[DATE]"));
        insta::with_settings!({ filters => filters }, {
            insta::assert_snapshot!($name, $out);
        })
    }};
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_bounds_a_command_against_a_server_that_never_answers() {
    let raw = Raw::start(hang_but_domains).await;
    let started = Instant::now();
    let out = run(&raw.base_url, &["plan", "--timeout", "300ms"]).await;
    let took = started.elapsed();
    snapshot!("timeout_flag", out);
    // Two attempts of 300 ms and a backoff; a third could not end within 4 × 300 ms.
    let records = raw
        .request_lines()
        .into_iter()
        .filter(|l| l.contains("/records"));
    assert_eq!(records.count(), 2);
    assert!(took < Duration::from_secs(5), "{took:?}");

    let raw = Raw::start(hang_but_domains).await;
    let dir = files();
    let path = dir.path().to_string_lossy().into_owned();
    let test = Test::new()
        .api(&raw.base_url, CANARY)
        .env("DNSCRON_TIMEOUT", "200ms")
        .args(["plan", &path]);
    let out = tokio::task::spawn_blocking(move || test.snapshot())
        .await
        .unwrap();
    assert!(
        out.contains("no complete answer within 200 ms (2 attempt(s))"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_writes_nothing_after_a_refused_read() {
    let stub = Stub::start(|seen: &Seen| match seen.method.as_str() {
        "GET" if seen.path == "/domains" => no_domains(),
        "GET" => Reply::ok(json!({"records": [], "padding": "x".repeat(5 * 1024 * 1024)})),
        _ => Reply::json(201, json!({})),
    })
    .await;
    let out = run(&stub.base_url, &["apply", "--yes"]).await;
    snapshot!("refused_read_no_write", out);
    let methods: Vec<String> = stub.requests().into_iter().map(|s| s.method).collect();
    assert_eq!(methods, ["GET", "GET"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_during_apply_carries_the_token_hint() {
    let stub = Stub::start(|seen: &Seen| match seen.method.as_str() {
        "GET" if seen.path == "/domains" => no_domains(),
        "GET" => listing(json!([])),
        _ => Reply::error(401, "unauthenticated", "token revoked"),
    })
    .await;
    let out = run(&stub.base_url, &["apply", "--yes"]).await;
    snapshot!("apply_401", out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_base_url_without_the_version_prefix_is_named_as_such() {
    let stub = Stub::start(|seen: &Seen| {
        Reply::error(404, "not_found", &format!("no endpoint at {}", seen.path))
    })
    .await;
    let out = run(&stub.base_url, &["plan"]).await;
    snapshot!("wrong_base_url", out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verbose_logs_each_request_and_very_verbose_its_headers() {
    let stub = Stub::start(|seen: &Seen| {
        if seen.path == "/domains" {
            return no_domains();
        }
        listing(json!([{"id": 1, "name": "www", "type": "A", "ttl": 3600, "content": "192.0.2.1"}]))
            .header("x-echo", format!("Bearer {CANARY}"))
    })
    .await;
    let out = run(&stub.base_url, &["-v", "plan"]).await;
    snapshot!("verbose", by_request(&out));
    let out = run(&stub.base_url, &["-vv", "plan"]).await;
    snapshot!("very_verbose", by_request(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_text_in_an_error_cannot_drive_the_terminal_or_start_a_line() {
    let stub = Stub::start(|seen: &Seen| {
        if seen.path == "/domains" {
            return no_domains();
        }
        Reply::error(
            422,
            "validation_error",
            "boom\u{1b}[2J\n::warning file=x::pwned\u{9b}",
        )
    })
    .await;
    let out = run(&stub.base_url, &["plan"]).await;
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(!out.lines().any(|l| l.starts_with("::")), "{out}");
    snapshot!("escaped_error", out);
}
