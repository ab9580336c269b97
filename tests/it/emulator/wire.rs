//! The client's wire types (src/api/wire.rs) parse what the emulator sends.

use dnscron_core::api::wire;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::demo;
use crate::common::emulator::example_emulator;

fn parse<T: DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"))
}

#[tokio::test]
async fn wire_types_parse_every_response_shape() {
    let emu = example_emulator();
    let api = demo(&emu);
    let sites: Vec<wire::Site> = parse(&api.get("/sites").await.body["sites"]);
    assert_eq!(sites[0].slug, "blog");
    let cron: Vec<wire::CronJob> = parse(&api.get("/sites/blog/cron").await.body["cron_jobs"]);
    assert_eq!(cron.len(), 3);
    let domains: Vec<wire::Domain> = parse(&api.get("/domains").await.body["domains"]);
    assert!(wire::dnssec_is_active(domains[0].dnssec.as_ref()));
    let registrar: wire::Registrar = parse(&api.get("/domains/example.org/registrar").await.body);
    assert!(!wire::dnssec_is_active(registrar.dnssec.state.as_ref()));
    assert_eq!(
        registrar.nameservers.registry,
        ["ns1.veldhost.net", "ns2.veldhost.net"]
    );
    let zones: Vec<wire::Zone> = parse(&api.get("/dns").await.body["zones"]);
    assert_eq!(zones.len(), 3);
    let listing = api.get("/dns/example.com/records").await.body;
    let records: Vec<wire::Record> = parse(&listing["records"]);
    assert_eq!(records.len(), 15);
    let meta: wire::Meta = parse(&listing["meta"]);
    assert!(!meta.has_more && meta.next_cursor.is_none());
    let conflict = api
        .put(
            "/domains/example.com/nameservers",
            json!({"mode": "veldhost"}),
        )
        .await;
    let envelope: wire::ErrorEnvelope = parse(&conflict.body);
    assert_eq!(envelope.error.kind, "conflict");
    assert!(envelope.continue_url().is_some());
    assert_eq!(
        Some(envelope.error.request_id.as_str()),
        conflict.header("x-request-id")
    );
}
