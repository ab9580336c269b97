//! The plan model: JSON round trip and versioning, ids, idempotency keys, fingerprints.

use dnscron::plan::model::canonical_json;
use dnscron::plan::{Plan, PlanError, TargetKind, TargetRef, diff, fingerprint, render};
use sha2::{Digest, Sha256};

use super::fixtures::*;

#[test]
fn the_saved_json_reads_back_into_the_same_plan() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    let back = Plan::from_json(&render::json(&plan)).unwrap();
    assert_eq!(back, plan);
}

#[test]
fn other_format_versions_and_garbage_are_refused() {
    let (desired, live) = example_account();
    let mut value = serde_json::to_value(plan_of(&desired, &live)).unwrap();
    value["format_version"] = serde_json::json!(2);
    let err = Plan::from_json(&value.to_string()).unwrap_err();
    assert!(matches!(err, PlanError::UnsupportedFormat { .. }));
    assert_eq!(
        err.to_string(),
        "the plan file has format_version 2; this dnscron reads format_version 1"
    );
    let err = Plan::from_json("{\"format_version\": 1}").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the plan file is not a valid dnscron plan: missing field"),
        "{err}"
    );
    assert!(matches!(
        Plan::from_json("not json"),
        Err(PlanError::BadPlanFile { .. })
    ));
}

#[test]
fn every_plan_gets_a_fresh_random_id_and_a_utc_time() {
    let (desired, live) = example_account();
    let a = diff(&desired, &live, &opts()).unwrap();
    let b = diff(&desired, &live, &opts()).unwrap();
    assert_ne!(a.plan_id, b.plan_id);
    for p in [&a, &b] {
        assert_eq!(p.plan_id.len(), 32);
        assert!(
            p.plan_id
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert!(chrono::DateTime::parse_from_rfc3339(&p.created_at).is_ok());
        assert!(p.created_at.ends_with('Z'));
        assert_eq!(p.format_version, 1);
        assert_eq!(p.api_url, "http://127.0.0.1:8080/api/v1");
    }
    assert_eq!(
        a.changes, b.changes,
        "everything but id and time is deterministic"
    );
}

#[test]
fn idempotency_keys_follow_the_documented_formula() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    let update = plan
        .changes
        .iter()
        .find(|c| c.request.method == "PUT" && c.request.path == "/dns/example.com/records/5")
        .unwrap();
    let body = canonical_json(update.request.body.as_ref().unwrap());
    assert_eq!(
        body,
        r#"{"content":"20 mail2.example.com.","name":"@","ttl":3600,"type":"MX"}"#
    );
    let material = format!("zone|example.com|update|record|@|MX|5|PUT|{body}");
    let hex: String = Sha256::digest(material.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let expected = format!("dnscron-{}-r0-{}", plan.plan_id, &hex[..24]);
    assert_eq!(update.idempotency_key(&plan.plan_id, 0), expected);
    assert_eq!(
        update.idempotency_key(&plan.plan_id, 0),
        expected,
        "deterministic"
    );
    assert_ne!(
        update.idempotency_key(&plan.plan_id, 1),
        expected,
        "rounds differ"
    );
    assert_ne!(
        update.idempotency_key("ffffffffffffffffffffffffffffffff", 0),
        expected,
        "plans differ"
    );

    let keys: std::collections::HashSet<String> = plan
        .changes
        .iter()
        .map(|c| c.idempotency_key(&plan.plan_id, 0))
        .collect();
    assert_eq!(keys.len(), plan.changes.len(), "one key per change");
    assert!(
        keys.iter()
            .all(|k| k.len() <= 200 && k.chars().all(|c| c.is_ascii_graphic()))
    );
}

#[test]
fn cron_delete_keys_ignore_the_index() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    let mut change = plan
        .changes
        .iter()
        .find(|c| c.request.method == "DELETE" && c.target.name == "blog")
        .unwrap()
        .clone();
    let key = change.idempotency_key(&plan.plan_id, 0);
    change.request.path = "/sites/blog/cron/7".into();
    assert_eq!(change.idempotency_key(&plan.plan_id, 0), key);
}

#[test]
fn fingerprints_ignore_listing_order_but_see_every_change() {
    let (desired, mut live) = example_account();
    let plan = plan_of(&desired, &live);
    assert!(
        plan.targets
            .iter()
            .all(|t| t.fingerprint.starts_with("sha256:") && t.fingerprint.len() == 71)
    );
    assert_eq!(plan.targets.len(), 3 + 3 + 3, "3 zones, 3 domains, 3 sites");
    assert!(fingerprint::stale_targets(&plan, &live).is_empty());

    live.zones[0].records.reverse();
    live.sites[1].cron.as_mut().unwrap().reverse();
    assert!(
        fingerprint::stale_targets(&plan, &live).is_empty(),
        "order doesn't matter"
    );

    live.zones[0].records[0].ttl += 1;
    live.domains[1].registrar.dnssec.state = Some(serde_json::json!("active"));
    live.sites[2].state = Some("active".into());
    live.sites.remove(0);
    let stale = fingerprint::stale_targets(&plan, &live);
    let r = |kind, name: &str| TargetRef {
        kind,
        name: name.into(),
    };
    assert_eq!(
        stale,
        vec![
            r(TargetKind::Zone, "example.com"),
            r(TargetKind::Domain, "example.org"),
            r(TargetKind::Site, "blog"),
            r(TargetKind::Site, "legacy"),
        ]
    );
}
