//! A real Prometheus server (the Debian package `prometheus`, 2.42 in CI) scraping a target, and
//! its HTTP API to ask it what it scraped. The harness is for every controller test that needs
//! "Prometheus reads this": the target up with no scrape error, then series by query.
//!
//! Prometheus reads the exposition with the parser the response's content type names, so a
//! target that is up with no `lastError` after answering `application/openmetrics-text` was
//! read whole by its OpenMetrics parser (`promtool check metrics` reads only the older text
//! format, so it can't stand in for this).
//!
//! Where the binary is missing the test says so and passes, except under `CI=true` (set by
//! `.ci/run`, which installs the package), where a missing server is a failure.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use dnscron::cli::controller::http::Shared;
use dnscron::cli::controller::metrics::{
    DriftKind, Metrics, RevisionSource, RoundOutcome, Trigger,
};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::Served;
use crate::common::emulator::client;

/// How long Prometheus gets to start, scrape the target once and report it (about 2 s on an idle
/// machine; CI shares two cores with the whole test suite).
const UP_DEADLINE: Duration = Duration::from_secs(90);
const POLL_EVERY: Duration = Duration::from_millis(100);

/// A Prometheus server with a scrape job of one target; killed when dropped.
pub struct Prometheus {
    child: Child,
    base: String,
    dir: tempfile::TempDir,
}

impl Prometheus {
    /// Starts Prometheus scraping `target` every second, or returns `None` (having said so) when
    /// there is no `prometheus` on PATH outside CI.
    pub fn start(target: SocketAddr) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("prometheus.yml");
        std::fs::write(&config, scrape_config(target)).unwrap();
        let log = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
        let listen = free_loopback_addr();
        let spawned = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={listen}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn();
        match spawned {
            Ok(child) => Some(Self {
                child,
                base: format!("http://{listen}"),
                dir,
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "no `prometheus` on PATH: CI must run the real-Prometheus tests (.ci/run installs \
                     the Debian package `prometheus`)"
                );
                eprintln!(
                    "skipped: no `prometheus` on PATH (the Debian package `prometheus` provides it)"
                );
                None
            }
            Err(error) => panic!("prometheus can't be started: {error}"),
        }
    }

    /// Waits until a scrape of the target succeeded (health `up`, no `lastError`), then returns
    /// the target as the API lists it; at the deadline, panics with the last scrape's error and
    /// the server's log. A failed scrape is waited past, not failed on at once: under load a
    /// first scrape may time out. This is the one real-time wait: Prometheus is another process
    /// on its own clock, so it is polled with a bounded deadline.
    pub async fn wait_for_scrape(&mut self) -> Value {
        let deadline = Instant::now() + UP_DEADLINE;
        let mut last_seen = Value::Null;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("prometheus exited ({status}):\n{}", self.log());
            }
            if let Some(target) = self.target().await {
                if target["health"] == "up" && target["lastError"] == "" {
                    return target;
                }
                last_seen = target;
            }
            assert!(
                Instant::now() < deadline,
                "no successful scrape within {UP_DEADLINE:?}; the target: {last_seen:#}\nprometheus said:\n{}",
                self.log()
            );
            tokio::time::sleep(POLL_EVERY).await;
        }
    }

    /// The one target as the API lists it; `None` while the server is starting (connection
    /// refused, its API not answering yet, or the target not discovered yet).
    async fn target(&self) -> Option<Value> {
        let response = client()
            .get(format!("{}/api/v1/targets", self.base))
            .send()
            .await
            .ok()?;
        let body: Value = response.json().await.ok()?;
        body["data"]["activeTargets"].as_array()?.first().cloned()
    }

    /// The instant vector `promql` evaluates to now: each element's `metric` (its labels) and
    /// `value` (`[time, "text"]`).
    pub async fn query(&self, promql: &str) -> Vec<Value> {
        let response = client()
            .get(format!("{}/api/v1/query", self.base))
            .query(&[("query", promql)])
            .send()
            .await
            .unwrap();
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["status"], "success", "{promql}: {body:#}");
        assert_eq!(body["data"]["resultType"], "vector", "{promql}: {body:#}");
        body["data"]["result"].as_array().unwrap().clone()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("prometheus.log")).unwrap_or_default()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scrape_config(target: SocketAddr) -> String {
    format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
         scrape_configs:\n  - job_name: dnscron-controller\n    static_configs:\n      - targets: ['{target}']\n"
    )
}

// Prometheus takes its address as a flag, so the port is found free and released for it; another
// process taking it in between would show as Prometheus failing to start, with its log.
fn free_loopback_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// `(labels without __name__, value)` of each element, sorted.
fn series(result: &[Value]) -> Vec<(Value, String)> {
    let mut series: Vec<(Value, String)> = result
        .iter()
        .map(|element| {
            let mut labels = element["metric"].clone();
            labels.as_object_mut().unwrap().remove("__name__");
            (labels, element["value"][1].as_str().unwrap().to_owned())
        })
        .collect();
    series.sort_by_key(|(labels, _)| labels.to_string());
    series
}

fn labels(pairs: &[(&str, &str)]) -> Value {
    let mut labels = serde_json::Map::new();
    labels.insert("instance".to_owned(), json!(null));
    for (name, value) in pairs {
        labels.insert((*name).to_owned(), json!(value));
    }
    labels.insert("job".to_owned(), json!("dnscron-controller"));
    Value::Object(labels)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_the_metrics_and_answers_queries() {
    let shared = Arc::new(Shared::new(Metrics::new()));
    let metrics = &shared.metrics;
    metrics.round_started(Trigger::Start);
    metrics.api_response("GET", "/dns/{zone}/records", Some(200));
    metrics.set_revision(
        "0123456789abcdef0123456789abcdef01234567",
        RevisionSource::Git,
    );
    metrics.set_drift(&[("example.org".to_owned(), DriftKind::Record, 2)]);
    metrics.round_finished(RoundOutcome::Converged, Duration::from_millis(1200));
    shared.set_ready();
    let served = Served::start(Arc::clone(&shared)).await;
    let Some(mut prometheus) = Prometheus::start(served.addr) else {
        return;
    };
    let instance = served.addr.to_string();

    let target = prometheus.wait_for_scrape().await;
    assert_eq!(target["scrapeUrl"], format!("http://{instance}/metrics"));
    let with_instance = |pairs: &[(&str, &str)]| {
        let mut expected = labels(pairs);
        expected["instance"] = json!(instance);
        expected
    };

    assert_eq!(
        series(&prometheus.query("up").await),
        [(with_instance(&[]), "1".to_owned())]
    );
    assert_eq!(
        series(&prometheus.query("dnscron_controller_revision_info").await),
        [(
            with_instance(&[
                ("revision", "0123456789abcdef0123456789abcdef01234567"),
                ("source", "git")
            ]),
            "1".to_owned()
        )]
    );
    assert_eq!(
        series(&prometheus.query("dnscron_controller_rounds_total").await),
        ["converged", "drift", "error", "held", "pending"].map(|outcome| (
            with_instance(&[("outcome", outcome)]),
            if outcome == "converged" { "1" } else { "0" }.to_owned()
        ))
    );
    assert_eq!(
        series(&prometheus.query("dnscron_controller_drift_changes").await),
        [(
            with_instance(&[("kind", "record"), ("target", "example.org")]),
            "2".to_owned()
        )]
    );
    assert_eq!(
        series(
            &prometheus
                .query("dnscron_controller_round_duration_seconds_count")
                .await
        ),
        [(with_instance(&[]), "1".to_owned())]
    );
    // As on SIGTERM in a pod: the server stops while Prometheus still holds its connection.
    served.stop().await.unwrap();
    drop(prometheus);
}

// The label escaping, read back by Prometheus's own OpenMetrics parser: a revision id with a
// quote, a backslash and a newline (refused by the core, which takes hex ids only) comes back as
// it went in, one series, and forges no other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_reads_escaped_label_values_back_as_they_were() {
    let hostile = "a\"b\\c\nforged_metric 1";
    let shared = Arc::new(Shared::new(Metrics::new()));
    shared.metrics.set_revision(hostile, RevisionSource::Digest);
    let served = Served::start(Arc::clone(&shared)).await;
    let Some(mut prometheus) = Prometheus::start(served.addr) else {
        return;
    };

    prometheus.wait_for_scrape().await;
    let revisions = prometheus.query("dnscron_controller_revision_info").await;
    assert_eq!(revisions.len(), 1, "{revisions:#?}");
    assert_eq!(revisions[0]["metric"]["revision"], hostile);
    assert_eq!(prometheus.query("forged_metric").await, Vec::<Value>::new());
    drop(prometheus);
    served.stop().await.unwrap();
}
