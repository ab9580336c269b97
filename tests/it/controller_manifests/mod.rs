//! The controller's deployment kit in examples/ci/kubernetes/controller/: the manifests read
//! strictly into the Kubernetes API's types (`strict`), the properties a safe deployment needs
//! (`deployment`), its command line against the controller's flags (`command`), the alert rules
//! through `promtool` and the dashboard's queries (`monitoring`), all over the metric names of
//! the controller's design; and the kit is `dnscron controller manifests`'s output (`generated`).
//! promtool's answers are recorded (`recorded`): `cargo test` needs no promtool.

mod accounts;
mod command;
mod deployment;
mod generated;
mod monitoring;
pub mod recorded;
mod strict;

use serde_json::Value;

use crate::common::repo_root;

pub const MANIFEST: &str = "examples/ci/kubernetes/controller/dnscron-controller.yaml";
pub const RULES: &str = "examples/ci/kubernetes/controller/dnscron-controller.rules.yaml";
pub const RULES_TEST: &str = "examples/ci/kubernetes/controller/dnscron-controller.rules.test.yaml";
pub const DASHBOARD: &str = "examples/ci/kubernetes/controller/dnscron-controller-dashboard.json";

/// What kind of series a metric is: a histogram's series carry `_bucket`, `_sum` and `_count`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MetricKind {
    Counter,
    Gauge,
    Histogram,
    Info,
}

/// The controller's metrics by the names Prometheus stores, each with its kind (what series a
/// query may name); `the_kinds_list_every_metric_the_binary_serves` holds it equal to the
/// binary's own list.
pub const DESIGN_METRICS: [(&str, MetricKind); 20] = [
    ("dnscron_build_info", MetricKind::Info),
    ("dnscron_controller_rounds_total", MetricKind::Counter),
    (
        "dnscron_controller_round_duration_seconds",
        MetricKind::Histogram,
    ),
    (
        "dnscron_controller_last_success_timestamp_seconds",
        MetricKind::Gauge,
    ),
    ("dnscron_controller_revision_info", MetricKind::Info),
    ("dnscron_controller_drift_changes", MetricKind::Gauge),
    ("dnscron_controller_findings", MetricKind::Gauge),
    ("dnscron_controller_api_requests_total", MetricKind::Counter),
    (
        "dnscron_controller_rate_limit_wait_seconds_total",
        MetricKind::Counter,
    ),
    ("dnscron_controller_suspended", MetricKind::Gauge),
    (
        "dnscron_controller_round_triggers_total",
        MetricKind::Counter,
    ),
    ("dnscron_controller_sweep_progress_ratio", MetricKind::Gauge),
    ("dnscron_controller_consecutive_failures", MetricKind::Gauge),
    ("dnscron_controller_backoff_seconds", MetricKind::Gauge),
    ("dnscron_controller_pending_portal_step", MetricKind::Gauge),
    ("dnscron_controller_desired_revision_info", MetricKind::Info),
    ("dnscron_controller_revision_kept_out", MetricKind::Gauge),
    (
        "dnscron_controller_revision_live_seconds",
        MetricKind::Histogram,
    ),
    (
        "dnscron_controller_webhook_failures_total",
        MetricKind::Counter,
    ),
    ("dnscron_controller_pending_nameservers", MetricKind::Gauge),
];

#[test]
fn the_kinds_list_every_metric_the_binary_serves() {
    let listed: Vec<&str> = DESIGN_METRICS.iter().map(|(name, _)| *name).collect();
    assert_eq!(listed, dnscron::cli::controller::metrics::METRIC_NAMES);
}

pub fn read(path: &str) -> String {
    std::fs::read_to_string(repo_root().join(path)).unwrap()
}

/// Every document of a multi-document YAML text, through the workspace's YAML reader.
pub fn documents(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple(text).unwrap()
}

/// The `dnscron_…` series a PromQL expression reads, each by its metric's design name (a
/// histogram's `_bucket` series as the histogram), or the name itself when the design has no
/// such metric.
pub fn metrics_in(expr: &str) -> Vec<String> {
    let mut names: Vec<String> = expr
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|word| word.starts_with("dnscron_"))
        .map(|series| design_name(series).unwrap_or(series).to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn design_name(series: &str) -> Option<&'static str> {
    DESIGN_METRICS.iter().find_map(|&(name, kind)| {
        let histogram_series = kind == MetricKind::Histogram
            && ["_bucket", "_sum", "_count"]
                .iter()
                .any(|suffix| series.strip_suffix(suffix) == Some(name));
        (series == name || histogram_series).then_some(name)
    })
}

/// The names [`metrics_in`] found that are not the design's.
pub fn unknown_metrics(names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|name| !DESIGN_METRICS.iter().any(|(known, _)| known == name))
        .cloned()
        .collect()
}

#[test]
fn series_are_named_by_their_design_metric() {
    assert_eq!(
        metrics_in(
            "histogram_quantile(0.9, sum by (le) (rate(dnscron_controller_round_duration_seconds_bucket[5m])))"
        ),
        ["dnscron_controller_round_duration_seconds"]
    );
    assert_eq!(
        metrics_in("time() - dnscron_controller_last_success_timestamp_seconds > 3 * 300"),
        ["dnscron_controller_last_success_timestamp_seconds"]
    );
    // A `_count` series of a gauge is no series of the design.
    let names = metrics_in("dnscron_controller_findings_count + dnscron_controller_suspended");
    assert_eq!(
        unknown_metrics(&names),
        ["dnscron_controller_findings_count"]
    );
}
