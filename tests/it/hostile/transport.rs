//! Hangs, oversized and cut bodies, answers that are not the API's, and the headers dnscron
//! sends: each against a misbehaving server, refused and accepted, asserting what the user
//! sees (the whole error with its hint), what the server received, and the time it took on
//! tokio's paused clock (default deadlines, no real waiting).

use std::time::Duration;

use dnscron::cli::error::CommandError;
use dnscron_api::{ApiConfig, ApiError, ReadClient, Token, WriteClient};
use serde_json::json;
use tokio::time::Instant;

use super::{Raw, Step, head, json};
use crate::client::stub::{CANARY, Reply, Stub};

/// The defaults a user gets: 30 s per attempt, 5 attempts, 2 minutes in all.
fn defaults(base_url: &str) -> ReadClient {
    ReadClient::new(ApiConfig::new(base_url, Token::new(CANARY).unwrap()).unwrap()).unwrap()
}

/// The error as `dnscron` prints it, hint included.
fn user_sees(err: ApiError) -> String {
    CommandError::from(err).to_string()
}

const SLOW_HINT: &str = "hint: the API or a proxy in front of it is overloaded or failing: \
                         retry later, or raise --timeout if answers are just slow";

const SITES: &str = r#"{"sites": [{"slug": "shop"}], "meta": {"has_more": false}}"#;
const GET_SITES: &str = "GET /api/v1/sites?limit=100 HTTP/1.1";

/// Runs one `GET /sites` with the defaults against `raw`, which never completes an answer:
/// the user sees "no complete answer within 30 s" + `stalled` (what came before the stall)
/// after three attempts, within 90 to 120 s of the paused clock.
async fn assert_given_up(raw: Raw, stalled: &str) {
    let started = Instant::now();
    let err = defaults(&raw.base_url).list_sites().await.unwrap_err();
    let took = started.elapsed();
    assert_eq!(
        user_sees(err),
        format!(
            "error: GET /sites: the API accepted the connection but sent no complete answer \
             within 30 s{stalled} (3 attempt(s))\n{SLOW_HINT}"
        )
    );
    // Three 30 s attempts and their backoffs; a fourth could not end within 2 minutes.
    assert_eq!(raw.request_lines(), [GET_SITES; 3]);
    let bound = Duration::from_secs(90)..=Duration::from_secs(120);
    assert!(bound.contains(&took), "{took:?}");
}

/// A response head announcing a JSON body of `length` bytes.
fn json_head(length: &str) -> Vec<u8> {
    let headers = [
        ("content-type", "application/json"),
        ("content-length", length),
    ];
    head("200 OK", &headers)
}

#[tokio::test(start_paused = true)]
async fn a_server_that_accepts_and_never_answers_is_given_up_on_within_two_minutes() {
    assert_given_up(Raw::start(|_, _| vec![Step::Hang]).await, "").await;
}

#[tokio::test(start_paused = true)]
async fn one_hung_attempt_is_retried_and_the_next_answer_is_used() {
    let raw = Raw::start(|n, _| match n {
        1 => vec![Step::Hang],
        _ => json("200 OK", SITES),
    })
    .await;
    let started = Instant::now();
    let sites = defaults(&raw.base_url).list_sites().await.unwrap();
    assert_eq!(sites[0].slug, "shop");
    assert_eq!(raw.request_lines(), [GET_SITES; 2]);
    let took = started.elapsed();
    let bound = Duration::from_secs(30)..Duration::from_secs(31);
    assert!(bound.contains(&took), "{took:?}");
}

#[tokio::test(start_paused = true)]
async fn headers_then_a_stalled_body_hit_the_same_deadline() {
    let raw = Raw::start(|_, _| {
        let mut bytes = json_head("100");
        bytes.extend_from_slice(br#"{"sites": "#);
        vec![Step::Send(bytes), Step::Hang]
    })
    .await;
    let stalled = ": the headers came, then only 10 byte(s) of the body";
    assert_given_up(raw, stalled).await;
}

#[tokio::test(start_paused = true)]
async fn a_body_trickling_a_byte_every_two_seconds_is_a_deadline_not_a_read_timeout() {
    let raw = Raw::start(|_, _| {
        let mut steps = vec![
            Step::Send(json_head("1000")),
            Step::Sleep(Duration::from_secs(1)),
        ];
        for _ in 0..500 {
            steps.push(Step::Send(b" ".to_vec()));
            steps.push(Step::Sleep(Duration::from_secs(2)));
        }
        steps
    })
    .await;
    // A byte at 1 s, 3 s, …, 29 s: every gap is far below 30 s, the whole is not.
    let stalled = ": the headers came, then only 15 byte(s) of the body";
    assert_given_up(raw, stalled).await;
}

const TOO_LARGE_HINT: &str = "hint: a 100-row page of the API is far smaller: check --api-url / \
     DNSCRON_API_URL and any proxy in between, and quote the request_id to the provider";

#[tokio::test(start_paused = true)]
async fn a_body_announced_over_the_cap_is_refused_before_reading_and_not_retried() {
    let raw = Raw::start(|_, _| {
        let headers = [
            ("content-type", "application/json"),
            ("content-length", "209715200"),
            ("x-request-id", "req_big"),
        ];
        vec![Step::Send(head("200 OK", &headers)), Step::Hang]
    })
    .await;
    let err = defaults(&raw.base_url)
        .list_records("example.com")
        .await
        .unwrap_err();
    assert_eq!(
        user_sees(err),
        format!(
            "error: GET /dns/example.com/records: the answer is larger than dnscron accepts: \
             Content-Length 209715200 bytes is over the limit of 4194304 bytes, refused before \
             reading; nothing was used (request_id req_big)\n{TOO_LARGE_HINT}"
        )
    );
    assert_eq!(
        raw.request_lines(),
        ["GET /api/v1/dns/example.com/records?limit=100 HTTP/1.1"]
    );
}

#[tokio::test(start_paused = true)]
async fn an_endless_body_is_cut_at_the_cap_and_the_server_stops_soon_after() {
    let raw = Raw::start(|_, _| {
        let headers = [
            ("content-type", "application/json"),
            ("transfer-encoding", "chunked"),
        ];
        vec![
            Step::Send(head("200 OK", &headers)),
            Step::Endless(vec![b' '; 64 * 1024]),
        ]
    })
    .await;
    let err = defaults(&raw.base_url).list_sites().await.unwrap_err();
    assert_eq!(
        user_sees(err),
        format!(
            "error: GET /sites: the answer is larger than dnscron accepts: it passed the limit \
             of 4194304 bytes and reading stopped there; nothing was used\n{TOO_LARGE_HINT}"
        )
    );
    assert_eq!(raw.request_lines(), [GET_SITES]);
    // 200 MB took 411 MB before; now the read stops at 4 MiB (plus what the socket buffers held).
    let sent = raw.endless_bytes_sent().await;
    assert!(sent < 32 * 1024 * 1024, "the server wrote {sent} bytes");
}

#[tokio::test(start_paused = true)]
async fn a_large_body_under_the_cap_is_read_whole() {
    let padding = "x".repeat(3 * 1024 * 1024);
    let body = format!(
        r#"{{"records": [{{"id": 1, "name": "@", "type": "A", "ttl": 60, "content": "192.0.2.1", "note": "{padding}"}}], "meta": {{"has_more": false}}}}"#
    );
    let raw = Raw::start(move |_, _| json("200 OK", &body)).await;
    let listing = defaults(&raw.base_url)
        .list_records("example.com")
        .await
        .unwrap();
    assert_eq!(listing.records.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_body_shorter_than_its_content_length_is_a_cut_connection() {
    let cut = || {
        let headers = [
            ("content-type", "application/json"),
            ("content-length", "100"),
            ("x-request-id", "req_cut"),
        ];
        let mut bytes = head("200 OK", &headers);
        bytes.extend_from_slice(br#"{"sites": "#);
        vec![Step::Send(bytes)]
    };
    let raw = Raw::start(move |_, _| cut()).await;
    let err = defaults(&raw.base_url).list_sites().await.unwrap_err();
    assert_eq!(
        user_sees(err),
        format!(
            "error: GET /sites: the connection was cut after 10 of 100 byte(s) of the answer \
             (5 attempt(s)) (request_id req_cut)\n{SLOW_HINT}"
        )
    );
    assert_eq!(raw.request_lines(), [GET_SITES; 5]);

    let raw = Raw::start(move |n, _| if n == 1 { cut() } else { json("200 OK", SITES) }).await;
    assert_eq!(
        defaults(&raw.base_url).list_sites().await.unwrap()[0].slug,
        "shop"
    );
    assert_eq!(raw.request_lines(), [GET_SITES; 2]);
}

/// The stub with its fast test retries (3 attempts).
async fn scripted(
    script: impl Fn(&crate::client::stub::Seen) -> Reply + Send + Sync + 'static,
) -> (Stub, ReadClient) {
    let stub = Stub::start(script).await;
    let client = ReadClient::new(stub.config()).unwrap();
    (stub, client)
}

fn html(status: u16, content_type: &str, body: &str) -> Reply {
    Reply {
        status,
        headers: vec![("content-type", content_type.to_string())],
        body: body.into(),
        delay: None,
    }
}

#[tokio::test(start_paused = true)]
async fn a_login_page_with_200_is_not_json() {
    let page = "<!DOCTYPE html>\n<html><head><title>Sign in \u{1b}[2J to Corp SSO</title></head>\n<body>…</body></html>";
    let (stub, client) = scripted(move |_| html(200, "text/html; charset=utf-8", page)).await;
    let err = client.list_sites().await.unwrap_err();
    assert_eq!(
        user_sees(err),
        "error: GET /sites: expected JSON, got text/html (HTTP 200): Sign in \\u{1b}[2J to Corp \
         SSO\nhint: something other than the API answered (a login page, a captive portal, a \
         proxy): check --api-url / DNSCRON_API_URL and the network path"
    );
    assert_eq!(stub.requests().len(), 1);

    for content_type in [
        "application/json; charset=utf-8",
        "application/vnd.api+json",
    ] {
        let (_stub, client) = scripted(move |_| html(200, content_type, SITES)).await;
        assert_eq!(
            client.list_sites().await.unwrap()[0].slug,
            "shop",
            "{content_type}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_proxy_error_page_is_one_line_and_the_api_error_is_quoted() {
    let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    let (stub, client) = scripted(move |_| html(502, "text/html", nginx)).await;
    let err = client.list_sites().await.unwrap_err();
    assert_eq!(
        user_sees(err),
        "error: GET /sites: HTTP 502 Bad Gateway from a proxy (an HTML page, not the API's JSON \
         error)\nhint: the service failed; retry later and quote the request_id if it persists"
    );
    assert_eq!(stub.requests().len(), 3);

    let (_stub, client) = scripted(|_| Reply::error(502, "server_error", "upstream down")).await;
    assert_eq!(
        user_sees(client.list_sites().await.unwrap_err()),
        "error: GET /sites: HTTP 502 server_error: upstream down\n  request_id: req_stub502\n\
         hint: the service failed; retry later and quote the request_id if it persists"
    );
}

#[tokio::test(start_paused = true)]
async fn a_redirect_is_named_and_never_followed() {
    let (stub, client) = scripted(|_| {
        Reply::json(301, json!({})).header("location", "https://login.example.net/sso")
    })
    .await;
    let err = client.list_sites().await.unwrap_err();
    assert_eq!(
        user_sees(err),
        "error: GET /sites: HTTP 301 redirects to https://login.example.net/sso; dnscron does \
         not follow redirects (request_id req_stub301)\nhint: set --api-url / DNSCRON_API_URL to \
         the API's final URL (with https:// and /api/v1); the token is never sent after a \
         redirect"
    );
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn retry_after_on_503_is_obeyed_within_max_wait() {
    let (stub, client) = scripted(|seen| match seen.nth {
        1 => Reply::error(503, "unavailable", "maintenance").header("retry-after", "5"),
        _ => Reply::ok(serde_json::from_str(SITES).unwrap()),
    })
    .await;
    let started = Instant::now();
    assert_eq!(client.list_sites().await.unwrap()[0].slug, "shop");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(5) && took < Duration::from_secs(6),
        "{took:?}"
    );
    assert_eq!(stub.requests().len(), 2);

    let (stub, client) =
        scripted(|_| Reply::error(503, "unavailable", "maintenance").header("retry-after", "700"))
            .await;
    let started = Instant::now();
    assert_eq!(
        user_sees(client.list_sites().await.unwrap_err()),
        "error: GET /sites: the rate limit would need a wait of 700s more after 0ns already (the \
         longest wait allowed is 600s)\nhint: another client of the same user may be using the \
         rate-limit budget: retry later or raise --max-wait"
    );
    assert_eq!(
        (stub.requests().len(), started.elapsed()),
        (1, Duration::ZERO)
    );
}

/// `Retry-After: 0` from an overloaded server still gets the backoff, on 429 and 503 alike.
#[tokio::test(start_paused = true)]
async fn retry_after_zero_still_backs_off() {
    for status in [429, 503] {
        let stub = Stub::start(move |seen| match seen.nth {
            1 => Reply::error(status, "busy", "busy").header("retry-after", "0"),
            _ => Reply::ok(serde_json::from_str(SITES).unwrap()),
        })
        .await;
        let client = defaults(&stub.base_url);
        let started = Instant::now();
        client.list_sites().await.unwrap();
        let took = started.elapsed();
        // The first backoff of the default policy: a random point in 125..=250 ms.
        assert!(
            took >= Duration::from_millis(125) && took <= Duration::from_millis(250),
            "{status}: {took:?}"
        );
        assert_eq!(stub.requests().len(), 2);
    }
}

#[tokio::test(start_paused = true)]
async fn a_wrong_json_type_names_the_field_and_the_record() {
    let (_stub, client) = scripted(|_| {
        Reply::ok(json!({"records": [
            {"id": 41, "name": "@", "type": "A", "ttl": 60, "content": "192.0.2.1"},
            {"id": 42, "name": "www", "type": "A", "ttl": "300", "content": "192.0.2.2"}
        ], "meta": {"has_more": false}}))
    })
    .await;
    assert_eq!(
        user_sees(client.list_records("example.com").await.unwrap_err()),
        "error: GET /dns/example.com/records: the API answered 200 with a body dnscron can't \
         read: field `records[1].ttl` (the item with id 42): invalid type: string \"300\", \
         expected u32 (request_id req_stub200)"
    );
}

#[tokio::test(start_paused = true)]
async fn reads_ask_caches_to_revalidate_and_writes_carry_no_cache_header() {
    let (stub, client) = scripted(|seen| match seen.method.as_str() {
        "GET" => Reply::ok(serde_json::from_str(SITES).unwrap()),
        _ => Reply::json(201, json!({"index": 0})),
    })
    .await;
    client.list_sites().await.unwrap();
    let writer = WriteClient::new(stub.config()).unwrap();
    let job = dnscron_api::payload::CronJobWrite {
        schedule: "* * * * *".into(),
        command: "true".into(),
    };
    let key = dnscron_api::IdempotencyKey::new("k").unwrap();
    writer.create_cron("shop", &job, &key).await.unwrap();
    let seen: Vec<_> = stub
        .requests()
        .iter()
        .map(|s| {
            (
                s.method.clone(),
                s.header("cache-control").map(str::to_string),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("GET".into(), Some("no-cache".into())),
            ("POST".into(), None)
        ]
    );
}

const BASE_URL_HINT: &str = "hint: check --api-url / DNSCRON_API_URL: it includes the version \
     prefix, e.g. https://api.example.net/api/v1 (`dnscron doctor` checks it)";

#[tokio::test(start_paused = true)]
async fn a_path_the_server_lacks_is_a_wrong_base_url_not_a_missing_zone() {
    let (_stub, client) =
        scripted(|seen| Reply::error(404, "not_found", &format!("no endpoint at {}", seen.path)))
            .await;
    assert_eq!(
        user_sees(client.list_records("example.com").await.unwrap_err()),
        format!(
            "error: GET /dns/example.com/records: HTTP 404 no endpoint at /dns/example.com/records: \
             this does not look like the API's base URL (request_id req_stub404)\n{BASE_URL_HINT}"
        )
    );
    let (_stub, client) = scripted(|_| html(404, "text/html", "<h1>Not Found</h1>")).await;
    assert_eq!(
        user_sees(client.list_sites().await.unwrap_err()),
        format!(
            "error: GET /sites: HTTP 404 with an HTML page, not the API's JSON error: this does \
             not look like the API's base URL\n{BASE_URL_HINT}"
        )
    );
    // The API's own 404 stays "no such zone".
    let (_stub, client) =
        scripted(|_| Reply::error(404, "not_found", "no zone `example.com`")).await;
    let err = client.list_records("example.com").await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
}
