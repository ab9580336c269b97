//! Errors of the API client. None of them can carry the token: requests are described by
//! method and path only, and transport errors are stripped of their URL.

use std::fmt;
use std::time::Duration;

use super::wire::ErrorEnvelope;
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
        /// Start of a non-envelope body, for diagnosis.
        body_excerpt: Option<String>,
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
            None => {
                if let Some(body) = body_excerpt.as_deref().filter(|b| !b.is_empty()) {
                    write!(f, ": {}", U(body))?;
                }
            }
        }
        if let Some(id) = self.0.request_id() {
            write!(f, "\n  request_id: {}", U(id))?;
        } else if let Some(id) = request_id {
            write!(f, "\n  request_id: {}", U(id))?;
        }
        Ok(())
    }
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } | ApiError::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub fn envelope(&self) -> Option<&ErrorEnvelope> {
        match self {
            ApiError::Status { envelope, .. } => envelope.as_deref(),
            _ => None,
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
            ApiError::Decode { request_id, .. } => request_id.as_deref(),
            _ => None,
        }
    }

    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
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
            _ => None,
        }
    }

    /// Total rate-limit wait that was refused, for wait-exceeded errors.
    pub fn refused_wait(&self) -> Option<Duration> {
        match self {
            ApiError::WaitExceeded { source, .. } => Some(source.needed),
            _ => None,
        }
    }
}
