use serde_json::{Value, json};

use super::{demo, readonly};
use crate::common::emulator::example_emulator;

fn rec(name: &str, rtype: &str, ttl: u64, content: &str) -> Value {
    json!({"name": name, "type": rtype, "ttl": ttl, "content": content})
}

#[tokio::test]
async fn zones_are_listed_with_dnssec_state() {
    let emu = example_emulator();
    let resp = demo(&emu).get("/dns").await;
    assert_eq!(resp.status, 200);
    let zones: Vec<_> = resp.body["zones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|z| (z["zone"].as_str().unwrap(), z["dnssec"].as_str().unwrap()))
        .collect();
    assert_eq!(
        zones,
        [
            ("agency.example", "inactive"),
            ("example.com", "active"),
            ("example.net", "active"),
            ("example.org", "inactive")
        ]
    );
}

#[tokio::test]
async fn listing_hides_system_and_dnssec_records_and_names_the_nameservers() {
    let emu = example_emulator();
    let records = demo(&emu)
        .get_all("/dns/example.com/records", "records", 100)
        .await;
    assert_eq!(records.len(), 15);
    for r in &records {
        let t = r["type"].as_str().unwrap();
        assert!(!["SOA", "DNSKEY", "RRSIG"].contains(&t), "{r}");
        assert!(!(t == "NS" && r["name"] == "@"), "{r}");
    }
    let state = emu.state();
    assert_eq!(state.zones["example.com"].len(), 20);
    assert_eq!(
        state.zones["example.com"]
            .iter()
            .filter(|r| r.hidden)
            .count(),
        5
    );
    let resp = demo(&emu).get("/dns/example.com/records").await;
    assert_eq!(
        resp.body["nameservers"],
        json!(["ns1.veldhost.net", "ns2.veldhost.net"])
    );
    assert_eq!(
        demo(&emu).get("/dns/nope.example/records").await.status,
        404
    );
}

#[tokio::test]
async fn hidden_records_cannot_be_written() {
    let emu = example_emulator();
    let api = demo(&emu);
    let hidden: Vec<i64> = emu.state().zones["example.com"]
        .iter()
        .filter(|r| r.hidden)
        .map(|r| r.id)
        .collect();
    for id in hidden {
        let path = format!("/dns/example.com/records/{id}");
        let put = api.put(&path, rec("@", "TXT", 300, "x")).await;
        assert_eq!((put.status, put.error_type()), (404, "not_found"));
        assert_eq!(api.delete(&path).await.status, 404);
    }
    let soa = api
        .post(
            "/dns/example.com/records",
            rec("@", "SOA", 300, "a b 1 2 3 4 5"),
        )
        .await;
    assert_eq!(soa.status, 422);
    let ns = api
        .post(
            "/dns/example.com/records",
            rec("@", "NS", 300, "ns9.example.net."),
        )
        .await;
    assert_eq!(ns.status, 422);
    assert_eq!(emu.state().zones["example.com"].len(), 20);
}

#[tokio::test]
async fn writes_are_visible_to_the_next_listing() {
    let emu = example_emulator();
    let api = demo(&emu);
    let created = api
        .post(
            "/dns/example.com/records",
            rec("new", "A", 300, "192.0.2.7"),
        )
        .await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let id = created.body["id"].as_i64().unwrap();
    let listed = api
        .get_all("/dns/example.com/records", "records", 100)
        .await;
    assert!(
        listed
            .iter()
            .any(|r| r["id"] == id && r["content"] == "192.0.2.7")
    );

    let updated = api
        .put(
            &format!("/dns/example.com/records/{id}"),
            rec("new", "A", 600, "192.0.2.8"),
        )
        .await;
    assert_eq!(updated.status, 200);
    assert_eq!(updated.body["ttl"], 600);
    let listed = api
        .get_all("/dns/example.com/records", "records", 100)
        .await;
    assert!(
        listed
            .iter()
            .any(|r| r["id"] == id && r["content"] == "192.0.2.8")
    );

    let deleted = api.delete(&format!("/dns/example.com/records/{id}")).await;
    assert_eq!(deleted.status, 200);
    let listed = api
        .get_all("/dns/example.com/records", "records", 100)
        .await;
    assert!(!listed.iter().any(|r| r["id"] == id));
    assert_eq!(
        api.delete(&format!("/dns/example.com/records/{id}"))
            .await
            .status,
        404
    );
    let bad_id = api.delete("/dns/example.com/records/abc").await;
    assert_eq!(bad_id.status, 422);
    assert_eq!(
        readonly(&emu)
            .delete("/dns/example.com/records/1001")
            .await
            .status,
        403
    );
}

#[tokio::test]
async fn record_limits_accept_the_bounds_and_refuse_beyond() {
    let emu = example_emulator();
    let api = demo(&emu);
    let accepted = [
        rec("t60", "A", 60, "192.0.2.1"),
        rec("t604800", "A", 604_800, "192.0.2.1"),
        rec("long", "TXT", 300, &"x".repeat(2000)),
        rec("v6", "AAAA", 300, "2001:db8::1"),
        rec("mx", "MX", 300, "10 mail.example.com."),
        rec("_s._tcp", "SRV", 300, "1 2 3 t.example.com."),
        rec("@", "CAA", 300, "0 issue \"ca.example\""),
        rec("alias", "CNAME", 300, "example.com."),
        rec("sub", "NS", 300, "ns1.other-dns.net."),
        rec("1", "PTR", 300, "host.example.com."),
        rec("*", "A", 300, "192.0.2.3"),
        rec("abs.example.com.", "A", 300, "192.0.2.4"),
    ];
    for body in accepted {
        let resp = api.post("/dns/example.com/records", body.clone()).await;
        assert_eq!(resp.status, 201, "{body}: {:?}", resp.body);
    }
    let refused = [
        (rec("a", "A", 59, "192.0.2.1"), "ttl"),
        (rec("a", "A", 604_801, "192.0.2.1"), "ttl"),
        (
            json!({"name": "a", "type": "A", "ttl": "300", "content": "192.0.2.1"}),
            "ttl",
        ),
        (rec("a", "TXT", 300, &"x".repeat(2001)), "content"),
        (rec("a", "XYZ", 300, "x"), "type"),
        (rec("a", "A", 300, "not-an-ip"), "content"),
        (rec("a", "A", 300, "2001:db8::1"), "content"),
        (rec("a", "AAAA", 300, "192.0.2.1"), "content"),
        (rec("a", "MX", 300, "mail.example.com."), "content"),
        (rec("a", "SRV", 300, "1 2 t.example.com."), "content"),
        (rec("a", "CNAME", 300, "not a host"), "content"),
        (rec("a", "CAA", 300, "issue"), "content"),
        (rec("bad name", "A", 300, "192.0.2.1"), "name"),
        (rec("www.example.org.", "A", 300, "192.0.2.1"), "name"),
        (rec("@", "CNAME", 300, "other.example."), "type"),
    ];
    for (body, field) in refused {
        let resp = api.post("/dns/example.com/records", body.clone()).await;
        assert_eq!(resp.status, 422, "{body}");
        assert!(
            resp.body["error"]["details"][field].is_array(),
            "{body}: {:?}",
            resp.body
        );
    }
}

#[tokio::test]
async fn a_cname_shares_its_name_with_nothing() {
    let emu = example_emulator();
    let api = demo(&emu);
    let cname = rec("www", "CNAME", 300, "example.com.");
    let refused = api.post("/dns/example.com/records", cname.clone()).await;
    assert_eq!(refused.status, 422);
    assert!(refused.body["error"]["details"]["name"].is_array());
    let www_a = emu
        .state()
        .visible_records("example.com")
        .iter()
        .find(|r| r.name == "www")
        .map(|r| r.id)
        .unwrap();
    assert_eq!(
        api.delete(&format!("/dns/example.com/records/{www_a}"))
            .await
            .status,
        200
    );
    assert_eq!(
        api.post("/dns/example.com/records", cname).await.status,
        201
    );
    let dup = api
        .post(
            "/dns/example.com/records",
            rec("mail", "A", 300, "203.0.113.25"),
        )
        .await;
    assert_eq!(dup.status, 422);
}

#[tokio::test]
async fn probe_is_a_dry_run_with_an_import_plan_and_registrar_steps() {
    let emu = example_emulator();
    let api = demo(&emu);
    let before = emu.state();
    let resp = api
        .post("/dns/zones/probe", json!({"domain": "example.io"}))
        .await;
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    assert_eq!(resp.body["dry_run"], true);
    let records = resp.body["import_plan"]["records"].as_array().unwrap();
    assert_eq!(records.len(), 3);
    let steps = resp.body["registrar_steps"].as_array().unwrap();
    assert_eq!(steps.last().unwrap()["step"], "set_nameservers");
    assert_eq!(
        steps.last().unwrap()["nameservers"],
        json!(["ns1.veldhost.net", "ns2.veldhost.net"])
    );
    let hosted = api
        .post("/dns/zones/probe", json!({"domain": "example.com"}))
        .await;
    assert_eq!(hosted.status, 200);
    assert_eq!(hosted.body["hosted"], true);
    assert_eq!(
        hosted.body["import_plan"]["records"]
            .as_array()
            .unwrap()
            .len(),
        15
    );
    assert_eq!(
        api.post("/dns/zones/probe", json!({"domain": "nope.example"}))
            .await
            .status,
        404
    );
    assert_eq!(api.post("/dns/zones/probe", json!({})).await.status, 422);
    assert_eq!(
        api.post("/dns/zones/probe", json!({"domain": "no spaces"}))
            .await
            .status,
        422
    );
    assert_eq!(emu.state(), before);
}
