use std::time::Duration;

use dnscron_emulator::{Bursts, Faults, RateLimit, Seed};
use serde_json::json;

use super::demo;
use crate::common::emulator::{Api, example_emulator, start_emulator};

fn record(n: u32) -> serde_json::Value {
    json!({"name": format!("f{n}"), "type": "A", "ttl": 300, "content": "192.0.2.1"})
}

#[tokio::test]
async fn upstream_errors_change_nothing() {
    let emu = example_emulator();
    let api = demo(&emu);
    emu.set_upstream_error_share(1.0);
    let before = emu.state();
    let resp = api.post("/dns/example.com/records", record(1)).await;
    assert_eq!((resp.status, resp.error_type()), (502, "upstream_error"));
    let cron = api.delete("/sites/blog/cron/0").await;
    assert_eq!(cron.status, 502);
    assert_eq!(emu.state(), before);
    // Reads are not affected.
    assert_eq!(api.get("/dns/example.com/records").await.status, 200);
    assert_eq!(emu.counters().faults.upstream_errors, 2);
    emu.set_upstream_error_share(0.0);
    emu.fail_next_writes(1);
    assert_eq!(
        api.post("/dns/example.com/records", record(2)).await.status,
        502
    );
    assert_eq!(
        api.post("/dns/example.com/records", record(2)).await.status,
        201
    );
}

#[tokio::test]
async fn commit_then_drop_loses_the_response_but_keeps_the_change() {
    let emu = example_emulator();
    let api = demo(&emu);
    emu.drop_next_writes(1);
    let sent = api
        .request(reqwest::Method::POST, "/dns/example.com/records")
        .header("idempotency-key", "dropped-once")
        .json(&record(3))
        .send()
        .await;
    assert!(sent.is_err(), "expected a dropped connection, got {sent:?}");
    let created: Vec<_> = emu
        .state()
        .visible_records("example.com")
        .into_iter()
        .filter(|r| r.name == "f3")
        .map(|r| r.id)
        .collect();
    assert_eq!(created.len(), 1, "the write committed");
    assert_eq!(emu.counters().faults.dropped_after_commit, 1);
    // The retry with the same key gets the stored response; nothing runs twice.
    let retry = Api::send(
        api.request(reqwest::Method::POST, "/dns/example.com/records")
            .header("idempotency-key", "dropped-once")
            .json(&record(3)),
    )
    .await;
    assert_eq!(retry.status, 201);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(retry.body["id"], created[0]);
}

#[tokio::test]
async fn forced_429_bursts() {
    let emu = example_emulator();
    let api = demo(&emu);
    emu.force_rate_limited(2);
    let first = api.get("/sites").await;
    assert_eq!((first.status, first.error_type()), (429, "rate_limited"));
    assert_eq!(first.header("retry-after"), Some("1"));
    assert_eq!(api.get("/sites").await.status, 429);
    assert_eq!(api.get("/sites").await.status, 200);
    emu.set_rate_limit_bursts(Some(Bursts {
        every: 3,
        length: 1,
        retry_after: 2,
    }));
    let statuses: Vec<u16> = {
        let mut v = Vec::new();
        for _ in 0..6 {
            v.push(api.get("/sites").await.status);
        }
        v
    };
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        2,
        "{statuses:?}"
    );
    assert_eq!(emu.counters().faults.forced_429, 4);
}

async fn statuses_with_seed(seed_value: u64) -> Vec<u16> {
    let mut seed = Seed::example();
    seed.rate_limit = RateLimit::off();
    seed.faults = Faults {
        seed: seed_value,
        upstream_error_share: 0.5,
        ..Faults::default()
    };
    let emu = start_emulator(seed);
    let api = demo(&emu);
    let mut out = Vec::new();
    for n in 0..24 {
        out.push(
            api.post("/dns/example.com/records", record(100 + n))
                .await
                .status,
        );
    }
    out
}

#[tokio::test]
async fn faults_are_reproducible_from_the_seed() {
    let a = statuses_with_seed(42).await;
    let b = statuses_with_seed(42).await;
    assert_eq!(a, b);
    assert!(a.contains(&502) && a.contains(&201), "{a:?}");
}

#[tokio::test]
async fn latency_is_applied_to_api_requests() {
    let emu = example_emulator();
    emu.set_latency(Duration::from_millis(5));
    assert_eq!(demo(&emu).get("/sites").await.status, 200);
    assert_eq!(emu.counters().faults.delayed, 1);
    emu.set_latency(Duration::ZERO);
    demo(&emu).get("/sites").await;
    assert_eq!(emu.counters().faults.delayed, 1);
}
