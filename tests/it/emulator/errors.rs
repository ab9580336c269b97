use serde_json::json;

use super::demo;
use crate::common::emulator::{Api, example_emulator};

fn assert_request_id(resp: &crate::common::emulator::Resp) {
    let header = resp
        .header("x-request-id")
        .expect("X-Request-Id on every response");
    assert!(header.starts_with("req_") && header[4..].chars().all(|c| c.is_ascii_alphanumeric()));
    if resp.status >= 400 {
        assert_eq!(resp.body["error"]["request_id"], header, "{:?}", resp.body);
        assert!(resp.body["error"]["message"].is_string());
    }
}

#[tokio::test]
async fn every_response_has_request_id_and_rate_headers() {
    let emu = example_emulator();
    let api = demo(&emu);
    let anon = Api::anonymous(&emu.base_url());
    let mut ids = Vec::new();
    for resp in [
        api.get("/sites").await,
        api.get("/no/such/path").await,
        anon.get("/sites").await,
        api.post("/dns/example.com/records", json!({})).await,
    ] {
        assert_request_id(&resp);
        assert!(resp.header("x-ratelimit-limit").is_some(), "{resp:?}");
        assert!(resp.header("x-ratelimit-remaining").is_some(), "{resp:?}");
        ids.push(resp.header("x-request-id").unwrap_or_default().to_string());
    }
    // Deterministic: each emulator counts its requests from 1.
    assert_eq!(
        ids,
        ["req_000001", "req_000002", "req_000003", "req_000004"]
    );
}

#[tokio::test]
async fn unknown_paths_and_methods_answer_with_the_envelope() {
    let emu = example_emulator();
    let api = demo(&emu);
    let missing = api.get("/nope").await;
    assert_eq!((missing.status, missing.error_type()), (404, "not_found"));
    assert_request_id(&missing);
    let outside = Api::new(&format!("http://{}", emu.addr()), "demo-token")
        .get("/somewhere")
        .await;
    assert_eq!((outside.status, outside.error_type()), (404, "not_found"));
    let wrong_method = Api::send(api.request(reqwest::Method::PATCH, "/sites")).await;
    assert_eq!(wrong_method.status, 405);
    assert_eq!(wrong_method.error_type(), "method_not_allowed");
    assert_request_id(&wrong_method);
}

#[tokio::test]
async fn malformed_bodies_are_validation_errors_with_details() {
    let emu = example_emulator();
    let api = demo(&emu);
    let resp = Api::send(
        api.request(reqwest::Method::POST, "/dns/example.com/records")
            .header("content-type", "application/json")
            .body("{not json"),
    )
    .await;
    assert_eq!((resp.status, resp.error_type()), (422, "validation_error"));
    assert!(resp.body["error"]["details"]["body"].is_array());
    assert_request_id(&resp);
    let missing = api.post("/dns/example.com/records", json!({})).await;
    let details = &missing.body["error"]["details"];
    for field in ["name", "type", "ttl", "content"] {
        assert!(details[field].is_array(), "{field} missing from {details}");
    }
}
