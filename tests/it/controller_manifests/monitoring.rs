//! The alert rules and the dashboard: valid for Prometheus (`promtool check rules`, from the
//! Debian package `prometheus` that .ci/run installs), over the design's metrics only, and
//! covering what a team watches.

use std::path::PathBuf;
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use super::{DASHBOARD, DESIGN_METRICS, RULES, metrics_in, read, unknown_metrics};
use crate::common::repo_root;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    groups: Vec<RuleGroup>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleGroup {
    name: String,
    rules: Vec<AlertRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AlertRule {
    alert: String,
    expr: String,
    #[serde(rename = "for")]
    pending_for: Option<String>,
    labels: Labels,
    annotations: Annotations,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Labels {
    severity: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Annotations {
    summary: String,
    description: String,
    runbook_url: String,
}

/// promtool from PATH. Missing, the caller skips, except under `CI=true`, where .ci/run has
/// installed it and its absence is a failure.
fn promtool() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("promtool"))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "promtool is not on PATH; .ci/run installs the Debian package prometheus"
        );
        eprintln!("skipped: promtool is not on PATH (Debian package prometheus)");
    }
    found
}

/// `promtool check rules` on `text`: its exit status and what it printed.
fn check_rules(promtool: &PathBuf, text: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rules.yaml");
    std::fs::write(&file, text).unwrap();
    let out = Command::new(promtool)
        .args(["check", "rules"])
        .arg(&file)
        .output()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), printed)
}

fn rules() -> Vec<AlertRule> {
    let file: RuleFile = serde_saphyr::from_str(&read(RULES)).unwrap();
    assert_eq!(file.groups.len(), 1);
    assert_eq!(file.groups[0].name, "dnscron-controller");
    file.groups.into_iter().flat_map(|g| g.rules).collect()
}

#[test]
fn the_rules_pass_promtool() {
    let Some(promtool) = promtool() else { return };
    let (ok, printed) = check_rules(&promtool, &read(RULES));
    assert!(ok, "{printed}");
    assert!(printed.contains("SUCCESS: 5 rules found"), "{printed}");
}

/// The refused form: promtool is really reading the expressions.
#[test]
fn promtool_refuses_a_broken_expression() {
    let Some(promtool) = promtool() else { return };
    let text = read(RULES).replace(
        "expr: dnscron_controller_drift_changes > 0",
        "expr: dnscron_controller_drift_changes > > 0",
    );
    let (ok, printed) = check_rules(&promtool, &text);
    assert!(!ok, "{printed}");
    assert!(printed.contains("FAILED"), "{printed}");
}

#[test]
fn the_rules_alert_on_what_the_design_names() {
    let rules = rules();
    let shown: Vec<String> = rules
        .iter()
        .map(|r| {
            format!(
                "{} [{}] for {}: {}",
                r.alert,
                r.labels.severity,
                r.pending_for.as_deref().unwrap_or("0s"),
                r.expr
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "DnscronDriftPending [warning] for 1h: dnscron_controller_drift_changes > 0",
            "DnscronNoSuccessfulRound [critical] for 0s: time() - dnscron_controller_last_success_timestamp_seconds > 3 * 300",
            "DnscronErrorFindings [warning] for 15m: dnscron_controller_findings{level=\"error\"} > 0",
            "DnscronWritesSuspended [warning] for 1d: dnscron_controller_suspended == 1",
            "DnscronPortalStepPending [warning] for 15m: dnscron_controller_pending_portal_step == 1",
        ]
    );
    for rule in &rules {
        assert_eq!(
            unknown_metrics(&metrics_in(&rule.expr)),
            Vec::<String>::new()
        );
        assert!(!rule.annotations.summary.is_empty(), "{}", rule.alert);
        assert!(!rule.annotations.description.is_empty(), "{}", rule.alert);
    }
    // The threshold's 300 is explained where the alert is read.
    let no_success = &rules[1].annotations.description;
    assert!(no_success.contains("--interval of 5m"), "{no_success}");
}

/// Each runbook link leads to a heading that exists.
#[test]
fn the_runbook_links_lead_to_headings() {
    for rule in rules() {
        let url = &rule.annotations.runbook_url;
        let target = url
            .strip_prefix("https://github.com/dnscron/dnscron/blob/main/")
            .unwrap_or_else(|| panic!("{url}"));
        let (file, anchor) = target.split_once('#').unwrap();
        let doc = std::fs::read_to_string(repo_root().join(file)).unwrap();
        assert!(
            headings(&doc).iter().any(|h| h == anchor),
            "{}: no heading #{anchor} in {file}",
            rule.alert
        );
    }
}

/// GitHub's anchors of a Markdown text's headings.
fn headings(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_rule_over_a_metric_the_design_lacks_is_caught() {
    let names = metrics_in("dnscron_controller_drift_change > 0");
    assert_eq!(unknown_metrics(&names), ["dnscron_controller_drift_change"]);
}

fn dashboard() -> Value {
    serde_json::from_str(&read(DASHBOARD)).unwrap()
}

/// Every query of the dashboard, with the panel it belongs to.
fn queries(dashboard: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            out.push((
                panel["title"].as_str().unwrap().to_string(),
                target["expr"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

#[test]
fn the_dashboard_reads_the_design_metrics_through_its_datasource_variable() {
    let dashboard = dashboard();
    assert!(dashboard["schemaVersion"].as_u64().unwrap() >= 39);
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    let datasource = variables
        .iter()
        .find(|v| v["name"] == "datasource")
        .unwrap();
    assert_eq!(
        (&datasource["type"], &datasource["query"]),
        (&Value::from("datasource"), &Value::from("prometheus"))
    );
    let prometheus = serde_json::json!({"type": "prometheus", "uid": "${datasource}"});
    for panel in dashboard["panels"].as_array().unwrap() {
        assert_eq!(panel["datasource"], prometheus, "{}", panel["title"]);
        for target in panel["targets"].as_array().unwrap() {
            assert_eq!(target["datasource"], prometheus, "{}", panel["title"]);
        }
    }
    let mut used: Vec<String> = Vec::new();
    for (title, expr) in queries(&dashboard) {
        let names = metrics_in(&expr);
        assert_eq!(unknown_metrics(&names), Vec::<String>::new(), "{title}");
        used.extend(names);
    }
    used.sort();
    used.dedup();
    let all: Vec<&str> = DESIGN_METRICS.iter().map(|(name, _)| *name).collect();
    let mut all = all.into_iter().map(String::from).collect::<Vec<_>>();
    all.sort();
    assert_eq!(used, all, "every metric of the design has a panel");
    let titles: Vec<&str> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Time since last success",
            "Writes",
            "Portal step",
            "Applied revision",
            "Rounds by outcome",
            "Round duration",
            "Drift by target",
            "Findings by level",
            "API requests by route and status",
            "Rate-limit wait",
            "Drift sweep progress",
            "Failures and backoff",
            "Round triggers",
        ]
    );
}

/// The dashboard's queries, with Grafana's interval variable given a value, as recording rules
/// promtool parses: a query Prometheus would refuse fails here, not on a screen.
#[test]
fn the_dashboard_queries_pass_promtool() {
    let Some(promtool) = promtool() else { return };
    let mut text = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (index, (_, expr)) in queries(&dashboard()).iter().enumerate() {
        assert!(!expr.contains('\n') && !expr.contains('\''), "{expr}");
        let expr = expr.replace("$__rate_interval", "5m");
        assert!(!expr.contains('$'), "a Grafana variable left in {expr}");
        text.push_str(&format!(
            "      - record: dashboard:query_{index}\n        expr: '{expr}'\n"
        ));
    }
    let (ok, printed) = check_rules(&promtool, &text);
    assert!(ok, "{printed}\n{text}");
}

/// Grafana's grid is 24 columns wide; panels that overlap are pushed around on load.
#[test]
fn the_dashboard_panels_tile_the_grid() {
    let dashboard = dashboard();
    let cells: Vec<(u64, u64, u64, u64)> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let at = |key: &str| p["gridPos"][key].as_u64().unwrap();
            (at("x"), at("y"), at("w"), at("h"))
        })
        .collect();
    for (index, &(x, y, w, h)) in cells.iter().enumerate() {
        assert!(x + w <= 24, "panel {index}");
        for &(x2, y2, w2, h2) in &cells[index + 1..] {
            let apart = x + w <= x2 || x2 + w2 <= x || y + h <= y2 || y2 + h2 <= y;
            assert!(apart, "panel {index} overlaps another");
        }
    }
    let ids: Vec<u64> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>());
}
