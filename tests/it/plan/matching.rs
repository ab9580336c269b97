//! Matching rules of the diff: records by (name, type), cron by (schedule, command), nameservers
//! by set; prune, ignore, system records, blocked sites, missing targets.

use dnscron::cli::error::CommandError;
use dnscron_core::config::model::Desired;
use dnscron_core::plan::snapshot::LiveSnapshot;
use dnscron_core::plan::{
    Action, Plan, PlanError, Resource, Severity, Status, Value, diff, request,
};

use super::fixtures::*;

fn one_zone(
    desired: dnscron_core::config::model::ZoneSpec,
    live: dnscron_core::plan::snapshot::LiveZone,
) -> Plan {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![desired],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![live],
        ..Default::default()
    };
    plan_of(&desired, &live)
}

/// `(action, name, type, record id)` of every record change, in plan order.
fn record_changes(plan: &Plan) -> Vec<(Action, String, String, Option<i64>)> {
    plan.changes
        .iter()
        .filter_map(|c| match &c.resource {
            Resource::Record {
                name,
                rtype,
                record_id,
            } => Some((c.action, name.clone(), rtype.to_string(), *record_id)),
            Resource::CronJob { .. } | Resource::Nameservers => None,
        })
        .collect()
}

#[test]
fn ttl_difference_is_an_update_of_the_same_record() {
    let plan = one_zone(
        zone("example.com", &[("@", "MX", 3600, "20 mail2.example.com.")]),
        live_zone("example.com", &[("@", "MX", 600, "20 mail2.example.com.")]),
    );
    assert_eq!(
        record_changes(&plan),
        vec![(Action::Update, "@".into(), "MX".into(), Some(1))]
    );
    let c = request_of(&plan, &plan.changes[0]);
    assert_eq!(c.method, "PUT");
    assert_eq!(c.path(), "/dns/example.com/records/1");
    assert_eq!(
        c.body,
        Some(
            serde_json::json!({"name": "@", "type": "MX", "ttl": 3600, "content": "20 mail2.example.com."})
        )
    );
}

#[test]
fn identical_content_is_kept_and_the_rest_pairs_deterministically() {
    // Live 1.1.1.1 is kept; 3.3.3.3 and 4.4.4.4 (sorted) take the ids of 2.2.2.2 and 5.5.5.5
    // (sorted by content), whatever order either side lists them in.
    let plan = one_zone(
        zone(
            "example.com",
            &[
                ("www", "A", 3600, "4.4.4.4"),
                ("www", "A", 3600, "1.1.1.1"),
                ("www", "A", 3600, "3.3.3.3"),
            ],
        ),
        live_zone(
            "example.com",
            &[
                ("www", "A", 3600, "5.5.5.5"),
                ("www", "A", 3600, "1.1.1.1"),
                ("www", "A", 3600, "2.2.2.2"),
            ],
        ),
    );
    let pairs: Vec<(Option<i64>, String, String)> = plan
        .changes
        .iter()
        .map(|c| {
            let content = |v: &Option<Value>| match v {
                Some(Value::Record { content, .. }) => content.clone(),
                _ => String::new(),
            };
            let id = match &c.resource {
                Resource::Record { record_id, .. } => *record_id,
                Resource::CronJob { .. } | Resource::Nameservers => None,
            };
            (id, content(&c.before), content(&c.after))
        })
        .collect();
    assert_eq!(
        pairs,
        vec![
            (Some(3), "2.2.2.2".into(), "3.3.3.3".into()),
            (Some(1), "5.5.5.5".into(), "4.4.4.4".into()),
        ]
    );
}

#[test]
fn missing_records_are_created_and_extra_ones_deleted_only_with_prune() {
    let desired = zone(
        "example.com",
        &[
            ("@", "A", 3600, "192.0.2.1"),
            ("new", "A", 3600, "192.0.2.2"),
        ],
    );
    let live = live_zone(
        "example.com",
        &[
            ("@", "A", 3600, "192.0.2.1"),
            ("old", "A", 3600, "192.0.2.3"),
        ],
    );
    let plan = one_zone(desired.clone(), live.clone());
    assert_eq!(
        record_changes(&plan),
        vec![
            (Action::Create, "new".into(), "A".into(), None),
            (Action::Delete, "old".into(), "A".into(), Some(2)),
        ]
    );

    let mut keep = desired;
    keep.prune = false;
    let plan = one_zone(keep, live);
    assert_eq!(
        record_changes(&plan),
        vec![(Action::Create, "new".into(), "A".into(), None)]
    );
    let findings: Vec<&str> = plan.findings.iter().map(|f| f.message.as_str()).collect();
    insta::assert_debug_snapshot!(findings);
}

#[test]
fn ignore_rules_match_name_type_and_content_globs() {
    let live = live_zone(
        "example.com",
        &[
            ("_acme-challenge", "TXT", 300, "token1"),
            ("_acme-challenge.www", "TXT", 300, "token2"),
            ("_acme-challenge", "A", 300, "192.0.2.7"),
            ("dyn", "A", 60, "198.51.100.4"),
            ("dyn", "A", 60, "203.0.113.4"),
        ],
    );
    let mut desired = zone("example.com", &[]);
    desired.safety.allow_empty = true;
    ignore(&mut desired, "_acme-challenge*", Some("TXT"), None);
    ignore(&mut desired, "dyn", None, Some("198.51.*"));
    let plan = one_zone(desired, live);
    assert_eq!(
        record_changes(&plan),
        vec![
            (
                Action::Delete,
                "_acme-challenge".into(),
                "A".into(),
                Some(3)
            ),
            (Action::Delete, "dyn".into(), "A".into(), Some(5)),
        ],
        "only the type- and content-matching records are ignored"
    );
    assert!(plan.findings.iter().any(|f| {
        f.message
            .starts_with("3 live record(s) not in the files match `ignore` rules")
    }));
}

#[test]
fn ignored_records_are_never_paired_into_updates() {
    let mut desired = zone("example.com", &[("_acme-challenge", "TXT", 300, "mine")]);
    ignore(&mut desired, "_acme-challenge", None, None);
    let plan = one_zone(
        desired,
        live_zone("example.com", &[("_acme-challenge", "TXT", 300, "certbot")]),
    );
    assert_eq!(
        record_changes(&plan),
        vec![(Action::Create, "_acme-challenge".into(), "TXT".into(), None)]
    );
}

#[test]
fn duplicate_live_records_count_one_by_one() {
    let plan = one_zone(
        zone("example.com", &[("@", "A", 3600, "192.0.2.1")]),
        live_zone(
            "example.com",
            &[("@", "A", 3600, "192.0.2.1"), ("@", "A", 3600, "192.0.2.1")],
        ),
    );
    assert_eq!(
        record_changes(&plan),
        vec![(Action::Delete, "@".into(), "A".into(), Some(2))]
    );
}

#[test]
fn system_dnssec_and_apex_ns_records_are_never_planned() {
    let mut desired = zone(
        "example.com",
        &[
            ("@", "A", 3600, "192.0.2.1"),
            ("@", "NS", 3600, "ns9.example.net."),
        ],
    );
    desired.safety.allow_empty = true;
    let live = live_zone(
        "example.com",
        &[
            ("@", "A", 3600, "192.0.2.1"),
            (
                "@",
                "SOA",
                3600,
                "ns1.veldhost.net. hostmaster.example.com. 1 2 3 4 5",
            ),
            ("example.com.", "NS", 3600, "ns1.veldhost.net."),
            ("@", "DNSKEY", 3600, "257 3 13 abc"),
            ("@", "RRSIG", 3600, "A 13 2 3600 x"),
            ("@", "NSEC", 3600, "www.example.com. A"),
            ("sub", "DS", 3600, "1 13 2 abc"),
            ("sub", "NS", 3600, "ns1.sub-dns.net."),
        ],
    );
    let plan = one_zone(desired, live);
    assert_eq!(
        record_changes(&plan),
        vec![(Action::Delete, "sub".into(), "NS".into(), Some(8))],
        "only the plannable delegation below the apex is pruned"
    );
    let infos: Vec<&str> = plan
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Info)
        .map(|f| f.message.as_str())
        .collect();
    // The service-managed types, and the declared apex NS that is not planned.
    insta::assert_debug_snapshot!(infos);
}

#[test]
fn live_content_that_does_not_parse_never_crashes_the_plan() {
    let plan = one_zone(
        zone("example.com", &[("@", "A", 3600, "192.0.2.1")]),
        live_zone("example.com", &[("@", "A", 3600, "  not-an-address  ")]),
    );
    assert_eq!(plan.changes.len(), 1);
    assert_eq!(plan.changes[0].action, Action::Update);
    assert_eq!(
        plan.changes[0].before,
        Some(Value::Record {
            ttl: 3600,
            content: "not-an-address".into()
        })
    );
}

#[test]
fn cname_beside_kept_records_is_blocked() {
    let mut desired = zone("example.com", &[("www", "CNAME", 300, "example.com.")]);
    desired.prune = false;
    let plan = one_zone(
        desired.clone(),
        live_zone("example.com", &[("www", "A", 3600, "192.0.2.1")]),
    );
    assert_eq!(plan.changes.len(), 1);
    assert_eq!(plan.changes[0].status, Status::Blocked);
    insta::assert_snapshot!(plan.changes[0].reason.as_deref().unwrap());
    assert_eq!(plan.summary.blocked, 1);

    desired.prune = true;
    let plan = one_zone(
        desired,
        live_zone("example.com", &[("www", "A", 3600, "192.0.2.1")]),
    );
    assert!(plan.changes.iter().all(|c| c.status == Status::Ready));
}

fn ns_plan(spec_hosted: Option<&[&str]>, registry: &[&str], dnssec: &str) -> Plan {
    let mut z = zone("example.org", &[]);
    match spec_hosted {
        None => hosted(&mut z),
        Some(hosts) => custom(&mut z, hosts),
    }
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![z],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![live_zone("example.org", &[])],
        domains: vec![live_domain("example.org", registry, dnssec)],
        sites: vec![],
    };
    plan_of(&desired, &live)
}

#[test]
fn nameservers_compare_without_case_order_or_final_dots() {
    assert!(ns_plan(None, &["NS2.VELDHOST.NET.", "ns1.veldhost.net"], "inactive").is_empty());
    assert!(
        ns_plan(
            Some(&["ns1.other-dns.net", "ns2.other-dns.net"]),
            &["NS2.Other-DNS.net.", "ns1.other-dns.net."],
            "active"
        )
        .is_empty()
    );
    // One host differs: a change.
    let plan = ns_plan(
        Some(&["ns1.other-dns.net", "ns2.other-dns.net"]),
        &["ns1.other-dns.net", "ns3.other-dns.net"],
        "inactive",
    );
    assert_eq!(plan.changes.len(), 1);
    assert_eq!(
        request_of(&plan, &plan.changes[0]).body,
        Some(
            serde_json::json!({"mode": "custom", "nameservers": ["ns1.other-dns.net", "ns2.other-dns.net"]})
        )
    );
}

#[test]
fn switching_to_hosted_uses_the_wire_value_and_dnssec_needs_a_portal_step() {
    let plan = ns_plan(
        None,
        &["ns1.other-dns.net", "ns2.other-dns.net"],
        "inactive",
    );
    let c = &plan.changes[0];
    let r = request_of(&plan, c);
    assert_eq!(
        (r.method.as_str(), r.path().as_str()),
        ("PUT", "/domains/example.org/nameservers")
    );
    assert_eq!(r.body, Some(serde_json::json!({"mode": "veldhost"})));
    assert_eq!(c.status, Status::Ready);

    let plan = ns_plan(None, &["ns1.other-dns.net", "ns2.other-dns.net"], "active");
    let c = &plan.changes[0];
    assert_eq!(c.status, Status::NeedsPortalStep);
    assert!(
        c.reason
            .as_deref()
            .unwrap()
            .starts_with("DNSSEC is active on example.org")
    );
    assert_eq!(plan.summary.portal_step, 1);
    assert_eq!(plan.findings[0].severity, Severity::NeedsPortalStep);
    assert_eq!(plan.findings[0].change_ids, vec![c.id]);

    // A server with another word for "hosted".
    let mut z = zone("example.org", &[]);
    hosted(&mut z);
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![z],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![live_zone("example.org", &[])],
        domains: vec![live_domain(
            "example.org",
            &["a.other.net", "b.other.net"],
            "off",
        )],
        sites: vec![],
    };
    let opts = dnscron_core::plan::DiffOptions {
        hosted_mode_wire_value: "acmehost".into(),
        ..opts()
    };
    let plan = diff(&desired, &live, &opts).unwrap();
    assert_eq!(
        request_of(&plan, &plan.changes[0]).body,
        Some(serde_json::json!({"mode": "acmehost"}))
    );
}

fn cron_plan(want: &[(&str, &str)], state: &str, base: i64, have: &[(&str, &str)]) -> Plan {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![],
        sites: vec![site("shop", want)],
    };
    let live = LiveSnapshot {
        sites: vec![live_site("shop", state, base, have)],
        ..Default::default()
    };
    plan_of(&desired, &live)
}

fn cron_changes(plan: &Plan) -> Vec<(Action, String, u32, String)> {
    plan.changes
        .iter()
        .filter_map(|c| match &c.resource {
            Resource::CronJob {
                schedule,
                command,
                occurrence,
            } => Some((
                c.action,
                format!("{schedule} {command}"),
                *occurrence,
                // A cron delete's index is found when apply re-lists, so only the
                // request for an index the caller supplies exists.
                request::derive(c, &plan.options, Some(7)).unwrap().path(),
            )),
            Resource::Record { .. } | Resource::Nameservers => None,
        })
        .collect()
}

#[test]
fn cron_jobs_match_with_whitespace_normalized() {
    let plan = cron_plan(
        &[("*/5 * * * *", "php artisan schedule:run")],
        "active",
        1,
        &[("*/5  *  * * *", " php  artisan schedule:run")],
    );
    assert!(plan.is_empty(), "{:?}", plan.changes);
}

#[test]
fn identical_live_jobs_count_one_by_one() {
    let plan = cron_plan(
        &[("0 * * * *", "wp cache flush")],
        "active",
        0,
        &[
            ("0 * * * *", "wp cache flush"),
            ("0 * * * *", "wp cache flush"),
            ("0 * * * *", "wp cache flush"),
        ],
    );
    assert_eq!(
        cron_changes(&plan),
        vec![
            (
                Action::Delete,
                "0 * * * * wp cache flush".into(),
                0,
                "/sites/shop/cron/7".into()
            ),
            (
                Action::Delete,
                "0 * * * * wp cache flush".into(),
                1,
                "/sites/shop/cron/7".into()
            ),
        ]
    );
    let keys: Vec<String> = plan
        .changes
        .iter()
        .map(|c| c.idempotency_key(&plan.plan_id, 0, &plan.options).unwrap())
        .collect();
    assert_ne!(keys[0], keys[1], "two identical deletes need two keys");
}

#[test]
fn an_empty_cron_list_removes_every_job_and_no_cron_key_leaves_them() {
    let plan = cron_plan(&[], "active", 0, &[("0 * * * *", "wp cache flush")]);
    assert_eq!(cron_changes(&plan).len(), 1);

    let mut unmanaged = site("shop", &[]);
    unmanaged.cron = None;
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![],
        sites: vec![unmanaged],
    };
    let mut live = live_site("shop", "active", 0, &[]);
    live.cron = None;
    let live = LiveSnapshot {
        sites: vec![live],
        ..Default::default()
    };
    assert!(plan_of(&desired, &live).is_empty());
}

#[test]
fn cron_changes_on_an_inactive_site_are_blocked() {
    let plan = cron_plan(&[("0 0 * * *", "php legacy.php")], "suspended", 0, &[]);
    assert_eq!(plan.changes.len(), 1);
    assert_eq!(plan.changes[0].status, Status::Blocked);
    assert_eq!(
        plan.changes[0].reason.as_deref(),
        Some(
            "site shop is suspended: the API refuses cron changes on a site that is not active; reactivate it in the portal, then plan again"
        )
    );
    assert_eq!(plan.summary.blocked, 1);
    assert_eq!(plan.findings[0].severity, Severity::Blocked);

    let active = cron_plan(&[("0 0 * * *", "php legacy.php")], "Active", 0, &[]);
    assert_eq!(active.changes[0].status, Status::Ready);
}

#[test]
fn a_declared_target_missing_live_is_an_error_with_its_place() {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone("missing.example", &[])],
        sites: vec![],
    };
    let err = diff(&desired, &LiveSnapshot::default(), &opts()).unwrap_err();
    assert!(matches!(err, PlanError::MissingLive { .. }));
    assert_eq!(
        err.to_string(),
        "zone `missing.example` declared at zones/missing.example.yaml:1:3 was not found in the live account"
    );
    insta::assert_snapshot!(CommandError::from(err).hints().join("\n"));
}

#[test]
fn a_snapshot_without_the_cron_listing_is_an_internal_error() {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![],
        sites: vec![site("shop", &[("0 0 * * *", "php a.php")])],
    };
    let mut live = live_site("shop", "active", 0, &[]);
    live.cron = None;
    let live = LiveSnapshot {
        sites: vec![live],
        ..Default::default()
    };
    let err = diff(&desired, &live, &opts()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the live snapshot lacks the cron jobs of site `shop` (declared at sites/shop.yaml:1:3)"
    );
}

#[test]
fn record_writes_send_the_canonical_wire_form() {
    let plan = one_zone(
        zone(
            "example.com",
            &[
                ("@", "TXT", 3600, "\"v=spf1 \" \"-all\""),
                ("www", "CNAME", 3600, "Example.COM"),
            ],
        ),
        live_zone("example.com", &[]),
    );
    let contents: Vec<serde_json::Value> = plan
        .changes
        .iter()
        .map(|c| request_of(&plan, c).body.unwrap()["content"].clone())
        .collect();
    assert_eq!(
        contents,
        vec![
            serde_json::json!("v=spf1 -all"),
            serde_json::json!("example.com.")
        ]
    );
}

/// Types outside the nine (HTTPS, SSHFP, ALIAS, …) are left alone like the service's, but said
/// to be types dnscron does not manage, not system or DNSSEC records.
#[test]
fn types_dnscron_does_not_manage_are_left_alone_and_named_so() {
    let unmanaged = "records of types dnscron does not manage (ALIAS, HTTPS, SSHFP) are left alone";
    let service = "system and DNSSEC records (SOA) are managed by the service and never planned";
    let soa = ("@", "SOA", 3600, "ns1. host. 1 2 3 4 5");
    let cases = [
        (vec![soa], vec![service, unmanaged]),
        (vec![], vec![unmanaged]),
    ];
    for (more, expected) in cases {
        let mut desired = zone("example.com", &[("@", "A", 3600, "192.0.2.1")]);
        desired.safety.allow_empty = true;
        let mut listed = vec![
            ("@", "A", 3600, "192.0.2.1"),
            ("@", "HTTPS", 3600, "1 . alpn=h2"),
            ("host", "sshfp", 3600, "4 2 abc"),
            ("www", "ALIAS", 3600, "lb.example.net."),
        ];
        listed.extend(more);
        let plan = one_zone(desired, live_zone("example.com", &listed));
        assert!(plan.changes.is_empty(), "{:#?}", plan.changes);
        let infos: Vec<&str> = plan.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(infos, expected);
    }
}
