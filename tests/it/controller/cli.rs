//! `dnscron controller` as a process: `--once` and its exit codes against the example account,
//! its words, its help, and a real Prometheus scraping a running controller that SIGTERM stops
//! with exit 0.

use std::path::Path;

use crate::common::emulator::example_emulator;
use crate::common::{Test, assert_cli_snapshot, copy_examples};

#[cfg(feature = "live-tools")]
use super::prometheus::Prometheus;

fn once(base_url: &str, dir: &Path, policy: &str) -> Test {
    Test::new()
        .current_dir(dir)
        .args([
            "controller",
            "repo",
            "--once",
            "--state-file",
            "state.json",
            "--policy",
            policy,
        ])
        .api(base_url, "demo-token")
}

/// The first start takes the files as the base and reports the account's drift (exit 2);
/// `heal` reverts it (exit 0); then the default policy finds it in sync (exit 0).
#[test]
fn once_reports_drift_heal_reverts_it_and_the_next_round_is_in_sync() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    assert_cli_snapshot!(
        "once_first_start",
        once(&emu.base_url(), tmp.path(), "apply").expect_status(2)
    );
    assert_cli_snapshot!("once_heal", once(&emu.base_url(), tmp.path(), "heal"));
    assert_cli_snapshot!("once_in_sync", once(&emu.base_url(), tmp.path(), "apply"));
}

/// A merged revision under `--once`: applied from the converged one, drift left alone.
#[test]
fn once_applies_a_merged_revision_and_leaves_drift_alone() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    copy_examples(&repo);
    assert_cli_snapshot!(
        "once_first_start",
        once(&emu.base_url(), tmp.path(), "apply").expect_status(2)
    );
    let zone = repo.join("zones/example.com.yaml");
    let text = std::fs::read_to_string(&zone).unwrap();
    let text = text.replace(
        "records:\n",
        "records:\n  - { name: api, type: A, content: \"192.0.2.7\" }\n",
    );
    std::fs::write(&zone, text).unwrap();
    assert_cli_snapshot!(
        "once_merged_revision",
        once(&emu.base_url(), tmp.path(), "apply").expect_status(2)
    );
}

#[test]
fn help_describes_every_flag_and_policy() {
    assert_cli_snapshot!(Test::new().args(["controller", "--help"]));
}

/// A state file that is not ours: said once, and the controller starts as on a first start.
#[test]
fn an_unreadable_state_file_is_said_and_the_start_is_a_first_one() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    std::fs::write(tmp.path().join("state.json"), "{\"state_version\": 7}").unwrap();
    assert_cli_snapshot!(once(&emu.base_url(), tmp.path(), "apply").expect_status(2));
}

/// A real Prometheus scrapes a running controller: the target is up with no scrape error, the
/// applied revision and the round counter come back by query; SIGTERM then ends the process
/// with exit 0. A live test (cargo feature `live-tools`): a running controller's exposition has
/// times in it, so there is no recording to compare with.
#[cfg(feature = "live-tools")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_a_running_controller_that_sigterm_stops_cleanly() {
    use std::process::Stdio;
    use std::time::Duration;

    use crate::common::{command, send_signal};

    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let listen = format!("127.0.0.1:{port}");
    let child = command()
        .current_dir(tmp.path())
        .args([
            "controller",
            "repo",
            "--state-file",
            "state.json",
            "--listen",
            &listen,
        ])
        .env("DNSCRON_API_URL", emu.base_url())
        .env("DNSCRON_TOKEN", "demo-token")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut prometheus = Prometheus::start(listen.parse().unwrap());
    prometheus.wait_for_scrape().await;
    // The first round (the base taken, the sweep) is over once the round counter shows it.
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let rounds = loop {
        let found = prometheus
            .query("sum(dnscron_controller_rounds_total)")
            .await;
        let n: f64 = found
            .first()
            .and_then(|s| s["value"][1].as_str())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        if n >= 2.0 {
            break n;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no round counted: {found:?}"
        );
        // The scrape interval is 1 s: the one real-time wait, on another process.
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(rounds >= 2.0);
    let revision = prometheus.query("dnscron_controller_revision_info").await;
    assert_eq!(revision.len(), 1, "{revision:?}");
    assert_eq!(revision[0]["metric"]["source"], "digest");
    assert!(
        revision[0]["metric"]["revision"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    send_signal(child.id(), "TERM");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("SIGTERM: finishing the write in flight, then stopping"),
        "{stderr}"
    );
}

/// Drift is posted to the webhook once, as Slack's `{"text": …}`; the URL, a secret, is in no
/// output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drift_is_posted_to_the_webhook_once_and_its_url_is_never_printed() {
    use axum::routing::post;
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = std::sync::Arc::clone(&received);
    let app = axum::Router::new().route(
        "/hooks/T000/B000/secret-part",
        post(move |body: String| async move {
            sink.lock().unwrap().push(body);
            "ok"
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/hooks/T000/B000/secret-part",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    std::fs::write(tmp.path().join("webhook-url"), format!("{url}\n")).unwrap();
    let base_url = emu.base_url();
    let dir = tmp.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        once(&base_url, &dir, "apply")
            .args(["--webhook-url-file", "webhook-url"])
            .expect_status(2)
            .snapshot()
    })
    .await
    .unwrap();
    assert!(!out.contains("secret-part"), "{out}");
    let bodies = received.lock().unwrap().clone();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let body: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(
        body,
        serde_json::json!({
            "text": "dnscron: revision sha256:81dfdffabbf0: drift: 10 changes in 5 targets not in the files (not reverted unless the policy is heal): zone example.com (5), zone example.org (1), domain example.org (1), site blog (1), site shop (2)"
        })
    );
}
