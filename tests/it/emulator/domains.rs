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
