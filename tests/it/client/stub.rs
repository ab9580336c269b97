//! A scripted HTTP server on 127.0.0.1:0 for client tests: every request is logged and
//! answered by a closure, so each test states exactly what the server does.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use dnscron_api::{ApiConfig, RetryPolicy, Token};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub const PREFIX: &str = "/api/v1";
/// Distinctive so a leak anywhere is easy to find.
pub const CANARY: &str = "tok_CANARY_7d1c9e";

#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    /// Without the /api/v1 prefix.
    pub path: String,
    pub query: String,
    pub headers: HeaderMap,
    pub body: String,
    /// 1-based count of requests with this method and path, this one included.
    pub nth: usize,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn query_param(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == name).then(|| v.to_string())
        })
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    /// Answer only after this long (to provoke client timeouts).
    pub delay: Option<Duration>,
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply {
            status,
            headers: vec![("x-request-id", format!("req_stub{status}"))],
            body: body.to_string(),
            delay: None,
        }
    }

    pub fn ok(body: serde_json::Value) -> Reply {
        Reply::json(200, body)
    }

    /// The spec's error envelope.
    pub fn error(status: u16, kind: &str, message: &str) -> Reply {
        Reply::json(
            status,
            serde_json::json!({"error": {"type": kind, "message": message, "request_id": format!("req_stub{status}")}}),
        )
    }

    pub fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = Some(delay);
        self
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Reply {
        self.headers.push((name, value.into()));
        self
    }
}

type Script = dyn Fn(&Seen) -> Reply + Send + Sync;

struct Shared {
    script: Box<Script>,
    log: Mutex<Vec<Seen>>,
}

pub struct Stub {
    pub base_url: String,
    shared: Arc<Shared>,
}

impl Stub {
    pub async fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Stub {
        let shared = Arc::new(Shared {
            script: Box::new(script),
            log: Mutex::new(Vec::new()),
        });
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        tokio::spawn(async move { axum::serve(listener, app).await });
        Stub {
            base_url: format!("http://{addr}{PREFIX}"),
            shared,
        }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.shared.log.lock().unwrap().clone()
    }

    pub fn config(&self) -> ApiConfig {
        config(&self.base_url)
    }
}

/// Fast retries so tests don't wait on backoff.
pub fn config(base_url: &str) -> ApiConfig {
    let mut config = ApiConfig::new(base_url, Token::new(CANARY).unwrap()).unwrap();
    config.retry = RetryPolicy {
        max_attempts: 3,
        max_rate_limited: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    };
    config.request_timeout = Duration::from_secs(5);
    config
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri
        .path()
        .strip_prefix(PREFIX)
        .unwrap_or(uri.path())
        .to_string();
    let seen = {
        let mut log = shared.log.lock().unwrap();
        let nth = 1 + log
            .iter()
            .filter(|s| s.method == method.as_str() && s.path == path)
            .count();
        let seen = Seen {
            method: method.to_string(),
            path,
            query: uri.query().unwrap_or("").to_string(),
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
            nth,
        };
        log.push(seen.clone());
        seen
    };
    let reply = (shared.script)(&seen);
    if let Some(delay) = reply.delay {
        tokio::time::sleep(delay).await;
    }
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap(),
        [("content-type", "application/json")],
        reply.body,
    )
        .into_response();
    for (name, value) in reply.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}

/// A raw TCP server that reads each request and closes the first `drops` connections without
/// answering (a response lost after the server got the request), then answers `reply`.
/// Returns the base URL and the request heads it read.
pub async fn dropping_server(
    drops: usize,
    reply: &'static str,
) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&heads);
    tokio::spawn(async move {
        let mut served = 0;
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let mut buf = vec![0u8; 16384];
            let mut read = 0;
            // Read the head and the body (Content-Length is small in these tests).
            while let Ok(n) = socket.read(&mut buf[read..]).await {
                if n == 0 {
                    break;
                }
                read += n;
                let text = String::from_utf8_lossy(&buf[..read]).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if read >= end + 4 + len {
                        break;
                    }
                }
            }
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[..read]).to_string());
            served += 1;
            if served <= drops {
                drop(socket);
                continue;
            }
            let response = format!(
                "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nx-request-id: req_raw\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{}",
                reply.len(),
                reply
            );
            let _ = socket.write_all(response.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
    });
    (format!("http://{addr}{PREFIX}"), heads)
}
