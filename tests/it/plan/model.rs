//! The plan model: JSON round trip and versioning, ids, idempotency keys, fingerprints.

use dnscron::render::plan as render;
use dnscron_core::plan::{
    Action, Change, DiffOptions, PlanStamp, TargetKind, TargetRef, diff, request, stale_targets,
};
use dnscron_core::plan_file as file;
use sha2::{Digest, Sha256};

use super::fixtures::*;

#[test]
fn the_saved_json_reads_back_into_the_same_plan() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    let back = file::load(&render::json(&plan).unwrap(), "plan.json").unwrap();
    assert_eq!(back, plan);
}

#[test]
fn every_plan_gets_a_fresh_random_id_and_a_utc_time() {
    let (desired, live) = example_account();
    let fresh = || DiffOptions {
        stamp: PlanStamp::fresh(),
        ..opts()
    };
    let a = diff(&desired, &live, &fresh()).unwrap();
    let b = diff(&desired, &live, &fresh()).unwrap();
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
    let key = |c: &Change, id: &str, round| c.idempotency_key(id, round, &plan.options).unwrap();
    let update = plan
        .changes
        .iter()
        .find(|c| {
            c.action == Action::Update
                && request_of(&plan, c).path() == "/dns/example.com/records/5"
        })
        .unwrap();
    // The body in canonical JSON (keys sorted, no spaces), as docs/plan.md's formula hashes it.
    let body = r#"{"content":"20 mail2.example.com.","name":"@","ttl":3600,"type":"MX"}"#;
    assert_eq!(
        request_of(&plan, update).body.as_ref().unwrap(),
        &serde_json::from_str::<serde_json::Value>(body).unwrap()
    );
    let material = format!("zone|example.com|update|record|@|MX|5|PUT|{body}");
    let hex: String = Sha256::digest(material.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let expected = format!("dnscron-{}-r0-{}", plan.plan_id, &hex[..24]);
    assert_eq!(key(update, &plan.plan_id, 0), expected);
    assert_eq!(key(update, &plan.plan_id, 0), expected, "deterministic");
    assert_ne!(key(update, &plan.plan_id, 1), expected, "rounds differ");
    assert_ne!(
        key(update, "ffffffffffffffffffffffffffffffff", 0),
        expected,
        "plans differ"
    );

    let keys: std::collections::HashSet<String> = plan
        .changes
        .iter()
        .map(|c| key(c, &plan.plan_id, 0))
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
    let change = plan
        .changes
        .iter()
        .find(|c| c.action == Action::Delete && c.target.name == "blog")
        .unwrap();
    let at = |i| request::derive(change, &plan.options, Some(i)).unwrap();
    assert_eq!(at(7).path(), "/sites/blog/cron/7");
    assert_eq!(at(2).path(), "/sites/blog/cron/2");
    assert_eq!(
        request::derive(change, &plan.options, None)
            .unwrap_err()
            .to_string(),
        "change 10 (delete of a cron job) lacks the current cron index its request needs"
    );
    let key = change.idempotency_key(&plan.plan_id, 0, &plan.options);
    assert!(key.is_ok_and(|k| k.starts_with("dnscron-0123456789abcdef0123456789abcdef-r0-")));
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
    assert!(stale_targets(&plan, &live).is_empty());

    let mut rows = live.zones[0].records.to_wire();
    rows.reverse();
    live.zones[0].records = rows.iter().collect();
    live.sites[1].cron.as_mut().unwrap().reverse();
    assert!(
        stale_targets(&plan, &live).is_empty(),
        "order doesn't matter"
    );

    rows[0].ttl += 1;
    live.zones[0].records = rows.iter().collect();
    live.domains[1].registrar.dnssec.state = Some(serde_json::json!("active"));
    live.sites[2].state = Some("active".into());
    live.sites.remove(0);
    let stale = stale_targets(&plan, &live);
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
