//! Errors of the API client. None of them can carry the token: requests are described by
//! method and path only, and transport errors are stripped of their URL.

use std::fmt;
use std::time::Duration;

use super::payload::ErrorEnvelope;
use crate::untrusted::Untrusted as U;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The server answered with an error status.
    #[error("{}", StatusDisplay(self))]
    Status {
        method: String,
        path: String,
        status: u16,
        /// `None` when the body was not the spec's envelope.
        envelope: Option<Box<ErrorEnvelope>>,
        /// X-Request-Id, when the envelope doesn't give one.
        request_id: Option<String>,
        /// Start of a non-envelope body on one escaped line, for diagnosis.
        body_excerpt: Option<String>,
        /// The body was an HTML page (a proxy's or web server's error page), not the API's.
        from_proxy: bool,
        attempts: u32,
    },
    #[error(
        "{method} {}: could not reach the API after {attempts} attempt(s): {}",
        U(path),
        U(message)
    )]
    Transport {
        method: String,
        path: String,
        message: String,
        timeout: bool,
        attempts: u32,
    },
    /// The deadline of an attempt passed after the connection was accepted.
    #[error(
        "{method} {path}: the API accepted the connection but sent no complete answer within \
         {}{} ({attempts} attempt(s))",
        seconds(*within),
        stalled.map(|n| format!(": the headers came, then only {n} byte(s) of the body")).unwrap_or_default()
    )]
    NoAnswer {
        method: String,
        path: String,
        within: Duration,
        /// Body bytes received when the headers came and the body stalled or trickled.
        stalled: Option<u64>,
        attempts: u32,
    },
    /// The answer ended before its Content-Length (or its chunked framing) said it would.
    #[error(
        "{method} {path}: the connection was cut after {received}{} byte(s) of the answer \
         ({attempts} attempt(s)){}",
        expected.map(|n| format!(" of {n}")).unwrap_or_default(),
        request_id.as_deref().map(|r| format!(" (request_id {r})")).unwrap_or_default()
    )]
    Cut {
        method: String,
        path: String,
        received: u64,
        expected: Option<u64>,
        request_id: Option<String>,
        attempts: u32,
    },
    /// The answer is larger than the body cap; it was not (fully) read and nothing used it.
    #[error(
        "{method} {path}: the answer is larger than dnscron accepts: {}; nothing was used{}",
        match declared {
            Some(n) => format!("Content-Length {n} bytes is over the limit of {limit} bytes, refused before reading"),
            None => format!("it passed the limit of {limit} bytes and reading stopped there"),
        },
        request_id.as_deref().map(|r| format!(" (request_id {r})")).unwrap_or_default()
    )]
    TooLarge {
        method: String,
        path: String,
        limit: u64,
        /// The Content-Length, when it announced the excess.
        declared: Option<u64>,
        request_id: Option<String>,
    },
    /// A 2xx whose Content-Type is not JSON (a login page, a captive portal).
    #[error(
        "{method} {path}: expected JSON, got {content_type} (HTTP {status}){}{}",
        excerpt.as_deref().map(|e| format!(": {e}")).unwrap_or_default(),
        request_id.as_deref().map(|r| format!(" (request_id {r})")).unwrap_or_default()
    )]
    NotJson {
        method: String,
        path: String,
        status: u16,
        /// Escaped.
        content_type: String,
        /// One escaped line of the body (an HTML page's title).
        excerpt: Option<String>,
        request_id: Option<String>,
    },
    /// A 3xx: never followed (the token would go with it to wherever it points).
    #[error(
        "{method} {path}: HTTP {status} redirects to {}; dnscron does not follow redirects{}",
        location.as_deref().unwrap_or("(no Location header)"),
        request_id.as_deref().map(|r| format!(" (request_id {r})")).unwrap_or_default()
    )]
    Redirect {
        method: String,
        path: String,
        status: u16,
        /// Escaped.
        location: Option<String>,
        request_id: Option<String>,
    },
    /// A 404 that is not the API's "no such resource" (no error envelope, or "no endpoint"):
    /// the path does not exist on this server at all.
    #[error(
        "{method} {path}: HTTP 404 {detail}: this does not look like the API's base URL{}",
        request_id.as_deref().map(|r| format!(" (request_id {r})")).unwrap_or_default()
    )]
    NoEndpoint {
        method: String,
        path: String,
        /// What the 404 said, escaped and on one line.
        detail: String,
        request_id: Option<String>,
    },
    #[error(
        "{method} {}: the API answered {status} with a body dnscron can't read: {}{}",
        U(path), U(message), request_id.as_deref().map(|r| format!(" (request_id {})", U(r))).unwrap_or_default()
    )]
    Decode {
        method: String,
        path: String,
        status: u16,
        message: String,
        request_id: Option<String>,
    },
    #[error("{method} {}: {source}", U(path))]
    WaitExceeded {
        method: String,
        path: String,
        #[source]
        source: super::pacer::WaitTooLong,
    },
    #[error("refusing to send the API token over plain http to {url}")]
    InsecureUrl { url: String },
    #[error("invalid API URL {url}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// Credentials in a URL end up in logs and error messages, so the URL is not repeated.
    #[error("invalid API URL (URL with credentials, not shown): it contains credentials")]
    UrlWithCredentials,
    /// A listing that is not one consistent list of distinct rows (`api::PageFault`).
    /// The fault quotes server data (cursors, ids).
    #[error("GET {}: {}", U(path), U(&fault.to_string()))]
    Pagination {
        path: String,
        fault: super::paging::PageFault,
    },
    #[error("cannot set up the HTTP client: {message}")]
    Client { message: String },
}

/// `30 s`, `1.5 s`, `200 ms`: how long a deadline was, in the unit a person would say.
fn seconds(d: Duration) -> String {
    if d >= Duration::from_secs(1) {
        let secs = d.as_secs_f64();
        if secs.fract() == 0.0 {
            format!("{secs:.0} s")
        } else {
            format!("{secs:.1} s")
        }
    } else {
        format!("{} ms", d.as_millis())
    }
}

struct StatusDisplay<'a>(&'a ApiError);

impl fmt::Display for StatusDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ApiError::Status {
            method,
            path,
            status,
            envelope,
            request_id,
            body_excerpt,
            from_proxy,
            ..
        } = self.0
        else {
            return Ok(());
        };
        write!(f, "{method} {}: HTTP {status}", U(path))?;
        match envelope {
            Some(env) => {
                write!(f, " {}: {}", U(&env.error.kind), U(&env.error.message))?;
                for (field, messages) in env.error.details.iter().flatten() {
                    write!(f, "\n  {}: {}", U(field), U(&messages.join("; ")))?;
                }
                if let Some(url) = env.continue_url() {
                    write!(f, "\n  continue in the portal: {}", U(url))?;
                }
            }
            None if *from_proxy => {
                let reason = reqwest::StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("error");
                write!(
                    f,
                    " {reason} from a proxy (an HTML page, not the API's JSON error)"
                )?;
            }
            None => {
                if let Some(body) = body_excerpt.as_deref().filter(|b| !b.is_empty()) {
                    write!(f, ": {}", U(body))?;
                }
            }
        }
        if let Some(id) = self.0.request_id().or(request_id.as_deref()) {
            write!(f, "\n  request_id: {}", U(id))?;
        }
        Ok(())
    }
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. }
            | ApiError::Decode { status, .. }
            | ApiError::NotJson { status, .. }
            | ApiError::Redirect { status, .. } => Some(*status),
            ApiError::NoEndpoint { .. } => Some(404),
            ApiError::Transport { .. }
            | ApiError::NoAnswer { .. }
            | ApiError::Cut { .. }
            | ApiError::TooLarge { .. }
            | ApiError::WaitExceeded { .. }
            | ApiError::InsecureUrl { .. }
            | ApiError::InvalidUrl { .. }
            | ApiError::UrlWithCredentials
            | ApiError::Pagination { .. }
            | ApiError::Client { .. } => None,
        }
    }

    pub fn envelope(&self) -> Option<&ErrorEnvelope> {
        match self {
            ApiError::Status { envelope, .. } => envelope.as_deref(),
            ApiError::Transport { .. }
            | ApiError::NoAnswer { .. }
            | ApiError::Cut { .. }
            | ApiError::TooLarge { .. }
            | ApiError::NotJson { .. }
            | ApiError::Redirect { .. }
            | ApiError::NoEndpoint { .. }
            | ApiError::Decode { .. }
            | ApiError::WaitExceeded { .. }
            | ApiError::InsecureUrl { .. }
            | ApiError::InvalidUrl { .. }
            | ApiError::UrlWithCredentials
            | ApiError::Pagination { .. }
            | ApiError::Client { .. } => None,
        }
    }

    /// The envelope's `error.type` (`not_found`, `conflict`, `idempotency_conflict`, …).
    pub fn error_type(&self) -> Option<&str> {
        self.envelope().map(|e| e.error.kind.as_str())
    }

    pub fn request_id(&self) -> Option<&str> {
        match self {
            ApiError::Status {
                envelope,
                request_id,
                ..
            } => envelope
                .as_ref()
                .map(|e| e.error.request_id.as_str())
                .filter(|id| !id.is_empty())
                .or(request_id.as_deref()),
            ApiError::Decode { request_id, .. }
            | ApiError::Cut { request_id, .. }
            | ApiError::TooLarge { request_id, .. }
            | ApiError::NotJson { request_id, .. }
            | ApiError::Redirect { request_id, .. }
            | ApiError::NoEndpoint { request_id, .. } => request_id.as_deref(),
            ApiError::Pagination { fault, .. } => fault.request_id(),
            ApiError::Transport { .. }
            | ApiError::NoAnswer { .. }
            | ApiError::WaitExceeded { .. }
            | ApiError::InsecureUrl { .. }
            | ApiError::InvalidUrl { .. }
            | ApiError::UrlWithCredentials
            | ApiError::Client { .. } => None,
        }
    }

    /// The API's own 404 (the resource does not exist), not a path this server lacks.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ApiError::Status { status: 404, .. })
    }

    /// `Some(continue_url)` when a human has to act in the portal: a 409 that carries a
    /// continue_url (nameserver change under DNSSEC, cron write on an inactive site).
    pub fn needs_portal_step(&self) -> Option<&str> {
        match self {
            ApiError::Status {
                status: 409,
                envelope: Some(env),
                ..
            } if env.error.kind != "idempotency_conflict" => env.continue_url(),
            ApiError::Status { .. }
            | ApiError::Transport { .. }
            | ApiError::NoAnswer { .. }
            | ApiError::Cut { .. }
            | ApiError::TooLarge { .. }
            | ApiError::NotJson { .. }
            | ApiError::Redirect { .. }
            | ApiError::NoEndpoint { .. }
            | ApiError::Decode { .. }
            | ApiError::WaitExceeded { .. }
            | ApiError::InsecureUrl { .. }
            | ApiError::InvalidUrl { .. }
            | ApiError::UrlWithCredentials
            | ApiError::Pagination { .. }
            | ApiError::Client { .. } => None,
        }
    }
}
