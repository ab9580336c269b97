//! What an answer is, checked before anything uses it: errors worded from what the server
//! actually sent (the API's envelope, a proxy's HTML page, a redirect, a path the server
//! lacks, a body that is not JSON), and the request log of `-v` / `-vv`.

use std::fmt::Write as _;
use std::time::Duration;

use reqwest::header::{self, HeaderMap};

use super::core::error_chain;
use super::error::ApiError;
use super::exchange::Cutoff;
use super::payload::{ErrorEnvelope, headers as h};
use super::untrusted::{escape, excerpt};

/// How a request is named in errors and logs (never the full URL).
pub(super) struct Named<'a> {
    pub method: &'a str,
    pub path: &'a str,
}

pub(super) fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

pub(super) fn request_id(headers: &HeaderMap) -> Option<String> {
    header_str(headers, h::REQUEST_ID).map(|id| escape(id).into_owned())
}

/// The error for a non-2xx answer.
pub(super) fn status_error(
    req: &Named<'_>,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    attempts: u32,
) -> ApiError {
    let (method, path) = (req.method.to_string(), req.path.to_string());
    let request_id = request_id(headers);
    if (300..400).contains(&status) {
        return ApiError::Redirect {
            method,
            path,
            status,
            location: header_str(headers, header::LOCATION.as_str())
                .map(|l| escape(l).into_owned()),
            request_id,
        };
    }
    let envelope = serde_json::from_slice::<ErrorEnvelope>(body).ok();
    let html = envelope.is_none() && is_html(headers, body);
    if status == 404 {
        let detail = match &envelope {
            Some(env) if env.error.message.starts_with("no endpoint") => {
                Some(excerpt(&env.error.message, 120))
            }
            Some(_) => None,
            None if html => Some("with an HTML page, not the API's JSON error".into()),
            None => Some(match excerpt(&String::from_utf8_lossy(body), 120) {
                text if text.is_empty() => "with no body".into(),
                text => format!("with a body that is not the API's error: {text}"),
            }),
        };
        if let Some(detail) = detail {
            return ApiError::NoEndpoint {
                method,
                path,
                detail,
                request_id,
            };
        }
    }
    let body_excerpt =
        (envelope.is_none() && !html).then(|| excerpt(&String::from_utf8_lossy(body), 200));
    ApiError::Status {
        method,
        path,
        status,
        envelope: envelope.map(Box::new),
        request_id,
        body_excerpt,
        from_proxy: html,
        attempts,
    }
}

/// The error for an exchange that ended without a usable answer, and the reason a retry
/// log line gives.
pub(super) fn cutoff_error(
    req: &Named<'_>,
    cutoff: Cutoff,
    attempts: u32,
    timeout: Duration,
    max_body: u64,
) -> (ApiError, String) {
    let (method, path) = (req.method.to_string(), req.path.to_string());
    match cutoff {
        Cutoff::Transport(e) => {
            let timeout = e.is_timeout();
            let message = error_chain(&e.without_url());
            let error = ApiError::Transport {
                method,
                path,
                message: message.clone(),
                timeout,
                attempts,
            };
            (error, message)
        }
        Cutoff::Deadline { stalled } => {
            let error = ApiError::NoAnswer {
                method,
                path,
                within: timeout,
                stalled,
                attempts,
            };
            let reason = format!("no complete answer within {}ms", timeout.as_millis());
            (error, reason)
        }
        Cutoff::Cut {
            received,
            expected,
            headers,
            reason,
        } => {
            let error = ApiError::Cut {
                method,
                path,
                received,
                expected,
                request_id: request_id(&headers),
                attempts,
            };
            (error, format!("the connection was cut ({reason})"))
        }
        Cutoff::TooLarge { declared, headers } => {
            let error = ApiError::TooLarge {
                method,
                path,
                limit: max_body,
                declared,
                request_id: request_id(&headers),
            };
            (error, String::new())
        }
    }
}

/// A 2xx with a body must be JSON: a login page or captive portal answers 200 too.
pub(super) fn check_json(
    req: &Named<'_>,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(), ApiError> {
    let Some(content_type) = header_str(headers, header::CONTENT_TYPE.as_str()) else {
        return Ok(());
    };
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let json = essence == "application/json" || essence.ends_with("+json");
    if json || body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(body);
    let line = html_title(&text).unwrap_or(&text);
    Err(ApiError::NotJson {
        method: req.method.to_string(),
        path: req.path.to_string(),
        status,
        content_type: escape(&essence).into_owned(),
        excerpt: Some(excerpt(line, 100)).filter(|e| !e.is_empty()),
        request_id: request_id(headers),
    })
}

fn is_html(headers: &HeaderMap, body: &[u8]) -> bool {
    let typed = header_str(headers, header::CONTENT_TYPE.as_str())
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/html"));
    typed
        || String::from_utf8_lossy(&body[..body.len().min(512)])
            .trim_start()
            .starts_with('<')
}

/// The text of an HTML page's `<title>`, which says what the page is in a few words.
fn html_title(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    Some(text[start..end].trim()).filter(|t| !t.is_empty())
}

/// `-v`: one line per attempt; `-vv` adds the response headers (a credential-bearing header
/// is never shown, nor any value holding the token).
pub(super) fn log_answer(
    req: &Named<'_>,
    query: Option<&str>,
    status: u16,
    headers: &HeaderMap,
    took: Duration,
    secret: &str,
) {
    let query = query.map(|q| format!("?{}", escape(q))).unwrap_or_default();
    let id = request_id(headers)
        .map(|id| format!(", request_id {id}"))
        .unwrap_or_default();
    tracing::debug!(
        "{} {}{query}: HTTP {status} in {}ms{id}",
        req.method,
        req.path,
        took.as_millis()
    );
    if tracing::enabled!(tracing::Level::TRACE) {
        tracing::trace!(
            "{} {}{query}: response headers:{}",
            req.method,
            req.path,
            render_headers(headers, secret)
        );
    }
}

fn render_headers(headers: &HeaderMap, secret: &str) -> String {
    const HIDDEN: [&str; 4] = [
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
    ];
    let mut out = String::new();
    for (name, value) in headers {
        let text = String::from_utf8_lossy(value.as_bytes());
        let shown = if HIDDEN.contains(&name.as_str()) || text.contains(secret) {
            "[REDACTED]".into()
        } else {
            escape(&text).into_owned()
        };
        let _ = write!(out, "\n  {name}: {shown}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            if let Ok(v) = value.parse() {
                map.insert(*name, v);
            }
        }
        map
    }

    #[test]
    fn titles_and_html_are_recognized() {
        assert_eq!(
            html_title("<html><HEAD><Title>\n Sign in </title>"),
            Some("Sign in")
        );
        assert_eq!(html_title("<html><title></title>"), None);
        assert!(is_html(&headers(&[("content-type", "text/html")]), b"x"));
        assert!(is_html(&HeaderMap::new(), b"  <html>"));
        assert!(!is_html(&HeaderMap::new(), b"{\"a\":1}"));
    }

    #[test]
    fn secrets_never_reach_the_header_log() {
        let map = headers(&[
            ("set-cookie", "session=1"),
            ("x-echo", "Bearer tok_SECRET"),
            ("x-request-id", "req_1"),
        ]);
        assert_eq!(
            render_headers(&map, "tok_SECRET"),
            "\n  set-cookie: [REDACTED]\n  x-echo: [REDACTED]\n  x-request-id: req_1"
        );
    }
}
