use dnscron_api::{ApiError, ReadClient, USER_AGENT};
use serde_json::json;

use super::stub::{Reply, Stub};

fn record(id: usize) -> serde_json::Value {
    // `proxied` and `created_at` are unknown to dnscron and must be ignored.
    json!({"id": id, "name": format!("h{id}"), "type": "A", "ttl": 300,
           "content": "192.0.2.1", "proxied": false, "created_at": "2026-01-01"})
}

/// 250 records in pages of 100, cursors `c1`, `c2`; the last page's cursor is `last`.
fn paged_records(seen: &super::stub::Seen, last: serde_json::Value) -> Reply {
    let start = match seen.query_param("cursor").as_deref() {
        None => 0,
        Some("c1") => 100,
        Some("c2") => 200,
        Some(other) => {
            return Reply::error(422, "validation_error", &format!("bad cursor {other}"));
        }
    };
    let end = (start + 100).min(250);
    let records: Vec<_> = (start..end).map(record).collect();
    let meta = if end < 250 {
        json!({"next_cursor": format!("c{}", end / 100), "has_more": true, "total": 250})
    } else {
        json!({"next_cursor": last, "has_more": false})
    };
    Reply::ok(json!({"records": records, "nameservers": ["ns1.veldhost.net.", "NS2.veldhost.net"], "meta": meta, "zone_extra": {"x": 1}}))
        .header("x-ratelimit-limit", "120")
        .header("x-ratelimit-remaining", "100")
}

#[tokio::test(start_paused = true)]
async fn lists_follow_cursors_with_limit_100_until_has_more_is_false() {
    for last in [json!(null), json!(""), json!("ignored-when-done")] {
        let stub = Stub::start(move |seen| paged_records(seen, last.clone())).await;
        let client = ReadClient::new(stub.config()).unwrap();
        let listing = client.list_records("example.com").await.unwrap();
        assert_eq!(listing.records.len(), 250);
        assert_eq!(listing.records.get(249).unwrap().id, 249);
        assert_eq!(
            listing.nameservers,
            ["ns1.veldhost.net.", "NS2.veldhost.net"]
        );
        let seen = stub.requests();
        assert_eq!(seen.len(), 3);
        for s in &seen {
            assert_eq!(s.method, "GET");
            assert_eq!(s.path, "/dns/example.com/records");
            assert_eq!(s.query_param("limit").as_deref(), Some("100"));
            assert_eq!(s.header("user-agent"), Some(USER_AGENT));
            assert!(s.header("idempotency-key").is_none());
        }
        assert_eq!(seen[1].query_param("cursor").as_deref(), Some("c1"));
        let stats = client.stats().snapshot();
        assert_eq!(stats.pages, 3);
        assert_eq!(stats.requests["GET /dns/{zone}/records"], 3);
        assert_eq!(stats.retries, 0);
    }
}

/// A page of sites answered with its own request id, `req_page{nth}`.
fn sites_page(nth: usize, meta: serde_json::Value) -> Reply {
    Reply {
        headers: vec![("x-request-id", format!("req_page{nth}"))],
        ..Reply::ok(json!({"sites": [{"slug": format!("s{nth}")}], "meta": meta}))
    }
}

/// Issue 22: a cursor that comes back names both pages and the request id of the page that
/// gave it again; the library error carries that id as data.
#[tokio::test(start_paused = true)]
async fn a_server_repeating_a_cursor_is_an_error_not_a_loop() {
    // Each page brings a new site, so only the cursor is at fault.
    let stub =
        Stub::start(|seen| sites_page(seen.nth, json!({"next_cursor": "same", "has_more": true})))
            .await;
    let client = ReadClient::new(stub.config()).unwrap();
    let err = client.list_sites().await.unwrap_err();
    assert!(matches!(err, ApiError::Pagination { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        r#"GET /sites: page 2 gives next_cursor "same", already given by page 1 (request_id req_page2): the server's pagination does not end; report this to the API provider"#
    );
    assert_eq!(err.request_id(), Some("req_page2"));
    assert_eq!(stub.requests().len(), 2);
}

/// Issue 22: `has_more` without a cursor names the page and its request id, for a cursor that
/// is missing, null or empty, on the first page or a later one.
#[tokio::test(start_paused = true)]
async fn has_more_without_a_cursor_names_the_page_and_its_request_id() {
    for cursor in [None, Some(json!(null)), Some(json!(""))] {
        let stub = Stub::start(move |seen| {
            let mut meta = json!({"next_cursor": "c1", "has_more": true});
            if seen.nth == 2 {
                match &cursor {
                    Some(c) => meta["next_cursor"] = c.clone(),
                    None => meta = json!({"has_more": true}),
                }
            }
            sites_page(seen.nth, meta)
        })
        .await;
        let client = ReadClient::new(stub.config()).unwrap();
        let err = client.list_sites().await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "GET /sites: page 2 says has_more but gives no next_cursor (request_id req_page2): the server's pagination does not end; report this to the API provider"
        );
        assert_eq!(err.request_id(), Some("req_page2"));
    }
}

/// The accepted form: a page without a request id is still refused, and says no id.
#[tokio::test(start_paused = true)]
async fn a_page_without_a_request_id_is_refused_without_one() {
    let stub = Stub::start(|_| Reply {
        headers: Vec::new(),
        ..Reply::ok(json!({"sites": [{"slug": "s"}], "meta": {"has_more": true}}))
    })
    .await;
    let client = ReadClient::new(stub.config()).unwrap();
    let err = client.list_sites().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "GET /sites: page 1 says has_more but gives no next_cursor: the server's pagination does not end; report this to the API provider"
    );
    assert_eq!(err.request_id(), None);
}

#[tokio::test(start_paused = true)]
async fn path_segments_are_encoded_and_objects_may_be_wrapped() {
    let stub = Stub::start(|seen| match seen.path.as_str() {
        "/domains/example.com" => {
            Reply::ok(json!({"domain": {"domain": "example.com", "dnssec": "active", "new": 1}}))
        }
        "/domains/example.com/registrar" => Reply::ok(json!({
            "nameservers": {"registry": ["ns1.x.net"], "resolver": [], "state": "ok"},
            "dnssec": {"state": "inactive"}, "lock": true})),
        "/sites/odd%20slug%2Fx/cron" => Reply::ok(
            json!({"cron_jobs": [{"index": 0, "schedule": "* * * * *", "command": "php a"}]}),
        ),
        "/openapi.json" => Reply::ok(json!({"openapi": "3.1.0", "info": {"version": "1.2"}})),
        other => Reply::error(404, "not_found", other),
    })
    .await;
    let client = ReadClient::new(stub.config()).unwrap();
    let domain = client.get_domain("example.com").await.unwrap();
    assert_eq!(domain.dnssec, Some(json!("active")));
    let registrar = client.get_registrar("example.com").await.unwrap();
    assert_eq!(registrar.nameservers.registry, ["ns1.x.net"]);
    let jobs = client.list_cron("odd slug/x").await.unwrap();
    assert_eq!(jobs[0].command, "php a");
    let openapi = client.openapi().await.unwrap();
    assert_eq!(openapi["info"]["version"], "1.2");
}

#[tokio::test(start_paused = true)]
async fn gets_are_retried_on_5xx_and_429_then_give_up() {
    let stub = Stub::start(|seen| match seen.nth {
        1 => Reply::error(500, "server_error", "boom"),
        2 => Reply::error(429, "rate_limited", "slow down").header("retry-after", "0"),
        _ => Reply::ok(json!({"zones": [{"zone": "example.com", "dnssec": "active"}]})),
    })
    .await;
    let client = ReadClient::new(stub.config()).unwrap();
    let zones = client.list_zones().await.unwrap();
    assert_eq!(zones[0].zone, "example.com");
    let stats = client.stats().snapshot();
    assert_eq!((stats.retries, stats.rate_limited), (2, 1));
    assert_eq!(stats.requests["GET /dns"], 3);

    let stub = Stub::start(|_| Reply::error(503, "server_error", "down")).await;
    let client = ReadClient::new(stub.config()).unwrap();
    let err = client.list_domains().await.unwrap_err();
    assert_eq!(err.status(), Some(503));
    // max_attempts is 3 in the test config.
    assert_eq!(stub.requests().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_get_is_retried_after_a_dropped_connection() {
    let (url, heads) =
        super::stub::dropping_server(1, r#"{"sites": [{"slug": "shop", "state": "active"}]}"#)
            .await;
    let client = ReadClient::new(super::stub::config(&url)).unwrap();
    let sites = client.list_sites().await.unwrap();
    assert_eq!(sites[0].slug, "shop");
    assert_eq!(heads.lock().unwrap().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn deprecation_is_noted_once_per_process() {
    let (_guard, buf) = super::capture_logs();
    let stub =
        Stub::start(|_| Reply::ok(json!({"zones": []})).header("deprecation", "@1767225600")).await;
    let client = ReadClient::new(stub.config()).unwrap();
    client.list_zones().await.unwrap();
    client.list_zones().await.unwrap();
    assert_eq!(dnscron_api::deprecation_notice(), Some("@1767225600"));
    let logs = super::logs(&buf);
    assert_eq!(
        logs.matches("Deprecation: @1767225600").count(),
        1,
        "{logs}"
    );
}
