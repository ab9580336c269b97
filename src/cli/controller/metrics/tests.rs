use std::time::Duration;

use super::{BROKEN, DriftKind, METRIC_NAMES, Metrics, RevisionSource, classic};

/// The lines of the exposition that are samples of `family` (its own name or a suffixed one).
fn samples<'a>(exposition: &'a str, family: &str) -> Vec<&'a str> {
    exposition
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter(|line| {
            line.strip_prefix(family)
                .is_some_and(|rest| rest.starts_with(['{', ' ', '_']))
        })
        .collect()
}

/// Two rounds as the loop would report them: a first start that converged, then a retry after
/// an error, with drift, findings, API requests, a wait, a suspension and a backoff.
fn scripted() -> Metrics {
    let metrics = Metrics::new();
    metrics.round_started("start");
    metrics.api_response("GET", "/dns", Some(200));
    metrics.api_response("GET", "/dns/{zone}/records", Some(200));
    metrics.api_response("GET", "/dns/{zone}/records", Some(200));
    metrics.set_revision("3f2a9c0d1b", RevisionSource::Git);
    metrics.set_findings(0, 2, 1);
    metrics.set_drift(&[("example.org".to_owned(), DriftKind::Record, 3)]);
    metrics.set_sweep_progress(1, 4);
    metrics.round_finished("drift", Duration::from_millis(1500));
    metrics.succeeded_at(1_790_000_000.5);

    metrics.round_started("revision");
    metrics.api_response("POST", "/dns/{zone}/records", Some(503));
    metrics.api_response("POST", "/dns/{zone}/records", None);
    metrics.rate_limit_wait(Duration::from_millis(250));
    metrics.set_suspended(true);
    metrics.set_pending_portal_step(true);
    metrics.set_pending_nameservers(true);
    metrics.set_sweep_progress(2, 4);
    metrics.set_backoff(1, Duration::from_millis(750));
    metrics.set_desired_revision("77aa01", RevisionSource::Git);
    metrics.set_kept_out(BROKEN, true);
    metrics.webhook_failed();
    metrics.round_finished("error", Duration::from_secs(40));
    metrics.round_started("retry");
    metrics.set_desired_revision("3f2a9c0d1b", RevisionSource::Git);
    metrics.set_kept_out(BROKEN, false);
    metrics.revision_live(Duration::from_millis(900));
    metrics.round_finished("converged", Duration::from_millis(4));
    metrics
}

#[test]
fn exposition_after_two_rounds() {
    insta::assert_snapshot!(scripted().encode());
}

#[test]
fn a_fresh_controller_shows_every_closed_series_at_zero() {
    insta::assert_snapshot!(Metrics::new().encode());
}

#[test]
fn drift_series_are_replaced_whole() {
    let metrics = Metrics::new();
    metrics.set_drift(&[
        ("example.org".to_owned(), DriftKind::Record, 2),
        ("example.org".to_owned(), DriftKind::Nameservers, 1),
        ("shop-site".to_owned(), DriftKind::Cron, 4),
    ]);
    metrics.set_drift(&[("example.net".to_owned(), DriftKind::Undeclared, 1)]);
    assert_eq!(
        samples(&metrics.encode(), "dnscron_controller_drift_changes"),
        ["dnscron_controller_drift_changes{target=\"example.net\",kind=\"undeclared\"} 1"]
    );

    metrics.set_drift(&[]);
    assert_eq!(
        samples(&metrics.encode(), "dnscron_controller_drift_changes"),
        Vec::<&str>::new()
    );
}

#[test]
fn drift_series_come_in_label_order_whatever_the_order_given() {
    let metrics = Metrics::new();
    metrics.set_drift(&[
        ("b.example".to_owned(), DriftKind::Record, 1),
        ("a.example".to_owned(), DriftKind::Cron, 2),
        ("a.example".to_owned(), DriftKind::Record, 3),
    ]);
    assert_eq!(
        samples(&metrics.encode(), "dnscron_controller_drift_changes"),
        [
            "dnscron_controller_drift_changes{target=\"a.example\",kind=\"record\"} 3",
            "dnscron_controller_drift_changes{target=\"a.example\",kind=\"cron\"} 2",
            "dnscron_controller_drift_changes{target=\"b.example\",kind=\"record\"} 1",
        ]
    );
}

#[test]
fn revision_info_is_one_series_after_two_revisions() {
    let metrics = Metrics::new();
    metrics.set_revision(
        "1111111111111111111111111111111111111111",
        RevisionSource::Git,
    );
    metrics.set_revision("sha256:2222", RevisionSource::Digest);
    assert_eq!(
        samples(&metrics.encode(), "dnscron_controller_revision_info"),
        ["dnscron_controller_revision_info{revision=\"sha256:2222\",source=\"digest\"} 1"]
    );
}

#[test]
fn no_revision_before_the_first_is_set() {
    assert_eq!(
        samples(&Metrics::new().encode(), "dnscron_controller_revision_info"),
        Vec::<&str>::new()
    );
}

// A revision id from a hostile `.git` (the core refuses ids that aren't hex; this holds even
// if one got through): a quote, a backslash or a newline must not end the label or the line.
#[test]
fn label_values_are_escaped() {
    let metrics = Metrics::new();
    metrics.set_revision("a\"b\\c\nd} 1\nforged 1", RevisionSource::Git);
    let exposition = metrics.encode();
    assert_eq!(
        samples(&exposition, "dnscron_controller_revision_info"),
        [r#"dnscron_controller_revision_info{revision="a\"b\\c\nd} 1\nforged 1",source="git"} 1"#]
    );
    assert!(
        !exposition.lines().any(|line| line.starts_with("forged")),
        "{exposition}"
    );
}

#[test]
fn a_zone_name_is_written_as_it_is() {
    let metrics = Metrics::new();
    metrics.set_drift(&[("xn--bcher-kva.example".to_owned(), DriftKind::Record, 1)]);
    assert_eq!(
        samples(&metrics.encode(), "dnscron_controller_drift_changes"),
        ["dnscron_controller_drift_changes{target=\"xn--bcher-kva.example\",kind=\"record\"} 1"]
    );
}

#[test]
fn an_api_request_without_a_response_has_status_error() {
    let metrics = Metrics::new();
    metrics.api_response("DELETE", "/sites/{site}/cron/{id}", None);
    metrics.api_response("DELETE", "/sites/{site}/cron/{id}", Some(429));
    metrics.api_response("DELETE", "/sites/{site}/cron/{id}", None);
    assert_eq!(
        samples(&metrics.encode(), "dnscron_controller_api_requests"),
        [
            "dnscron_controller_api_requests_total{method=\"DELETE\",route=\"/sites/{site}/cron/{id}\",status=\"429\"} 1",
            "dnscron_controller_api_requests_total{method=\"DELETE\",route=\"/sites/{site}/cron/{id}\",status=\"error\"} 2",
        ]
    );
}

#[test]
fn sweep_progress_is_a_share_complete_with_no_targets_or_past_the_end() {
    let metrics = Metrics::new();
    for (done, total, ratio) in [
        (0, 0, "1.0"),
        (7, 4, "1.0"),
        (0, 4, "0.0"),
        (1, 4, "0.25"),
        (4, 4, "1.0"),
    ] {
        metrics.set_sweep_progress(done, total);
        assert_eq!(
            samples(&metrics.encode(), "dnscron_controller_sweep_progress_ratio"),
            [format!("dnscron_controller_sweep_progress_ratio {ratio}")],
            "{done} of {total}"
        );
    }
}

#[test]
fn flags_go_back_to_zero() {
    let metrics = Metrics::new();
    metrics.set_suspended(true);
    metrics.set_pending_portal_step(true);
    metrics.set_backoff(3, Duration::from_secs(6));
    metrics.set_suspended(false);
    metrics.set_pending_portal_step(false);
    metrics.set_backoff(0, Duration::ZERO);
    let exposition = metrics.encode();
    for family in [
        "dnscron_controller_suspended",
        "dnscron_controller_pending_portal_step",
        "dnscron_controller_consecutive_failures",
    ] {
        assert_eq!(samples(&exposition, family), [format!("{family} 0")]);
    }
    assert_eq!(
        samples(&exposition, "dnscron_controller_backoff_seconds"),
        ["dnscron_controller_backoff_seconds 0.0"]
    );
}

/// The families the exposition declares are METRIC_NAMES, in order (counters declared without
/// `_total`, which their samples carry), and each has a sample after the scripted rounds.
#[test]
fn metric_names_are_the_families_exposed() {
    let exposition = scripted().encode();
    let declared: Vec<String> = exposition
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .map(|rest| match rest.split_once(' ') {
            Some((name, "counter")) => format!("{name}_total"),
            Some((name, _)) => name.to_owned(),
            None => panic!("a TYPE line without a type: {rest}"),
        })
        .collect();
    assert_eq!(declared, METRIC_NAMES);
    for name in METRIC_NAMES {
        let family = name.strip_suffix("_total").unwrap_or(name);
        assert!(
            !samples(&exposition, family).is_empty(),
            "no sample of {name}"
        );
    }
    assert!(exposition.ends_with("# EOF\n"), "{exposition}");
}

/// A round of 3 to 20 ms lands in buckets of its own, not all in the first.
#[test]
fn round_duration_buckets_start_at_a_millisecond() {
    let metrics = Metrics::new();
    for ms in [3, 7, 20] {
        metrics.round_finished("converged", Duration::from_millis(ms));
    }
    let exposition = metrics.encode();
    let buckets = samples(
        &exposition,
        "dnscron_controller_round_duration_seconds_bucket",
    );
    let at = |le: &str| {
        buckets
            .iter()
            .find(|line| line.contains(&format!("le=\"{le}\"")))
            .map(|line| line.rsplit(' ').next().unwrap().to_owned())
    };
    assert_eq!(
        [at("0.001"), at("0.005"), at("0.01"), at("0.025"), at("0.1")],
        ["0", "1", "2", "3", "3"].map(|n| Some(n.to_owned()))
    );
}

#[test]
fn build_info_names_this_version() {
    assert_eq!(
        samples(&Metrics::new().encode(), "dnscron_build_info"),
        [format!(
            "dnscron_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        )]
    );
}

/// The classic text of the same metrics: one family per TYPE line, named as its samples are.
#[test]
fn the_classic_exposition_names_each_family_as_its_samples() {
    let text = scripted().encode_classic();
    assert_eq!(text, classic::from_openmetrics(&scripted().encode()));
    let declared: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .map(|rest| rest.split(' ').next().unwrap())
        .collect();
    assert_eq!(declared, METRIC_NAMES);
    assert!(
        !text.contains("# EOF") && !text.contains("# UNIT"),
        "{text}"
    );
}

/// A controller of several accounts: every per-account series carries `account`, the build and
/// the webhook's failures don't; an account forgotten leaves no series.
#[test]
fn each_accounts_series_carry_its_name_and_leave_with_it() {
    let metrics = Metrics::for_accounts();
    let alpha = metrics.account("alpha");
    let beta = metrics.account("beta");
    alpha.set_backoff(3, Duration::from_secs(6));
    beta.set_drift(&[("b.example".to_owned(), DriftKind::Record, 2)]);
    alpha.set_drift(&[("a.example".to_owned(), DriftKind::Cron, 1)]);
    beta.set_drift(&[]);
    alpha.webhook_failed();
    let exposition = metrics.encode();
    assert_eq!(
        samples(&exposition, "dnscron_controller_consecutive_failures"),
        [
            "dnscron_controller_consecutive_failures{account=\"alpha\"} 3",
            "dnscron_controller_consecutive_failures{account=\"beta\"} 0",
        ]
    );
    assert_eq!(
        samples(&exposition, "dnscron_controller_drift_changes"),
        [
            "dnscron_controller_drift_changes{account=\"alpha\",target=\"a.example\",kind=\"cron\"} 1"
        ]
    );
    assert_eq!(
        samples(&exposition, "dnscron_controller_webhook_failures"),
        ["dnscron_controller_webhook_failures_total 1"]
    );
    // Every sample but the process's own names an account.
    for line in exposition.lines().filter(|l| !l.starts_with('#')) {
        let shared = line.starts_with("dnscron_build_info")
            || line.starts_with("dnscron_controller_webhook_failures");
        assert!(shared || line.contains("account=\""), "{line}");
    }
    beta.forget_account();
    let exposition = metrics.encode();
    assert!(!exposition.contains("account=\"beta\""), "{exposition}");
    assert!(exposition.contains("account=\"alpha\""));
}
