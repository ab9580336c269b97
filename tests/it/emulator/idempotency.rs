use dnscron_emulator::{Scope, Seed, TokenSeed};
use serde_json::{Value, json};

use super::demo;
use crate::common::emulator::{Api, Resp, start_emulator};

fn emulator() -> dnscron_emulator::BackgroundEmulator {
    let seed = Seed::example().with_token(
        TokenSeed::full("second-demo-token", "demo").with_scopes(&[Scope::Dns, Scope::Manage]),
    );
    start_emulator(seed)
}

async fn post_with_key(api: &Api, path: &str, key: &str, body: Value) -> Resp {
    Api::send(
        api.request(reqwest::Method::POST, path)
            .header("idempotency-key", key)
            .json(&body),
    )
    .await
}

fn record(content: &str) -> Value {
    json!({"name": "idem", "type": "A", "ttl": 300, "content": content})
}

#[tokio::test]
async fn same_key_same_request_replays_the_stored_response() {
    let emu = emulator();
    let api = demo(&emu);
    let first = post_with_key(
        &api,
        "/dns/example.com/records",
        "key-1",
        record("192.0.2.1"),
    )
    .await;
    assert_eq!(first.status, 201);
    assert!(first.header("idempotent-replayed").is_none());
    // Same JSON with other key order and spacing is the same request.
    let again = Api::send(
        api.request(reqwest::Method::POST, "/dns/example.com/records")
            .header("idempotency-key", "key-1")
            .header("content-type", "application/json")
            .body(r#"{ "content": "192.0.2.1", "ttl": 300, "type": "A", "name": "idem" }"#),
    )
    .await;
    assert_eq!(again.status, 201);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
    assert_ne!(again.header("x-request-id"), first.header("x-request-id"));
    let count = emu
        .state()
        .visible_records("example.com")
        .iter()
        .filter(|r| r.name == "idem")
        .count();
    assert_eq!(count, 1, "nothing ran again");
    assert_eq!(emu.counters().replays, 1);
}

#[tokio::test]
async fn same_key_different_request_is_a_conflict() {
    let emu = emulator();
    let api = demo(&emu);
    assert_eq!(
        post_with_key(&api, "/dns/example.com/records", "k", record("192.0.2.1"))
            .await
            .status,
        201
    );
    let other_body =
        post_with_key(&api, "/dns/example.com/records", "k", record("192.0.2.2")).await;
    assert_eq!(
        (other_body.status, other_body.error_type()),
        (409, "idempotency_conflict")
    );
    let other_path =
        post_with_key(&api, "/dns/example.org/records", "k", record("192.0.2.1")).await;
    assert_eq!(other_path.error_type(), "idempotency_conflict");
    let other_method = Api::send(
        api.request(reqwest::Method::DELETE, "/sites/blog/cron/0")
            .header("idempotency-key", "k"),
    )
    .await;
    assert_eq!(other_method.error_type(), "idempotency_conflict");
    assert_eq!(emu.state().cron("blog").len(), 3);
}

#[tokio::test]
async fn keys_are_scoped_per_token() {
    let emu = emulator();
    let first = post_with_key(
        &demo(&emu),
        "/dns/example.com/records",
        "shared",
        record("192.0.2.1"),
    )
    .await;
    assert_eq!(first.status, 201);
    let other_token = Api::new(&emu.base_url(), "second-demo-token");
    let second = post_with_key(
        &other_token,
        "/dns/example.com/records",
        "shared",
        record("192.0.2.3"),
    )
    .await;
    assert_eq!(second.status, 201);
    assert!(second.header("idempotent-replayed").is_none());
}

#[tokio::test]
async fn only_successful_responses_are_remembered() {
    let emu = emulator();
    let api = demo(&emu);
    let bad = post_with_key(
        &api,
        "/dns/example.com/records",
        "retry-me",
        record("not-an-ip"),
    )
    .await;
    assert_eq!(bad.status, 422);
    // A failed request may be retried with the same key after the cause is fixed — even with
    // another body, since nothing was remembered.
    let fixed = post_with_key(
        &api,
        "/dns/example.com/records",
        "retry-me",
        record("192.0.2.4"),
    )
    .await;
    assert_eq!(fixed.status, 201);
    assert!(fixed.header("idempotent-replayed").is_none());
}

#[tokio::test]
async fn without_the_header_requests_run_every_time() {
    let emu = emulator();
    let api = demo(&emu);
    assert_eq!(api.delete("/sites/blog/cron/0").await.status, 200);
    assert_eq!(api.delete("/sites/blog/cron/0").await.status, 200);
    assert_eq!(emu.state().cron("blog").len(), 1);
    let with_key = |key: &'static str| {
        Api::send(
            api.request(reqwest::Method::DELETE, "/sites/blog/cron/0")
                .header("idempotency-key", key),
        )
    };
    assert_eq!(with_key("del").await.status, 200);
    let replay = with_key("del").await;
    assert_eq!(replay.status, 200);
    assert_eq!(replay.header("idempotent-replayed"), Some("true"));
    assert_eq!(emu.state().cron("blog").len(), 0);
}

#[tokio::test]
async fn keys_must_be_1_to_200_printable_characters() {
    let emu = emulator();
    let api = demo(&emu);
    let longest = "k".repeat(200);
    assert_eq!(
        post_with_key(
            &api,
            "/dns/example.com/records",
            &longest,
            record("192.0.2.5")
        )
        .await
        .status,
        201
    );
    for bad in ["k".repeat(201), String::new()] {
        let resp = post_with_key(&api, "/dns/example.com/records", &bad, record("192.0.2.6")).await;
        assert_eq!(resp.status, 422, "key of {} chars", bad.len());
        assert!(resp.body["error"]["details"]["Idempotency-Key"].is_array());
    }
}

#[tokio::test]
async fn nameserver_and_record_updates_replay_too() {
    let emu = emulator();
    let api = demo(&emu);
    let put = |key: &'static str| {
        Api::send(
            api.request(reqwest::Method::PUT, "/domains/example.org/nameservers")
                .header("idempotency-key", key)
                .json(&json!({"mode": "custom", "nameservers": ["a.other-dns.net", "b.other-dns.net"]})),
        )
    };
    assert_eq!(put("ns").await.status, 200);
    assert_eq!(put("ns").await.header("idempotent-replayed"), Some("true"));
    let id = emu.state().visible_records("example.org")[0].id;
    let update = |key: &'static str| {
        Api::send(
            api.request(
                reqwest::Method::PUT,
                &format!("/dns/example.org/records/{id}"),
            )
            .header("idempotency-key", key)
            .json(&json!({"name": "@", "type": "A", "ttl": 900, "content": "198.51.100.7"})),
        )
    };
    assert_eq!(update("upd").await.status, 200);
    assert_eq!(
        update("upd").await.header("idempotent-replayed"),
        Some("true")
    );
    assert_eq!(emu.counters().replays, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_duplicates_run_once_and_both_get_the_answer() {
    let emu = emulator();
    let api = demo(&emu);
    let send = || {
        post_with_key(
            &api,
            "/dns/example.com/records",
            "twin",
            record("192.0.2.9"),
        )
    };
    let (a, b) = tokio::join!(send(), send());
    assert_eq!((a.status, b.status), (201, 201));
    assert_eq!(a.body, b.body);
    let replayed = [&a, &b]
        .iter()
        .filter(|r| r.header("idempotent-replayed") == Some("true"))
        .count();
    assert_eq!(replayed, 1);
    let count = emu
        .state()
        .visible_records("example.com")
        .iter()
        .filter(|r| r.name == "idem")
        .count();
    assert_eq!(count, 1);
}
