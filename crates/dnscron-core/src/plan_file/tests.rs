//! The conversions on their own: optional fields written exactly as format 2 wrote them (format
//! 3 adds `options.allow_mass_changes` and each change's `request`), and a deserialized file
//! that is not a plan refused with a typed error.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use super::{FORMAT_VERSION, FromFileError, PlanFileV5};
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
        accept: Vec::new(),
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
            set: None,
        }],
        uses: Vec::new(),
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
        plan_id: "0123456789abcdef0123456789abcdef".into(),
        created_at: "2026-01-02T03:04:05Z".into(),
        api_url: "http://127.0.0.1:8080/api/v1".into(),
        options: plan::PlanOptions {
            hosted_mode_wire_value: "veldhost".into(),
            allow_mass_changes: false,
        },
        targets: Vec::new(),
        summary: plan::Summary::of(&changes),
        changes,
        findings: vec![plan::Finding {
            change_ids: vec![1],
            ..plan::Finding::new(
                crate::plan::FindingCode::ChangeBlocked,
                plan::TargetRef {
                    kind: plan::TargetKind::Zone,
                    name: "example.com".into(),
                },
                "m".into(),
            )
        }],
        desired: cfg::Desired {
            unmanaged: Default::default(),
            zones: vec![zone],
            sites: vec![cfg::SiteSpec {
                accept: Vec::new(),
                slug: "shop".into(),
                location: at(9),
                cron: None,
            }],
        },
        scope: None,
        over_limits: Vec::new(),
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
    serde_json::to_value(file_of(plan)).unwrap_or_else(|e| panic!("{e}"))
}

fn file_of(plan: &plan::Plan) -> PlanFileV5 {
    PlanFileV5::of(plan).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn optional_fields_are_written_or_left_out_as_format_2_did() {
    let doc = json_of(&a_plan(vec![blocked_create()]));
    assert_eq!(
        doc["changes"][0],
        json!({
            "id": 1, "action": "create",
            "target": {"kind": "zone", "name": "example.com"},
            "resource": {"kind": "record", "name": "www", "type": "A"},
            "before": null, "after": {"ttl": 300, "content": "192.0.2.1"},
            "status": "blocked", "reason": "a CNAME stays at www",
            "request": {"method": "POST", "path": "/dns/example.com/records",
                        "body": {"name": "www", "type": "A", "ttl": 300, "content": "192.0.2.1"}}
        })
    );
    assert_eq!(
        doc["findings"][0],
        json!({"code": "change-blocked", "target": {"kind": "zone", "name": "example.com"},
               "severity": "blocked", "message": "m", "change_ids": [1]})
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
    let back = file_of(&plan).into_plan().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, plan);
    plan.scope = Some(crate::plan::Scope {
        since: "origin/main".into(),
        commit: "c".repeat(40),
        targets: vec![plan::TargetRef {
            kind: plan::TargetKind::Domain,
            name: "example.com".into(),
        }],
        removed: Vec::new(),
    });
    let back = file_of(&plan).into_plan().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, plan, "the scope reads back");
}

#[test]
fn another_version_or_a_change_without_its_request_data_is_not_a_plan() {
    let mut file = file_of(&a_plan(Vec::new()));
    file.format_version = FORMAT_VERSION + 1;
    assert!(matches!(
        file.into_plan(),
        Err(FromFileError::UnsupportedFormat { found }) if found == FORMAT_VERSION + 1
    ));
    let update = record_change(
        Action::Update,
        Some(7),
        Some("192.0.2.9"),
        Some("192.0.2.10"),
    );
    let mut file = file_of(&a_plan(vec![update]));
    file.changes[0].after = None;
    assert!(matches!(file.into_plan(), Err(FromFileError::Request(_))));
    assert!(
        PlanFileV5::of(&a_plan(vec![record_change(
            Action::Update,
            Some(7),
            Some("192.0.2.9"),
            None
        )]))
        .is_err(),
        "a change without its request's data is not written either"
    );
}

#[test]
fn a_desired_state_that_breaks_a_rule_is_not_a_plan() {
    let mut file = file_of(&a_plan(Vec::new()));
    file.desired.zones[0].records[0].ttl = 5;
    match file.into_plan() {
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

fn update_and_cron_delete() -> plan::Plan {
    let update = record_change(
        Action::Update,
        Some(7),
        Some("192.0.2.9"),
        Some("192.0.2.10"),
    );
    let cron_delete = plan::Change {
        id: 2,
        ..plan::Change::new(
            Action::Delete,
            plan::TargetRef {
                kind: plan::TargetKind::Site,
                name: "shop".into(),
            },
            plan::Resource::CronJob {
                schedule: "0 3 * * *".into(),
                command: "php bin/backup.php".into(),
                occurrence: 0,
            },
            Some(plan::Value::CronJob {
                schedule: "0 3 * * *".into(),
                command: "php bin/backup.php".into(),
            }),
            None,
        )
    };
    a_plan(vec![plan::Change { id: 1, ..update }, cron_delete])
}

#[test]
fn each_change_shows_the_request_apply_derives_with_a_placeholder_for_the_cron_index() {
    let doc = json_of(&update_and_cron_delete());
    assert_eq!(
        doc["changes"][0]["request"],
        json!({"method": "PUT", "path": "/dns/example.com/records/7",
               "body": {"name": "www", "type": "A", "ttl": 300, "content": "192.0.2.10"}})
    );
    assert_eq!(
        doc["changes"][1]["request"],
        json!({"method": "DELETE", "path": "/sites/shop/cron/{index}", "body": null})
    );
}

#[test]
fn a_request_that_differs_from_the_derived_one_is_not_a_plan() {
    let plan = update_and_cron_delete();
    assert!(file_of(&plan).into_plan().is_ok());
    type Edit = fn(&mut super::change::Request);
    let tamper: [(&str, Edit); 4] = [
        ("method", |r| r.method = "DELETE".into()),
        ("path", |r| r.path = "/dns/example.com/records/8".into()),
        ("body", |r| {
            r.body = Some(json!({"name": "www", "type": "A", "ttl": 300, "content": "203.0.113.7"}))
        }),
        ("body", |r| r.body = None),
    ];
    for (field, edit) in tamper {
        let mut file = file_of(&plan);
        edit(&mut file.changes[0].request);
        match file.into_plan() {
            Err(FromFileError::RequestDiffers {
                id: 1,
                index: 0,
                field: f,
            }) => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
    }
    let mut file = file_of(&plan);
    file.changes[1].request.path = "/sites/shop/cron/0".into();
    assert!(matches!(
        file.into_plan(),
        Err(FromFileError::RequestDiffers {
            index: 1,
            field: "path",
            ..
        })
    ));
}

#[test]
fn a_hostile_plan_id_or_api_url_is_not_a_plan() {
    let plan = a_plan(Vec::new());
    for bad in ["", "../../etc", "id\u{1b}[2J", &"a".repeat(10_000)] {
        let mut file = file_of(&plan);
        file.plan_id = bad.to_string();
        assert!(
            matches!(file.into_plan(), Err(FromFileError::PlanId(_))),
            "{bad:?}"
        );
    }
    for bad in ["", "ftp://127.0.0.1/", "127.0.0.1:8080", "http://"] {
        let mut file = file_of(&plan);
        file.api_url = bad.to_string();
        assert!(
            matches!(file.into_plan(), Err(FromFileError::ApiUrl(_))),
            "{bad:?}"
        );
    }
}

#[test]
fn load_places_a_refusal_at_the_key_it_is_about() {
    let plan = update_and_cron_delete();
    let json = super::to_json(&plan).unwrap_or_else(|e| panic!("{e}"));
    let edited = json.replacen(
        "\"plan_id\": \"0123456789abcdef0123456789abcdef\"",
        "\"plan_id\": \"../x\"",
        1,
    );
    let err = super::load(&edited, "plan.json").map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the plan file is not a valid dnscron plan: plan.json:3:3: `plan_id` contains `.`; it must be 1 to 64 ASCII letters, digits, `-` or `_`"
    );
    let edited = json.replacen("/sites/shop/cron/{index}", "/sites/shop/cron/0", 1);
    let err = super::load(&edited, "plan.json").map(|_| ()).unwrap_err();
    let line = edited
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("\"request\""))
        .nth(1)
        .map(|(i, l)| (i + 1, l.len() - l.trim_start().len() + 1));
    let (line, col) = line.unwrap_or_else(|| panic!("{edited}"));
    assert_eq!(
        err.to_string(),
        format!(
            "the plan file is not a valid dnscron plan: plan.json:{line}:{col}: change 2's request `path` differs from the request its change derives; apply sends only derived requests"
        )
    );
}

#[test]
fn a_file_over_the_cap_is_refused_before_it_is_read() {
    let text = " ".repeat(super::MAX_BYTES + 1);
    let err = super::load(&text, "big.json").map(|_| ()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "the plan file is not a valid dnscron plan: big.json: the file is larger than {} bytes, the most a plan file may have",
            super::MAX_BYTES
        )
    );
}
