//! Values only a real server may send (the emulator's are always clear): each is information,
//! never an error, and the whole list of findings is asserted.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::{Registration, registrar};
use crate::config::model::{Location, RegistrarExpectations, SafetyLimits, ZoneSpec};
use crate::dns::ZoneName;
use crate::plan::model::Severity;

fn at(line: usize) -> Location {
    Location {
        file: std::path::Path::new("z.yaml").into(),
        line,
        col: 1,
    }
}

fn zone(expect_lock: Option<bool>) -> ZoneSpec {
    ZoneSpec {
        zone: ZoneName::parse("odd.example").unwrap_or_else(|e| panic!("{e}")),
        location: at(1),
        nameservers: None,
        prune: true,
        ignore: Vec::new(),
        records: Vec::new(),
        safety: SafetyLimits::default(),
        registrar: expect_lock.map(|lock| RegistrarExpectations {
            auto_renew: None,
            lock: Some(lock),
            whois_privacy: None,
            expiry_warning_days: None,
            location: at(2),
        }),
    }
}

fn registration(listing: Value, registrar: Value) -> Registration {
    Registration {
        listing: Some(serde_json::from_value(listing).unwrap_or_else(|e| panic!("{e}"))),
        registrar: Some(serde_json::from_value(registrar).unwrap_or_else(|e| panic!("{e}"))),
    }
}

fn findings(spec: &ZoneSpec, reg: &Registration) -> Vec<(Severity, String)> {
    let now: DateTime<Utc> = "2026-01-02T03:04:05Z"
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    registrar::findings(spec, reg, now)
        .into_iter()
        .map(|f| (f.severity, f.message))
        .collect()
}

fn registrar_json(dnssec_state: Value, lock: Value) -> Value {
    json!({
        "nameservers": {"registry": ["a.ns.example"], "resolver": ["A.NS.example."], "state": "synced"},
        "dnssec": {"state": dnssec_state, "our_ds": "1 13 2 AA", "registry_ds": ["1 13 2 aa"]},
        "lock": lock,
    })
}

#[test]
fn unknown_words_and_shapes_are_information() {
    let reg = registration(
        json!({"domain": "ODD.example.", "expiry": "soon", "auto_renew": "off", "transfer_state": null}),
        registrar_json(json!("rolling"), json!("partial")),
    );
    assert_eq!(
        findings(&zone(Some(true)), &reg),
        vec![
            (
                Severity::Info,
                "DNSSEC state `rolling` is not a value dnscron knows; it is shown, not judged"
                    .to_string()
            ),
            (
                Severity::Info,
                "lock is `partial`, not a yes/no value dnscron knows; z.yaml:2:1 expects it on"
                    .to_string()
            ),
            (
                Severity::Info,
                "auto-renew is off and the expiry `soon` is not a date dnscron reads; check it in the portal"
                    .to_string()
            ),
        ]
    );
}

#[test]
fn an_unreadable_auto_renew_and_a_missing_lock_are_information() {
    let mut registrar = registrar_json(json!("active"), json!(null));
    registrar["lock"] = Value::Null;
    let reg = registration(
        json!({"domain": "odd.example", "expiry": "2026-01-03", "auto_renew": "sometimes"}),
        registrar,
    );
    assert_eq!(
        findings(&zone(Some(false)), &reg),
        vec![
            (
                Severity::Info,
                "the server did not return lock; z.yaml:2:1 expects it off".to_string()
            ),
            (
                Severity::Info,
                "auto_renew `sometimes` is not a yes/no value dnscron knows, so the expiry is not checked"
                    .to_string()
            ),
        ]
    );
}

#[test]
fn a_zone_the_account_does_not_register_has_no_finding_without_expectations() {
    let reg = Registration {
        listing: None,
        registrar: None,
    };
    assert_eq!(findings(&zone(None), &reg), Vec::new());
}
