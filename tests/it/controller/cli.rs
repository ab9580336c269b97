//! `dnscron controller` as a process: `--once` and its exit codes against the example account,
//! its words, its help, and a real Prometheus scraping a running controller that SIGTERM stops
//! with exit 0.

use std::path::Path;

use crate::common::emulator::example_emulator;
use crate::common::{Test, assert_cli_snapshot, copy_examples};

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

#[cfg(feature = "live-tools")]
mod live {
    use super::*;
    use crate::controller::prometheus::Prometheus;

    /// A real Prometheus scrapes a running controller: the target is up with no scrape error, the
    /// applied revision and the round counter come back by query; SIGTERM then ends the process
    /// with exit 0. A live test (cargo feature `live-tools`): a running controller's exposition has
    /// times in it, so there is no recording to compare with.
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
            "text": "dnscron: revision sha256:81dfdffabbf0: drift: the live account differs from the files in 10 changes in 5 targets (not reverted unless the policy is heal): zone example.com (5), zone example.org (1), domain example.org (1), site blog (1), site shop (2)"
        })
    );
}

/// One controller per state file: while another holds its lock, a second one exits 1 naming
/// the holder's pid and host, and writes nothing; once the holder ends, it starts.
#[test]
fn a_second_controller_on_the_same_state_file_exits_1_naming_the_holder() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    let held =
        dnscron_core::controller::StateLock::acquire(&tmp.path().join("state.json")).unwrap();
    let out = once(&emu.base_url(), tmp.path(), "apply").snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    let holder = format!("(pid {} on host ", std::process::id());
    assert!(
        out.contains("another controller holds the lock state.json.lock ") && out.contains(&holder),
        "{out}"
    );
    assert!(
        out.contains("hint: stop the other controller first"),
        "{out}"
    );
    assert!(!tmp.path().join("state.json").exists());
    assert_eq!(
        emu.counters()
            .per_route
            .keys()
            .filter(|r| !r.starts_with("GET "))
            .count(),
        0
    );
    drop(held);
    let out = once(&emu.base_url(), tmp.path(), "apply").snapshot();
    assert!(out.starts_with("exit: Some(2)\n"), "{out}");
}

/// `--adopt-revision` with the 12 digits the logs print adopts the folder's commit on a first
/// start; an id the folder's history does not name is exit 1 with what to do, nothing written.
#[test]
fn adopt_revision_takes_a_short_id_and_refuses_one_not_in_the_history() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    copy_examples(&repo);
    let commit = "5f3c0a9e1b7d4c2a8e6f0b1d3c5a7e9f1b3d5c7a";
    std::fs::create_dir_all(repo.join(".git/refs/heads")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(repo.join(".git/refs/heads/main"), format!("{commit}\n")).unwrap();
    let unknown = once(&emu.base_url(), tmp.path(), "apply")
        .args(["--adopt-revision", "abcdef012345"])
        .snapshot();
    assert!(unknown.starts_with("exit: Some(1)\n"), "{unknown}");
    assert!(
        unknown.contains("revision `abcdef012345` is not in the folder's history"),
        "{unknown}"
    );
    assert!(
        unknown.contains("hint: pass the id the logs or /status name"),
        "{unknown}"
    );
    assert!(!tmp.path().join("state.json").exists());
    let adopted = once(&emu.base_url(), tmp.path(), "apply")
        .args(["--adopt-revision", &commit[..12]])
        .snapshot();
    assert!(
        adopted.contains(&format!("revision {} is adopted", &commit[..19])),
        "{adopted}"
    );
    assert!(adopted.starts_with("exit: Some(0)\n"), "{adopted}");
    assert!(
        adopted.contains("revision 5f3c0a9e1b7d: 10 changes applied over 7 targets"),
        "{adopted}"
    );
    let state = std::fs::read_to_string(tmp.path().join("state.json")).unwrap();
    assert!(state.contains(commit), "{state}");
}

/// `--log-format json`: each round's line carries its fields (revision, round, trigger, work,
/// outcome, targets, duration, error code) for log pipelines; a failed round its error code.
#[test]
fn json_log_lines_carry_the_rounds_fields() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    let out = once(&emu.base_url(), tmp.path(), "apply")
        .args(["--log-format", "json"])
        .snapshot();
    let rounds: Vec<serde_json::Value> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v.get("outcome").is_some())
        .collect();
    let fields = |v: &serde_json::Value| {
        let text = |k: &str| v[k].as_str().unwrap().to_string();
        (
            v["round"].as_u64().unwrap(),
            text("trigger"),
            text("work"),
            text("outcome"),
            v["targets"].as_u64().unwrap(),
            text("error_code"),
        )
    };
    let seen: Vec<_> = rounds.iter().map(fields).collect();
    assert_eq!(
        seen,
        [
            (
                1,
                "start".into(),
                "adopted".into(),
                "baseline".into(),
                0,
                String::new()
            ),
            (
                2,
                "interval".into(),
                "swept".into(),
                "drift".into(),
                7,
                String::new()
            ),
        ],
        "{out}"
    );
    for round in &rounds {
        let revision = round["revision"].as_str().unwrap();
        assert!(
            revision.starts_with("sha256:") && revision.len() == 71,
            "{round}"
        );
        assert!(round["duration_seconds"].as_f64().unwrap() >= 0.0);
    }
    // A round that fails names what failed (a token revoked: refused at once, no retry).
    emu.handle().set_token_revoked("demo-token", true);
    let out = once(&emu.base_url(), tmp.path(), "apply")
        .args(["--log-format", "json"])
        .snapshot();
    let failed: Vec<serde_json::Value> = out
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["outcome"] == "error")
        .collect();
    assert_eq!(failed.len(), 1, "{out}");
    assert_eq!(failed[0]["error_code"], "account", "{out}");
}

/// `--interval` below a second is refused before anything starts (docs/controller.md, Flags);
/// `1s` is accepted (the `--once` run exits as a round does).
#[test]
fn an_interval_below_a_second_is_refused_and_one_second_accepted() {
    let emu = example_emulator();
    let tmp = tempfile::tempdir().unwrap();
    copy_examples(&tmp.path().join("repo"));
    assert_cli_snapshot!(
        "interval_below_a_second",
        once(&emu.base_url(), tmp.path(), "apply")
            .args(["--interval", "999ms"])
            .expect_status(1)
    );
    assert_cli_snapshot!(
        "interval_of_a_second",
        once(&emu.base_url(), tmp.path(), "apply")
            .args(["--interval", "1s"])
            .expect_status(2)
    );
}
