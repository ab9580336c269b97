//! dnscron's client against servers, proxies and load balancers that misbehave the way real
//! ones do: every byte from the network is untrusted input. One file per area; answers that
//! HTTP can express use the scripted stub (`client::stub`), the rest the raw server below,
//! which speaks HTTP/1.1 byte by byte (stalls, trickles, lies about lengths, endless bodies).

pub(crate) mod paging;
mod safety;
mod transport;
mod transport_cli;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

pub use crate::client::stub::PREFIX;

/// What the raw server does on one connection, in order.
#[derive(Clone, Debug)]
pub enum Step {
    Send(Vec<u8>),
    Sleep(Duration),
    /// Keep the connection open and say nothing more, until the client gives up.
    Hang,
    /// Write `chunk` as chunked-encoding chunks until the client stops reading.
    Endless(Vec<u8>),
}

/// A response head with these headers (and `connection: close`).
pub fn head(status: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let mut text = format!("HTTP/1.1 {status}\r\nconnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.into_bytes()
}

/// A whole JSON response with a correct Content-Length.
pub fn json(status: &str, body: &str) -> Vec<Step> {
    let len = body.len().to_string();
    let mut bytes = head(
        status,
        &[
            ("content-type", "application/json"),
            ("content-length", &len),
            ("x-request-id", "req_raw"),
        ],
    );
    bytes.extend_from_slice(body.as_bytes());
    vec![Step::Send(bytes)]
}

type Script = dyn Fn(usize, &str) -> Vec<Step> + Send + Sync;

/// A TCP server on 127.0.0.1:0 that reads each request (head and Content-Length body), logs
/// it, and plays the script for that connection (1-based count) and request line, then
/// closes it.
pub struct Raw {
    pub base_url: String,
    requests: Arc<Mutex<Vec<String>>>,
    sent: Arc<AtomicU64>,
    endless_stopped: Arc<Notify>,
}

impl Raw {
    pub async fn start(script: impl Fn(usize, &str) -> Vec<Step> + Send + Sync + 'static) -> Raw {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(AtomicU64::new(0));
        let script: Arc<Script> = Arc::new(script);
        let endless_stopped = Arc::new(Notify::new());
        let shared = Shared {
            log: Arc::clone(&requests),
            sent: Arc::clone(&sent),
            endless_stopped: Arc::clone(&endless_stopped),
        };
        tokio::spawn(async move {
            let mut n = 0;
            while let Ok((socket, _)) = listener.accept().await {
                n += 1;
                tokio::spawn(serve(socket, n, Arc::clone(&script), shared.clone()));
            }
        });
        Raw {
            base_url: format!("http://{addr}{PREFIX}"),
            requests,
            sent,
            endless_stopped,
        }
    }

    /// Each request's first line, e.g. `GET /api/v1/sites?limit=100 HTTP/1.1`.
    pub fn request_lines(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// Bytes an `Endless` step wrote before the client stopped reading; waits until it has.
    pub async fn endless_bytes_sent(&self) -> u64 {
        self.endless_stopped.notified().await;
        self.sent.load(Ordering::SeqCst)
    }
}

#[derive(Clone)]
struct Shared {
    log: Arc<Mutex<Vec<String>>>,
    sent: Arc<AtomicU64>,
    endless_stopped: Arc<Notify>,
}

async fn serve(mut socket: TcpStream, n: usize, script: Arc<Script>, shared: Shared) {
    let Shared {
        log,
        sent,
        endless_stopped,
    } = shared;
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let line = request.lines().next().unwrap_or_default().to_string();
    log.lock().unwrap().push(line.clone());
    for step in script(n, &line) {
        match step {
            Step::Send(bytes) => {
                if socket.write_all(&bytes).await.is_err() {
                    return;
                }
            }
            Step::Sleep(d) => tokio::time::sleep(d).await,
            Step::Hang => std::future::pending::<()>().await,
            Step::Endless(chunk) => {
                let framed = [
                    format!("{:x}\r\n", chunk.len()).into_bytes(),
                    chunk,
                    b"\r\n".to_vec(),
                ]
                .concat();
                while socket.write_all(&framed).await.is_ok() {
                    sent.fetch_add(framed.len() as u64, Ordering::SeqCst);
                }
                endless_stopped.notify_one();
                return;
            }
        }
    }
    let _ = socket.shutdown().await;
}

async fn read_request(socket: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    let lower = l.to_ascii_lowercase();
                    let v = lower.strip_prefix("content-length:")?;
                    v.trim().parse::<usize>().ok()
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return Some(text);
            }
        }
    }
}
