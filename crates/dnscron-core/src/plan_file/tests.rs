//! The conversions on their own: optional fields written exactly as format 2 always wrote them,
//! and a deserialized file that is not a plan refused with a typed error.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use super::{FORMAT_VERSION, FromFileError, PlanFileV2};
use crate::config::model as cfg;
use crate::dns::{RecordType, ZoneName};
use crate::plan::model::{self as plan, Action, record_change};

fn at(line: usize) -> cfg::Location {
    cfg::Location {
        file: Arc::from(Path::new("zones/example.com.yaml")),
        line,
        col: 3,
    }
}

fn a_plan(changes: Vec<plan::Change>) -> plan::Plan {
    let zone = cfg::ZoneSpec {
        zone: ZoneName::parse("example.com").unwrap_or_else(|e| panic!("{e}")),
        location: at(1),
        nameservers: None,
        prune: true,
        ignore: Vec::new(),
        records: vec![cfg::RecordSpec {
            name: "www".into(),
            rtype: RecordType::A,
            ttl: 300,
            content: "192.0.2.1".into(),
            canonical: "192.0.2.1".into(),
            location: at(4),
        }],
        safety: cfg::SafetyLimits::default(),
        registrar: Some(cfg::RegistrarExpectations {
            auto_renew: Some(true),
            lock: None,
            whois_privacy: None,
            expiry_warning_days: Some(20),
            location: at(2),
        }),
    };
    plan::Plan {
        format_version: FORMAT_VERSION,
        plan_id: "0123456789abcdef0123456789abcdef".into(),
        created_at: "2026-01-02T03:04:05Z".into(),
        api_url: "http://127.0.0.1:8080/api/v1".into(),
        options: plan::PlanOptions {
            hosted_mode_wire_value: "veldhost".into(),
        },
        targets: Vec::new(),
        summary: plan::Summary::of(&changes),
        changes,
        findings: vec![plan::Finding {
            target: plan::TargetRef {
                kind: plan::TargetKind::Zone,
                name: "example.com".into(),
            },
            severity: plan::Severity::Blocked,
            message: "m".into(),
            change_ids: vec![1],
            declared_at: None,
        }],
        desired: cfg::Desired {
            zones: vec![zone],
            sites: vec![cfg::SiteSpec {
                slug: "shop".into(),
                location: at(9),
                cron: None,
            }],
        },
        scope: None,
    }
}

fn blocked_create() -> plan::Change {
    plan::Change {
        status: plan::Status::Blocked,
        reason: Some("a CNAME stays at www".into()),
        ..record_change(Action::Create, None, None, Some("192.0.2.1"))
    }
}

fn json_of(plan: &plan::Plan) -> serde_json::Value {
    serde_json::to_value(PlanFileV2::from(plan)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn optional_fields_are_written_or_left_out_as_format_2_always_did() {
    let doc = json_of(&a_plan(vec![blocked_create()]));
    assert_eq!(
        doc["changes"][0],
        json!({
            "id": 1, "action": "create",
            "target": {"kind": "zone", "name": "example.com"},
            "resource": {"kind": "record", "name": "www", "type": "A"},
            "before": null, "after": {"ttl": 300, "content": "192.0.2.1"},
            "status": "blocked", "reason": "a CNAME stays at www"
        })
    );
    assert_eq!(
        doc["findings"][0],
        json!({"target": {"kind": "zone", "name": "example.com"}, "severity": "blocked",
               "message": "m", "change_ids": [1]})
    );
    let zone = &doc["desired"]["zones"][0];
    assert_eq!(zone["nameservers"], serde_json::Value::Null);
    assert_eq!(
        zone["registrar"],
        json!({"auto_renew": true, "lock": null, "whois_privacy": null, "expiry_warning_days": 20,
               "location": {"file": "zones/example.com.yaml", "line": 2, "col": 3}})
    );
    assert_eq!(
        doc["desired"]["sites"][0],
        json!({"slug": "shop", "location": {"file": "zones/example.com.yaml", "line": 9, "col": 3},
               "cron": null})
    );
}

#[test]
fn a_plan_goes_through_the_file_and_back_unchanged() {
    let mut plan = a_plan(vec![blocked_create()]);
    let back = plan::Plan::try_from(PlanFileV2::from(&plan)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, plan);
    plan.scope = Some(crate::plan::Scope {
        since: "origin/main".into(),
        commit: "c".repeat(40),
        targets: vec![plan::TargetRef {
            kind: plan::TargetKind::Domain,
            name: "example.com".into(),
        }],
    });
    let back = plan::Plan::try_from(PlanFileV2::from(&plan)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, plan, "the scope reads back");
}

#[test]
fn another_version_or_a_change_without_its_request_data_is_not_a_plan() {
    let mut file = PlanFileV2::from(&a_plan(Vec::new()));
    file.format_version = FORMAT_VERSION + 1;
    assert!(matches!(
        plan::Plan::try_from(file),
        Err(FromFileError::UnsupportedFormat { found }) if found == FORMAT_VERSION + 1
    ));
    let no_after = record_change(Action::Update, Some(7), Some("192.0.2.9"), None);
    let file = PlanFileV2::from(&a_plan(vec![no_after]));
    assert!(matches!(
        plan::Plan::try_from(file),
        Err(FromFileError::Request(_))
    ));
}

#[test]
fn a_desired_state_that_breaks_a_rule_is_not_a_plan() {
    let mut file = PlanFileV2::from(&a_plan(Vec::new()));
    file.desired.zones[0].records[0].ttl = 5;
    match plan::Plan::try_from(file) {
        Err(FromFileError::Desired(diags)) => {
            assert_eq!(diags.items.len(), 1);
            assert_eq!(
                diags.items[0].location.as_ref().map(ToString::to_string),
                Some("zones/example.com.yaml:4:3".into())
            );
        }
        other => panic!("{other:?}"),
    }
}
