//! A real Prometheus server (the Debian package `prometheus`, 2.42 in CI) scraping a target, and
//! its HTTP API to ask it what it scraped. The harness is for every controller test that needs
//! "Prometheus reads this": the target up with no scrape error, then series by query.
//!
//! Prometheus reads the exposition with the parser the response's content type names, so a
//! target that is up with no `lastError` after answering `application/openmetrics-text` was
//! read whole by its OpenMetrics parser (`promtool check metrics` reads only the older text
//! format, so it can't stand in for this).
//!
//! The tests read what the server answered (tests/it/controller/recorded/, made by
//! tests/recorders/prometheus.sh) for the same exposition, so they need no Prometheus; the
//! server runs only in the `live` module (the cargo feature `live-tools`), which asks every
//! recorded question again and fails when a recording is stale. promtool's verdict on the
//! classic text format is recorded the same way.

#[cfg(feature = "live-tools")]
use std::net::SocketAddr;
#[cfg(feature = "live-tools")]
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use dnscron::cli::controller::http::Shared;
use dnscron::cli::controller::metrics::{BROKEN, DriftKind, Metrics, RevisionSource};
use dnscron_core::controller::{KeptOutReason, RoundOutcome, Trigger};
use serde_json::{Value, json};
#[cfg(feature = "live-tools")]
use tokio::time::Instant;

#[cfg(feature = "live-tools")]
use super::Served;
#[cfg(feature = "live-tools")]
use crate::common::emulator::client;
use crate::controller_manifests::recorded::{Answer, Promtool};

#[cfg(feature = "live-tools")]
/// How long Prometheus gets to start, scrape the target once and report it (about 2 s on an idle
/// machine; CI shares two cores with the whole test suite).
const UP_DEADLINE: Duration = Duration::from_secs(90);
#[cfg(feature = "live-tools")]
const POLL_EVERY: Duration = Duration::from_millis(100);

#[cfg(feature = "live-tools")]
/// A Prometheus server with a scrape job of one target; killed when dropped.
pub struct Prometheus {
    child: Child,
    base: String,
    dir: tempfile::TempDir,
}

#[cfg(feature = "live-tools")]
impl Prometheus {
    /// Starts Prometheus scraping `target` every second.
    pub fn start(target: SocketAddr) -> Self {
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
        let child = spawned
            .expect("the live tests need `prometheus` on PATH (the Debian package prometheus)");
        Self {
            child,
            base: format!("http://{listen}"),
            dir,
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

#[cfg(feature = "live-tools")]
impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(feature = "live-tools")]
fn scrape_config(target: SocketAddr) -> String {
    format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
         scrape_configs:\n  - job_name: dnscron-controller\n    static_configs:\n      - targets: ['{target}']\n"
    )
}

#[cfg(feature = "live-tools")]
// Prometheus takes its address as a flag, so the port is found free and released for it; another
// process taking it in between would show as Prometheus failing to start, with its log.
fn free_loopback_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// `(labels without __name__, value)` of each element, sorted; the target's address (a free
/// port, other on every run) as `INSTANCE`.
#[cfg(feature = "live-tools")]
fn series(result: &[Value]) -> Vec<(Value, String)> {
    let mut series: Vec<(Value, String)> = result
        .iter()
        .map(|element| {
            let mut labels = element["metric"].clone();
            let labels_map = labels.as_object_mut().unwrap();
            labels_map.remove("__name__");
            if labels_map.contains_key("instance") {
                labels_map.insert("instance".to_owned(), json!("INSTANCE"));
            }
            (labels, element["value"][1].as_str().unwrap().to_owned())
        })
        .collect();
    series.sort_by_key(|(labels, _)| labels.to_string());
    series
}

/// What Prometheus answers to each of `queries` after scraping `shared`'s `/metrics`, recorded
/// at `recording`. The recording's input is the exposition served and the queries.
struct Scrape {
    recording: &'static str,
    shared: Arc<Shared>,
    queries: &'static [&'static str],
}

impl Scrape {
    fn input(&self) -> String {
        format!(
            "{}\n--- queries\n{}",
            self.shared.metrics.encode(),
            self.queries.join("\n")
        )
    }

    /// The recorded answers, by query.
    fn recorded(&self) -> serde_json::Map<String, Value> {
        let answer = crate::controller_manifests::recorded::recorded(
            self.recording,
            self.input().as_bytes(),
        );
        match serde_json::from_str(&answer.output) {
            Ok(Value::Object(answers)) => answers,
            other => panic!("{}: not the answers of a scrape: {other:?}", self.recording),
        }
    }

    /// Asks a Prometheus server now and compares its answers with the recording (or writes
    /// them, under `DNSCRON_RECORD_ANSWERS=1`).
    #[cfg(feature = "live-tools")]
    async fn ask(self) {
        let input = self.input();
        let served = Served::start(Arc::clone(&self.shared)).await;
        let mut prometheus = Prometheus::start(served.addr);
        let target = prometheus.wait_for_scrape().await;
        assert_eq!(
            target["scrapeUrl"],
            format!("http://{}/metrics", served.addr)
        );
        let mut answers = serde_json::Map::new();
        for query in self.queries {
            let found = series(&prometheus.query(query).await);
            answers.insert((*query).to_owned(), json!(found));
        }
        // As on SIGTERM in a pod: the server stops while Prometheus still holds its connection.
        served.stop().await.unwrap();
        drop(prometheus);
        let answer = Answer {
            exit: 0,
            output: format!("{:#}\n", Value::Object(answers)),
        };
        crate::controller_manifests::recorded::record_or_compare(
            self.recording,
            "prometheus (its HTTP API, after one good scrape)",
            input.as_bytes(),
            &answer,
        );
    }
}

/// The labels of a series Prometheus stored from the target: the job and instance it adds.
fn labels(pairs: &[(&str, &str)]) -> Value {
    let mut labels = serde_json::Map::new();
    labels.insert("instance".to_owned(), json!("INSTANCE"));
    for (name, value) in pairs {
        labels.insert((*name).to_owned(), json!(value));
    }
    labels.insert("job".to_owned(), json!("dnscron-controller"));
    Value::Object(labels)
}

fn one(labels: Value, value: &str) -> Value {
    json!([[labels, value]])
}

/// A controller after a round, and the queries that read each of its families back.
fn busy_scrape() -> Scrape {
    let shared = Arc::new(Shared::new(Metrics::new()));
    let metrics = &shared.metrics;
    metrics.round_started(Trigger::Start.name());
    metrics.api_response("GET", "/dns/{zone}/records", Some(200));
    metrics.set_revision(
        "0123456789abcdef0123456789abcdef01234567",
        RevisionSource::Git,
    );
    metrics.set_desired_revision(
        "89abcdef0123456789abcdef0123456789abcdef",
        RevisionSource::Git,
    );
    metrics.set_kept_out(BROKEN, true);
    metrics.set_drift(&[("example.org".to_owned(), DriftKind::Record, 2)]);
    metrics.round_finished(RoundOutcome::Converged.name(), Duration::from_millis(4));
    shared.set_ready();
    let queries = &[
        "up",
        "dnscron_build_info",
        "dnscron_controller_revision_info",
        "dnscron_controller_desired_revision_info",
        "dnscron_controller_revision_kept_out",
        "dnscron_controller_rounds_total",
        "dnscron_controller_drift_changes",
        "dnscron_controller_round_duration_seconds_bucket{le=\"0.005\"}",
    ];
    Scrape {
        recording: concat!("tests/it/controller/recorded", "/scrape.txt"),
        shared,
        queries,
    }
}

#[test]
fn prometheus_scrapes_the_metrics_and_answers_queries() {
    let answers = busy_scrape().recorded();
    assert_eq!(answers["up"], one(labels(&[]), "1"));
    assert_eq!(
        answers["dnscron_build_info"],
        one(labels(&[("version", env!("CARGO_PKG_VERSION"))]), "1")
    );
    assert_eq!(
        answers["dnscron_controller_revision_info"],
        one(
            labels(&[
                ("revision", "0123456789abcdef0123456789abcdef01234567"),
                ("source", "git")
            ]),
            "1"
        )
    );
    assert_eq!(
        answers["dnscron_controller_desired_revision_info"],
        one(
            labels(&[
                ("revision", "89abcdef0123456789abcdef0123456789abcdef"),
                ("source", "git")
            ]),
            "1"
        )
    );
    assert_eq!(
        answers["dnscron_controller_revision_kept_out"],
        json!(["broken", "conflicted", "held", "refused"].map(|reason| (
            labels(&[("reason", reason)]),
            if reason == "broken" { "1" } else { "0" }
        )))
    );
    assert_eq!(
        answers["dnscron_controller_rounds_total"],
        json!(
            [
                "baseline",
                "conflicted",
                "converged",
                "drift",
                "error",
                "held",
                "pending",
                "refused"
            ]
            .map(|outcome| (
                labels(&[("outcome", outcome)]),
                if outcome == "converged" { "1" } else { "0" }
            ))
        )
    );
    assert_eq!(
        answers["dnscron_controller_drift_changes"],
        one(
            labels(&[("kind", "record"), ("target", "example.org")]),
            "2"
        )
    );
    // A 4 ms round is in the 5 ms bucket: the buckets start at 1 ms.
    assert_eq!(
        answers["dnscron_controller_round_duration_seconds_bucket{le=\"0.005\"}"],
        one(labels(&[("le", "0.005")]), "1")
    );
}

// The label escaping, read back by Prometheus's own OpenMetrics parser: a revision id with a
// quote, a backslash and a newline (refused by the core, which takes hex ids only) comes back as
// it went in, one series, and forges no other.
#[test]
fn prometheus_reads_escaped_label_values_back_as_they_were() {
    let answers = escaped_scrape().recorded();
    assert_eq!(
        answers["dnscron_controller_revision_info"],
        one(labels(&[("revision", HOSTILE), ("source", "digest")]), "1")
    );
    assert_eq!(answers["forged_metric"], json!([]));
}

const HOSTILE: &str = "a\"b\\c\nforged_metric 1";

/// A revision id with a quote, a backslash and a newline.
fn escaped_scrape() -> Scrape {
    let shared = Arc::new(Shared::new(Metrics::new()));
    shared.metrics.set_revision(HOSTILE, RevisionSource::Digest);
    Scrape {
        recording: concat!("tests/it/controller/recorded", "/scrape-escaped.txt"),
        shared,
        queries: &["dnscron_controller_revision_info", "forged_metric"],
    }
}

/// The metrics of a controller after a few rounds, for promtool to read.
fn busy_metrics() -> Metrics {
    let metrics = Metrics::new();
    metrics.round_started(Trigger::Start.name());
    metrics.api_response("GET", "/dns/{zone}/records", Some(200));
    metrics.api_response("PUT", "/dns/{zone}/records/{record}", None);
    metrics.set_revision(
        "0123456789abcdef0123456789abcdef01234567",
        RevisionSource::Git,
    );
    metrics.set_desired_revision(
        "89abcdef0123456789abcdef0123456789abcdef",
        RevisionSource::Git,
    );
    metrics.set_kept_out(KeptOutReason::Conflicted.name(), true);
    metrics.set_drift(&[("example.org".to_owned(), DriftKind::Record, 2)]);
    metrics.set_findings(1, 2, 3);
    metrics.rate_limit_wait(Duration::from_millis(1500));
    metrics.set_sweep_progress(3, 4);
    metrics.set_backoff(2, Duration::from_millis(1500));
    metrics.revision_live(Duration::from_millis(700));
    metrics.webhook_failed();
    metrics.succeeded_at(1_790_000_000.0);
    metrics.round_finished(RoundOutcome::Conflicted.name(), Duration::from_millis(12));
    metrics
}

fn check_metrics(recording: &'static str, exposition: String) -> Promtool {
    Promtool {
        recording,
        args: &["check", "metrics"],
        files: Vec::new(),
        stdin: exposition,
    }
}

/// The classic text format, checked.
fn classic_check() -> Promtool {
    check_metrics(
        concat!("tests/it/controller/recorded", "/check-metrics.txt"),
        busy_metrics().encode_classic(),
    )
}

/// The OpenMetrics text, checked as the classic format.
fn openmetrics_check() -> Promtool {
    check_metrics(
        concat!(
            "tests/it/controller/recorded",
            "/check-metrics-openmetrics.txt"
        ),
        busy_metrics().encode(),
    )
}

/// What a client asking for the classic text format gets passes `promtool check metrics`
/// (which reads that format only), lints included.
#[test]
fn the_classic_exposition_passes_promtool_check_metrics() {
    let answer = classic_check().recorded();
    assert_eq!(
        answer,
        Answer {
            exit: 0,
            output: String::new()
        }
    );
}

/// The refused form: promtool really reads it; the OpenMetrics text, its counter families named
/// without `_total`, is not the classic format.
#[test]
fn promtool_check_metrics_refuses_what_is_not_the_classic_format() {
    let answer = openmetrics_check().recorded();
    assert_ne!(answer.exit, 0, "{}", answer.output);
}

/// Prometheus and promtool asked again every question above (the feature `live-tools`): each
/// recording is what they answer today, and every recording in the folder is asked.
#[cfg(feature = "live-tools")]
mod live {
    use crate::controller_manifests::recorded::assert_every_recording_asked;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn prometheus_and_promtool_answer_as_recorded() {
        let (classic, openmetrics) = (super::classic_check(), super::openmetrics_check());
        classic.ask();
        openmetrics.ask();
        let (busy, escaped) = (super::busy_scrape(), super::escaped_scrape());
        let asked = [
            classic.recording,
            openmetrics.recording,
            busy.recording,
            escaped.recording,
        ];
        busy.ask().await;
        escaped.ask().await;
        assert_every_recording_asked("tests/it/controller/recorded", &asked);
    }
}
