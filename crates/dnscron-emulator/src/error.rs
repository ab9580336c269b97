//! Errors: [`EmulatorError`] for starting the emulator, [`ApiError`] for what a request answers.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    #[error("invalid emulator seed {source_name}: {message}")]
    Seed {
        source_name: String,
        message: String,
    },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("the emulator's runtime failed: {0}")]
    Runtime(String),
}

/// An API error before it is rendered: the pipeline adds the request id and writes the
/// envelope, so every error body has the same shape whichever handler produced it.
#[derive(Clone, Debug)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub message: String,
    pub details: Option<BTreeMap<String, Vec<String>>>,
    pub continue_url: Option<String>,
    pub retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            kind,
            message: message.into(),
            details: None,
            continue_url: None,
            retry_after: None,
        }
    }

    pub(crate) fn unauthenticated(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::UNAUTHORIZED, "unauthenticated", message)
    }

    pub(crate) fn forbidden(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    pub(crate) fn method_not_allowed(message: impl Into<String>) -> ApiError {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            message,
        )
    }

    pub(crate) fn conflict(message: impl Into<String>, continue_url: String) -> ApiError {
        let mut err = Self::new(StatusCode::CONFLICT, "conflict", message);
        err.continue_url = Some(continue_url);
        err
    }

    pub(crate) fn idempotency_conflict(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::CONFLICT, "idempotency_conflict", message)
    }

    pub(crate) fn validation(details: Details) -> ApiError {
        let mut err = Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_error",
            "the request is invalid; see details",
        );
        err.details = Some(details.0);
        err
    }

    /// A validation error on one field.
    pub(crate) fn invalid(field: &str, message: impl Into<String>) -> ApiError {
        let mut details = Details::default();
        details.add(field, message);
        Self::validation(details)
    }

    pub(crate) fn rate_limited(retry_after: u64) -> ApiError {
        let mut err = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many requests; retry after {retry_after} s"),
        );
        err.retry_after = Some(retry_after);
        err
    }

    pub(crate) fn upstream() -> ApiError {
        Self::new(
            StatusCode::BAD_GATEWAY,
            "upstream_error",
            "a registry did not answer; nothing was changed",
        )
    }

    /// What a gateway in front of the API answers while the API is down (the spec has no 503:
    /// a client meets one from the infrastructure, not from the API).
    pub(crate) fn unavailable() -> ApiError {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server_error",
            "the service is unavailable (outage); try again later",
        )
    }

    pub(crate) fn server(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "server_error", message)
    }

    /// The error type a bare status (e.g. an extractor rejection) stands for.
    pub(crate) fn from_status(status: StatusCode, message: String) -> ApiError {
        let kind = match status.as_u16() {
            400 | 413 | 415 | 422 => "validation_error",
            401 => "unauthenticated",
            403 => "forbidden",
            404 => "not_found",
            405 => "method_not_allowed",
            409 => "conflict",
            429 => "rate_limited",
            502 => "upstream_error",
            _ => "server_error",
        };
        let mut err = Self::new(status, kind, message);
        if kind == "validation_error" {
            err.status = StatusCode::UNPROCESSABLE_ENTITY;
            err.details = Some(BTreeMap::from([(
                "body".to_string(),
                vec![err.message.clone()],
            )]));
        }
        err
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}

/// Per-field validation messages, collected before answering so a client sees all of them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Details(pub BTreeMap<String, Vec<String>>);

impl Details {
    pub(crate) fn add(&mut self, field: &str, message: impl Into<String>) {
        self.0
            .entry(field.to_string())
            .or_default()
            .push(message.into());
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn into_result(self) -> Result<(), ApiError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self))
        }
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;
