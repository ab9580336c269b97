use serde_json::json;

use super::{demo, readonly};
use crate::common::emulator::example_emulator;

#[tokio::test]
async fn domains_list_and_detail() {
    let emu = example_emulator();
    let api = demo(&emu);
    let resp = api.get("/domains").await;
    assert_eq!(resp.status, 200);
    let domains = resp.body["domains"].as_array().unwrap();
    assert_eq!(domains.len(), 3);
    let com = &domains[0];
    assert_eq!(com["domain"], "example.com");
    assert_eq!(com["dnssec"], "active");
    assert_eq!(com["auto_renew"], true);
    assert!(com["expiry"].is_string() && com["transfer_state"].is_string());
    let detail = api.get("/domains/example.org").await;
    assert_eq!(detail.status, 200);
    assert_eq!(detail.body["dnssec"], "inactive");
    let missing = api.get("/domains/nope.example").await;
    assert_eq!((missing.status, missing.error_type()), (404, "not_found"));
}

#[tokio::test]
async fn registrar_state() {
    let emu = example_emulator();
    let resp = demo(&emu).get("/domains/example.com/registrar").await;
    assert_eq!(resp.status, 200);
    let ns = &resp.body["nameservers"];
    assert_eq!(
        ns["registry"],
        json!(["ns1.veldhost.net", "ns2.veldhost.net"])
    );
    assert_eq!(ns["resolver"], ns["registry"]);
    assert!(ns["state"].is_string());
    let dnssec = &resp.body["dnssec"];
    assert_eq!(dnssec["state"], "active");
    assert!(dnssec["our_ds"].is_array() && dnssec["registry_ds"].is_array());
    assert!(resp.body["lock"].is_boolean() && resp.body["whois_privacy"].is_boolean());
    let org = demo(&emu).get("/domains/example.org/registrar").await;
    assert_eq!(org.body["dnssec"]["state"], "inactive");
    assert_eq!(
        demo(&emu)
            .get("/domains/nope.example/registrar")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn switch_to_custom_nameservers_and_back() {
    let emu = example_emulator();
    let api = demo(&emu);
    let custom =
        json!({"mode": "custom", "nameservers": ["ns1.other-dns.net", "ns2.other-dns.net"]});
    let resp = api.put("/domains/example.org/nameservers", custom).await;
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    assert_eq!(resp.body["result"], "nameservers_updated");
    assert_eq!(
        emu.state().registry_nameservers("example.org"),
        ["ns1.other-dns.net", "ns2.other-dns.net"]
    );
    let registrar = api.get("/domains/example.org/registrar").await;
    assert_eq!(
        registrar.body["nameservers"]["registry"][0],
        "ns1.other-dns.net"
    );
    // Records are kept whichever mode is used.
    assert_eq!(emu.state().visible_records("example.org").len(), 3);
    let back = api
        .put(
            "/domains/example.org/nameservers",
            json!({"mode": "veldhost"}),
        )
        .await;
    assert_eq!(back.status, 200);
    assert_eq!(
        emu.state().registry_nameservers("example.org"),
        ["ns1.veldhost.net", "ns2.veldhost.net"]
    );
}

#[tokio::test]
async fn custom_nameservers_are_validated() {
    let emu = example_emulator();
    let api = demo(&emu);
    let cases = [
        json!({"mode": "custom", "nameservers": ["ns1.other-dns.net"]}),
        json!({"mode": "custom", "nameservers": (1..=7).map(|i| format!("ns{i}.other-dns.net")).collect::<Vec<_>>()}),
        json!({"mode": "custom", "nameservers": ["ns1.example.org", "ns2.other-dns.net"]}),
        json!({"mode": "custom", "nameservers": ["ns1.other-dns.net", "not a host"]}),
        json!({"mode": "custom"}),
        json!({"mode": "hosted"}),
        json!({"nameservers": ["ns1.other-dns.net", "ns2.other-dns.net"]}),
    ];
    for body in cases {
        let resp = api
            .put("/domains/example.org/nameservers", body.clone())
            .await;
        assert_eq!(resp.status, 422, "{body}: {:?}", resp.body);
        assert_eq!(resp.error_type(), "validation_error");
        let details = resp.body["error"]["details"].as_object().unwrap();
        assert!(
            details.contains_key("nameservers") || details.contains_key("mode"),
            "{body}"
        );
    }
    let six = json!({"mode": "custom", "nameservers": (1..=6).map(|i| format!("ns{i}.other-dns.net")).collect::<Vec<_>>()});
    assert_eq!(
        api.put("/domains/example.org/nameservers", six)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn nameserver_change_while_dnssec_is_active_needs_the_portal() {
    let emu = example_emulator();
    let api = demo(&emu);
    let custom =
        json!({"mode": "custom", "nameservers": ["ns1.other-dns.net", "ns2.other-dns.net"]});
    for domain in ["example.com", "example.net"] {
        let resp = api
            .put(&format!("/domains/{domain}/nameservers"), custom.clone())
            .await;
        assert_eq!((resp.status, resp.error_type()), (409, "conflict"));
        assert_eq!(
            resp.body["error"]["continue_url"].as_str().unwrap(),
            format!("https://portal.veldhost.example/domains/{domain}/dnssec?next=nameservers")
        );
        assert_eq!(
            emu.state().registry_nameservers(domain),
            ["ns1.veldhost.net", "ns2.veldhost.net"]
        );
    }
    let ro = readonly(&emu)
        .put("/domains/example.org/nameservers", custom)
        .await;
    assert_eq!(ro.status, 403);
    assert_eq!(
        api.put(
            "/domains/nope.example/nameservers",
            json!({"mode": "veldhost"})
        )
        .await
        .status,
        404
    );
}

/// The example account with example.org delegated to `registry` at the registry while
/// resolvers see `resolver`, and no seeded state word: the emulator derives it.
fn org_delegated(registry: &[&str], resolver: &[&str]) -> dnscron_emulator::BackgroundEmulator {
    let mut seed = dnscron_emulator::Seed::example();
    seed.rate_limit = dnscron_emulator::RateLimit::off();
    let org = seed
        .domains
        .iter_mut()
        .find(|d| d.domain == "example.org")
        .unwrap();
    org.nameservers = Some(registry.iter().map(|s| s.to_string()).collect());
    org.resolver_nameservers = Some(resolver.iter().map(|s| s.to_string()).collect());
    org.nameserver_state = None;
    crate::common::emulator::start_emulator(seed)
}

/// Lists that differ only in order, case or a final dot name the same delegation: `synced`;
/// another host is `pending`.
#[tokio::test]
async fn the_nameserver_state_ignores_order_and_case() {
    let both = ["ns1.other-dns.net", "ns2.other-dns.net"];
    let emu = org_delegated(&["NS2.Other-DNS.net.", "ns1.other-dns.net"], &both);
    let resp = demo(&emu).get("/domains/example.org/registrar").await;
    assert_eq!(
        resp.body["nameservers"],
        json!({
            "registry": ["NS2.Other-DNS.net.", "ns1.other-dns.net"],
            "resolver": both,
            "state": "synced",
        })
    );
    let emu = org_delegated(&["ns1.other-dns.net", "ns3.other-dns.net"], &both);
    let resp = demo(&emu).get("/domains/example.org/registrar").await;
    assert_eq!(resp.body["nameservers"]["state"], "pending");
}

/// The probe's registrar steps: a domain whose registry lists the service's nameservers in
/// another order and case is delegated here already (no step); another list needs one.
#[tokio::test]
async fn the_probe_sees_the_service_nameservers_in_any_order_and_case() {
    let steps = |registry: &'static [&'static str]| async move {
        let emu = org_delegated(registry, registry);
        let resp = demo(&emu)
            .post("/dns/zones/probe", json!({"domain": "example.org"}))
            .await;
        assert_eq!(resp.status, 200, "{:?}", resp.body);
        resp.body["registrar_steps"].clone()
    };
    assert_eq!(
        steps(&["NS2.VELDHOST.NET.", "ns1.veldhost.net"]).await,
        json!([])
    );
    let elsewhere = steps(&["ns1.other-dns.net", "ns2.other-dns.net"]).await;
    assert_eq!(elsewhere[0]["step"], "set_nameservers", "{elsewhere}");
}

/// End to end: with registry and resolvers listing the same hosts in another order and case,
/// `plan` reports no delegation under way and no unsettled state.
#[test]
fn a_plan_sees_no_delegation_change_when_lists_differ_only_in_order_and_case() {
    let emu = org_delegated(
        &["NS2.Other-DNS.net.", "ns1.other-dns.net"],
        &["ns1.other-dns.net", "ns2.other-dns.net"],
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("org.yaml");
    std::fs::write(&file, "zone: example.org\nprune: false\nrecords: []\n").unwrap();
    let out = crate::common::Test::new()
        .arg("plan")
        .arg(&file)
        .api(&emu.base_url(), "demo-token")
        .snapshot();
    let mut settings = insta::Settings::clone_current();
    for (re, with) in crate::common::filters() {
        settings.add_filter(re, with);
    }
    settings.bind(|| insta::assert_snapshot!("plan_delegation_in_another_order", out));
}
