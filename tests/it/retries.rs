//! Retries on stderr (issue 29, item 3): with the API down, one line sums the retries up before
//! the error, so the plan recipe's PR comment carries no retry noise; `-v` logs each retry.

use crate::common::emulator::example_emulator;
use crate::common::{Test, assert_cli_snapshot};

/// A loopback port nothing listens on: it was free a moment ago.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One zone: its records and the domain list are the plan's only reads, each retried to the
/// end (more zones would end the plan at the first read that gives up, the others cut short
/// wherever they are, and the count would vary).
fn one_zone() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let zone = "zone: one.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n";
    std::fs::write(dir.path().join("one.yaml"), zone).unwrap();
    dir
}

fn plan_against(dir: &tempfile::TempDir, url: &str, extra: &[&str]) -> Test {
    Test::new()
        .current_dir(dir.path())
        .args(["plan", "one.yaml"])
        .args(extra)
        .api(url, "demo-token")
        .plan_stamp()
        .expect_status(1)
}

#[test]
fn with_the_api_down_stderr_is_one_summary_line_and_the_error() {
    let (dir, url) = (
        one_zone(),
        format!("http://127.0.0.1:{}/api/v1", closed_port()),
    );
    assert_cli_snapshot!(plan_against(&dir, &url, &[]));
}

#[test]
fn with_v_each_retry_has_its_line_and_the_summary_follows() {
    let (dir, url) = (
        one_zone(),
        format!("http://127.0.0.1:{}/api/v1", closed_port()),
    );
    let out = plan_against(&dir, &url, &["-v"]).snapshot();
    // Concurrent reads fail alike: as many lines as the summary counts retries.
    let retries: Vec<&str> = out.lines().filter(|l| l.contains("retrying in")).collect();
    for line in &retries {
        assert!(
            line.starts_with(" WARN dnscron_api::retry: GET /")
                && line.contains("Connection refused")
                && line.ends_with(" of 5)"),
            "{line}"
        );
    }
    let summary = format!(
        " WARN dnscron::cli::retries: retried {} requests {} times (connection refused) over ",
        out.lines()
            .filter(|l| l.ends_with("(attempt 2 of 5)"))
            .count(),
        retries.len()
    );
    assert!(out.contains(&summary), "{summary}\n{out}");
}

#[test]
fn writes_answered_502_every_time_end_with_one_summary_line() {
    let emu = example_emulator();
    emu.set_upstream_error_share(1.0);
    let apply = Test::new()
        .args(["apply", "--yes", "examples/dns"])
        .api(&emu.base_url(), "demo-token")
        .plan_stamp();
    assert_cli_snapshot!(apply);
}
