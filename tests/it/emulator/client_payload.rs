//! The client's wire types (crates/dnscron-api/src/payload.rs) parse what the emulator sends.

use dnscron_api::payload;
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
    let sites: Vec<payload::Site> = parse(&api.get("/sites").await.body["sites"]);
    assert_eq!(sites[0].slug, "blog");
    let cron: Vec<payload::CronJob> = parse(&api.get("/sites/blog/cron").await.body["cron_jobs"]);
    assert_eq!(cron.len(), 3);
    let domains: Vec<payload::Domain> = parse(&api.get("/domains").await.body["domains"]);
    assert!(payload::dnssec_is_active(domains[0].dnssec.as_ref()));
    let registrar: payload::Registrar =
        parse(&api.get("/domains/example.org/registrar").await.body);
    assert!(!payload::dnssec_is_active(registrar.dnssec.state.as_ref()));
    assert_eq!(
        registrar.nameservers.registry,
        ["ns1.veldhost.net", "ns2.veldhost.net"]
    );
    let zones: Vec<payload::Zone> = parse(&api.get("/dns").await.body["zones"]);
    assert_eq!(zones.len(), 4);
    let listing = api.get("/dns/example.com/records").await.body;
    let records: Vec<payload::Record> = parse(&listing["records"]);
    assert_eq!(records.len(), 15);
    let meta: payload::Meta = parse(&listing["meta"]);
    assert!(!meta.has_more && meta.next_cursor.is_none());
    let conflict = api
        .put(
            "/domains/example.com/nameservers",
            json!({"mode": "veldhost"}),
        )
        .await;
    let envelope: payload::ErrorEnvelope = parse(&conflict.body);
    assert_eq!(envelope.error.kind, "conflict");
    assert!(envelope.continue_url().is_some());
    assert_eq!(
        Some(envelope.error.request_id.as_str()),
        conflict.header("x-request-id")
    );
}
