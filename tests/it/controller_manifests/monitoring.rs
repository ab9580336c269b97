//! The alert rules and the dashboard: valid for Prometheus (`promtool check rules`, from the
//! Debian package `prometheus` that .ci/run installs), over the design's metrics only, and
//! covering what a team watches.

use serde::Deserialize;
use serde_json::Value;

use super::recorded::Promtool;
use super::{DASHBOARD, DESIGN_METRICS, RULES, RULES_TEST, metrics_in, read, unknown_metrics};
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

/// `promtool check rules` on `text` as the kit's rules file, recorded at `recording`.
fn check_rules(recording: &'static str, text: String) -> Promtool {
    Promtool {
        recording,
        args: &["check", "rules", "dnscron-controller.rules.yaml"],
        files: vec![("dnscron-controller.rules.yaml", text)],
        stdin: String::new(),
    }
}

/// `promtool test rules` on the kit's tests of `rules`.
fn test_rules(recording: &'static str, rules: String) -> Promtool {
    Promtool {
        recording,
        args: &["test", "rules", "dnscron-controller.rules.test.yaml"],
        files: vec![
            ("dnscron-controller.rules.yaml", rules),
            ("dnscron-controller.rules.test.yaml", read(RULES_TEST)),
        ],
        stdin: String::new(),
    }
}

/// The kit's rules, checked.
fn rules_check() -> Promtool {
    check_rules(
        concat!("tests/it/controller_manifests/recorded", "/check-rules.txt"),
        read(RULES),
    )
}

/// The rules with a broken expression, checked.
fn broken_rules_check() -> Promtool {
    let text = read(RULES).replace(
        "expr: dnscron_controller_drift_changes{",
        "expr: > dnscron_controller_drift_changes{",
    );
    check_rules(
        concat!(
            "tests/it/controller_manifests/recorded",
            "/check-rules-broken.txt"
        ),
        text,
    )
}

/// The rules' own tests, run.
fn rules_tests() -> Promtool {
    test_rules(
        concat!("tests/it/controller_manifests/recorded", "/test-rules.txt"),
        read(RULES),
    )
}

/// The rules' own tests, run on rules whose kept-out alert fires after 10 minutes instead of 30.
fn early_rules_tests() -> Promtool {
    let rules = read(RULES);
    let kept_out = rules.find("alert: DnscronRevisionKeptOut").unwrap();
    let at = kept_out + rules[kept_out..].find("for: 30m").unwrap();
    let early = format!(
        "{}for: 10m{}",
        &rules[..at],
        &rules[at + "for: 30m".len()..]
    );
    test_rules(
        concat!(
            "tests/it/controller_manifests/recorded",
            "/test-rules-early.txt"
        ),
        early,
    )
}

fn rules() -> Vec<AlertRule> {
    let file: RuleFile = serde_saphyr::from_str(&read(RULES)).unwrap();
    assert_eq!(file.groups.len(), 1);
    assert_eq!(file.groups[0].name, "dnscron-controller");
    file.groups.into_iter().flat_map(|g| g.rules).collect()
}

#[test]
fn the_rules_pass_promtool() {
    let answer = rules_check().recorded();
    assert_eq!(answer.exit, 0, "{}", answer.output);
    assert!(
        answer.output.contains("SUCCESS: 11 rules found"),
        "{}",
        answer.output
    );
}

/// The refused form: promtool is really reading the expressions.
#[test]
fn promtool_refuses_a_broken_expression() {
    let answer = broken_rules_check().recorded();
    assert_eq!(answer.exit, 1, "{}", answer.output);
    assert!(answer.output.contains("FAILED"), "{}", answer.output);
}

/// The rules' own tests (committed beside them, generated with them) pass: each alert fires
/// when it must, and not before.
#[test]
fn the_rules_pass_their_promtool_tests() {
    let answer = rules_tests().recorded();
    assert_eq!(answer.exit, 0, "{}", answer.output);
    assert!(answer.output.contains("SUCCESS"), "{}", answer.output);
}

/// The refused form: a kept-out alert that fired after 10 minutes instead of 30 fails them.
#[test]
fn the_rule_tests_catch_an_alert_that_fires_too_early() {
    let answer = early_rules_tests().recorded();
    assert_eq!(answer.exit, 1, "{}", answer.output);
    assert!(
        answer
            .output
            .contains("alertname: DnscronRevisionKeptOut, time: 25m"),
        "{}",
        answer.output
    );
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
            "DnscronDriftPending [warning] for 1h: dnscron_controller_drift_changes{job=\"dnscron-controller\", namespace=\"dnscron\"} > 0",
            "DnscronNoSuccessfulRound [critical] for 0s: time() - dnscron_controller_last_success_timestamp_seconds{job=\"dnscron-controller\", namespace=\"dnscron\"} > 3 * 300",
            "DnscronErrorFindings [warning] for 15m: dnscron_controller_findings{job=\"dnscron-controller\", namespace=\"dnscron\", level=\"error\"} > 0",
            "DnscronWritesSuspended [warning] for 1d: dnscron_controller_suspended{job=\"dnscron-controller\", namespace=\"dnscron\"} == 1",
            "DnscronPortalStepPending [warning] for 15m: dnscron_controller_pending_portal_step{job=\"dnscron-controller\", namespace=\"dnscron\"} == 1",
            "DnscronNameserversPending [warning] for 1h: dnscron_controller_pending_nameservers{job=\"dnscron-controller\", namespace=\"dnscron\"} == 1",
            "DnscronRevisionKeptOut [warning] for 30m: dnscron_controller_revision_kept_out{job=\"dnscron-controller\", namespace=\"dnscron\"} == 1",
            "DnscronControllerAbsent [critical] for 10m: absent(up{job=\"dnscron-controller\", namespace=\"dnscron\"})",
            "DnscronControllerDown [critical] for 5m: up{job=\"dnscron-controller\", namespace=\"dnscron\"} == 0",
            "DnscronWebhookFailing [warning] for 0s: increase(dnscron_controller_webhook_failures_total{job=\"dnscron-controller\", namespace=\"dnscron\"}[1h]) > 0",
            "DnscronGitSyncFailing [critical] for 0s: sum by (namespace, pod) (increase(git_sync_count_total{job=\"dnscron-controller\", namespace=\"dnscron\", status=\"error\"}[15m])) > 0 unless on (namespace, pod) sum by (namespace, pod) (increase(git_sync_count_total{job=\"dnscron-controller\", namespace=\"dnscron\", status=~\"success|noop\"}[15m])) > 0",
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
            "Pending",
            "Revision kept out",
            "Webhook failures (1 h)",
            "Revisions",
            "Rounds by outcome",
            "Round duration",
            "Revision to live",
            "Drift by target",
            "Findings by level",
            "API requests by route and status",
            "Rate-limit wait",
            "Drift sweep progress",
            "Failures and backoff",
            "Round triggers",
            "git-sync fetches",
        ]
    );
}

/// The namespace and instance variables: every query of the controller's metrics is limited
/// by both, and the instance list follows the namespaces chosen.
#[test]
fn the_dashboard_picks_controllers_by_namespace_and_instance() {
    let dashboard = dashboard();
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    let variable = |name: &str| variables.iter().find(|v| v["name"] == name).unwrap();
    for (name, query) in [
        ("namespace", "label_values(dnscron_build_info, namespace)"),
        (
            "instance",
            "label_values(dnscron_build_info{namespace=~\"$namespace\"}, instance)",
        ),
    ] {
        let v = variable(name);
        assert_eq!(
            (
                &v["type"],
                &v["query"]["query"],
                &v["multi"],
                &v["includeAll"],
                &v["allValue"]
            ),
            (
                &Value::from("query"),
                &Value::from(query),
                &Value::from(true),
                &Value::from(true),
                &Value::from(".*")
            ),
            "{name}"
        );
    }
    for (title, expr) in queries(&dashboard) {
        for name in metrics_in(&expr) {
            let selector = format!("{name}{{namespace=~\"$namespace\", instance=~\"$instance\"");
            let bucket =
                format!("{name}_bucket{{namespace=~\"$namespace\", instance=~\"$instance\"");
            assert!(
                expr.contains(&selector) || expr.contains(&bucket),
                "{title}: {expr}"
            );
        }
    }
}

/// The aggregations in `expr` (`sum`, `max`, ...) that fold controllers together: any without a
/// `by (...)` that keeps `instance` (or, for git-sync's series, `pod`).
fn folding(expr: &str) -> Vec<String> {
    let mut found = Vec::new();
    for op in [
        "sum", "max", "min", "avg", "count", "topk", "bottomk", "quantile", "group",
    ] {
        let mut rest = expr;
        while let Some(at) = rest.find(op) {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + op.len()..];
            rest = after;
            let word_start = !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            let trimmed = after.trim_start();
            let is_call = trimmed.starts_with('(')
                || trimmed.starts_with("by")
                || trimmed.starts_with("without");
            if !word_start || !is_call || after.starts_with('_') {
                continue;
            }
            let keeps = trimmed
                .strip_prefix("by")
                .and_then(|by| by.trim_start().strip_prefix('('))
                .and_then(|list| list.split(')').next())
                .is_some_and(|list| {
                    list.split(',')
                        .any(|label| matches!(label.trim(), "instance" | "pod"))
                });
            if !keeps {
                found.push(format!("{op}{}", &after[..after.len().min(40)]));
            }
        }
    }
    found
}

/// One controller stalled beside a healthy one must show: no panel folds controllers into one
/// value (a `max()` would show the healthy one's last success).
#[test]
fn no_dashboard_query_folds_controllers_together() {
    for (title, expr) in queries(&dashboard()) {
        assert_eq!(folding(&expr), Vec::<String>::new(), "{title}: {expr}");
    }
}

#[test]
fn a_query_that_folds_controllers_is_caught() {
    assert_eq!(
        folding("time() - max(dnscron_controller_last_success_timestamp_seconds)"),
        ["max(dnscron_controller_last_success_timesta"]
    );
    assert_eq!(
        folding("sum by (outcome) (increase(dnscron_controller_rounds_total[5m]))"),
        ["sum by (outcome) (increase(dnscron_controll"]
    );
    assert_eq!(
        folding("sum by (namespace, instance, le) (rate(x_bucket[5m]))"),
        Vec::<String>::new()
    );
    // histogram_quantile and rate are no aggregation.
    assert_eq!(
        folding("histogram_quantile(0.9, rate(x[5m]))"),
        Vec::<String>::new()
    );
}

/// The dashboard's queries, with Grafana's interval variable given a value, as recording rules
/// promtool parses: a query Prometheus would refuse fails here, not on a screen.
#[test]
fn the_dashboard_queries_pass_promtool() {
    let answer = dashboard_check().recorded();
    assert_eq!(answer.exit, 0, "{}", answer.output);
}

/// The dashboard's queries as recording rules, checked.
fn dashboard_check() -> Promtool {
    let mut text = String::from("groups:\n  - name: dashboard\n    rules:\n");
    for (index, (_, expr)) in queries(&dashboard()).iter().enumerate() {
        assert!(!expr.contains('\n') && !expr.contains('\''), "{expr}");
        let expr = with_variables(expr, ".*");
        assert!(!expr.contains('$'), "a Grafana variable left in {expr}");
        text.push_str(&format!(
            "      - record: dashboard:query_{index}\n        expr: '{expr}'\n"
        ));
    }
    check_rules(
        concat!(
            "tests/it/controller_manifests/recorded",
            "/check-dashboard-queries.txt"
        ),
        text,
    )
}

/// `expr` as Grafana sends it with every controller chosen (the variables' All value, `.*`)
/// and `account` as the account variable's value.
fn with_variables(expr: &str, account: &str) -> String {
    expr.replace("$__rate_interval", "5m")
        .replace("$namespace", ".*")
        .replace("$instance", ".*")
        .replace("$account", account)
}

/// The controller's series that carry no `account` label in a controller of several accounts:
/// the process's own (`each_accounts_series_carry_its_name_and_leave_with_it` in the binary's
/// metrics tests holds the same list).
const NOT_PER_ACCOUNT: [&str; 2] = [
    "dnscron_build_info",
    "dnscron_controller_webhook_failures_total",
];

/// The labels of every `by (...)` in `expr`.
fn by_lists(expr: &str) -> Vec<Vec<String>> {
    expr.match_indices("by (")
        .map(|(at, by)| {
            let rest = &expr[at + by.len()..];
            let list = rest.split(')').next().unwrap_or_default();
            list.split(',').map(|l| l.trim().to_owned()).collect()
        })
        .collect()
}

/// The account variable: every query of a per-account metric is limited by it and no
/// aggregation folds accounts together; a query of a series without the label isn't (picking
/// an account would hide it). Under All its value is `.*`, which matches a missing label, so a
/// controller of one account (no `account` label at all) still shows its panels
/// (`the_account_variable_keeps_a_controller_of_one_account_under_all`, through promtool).
#[test]
fn the_dashboard_picks_accounts_and_keeps_them_apart() {
    let dashboard = dashboard();
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    let names: Vec<&str> = variables
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["datasource", "namespace", "instance", "account"]);
    let account = &variables[3];
    let query = "label_values(dnscron_controller_suspended{namespace=~\"$namespace\", \
                 instance=~\"$instance\"}, account)";
    assert_eq!(
        (
            &account["type"],
            &account["query"]["query"],
            &account["definition"],
            &account["multi"],
            &account["includeAll"],
            &account["allValue"],
            &account["regex"]
        ),
        (
            &Value::from("query"),
            &Value::from(query),
            &Value::from(query),
            &Value::from(true),
            &Value::from(true),
            &Value::from(".*"),
            &Value::from("")
        )
    );
    // Every account has the gauge from its start (at 0), so the list names every account.
    assert!(DESIGN_METRICS.contains(&("dnscron_controller_suspended", super::MetricKind::Gauge)));
    let mut filtered = 0;
    for (title, expr) in queries(&dashboard) {
        let names = metrics_in(&expr);
        if names.is_empty() {
            // Not the controller's (git-sync's fetches).
            continue;
        }
        let per_account = names.iter().all(|n| !NOT_PER_ACCOUNT.contains(&n.as_str()));
        assert!(
            per_account || names.iter().all(|n| NOT_PER_ACCOUNT.contains(&n.as_str())),
            "{title}: one query mixes series with and without `account`: {expr}"
        );
        for name in &names {
            let selector =
                "{namespace=~\"$namespace\", instance=~\"$instance\", account=~\"$account\"}";
            let limited = expr.contains(&format!("{name}{selector}"))
                || expr.contains(&format!("{name}_bucket{selector}"));
            assert_eq!(limited, per_account, "{title}: {expr}");
        }
        for list in by_lists(&expr) {
            assert_eq!(
                list.contains(&"account".to_owned()),
                per_account,
                "{title}: {expr}"
            );
        }
        if per_account {
            filtered += 1;
            // The series of each account apart in the legend (empty for one account).
            let legend = &dashboard["panels"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["title"] == title.as_str())
                .unwrap()["targets"];
            for target in legend.as_array().unwrap() {
                let format = target["legendFormat"].as_str().unwrap_or_default();
                assert!(
                    format.is_empty() || format.contains("{{account}}"),
                    "{title}: {format}"
                );
            }
        }
    }
    assert_eq!(filtered, 21);
}

#[test]
fn the_account_variable_keeps_a_controller_of_one_account_under_all() {
    let answer = dashboard_accounts_tests().recorded();
    assert_eq!(
        (answer.exit, answer.output.trim_end()),
        (0, "Unit Testing:  dashboard-accounts.test.yaml\n  SUCCESS"),
        "{}",
        answer.output
    );
}

/// Two dashboard queries (a gauge as it is, a counter summed) evaluated by promtool over a
/// controller of one account (no `account` label) and one of two accounts: under All both
/// controllers' series show, the one account's included; an account picked shows its own only.
fn dashboard_accounts_tests() -> Promtool {
    let dashboard = dashboard();
    let query = |title: &str| {
        queries(&dashboard)
            .into_iter()
            .find(|(t, _)| t == title)
            .unwrap()
            .1
    };
    let (last, rounds) = (query("Time since last success"), query("Rounds by outcome"));
    let controllers = [
        ("one:9090", None, 0),
        ("many:9090", Some("acme"), 60),
        ("many:9090", Some("shop"), 120),
    ];
    let labels = |instance: &str, account: Option<&str>| match account {
        Some(account) => {
            format!("namespace=\"dns\", instance=\"{instance}\", account=\"{account}\"")
        }
        None => format!("namespace=\"dns\", instance=\"{instance}\""),
    };
    let mut series = String::new();
    for (step, (instance, account, success)) in controllers.iter().enumerate() {
        let labels = labels(instance, *account);
        series.push_str(&format!(
            "      - series: 'dnscron_controller_last_success_timestamp_seconds{{{labels}}}'\n        \
             values: '{success}x10'\n      - series: 'dnscron_controller_rounds_total{{{labels}, \
             outcome=\"converged\"}}'\n        values: '0+{}x10'\n",
            step + 1
        ));
    }
    let mut cases = String::new();
    for account in [".*", "acme"] {
        let shown: Vec<_> = controllers
            .iter()
            .enumerate()
            .filter(|(_, (_, a, _))| account == ".*" || *a == Some(account))
            .collect();
        let mut last_samples = String::new();
        let mut rounds_samples = String::new();
        for (step, (instance, a, success)) in &shown {
            let labels = labels(instance, *a);
            last_samples.push_str(&format!(
                "          - labels: '{{{labels}}}'\n            value: {}\n",
                600 - success
            ));
            // 5 minutes of one round a minute per step.
            rounds_samples.push_str(&format!(
                "          - labels: '{{{labels}, outcome=\"converged\"}}'\n            value: {}\n",
                5 * (step + 1)
            ));
        }
        for (expr, samples) in [(&last, last_samples), (&rounds, rounds_samples)] {
            let expr = with_variables(expr, account);
            cases.push_str(&format!(
                "      - expr: '{expr}'\n        eval_time: 10m\n        exp_samples:\n{samples}"
            ));
        }
    }
    let test = format!(
        "rule_files: []\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    \
         input_series:\n{series}    promql_expr_test:\n{cases}"
    );
    Promtool {
        recording: concat!(
            "tests/it/controller_manifests/recorded",
            "/test-dashboard-accounts.txt"
        ),
        args: &["test", "rules", "dashboard-accounts.test.yaml"],
        files: vec![("dashboard-accounts.test.yaml", test)],
        stdin: String::new(),
    }
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

/// promtool asked again every question above (the feature `live-tools`): each recording is what
/// it answers today, and every recording in the folder is asked.
#[cfg(feature = "live-tools")]
mod live {
    use crate::controller_manifests::recorded::ask_all;

    #[test]
    fn promtool_answers_as_recorded() {
        ask_all(
            "tests/it/controller_manifests/recorded",
            &[
                super::rules_check(),
                super::broken_rules_check(),
                super::rules_tests(),
                super::early_rules_tests(),
                super::dashboard_check(),
                super::dashboard_accounts_tests(),
            ],
        );
    }
}
