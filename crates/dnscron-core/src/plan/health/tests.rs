//! Values only a real server may send (the emulator's are always clear): each is information,
//! never an error, and the whole list of findings is asserted.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::{Registration, registrar};
use crate::config::model::{Location, RegistrarExpectations, SafetyLimits, ZoneSpec};
use crate::dns::ZoneName;
use crate::finding::Severity;

fn at(line: usize) -> Location {
    Location {
        file: std::path::Path::new("z.yaml").into(),
        line,
        col: 1,
    }
}

fn zone(expect_lock: Option<bool>) -> ZoneSpec {
    ZoneSpec {
        accept: Vec::new(),
        zone: ZoneName::parse("odd.example").unwrap_or_else(|e| panic!("{e}")),
        location: at(1),
        nameservers: None,
        prune: true,
        ignore: Vec::new(),
        records: Vec::new(),
        uses: Vec::new(),
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

fn nameservers_json(registry: &[&str], resolver: &[&str], state: &str) -> Value {
    let mut registrar = registrar_json(json!("active"), json!(true));
    registrar["nameservers"] = json!({"registry": registry, "resolver": resolver, "state": state});
    registrar
}

fn nameserver_findings(
    registry: &[&str],
    resolver: &[&str],
    state: &str,
) -> Vec<(Severity, String)> {
    let reg = registration(
        json!({"domain": "odd.example", "auto_renew": true}),
        nameservers_json(registry, resolver, state),
    );
    findings(&zone(None), &reg)
}

/// Registry and resolver lists are compared as sets of hosts: another order, case or a final
/// dot is the same delegation; another host is a change under way.
#[test]
fn nameserver_lists_compare_without_order_or_case() {
    let resolver = ["ns1.dns.example", "ns2.dns.example"];
    assert_eq!(
        nameserver_findings(
            &["NS2.DNS.example.", "ns1.dns.example"],
            &resolver,
            "synced"
        ),
        Vec::new()
    );
    assert_eq!(
        nameserver_findings(&["ns1.dns.example", "ns3.dns.example"], &resolver, "synced"),
        vec![(
            Severity::Warning,
            "the delegation of odd.example is changing: resolvers still see ns1.dns.example, ns2.dns.example (live), the registry delegates to ns1.dns.example, ns3.dns.example (pending); resolvers follow within the old NS records' TTL (up to 2 days), so both sets must serve the zone until then".to_string()
        )]
    );
    // The same hosts with the registrar's own word for a change in progress: that word counts.
    assert_eq!(
        nameserver_findings(&["NS2.DNS.example.", "ns1.dns.example"], &resolver, "pending"),
        vec![(
            Severity::Warning,
            "the nameserver state of odd.example is `pending`, not settled: registry and resolvers both list ns1.dns.example, ns2.dns.example, but the registrar has not finished the change; plan again later".to_string()
        )]
    );
}
