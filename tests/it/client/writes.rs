use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron::cli::error::CommandError;
use dnscron_api::payload::{CronJobWrite, NameserversWrite, RecordWrite};
use dnscron_api::{ApiError, IdempotencyKey, WaitEvent, WriteClient};
use serde_json::json;

use super::stub::{Reply, Stub, config, dropping_server};

fn www() -> RecordWrite {
    RecordWrite {
        name: "www".into(),
        rtype: "A".into(),
        ttl: 300,
        content: "192.0.2.7".into(),
    }
}

fn key(k: &str) -> IdempotencyKey {
    IdempotencyKey::new(k).unwrap()
}

#[tokio::test(start_paused = true)]
async fn writes_carry_the_key_and_retry_502_and_500_with_the_same_key() {
    let stub = Stub::start(|seen| match seen.nth {
        1 => Reply::error(502, "upstream_error", "registry did not answer"),
        2 => Reply::error(500, "server_error", "oops"),
        _ => Reply::json(201, json!({"record": {"id": 9}})),
    })
    .await;
    let client = WriteClient::new(stub.config()).unwrap();
    let res = client
        .create_record("example.com", &www(), &key("plan-1:c:0"))
        .await
        .unwrap();
    assert_eq!((res.status, res.attempts, res.replayed), (201, 3, false));
    assert_eq!(res.body["record"]["id"], 9);
    assert_eq!(res.request_id.as_deref(), Some("req_stub201"));
    let seen = stub.requests();
    assert_eq!(seen.len(), 3);
    for s in &seen {
        assert_eq!(
            (s.method.as_str(), s.path.as_str()),
            ("POST", "/dns/example.com/records")
        );
        assert_eq!(s.header("idempotency-key"), Some("plan-1:c:0"));
        assert_eq!(s.header("content-type"), Some("application/json"));
        let body: serde_json::Value = serde_json::from_str(&s.body).unwrap();
        assert_eq!(
            body,
            json!({"name": "www", "type": "A", "ttl": 300, "content": "192.0.2.7"})
        );
    }
    assert_eq!(client.read().stats().snapshot().retries, 2);
}

#[tokio::test(start_paused = true)]
async fn a_write_whose_response_was_lost_is_resent_with_the_same_key() {
    let (url, heads) = dropping_server(1, r#"{"result": "saved"}"#).await;
    let client = WriteClient::new(config(&url)).unwrap();
    let job = CronJobWrite {
        schedule: "*/5 * * * *".into(),
        command: "php artisan schedule:run".into(),
    };
    let res = client
        .create_cron("shop", &job, &key("k-cron-1"))
        .await
        .unwrap();
    assert_eq!((res.status, res.attempts), (201, 2));
    let heads = heads.lock().unwrap();
    assert_eq!(heads.len(), 2);
    for head in heads.iter() {
        assert!(head.starts_with("POST /api/v1/sites/shop/cron "), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("idempotency-key: k-cron-1"),
            "{head}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn client_errors_are_never_retried() {
    let cases = [
        Reply::json(
            422,
            json!({"error": {"type": "validation_error", "message": "invalid record",
            "details": {"ttl": ["must be between 60 and 604800"], "content": ["too long", "bad"]},
            "request_id": "req_v422"}}),
        ),
        Reply::error(403, "forbidden", "missing scope dns"),
        Reply::error(404, "not_found", "no such record"),
        Reply::error(
            409,
            "idempotency_conflict",
            "key reused with a different request",
        ),
        Reply::error(401, "unauthenticated", "bad token"),
    ];
    let mut texts = Vec::new();
    for case in cases {
        let (status, headers, body) = (case.status, case.headers.clone(), case.body.clone());
        let stub = Stub::start(move |_| super::stub::Reply {
            status,
            headers: headers.clone(),
            body: body.clone(),
            delay: None,
        })
        .await;
        let client = WriteClient::new(stub.config()).unwrap();
        let err = client
            .update_record("example.com", 42, &www(), &key("k-upd"))
            .await
            .unwrap_err();
        assert_eq!(stub.requests().len(), 1, "{status} was retried");
        assert_eq!(stub.requests()[0].path, "/dns/example.com/records/42");
        assert_eq!(err.status(), Some(status));
        assert!(err.needs_portal_step().is_none());
        // Method, path, status, the API's message (422: every field detail) and request id.
        texts.push(err.to_string());
        if status == 422 {
            assert_eq!(err.error_type(), Some("validation_error"));
            assert_eq!(err.request_id(), Some("req_v422"));
        }
    }
    insta::assert_snapshot!(texts.join("\n"));
}

#[tokio::test(start_paused = true)]
async fn a_portal_step_is_recognized_wherever_continue_url_is() {
    let inside = json!({"error": {"type": "conflict", "message": "DNSSEC is active",
        "request_id": "req_c1", "continue_url": "https://portal.example/continue/1"}});
    let beside = json!({"error": {"type": "conflict", "message": "DNSSEC is active",
        "request_id": "req_c2"}, "continue_url": "https://portal.example/continue/2"});
    let mut texts = Vec::new();
    for (body, url) in [
        (inside, "https://portal.example/continue/1"),
        (beside, "https://portal.example/continue/2"),
    ] {
        let stub = Stub::start(move |_| Reply::json(409, body.clone())).await;
        let client = WriteClient::new(stub.config()).unwrap();
        let ns = NameserversWrite {
            mode: "custom".into(),
            nameservers: vec!["ns1.other.net".into(), "ns2.other.net".into()],
        };
        let err = client
            .put_nameservers("example.com", &ns, &key("k-ns"))
            .await
            .unwrap_err();
        assert_eq!(stub.requests().len(), 1);
        assert_eq!(err.needs_portal_step(), Some(url));
        texts.push(CommandError::from(err).body());
    }
    // The message names the continue URL; the hint, the portal.
    insta::assert_snapshot!(texts.join("\n"));
}

#[tokio::test(start_paused = true)]
async fn replays_are_surfaced_and_counted() {
    let (_guard, buf) = super::capture_logs();
    let stub = Stub::start(|_| {
        Reply::ok(json!({"result": "deleted"})).header("idempotent-replayed", "true")
    })
    .await;
    let client = WriteClient::new(stub.config()).unwrap();
    let res = client
        .delete_record("example.com", 7, &key("k-del"))
        .await
        .unwrap();
    assert!(res.replayed);
    assert_eq!(client.read().stats().snapshot().replays, 1);
    assert_eq!(stub.requests()[0].method, "DELETE");
    assert!(stub.requests()[0].body.is_empty());
    // dnscron's own log lines at the default level (not its dependencies', not the `-v`
    // request log of tests/it/hostile/transport.rs), without their timestamps.
    let logs = super::logs(&buf);
    let ours: Vec<&str> = logs
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_time, rest)| rest.trim_start()))
        .filter(|l| {
            let mut words = l.split_whitespace();
            let level = words.next().unwrap_or_default();
            ["INFO", "WARN", "ERROR"].contains(&level)
                && words.next().is_some_and(|t| {
                    t.starts_with("dnscron_core::") || t.starts_with("dnscron_api::")
                })
        })
        .collect();
    assert_eq!(
        ours,
        [
            "INFO dnscron_api::core: DELETE /dns/example.com/records/7: the server replayed its \
          stored response (Idempotent-Replayed: true, request_id req_stub200)"
        ]
    );

    let res = client.delete_cron("shop", 1, &key("k-dc")).await.unwrap();
    assert!(res.replayed);
    assert_eq!(stub.requests()[1].path, "/sites/shop/cron/1");
}

#[tokio::test(start_paused = true)]
async fn a_429_waits_for_retry_after_then_retries_the_write_with_the_same_key() {
    let stub = Stub::start(|seen| match seen.nth {
        1 => Reply::error(429, "rate_limited", "slow down")
            .header("retry-after", "1")
            .header("x-ratelimit-remaining", "0")
            .header("x-ratelimit-limit", "120"),
        _ => Reply::json(201, json!({})),
    })
    .await;
    let events = Arc::new(Mutex::new(Vec::<WaitEvent>::new()));
    let sink = Arc::clone(&events);
    let mut config = stub.config();
    config.on_wait = Some(Arc::new(move |e: &WaitEvent| {
        sink.lock().unwrap().push(e.clone())
    }));
    let client = WriteClient::new(config).unwrap();
    let res = client
        .create_record("example.com", &www(), &key("k-429"))
        .await
        .unwrap();
    assert_eq!(res.attempts, 2);
    let seen = stub.requests();
    assert_eq!(
        seen[0].header("idempotency-key"),
        seen[1].header("idempotency-key")
    );
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 1);
    assert!(events[0].retry_after);
    assert!(events[0].wait > Duration::from_millis(900), "{events:?}");
    let stats = client.read().stats().snapshot();
    assert_eq!(stats.rate_limited, 1);
    assert!(stats.rate_limit_wait >= Duration::from_millis(900));
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_beyond_max_wait_fails_clearly() {
    let stub = Stub::start(|_| {
        Reply::error(429, "rate_limited", "slow down").header("retry-after", "3600")
    })
    .await;
    let mut config = stub.config();
    config.max_wait = Duration::from_secs(60);
    let client = WriteClient::new(config).unwrap();
    let err = client
        .create_record("example.com", &www(), &key("k-wait"))
        .await
        .unwrap_err();
    assert!(matches!(err, ApiError::WaitExceeded { .. }), "{err}");
    // The CLI words what to do (the flag) as a hint; the library says what happened.
    insta::assert_snapshot!(CommandError::from(err).body());
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_probe_is_a_keyless_post() {
    let stub = Stub::start(|_| Reply::ok(json!({"import_plan": [], "registrar_steps": []}))).await;
    let client = WriteClient::new(stub.config()).unwrap();
    let res = client.probe_zone("example.com").await.unwrap();
    assert_eq!(res.body["import_plan"], json!([]));
    let seen = &stub.requests()[0];
    assert_eq!(
        (seen.method.as_str(), seen.path.as_str()),
        ("POST", "/dns/zones/probe")
    );
    assert_eq!(seen.body, r#"{"domain":"example.com"}"#);
    assert!(seen.header("idempotency-key").is_none());
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_write_is_retried_with_the_same_key_and_a_timed_out_get_too() {
    let stub = Stub::start(|seen| match seen.nth {
        1 => Reply::json(201, json!({})).delayed(Duration::from_secs(2)),
        _ => Reply::json(201, json!({"ok": true})),
    })
    .await;
    let mut config = stub.config();
    config.request_timeout = Duration::from_millis(200);
    let client = WriteClient::new(config).unwrap();
    let res = client
        .create_record("example.com", &www(), &key("k-slow"))
        .await
        .unwrap();
    assert_eq!((res.attempts, res.body["ok"].clone()), (2, json!(true)));
    let seen = stub.requests();
    assert_eq!(seen[0].header("idempotency-key"), Some("k-slow"));
    assert_eq!(seen[1].header("idempotency-key"), Some("k-slow"));

    let stub =
        Stub::start(|_| Reply::ok(json!({"sites": []})).delayed(Duration::from_secs(2))).await;
    let mut config = stub.config();
    config.request_timeout = Duration::from_millis(100);
    let client = WriteClient::new(config).unwrap();
    let err = client.read().list_sites().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "GET /sites: the API accepted the connection but sent no complete answer within 100 ms \
         (3 attempt(s))"
    );
    assert_eq!(stub.requests().len(), 3);
}

/// A 403's hint names the scope the endpoint needs (the provider's data), and a site's
/// pinning where the endpoint is under a site.
#[tokio::test(start_paused = true)]
async fn a_refused_write_names_the_scope_its_endpoint_needs() {
    let stub = Stub::start(|_| Reply::error(403, "forbidden", "no")).await;
    let client = WriteClient::new(stub.config()).unwrap();
    let hints = |err: ApiError| CommandError::from(err).hints().to_vec();
    let err = client
        .create_record("example.com", &www(), &key("k-403"))
        .await
        .unwrap_err();
    assert_eq!(
        hints(err),
        [
            "this token lacks the `dns` scope that POST /dns/{zone}/records needs: edit the token \
          in the portal under API tokens"
        ]
    );
    let job = CronJobWrite {
        schedule: "*/5 * * * *".into(),
        command: "php artisan schedule:run".into(),
    };
    let err = client
        .create_cron("shop", &job, &key("k-403-cron"))
        .await
        .unwrap_err();
    assert_eq!(
        hints(err),
        [
            "this token lacks the `manage` scope that POST /sites/{slug}/cron needs, or this site \
          is not pinned to it: edit the token in the portal under API tokens"
        ]
    );
}
