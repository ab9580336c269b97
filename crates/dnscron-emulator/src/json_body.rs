//! The emulator's wire format, written from the API specification (sections Errors,
//! Pagination, Idempotency and Limits), never from the client's `dnscron_api::payload`: a field
//! name the client misreads must not be copied into the server, or every end-to-end test
//! would agree with the mistake. The names both must spell alike (headers, list keys) come from
//! the API's description, `dnscron_provider`.

use std::collections::BTreeMap;

use serde::Serialize;

/// The uniform body of every 4xx and 5xx response (spec, Errors).
#[derive(Debug, Serialize)]
pub(crate) struct ErrorEnvelope<'a> {
    pub error: ErrorBody<'a>,
}

#[derive(Debug, Serialize)]
pub(crate) struct ErrorBody<'a> {
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
pub(crate) struct Meta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub has_more: bool,
}

/// Header names and list keys, as the API's description spells them.
pub(crate) use dnscron_provider::{headers, list_keys};
