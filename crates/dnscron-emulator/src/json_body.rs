//! The emulator's wire format, written from the API specification (sections Errors,
//! Pagination, Idempotency and Limits), never from the client's `dnscron_api::payload`: a field name the
//! client misreads must not be copied into the server, or every end-to-end test would agree
//! with the mistake.

use std::collections::BTreeMap;

use serde::Serialize;

/// The uniform body of every 4xx and 5xx response (spec, Errors).
#[derive(Debug, Serialize)]
pub struct ErrorEnvelope<'a> {
    pub error: ErrorBody<'a>,
}

#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub message: &'a str,
    /// Per-field messages; the spec names it for `validation_error` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<&'a BTreeMap<String, Vec<String>>>,
    /// Same value as the `X-Request-Id` header.
    pub request_id: &'a str,
    /// The portal step of a 409 `conflict` (spec: "these responses add continue_url").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continue_url: Option<&'a str>,
}

/// `meta` of every list response (spec, Pagination 2): `next_cursor` is left out on the last
/// page, where `has_more` is false.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Meta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub has_more: bool,
}

/// Header names as the spec spells them, lower-cased (HTTP header names are case-insensitive).
pub mod headers {
    pub const REQUEST_ID: &str = "x-request-id";
    pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
    pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";
    pub const RATE_LIMIT: &str = "x-ratelimit-limit";
    pub const RATE_REMAINING: &str = "x-ratelimit-remaining";
    pub const RETRY_AFTER: &str = "retry-after";
}

/// Keys of the result arrays of list endpoints (spec, Resources and Endpoints).
pub mod list_keys {
    pub const SITES: &str = "sites";
    pub const CRON_JOBS: &str = "cron_jobs";
    pub const DOMAINS: &str = "domains";
    pub const ZONES: &str = "zones";
    pub const RECORDS: &str = "records";
}
