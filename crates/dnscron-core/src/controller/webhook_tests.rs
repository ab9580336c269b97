#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;

/// The path part of every test URL: what must never show.
const SECRET: &str = "/services/T0000/B0000/sEcReTtOkEn";

/// One request as the server received it.
struct Received {
    head: String,
    body: Vec<u8>,
}

/// A server on 127.0.0.1:0 that takes one request, answers `answer` (bytes as sent), and gives
/// back what it received; then it closes, so a redirect followed would find nobody.
async fn server(answer: Vec<u8>) -> (SocketAddr, tokio::task::JoinHandle<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let received = read_request(&mut stream).await;
        // The client may hang up before the whole answer is written (a body it stops reading).
        let _ = stream.write_all(&answer).await;
        let _ = stream.shutdown().await;
        received
    });
    (addr, task)
}

async fn read_request(stream: &mut TcpStream) -> Received {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut buf).await.unwrap();
        assert_ne!(n, 0, "the request ended before its head");
        bytes.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8(bytes[..head_end].to_vec()).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .parse()
        .unwrap();
    while bytes.len() < head_end + length {
        let n = stream.read(&mut buf).await.unwrap();
        bytes.extend_from_slice(&buf[..n]);
    }
    Received {
        head,
        body: bytes[head_end..].to_vec(),
    }
}

fn answer(status_line: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status_line}\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A URL file holding `text` (with the line break an editor adds).
fn url_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("webhook-url");
    std::fs::write(&path, format!("  {text}\n")).unwrap();
    (tmp, path)
}

fn webhook_at(addr: SocketAddr) -> (tempfile::TempDir, Webhook) {
    let (tmp, path) = url_file(&format!("http://{addr}{SECRET}"));
    (tmp, Webhook::from_file(&path).unwrap())
}

#[tokio::test]
async fn the_body_is_slacks_json_escaped() {
    let (addr, server) = server(answer("200 OK", "", "ok")).await;
    let (_tmp, webhook) = webhook_at(addr);
    let text = "dns \"prod\" converged\nline two\ttab \\ \u{1}\u{1b}[31m é ✓";
    webhook.send(text).await.unwrap();
    let received = server.await.unwrap();
    assert_eq!(
        String::from_utf8(received.body).unwrap(),
        r#"{"text":"dns \"prod\" converged\nline two\ttab \\ \u0001\u001b[31m é ✓"}"#
    );
    let mut lines = received.head.lines();
    assert_eq!(
        lines.next(),
        Some(format!("POST {SECRET} HTTP/1.1").as_str())
    );
    assert!(
        received
            .head
            .contains("\r\ncontent-type: application/json\r\n"),
        "{}",
        received.head
    );
}

#[tokio::test]
async fn an_error_status_is_an_error_without_the_url() {
    let (addr, server) = server(answer(
        "500 Internal Server Error",
        "",
        &format!("no such hook {SECRET}"),
    ))
    .await;
    let (_tmp, webhook) = webhook_at(addr);
    let err = webhook.send("hello").await.unwrap_err();
    server.await.unwrap();
    assert!(
        matches!(err, WebhookError::Status { status: 500 }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "the webhook answered with HTTP status 500");
    assert_eq!(format!("{err:?}"), "Status { status: 500 }");
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let (addr_redirecting, server) = server(answer(
        "302 Found",
        &format!("location: http://{addr}/elsewhere{SECRET}\r\n"),
        "",
    ))
    .await;
    let (_tmp, webhook) = webhook_at(addr_redirecting);
    let err = webhook.send("hello").await.unwrap_err();
    // Followed, the request would have gone to a closed port: a transport error instead.
    assert!(
        matches!(err, WebhookError::Status { status: 302 }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "the webhook answered with HTTP status 302");
    server.await.unwrap();
}

/// A server that answers 200 with a body of no length and no end: only the client's cap ends
/// the read.
async fn endless_server() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        read_request(&mut stream).await;
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n")
            .await
            .unwrap();
        let chunk = vec![b'x'; 1024];
        while stream.write_all(&chunk).await.is_ok() {}
    });
    (addr, task)
}

#[tokio::test]
async fn an_answers_body_is_read_no_further_than_the_cap() {
    let (addr, endless) = endless_server().await;
    let (_tmp, webhook) = webhook_at(addr);
    let response = webhook
        .http
        .post(webhook.url.clone())
        .body(message_body("hello"))
        .send()
        .await
        .unwrap();
    let read = drain(response, Instant::now() + TIMEOUT).await;
    assert!(
        (MAX_ANSWER_BYTES..MAX_ANSWER_BYTES + 64 * 1024).contains(&read),
        "{read}"
    );
    endless.await.unwrap();
}

#[tokio::test]
async fn an_endless_two_hundred_is_taken_by_its_status() {
    let (addr, endless) = endless_server().await;
    let (_tmp, webhook) = webhook_at(addr);
    webhook.send("hello").await.unwrap();
    endless.await.unwrap();
}

#[tokio::test]
async fn any_two_hundred_status_is_taken() {
    let (addr, server) = server(answer("204 No Content", "", "")).await;
    let (_tmp, webhook) = webhook_at(addr);
    webhook.send("hello").await.unwrap();
    server.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_webhook_that_never_answers_times_out_after_ten_seconds() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let _held = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        std::future::pending::<()>().await;
        drop(stream);
    });
    let (_tmp, webhook) = webhook_at(addr);
    let started = Instant::now();
    let err = webhook.send("hello").await.unwrap_err();
    assert!(matches!(err, WebhookError::Timeout { .. }), "{err:?}");
    assert_eq!(started.elapsed(), TIMEOUT);
    assert_eq!(err.to_string(), "the webhook did not answer within 10 s");
}

#[tokio::test]
async fn an_unreachable_webhook_is_an_error_without_the_url() {
    let addr = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let (_tmp, webhook) = webhook_at(addr);
    let err = webhook.send("hello").await.unwrap_err();
    assert!(matches!(err, WebhookError::Transport { .. }), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(
        !shown.contains("sEcReT") && !shown.contains("http://"),
        "{shown}"
    );
    assert!(
        err.to_string()
            .starts_with("the webhook could not be reached: "),
        "{err}"
    );
}

#[test]
fn a_cause_quoting_the_url_is_cut() {
    let url = Url::parse("https://hooks.example.com/services/T/B/secret?token=abc").unwrap();
    assert_eq!(
        without_secret(
            "error for https://hooks.example.com/services/T/B/secret?token=abc: path \
             /services/T/B/secret, query token=abc",
            &url
        ),
        "error for <redacted>: path <redacted>, query <redacted>"
    );
}

#[test]
fn https_anywhere_and_http_to_loopback_only() {
    for accepted in [
        "https://hooks.slack.com/services/T0000/B0000/XXXX",
        "https://chat.example.com/hooks/abc?token=1",
        "http://127.0.0.1:8065/hooks/abc",
        "http://[::1]/hooks/abc",
        "http://localhost/hooks/abc",
    ] {
        let (_tmp, path) = url_file(accepted);
        let webhook = Webhook::from_file(&path).unwrap();
        assert_eq!(format!("{webhook:?}"), "Webhook(<redacted>)");
        assert_eq!(webhook.url.as_str(), accepted);
    }
    let refused = |text: &str| {
        let (_tmp, path) = url_file(text);
        let err = Webhook::from_file(&path).unwrap_err();
        let shown = err.to_string();
        (shown.replace(&path.display().to_string(), "FILE"), err)
    };
    let (shown, err) = refused("http://hooks.example.com/services/T0000/B0000/XXXX");
    assert!(matches!(err, WebhookError::InsecureHttp { .. }));
    assert_eq!(
        shown,
        "`FILE` holds an http:// URL to a host that is not a loopback address"
    );
    let (shown, err) = refused("ftp://127.0.0.1/services/T0000/B0000/XXXX");
    assert!(matches!(err, WebhookError::UnsupportedScheme { .. }));
    assert_eq!(
        shown,
        "`FILE` holds a URL whose scheme is neither https nor http"
    );
    // A secret that is no URL at all: not a word of it is shown.
    let (shown, err) = refused("T0000:B0000/XXXX");
    assert!(matches!(err, WebhookError::NoHost { .. }));
    assert_eq!(shown, "`FILE` holds a URL without a host");
    let (shown, err) = refused("hooks.slack.com/services/T0000/B0000/XXXX");
    assert!(matches!(err, WebhookError::NotUrl { .. }));
    assert_eq!(
        shown,
        "`FILE` does not hold a URL: relative URL without a base"
    );
    let (shown, err) = refused("https://");
    assert!(matches!(err, WebhookError::NotUrl { .. }));
    assert_eq!(shown, "`FILE` does not hold a URL: empty host");
    let (shown, err) = refused(" \n ");
    assert!(matches!(err, WebhookError::Empty { .. }));
    assert_eq!(shown, "`FILE` is empty");
}

#[test]
fn a_url_file_that_is_missing_large_or_binary_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    assert!(matches!(
        Webhook::from_file(&missing),
        Err(WebhookError::Read { path, .. }) if path == missing
    ));
    let large = tmp.path().join("large");
    std::fs::write(&large, "h".repeat(8 * 1024 + 1)).unwrap();
    assert!(matches!(
        Webhook::from_file(&large),
        Err(WebhookError::FileTooLarge { limit: 8192, .. })
    ));
    let binary = tmp.path().join("binary");
    std::fs::write(&binary, b"https://\xff/x").unwrap();
    assert!(matches!(
        Webhook::from_file(&binary),
        Err(WebhookError::NotUtf8 { .. })
    ));
}
