//! One HTTP exchange under a deadline and a body cap: the server decides neither how long a
//! request takes nor how much memory its answer takes.

use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, Response};
use tokio::time::{Instant, timeout_at};

/// Why an exchange produced no usable answer.
pub(super) enum Cutoff {
    /// No connection, or the request could not be sent (reqwest's own error).
    Transport(reqwest::Error),
    /// The deadline passed: before the headers (`None`), or after them with this many body
    /// bytes received.
    Deadline { stalled: Option<u64> },
    /// The body ended early (fewer bytes than Content-Length, or broken framing).
    Cut {
        received: u64,
        expected: Option<u64>,
        headers: HeaderMap,
        reason: String,
    },
    /// The body is over the cap: announced by Content-Length (`declared`) or counted.
    TooLarge {
        declared: Option<u64>,
        headers: HeaderMap,
    },
}

/// Sends the request and waits for the response head.
pub(super) async fn send_head(req: RequestBuilder, deadline: Instant) -> Result<Response, Cutoff> {
    match timeout_at(deadline, req.send()).await {
        Err(_) => Err(Cutoff::Deadline { stalled: None }),
        Ok(Err(e)) => Err(Cutoff::Transport(e)),
        Ok(Ok(resp)) => Ok(resp),
    }
}

/// Reads the body chunk by chunk, counting: refused up front when Content-Length is over
/// `limit`, cut off (the connection dropped) as soon as the count passes it.
pub(super) async fn read_body(
    mut resp: Response,
    deadline: Instant,
    limit: u64,
) -> Result<Vec<u8>, Cutoff> {
    let expected = resp.content_length();
    if let Some(declared) = expected.filter(|n| *n > limit) {
        return Err(Cutoff::TooLarge {
            declared: Some(declared),
            headers: resp.headers().clone(),
        });
    }
    let capacity = usize::try_from(expected.unwrap_or(0)).unwrap_or(0);
    let mut body = Vec::with_capacity(capacity);
    loop {
        let received = body.len() as u64;
        match timeout_at(deadline, resp.chunk()).await {
            Err(_) => {
                return Err(Cutoff::Deadline {
                    stalled: Some(received),
                });
            }
            Ok(Err(e)) => {
                return Err(Cutoff::Cut {
                    received,
                    expected,
                    headers: resp.headers().clone(),
                    reason: super::core::error_chain(&e.without_url()),
                });
            }
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(chunk))) => {
                if received + chunk.len() as u64 > limit {
                    return Err(Cutoff::TooLarge {
                        declared: None,
                        headers: resp.headers().clone(),
                    });
                }
                body.extend_from_slice(&chunk);
            }
        }
    }
}
