//! Idempotency-Key (spec: Idempotency): per token, 24 h, only successful responses remembered.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderValue, Method, StatusCode};
use dnscron_provider::limits;

const WINDOW: Duration = Duration::from_secs(limits::IDEMPOTENCY_WINDOW_SECS);
pub(crate) const MAX_KEY_LEN: usize = limits::IDEMPOTENCY_KEY_MAX_CHARS;

/// What makes two requests "the same request": method, path and body (JSON compared as
/// values, so key order and spacing do not matter).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fingerprint {
    pub method: Method,
    pub path: String,
    pub body: BodyKey,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum BodyKey {
    Json(serde_json::Value),
    Raw(Bytes),
}

impl BodyKey {
    pub(crate) fn of(bytes: &Bytes) -> BodyKey {
        if bytes.is_empty() {
            return BodyKey::Json(serde_json::Value::Null);
        }
        match serde_json::from_slice(bytes) {
            Ok(value) => BodyKey::Json(value),
            Err(_) => BodyKey::Raw(bytes.clone()),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct StoredResponse {
    pub status: StatusCode,
    pub content_type: Option<HeaderValue>,
    pub body: Bytes,
}

#[derive(Debug)]
enum Entry {
    /// The first request with this key is still running.
    InFlight(Fingerprint),
    Done {
        fingerprint: Fingerprint,
        response: StoredResponse,
        at: Instant,
    },
}

pub(crate) enum Lookup {
    /// Run the request; call `finish` or `abandon` afterwards.
    Run,
    Replay(StoredResponse),
    Conflict(&'static str),
    /// The same request with this key is still running: ask again shortly.
    Wait,
}

#[derive(Debug, Default)]
pub(crate) struct IdempotencyStore {
    entries: HashMap<(String, String), Entry>,
}

/// `None` when the key is acceptable, else what is wrong with it.
pub(crate) fn check_key(key: &str) -> Option<String> {
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return Some(format!(
            "must be 1 to {MAX_KEY_LEN} characters; got {}",
            key.len()
        ));
    }
    if !key.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        return Some("must contain printable characters only".into());
    }
    None
}

impl IdempotencyStore {
    pub(crate) fn begin(
        &mut self,
        token: &str,
        key: &str,
        fp: &Fingerprint,
        now: Instant,
    ) -> Lookup {
        let slot = (token.to_string(), key.to_string());
        match self.entries.get(&slot) {
            Some(Entry::Done {
                fingerprint,
                response,
                at,
            }) if now.saturating_duration_since(*at) < WINDOW => {
                if fingerprint == fp {
                    return Lookup::Replay(response.clone());
                }
                return Lookup::Conflict(
                    "this Idempotency-Key was used for a different request; use a new key",
                );
            }
            Some(Entry::InFlight(fingerprint)) => {
                return if fingerprint == fp {
                    Lookup::Wait
                } else {
                    Lookup::Conflict(
                        "this Idempotency-Key was used for a different request; use a new key",
                    )
                };
            }
            _ => {}
        }
        self.entries.insert(slot, Entry::InFlight(fp.clone()));
        Lookup::Run
    }

    pub(crate) fn finish(
        &mut self,
        token: &str,
        key: &str,
        fingerprint: Fingerprint,
        response: StoredResponse,
        now: Instant,
    ) {
        self.entries.insert(
            (token.to_string(), key.to_string()),
            Entry::Done {
                fingerprint,
                response,
                at: now,
            },
        );
    }

    /// The request failed: forget the key so it may be retried.
    pub(crate) fn abandon(&mut self, token: &str, key: &str) {
        self.entries.remove(&(token.to_string(), key.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_must_be_1_to_200_printable_characters() {
        assert!(check_key("k").is_none());
        assert!(check_key(&"k".repeat(200)).is_none());
        assert!(check_key("").is_some());
        assert!(check_key(&"k".repeat(201)).is_some());
        assert!(check_key("a\tb").is_some());
    }

    #[test]
    fn json_bodies_compare_as_values() {
        let a = BodyKey::of(&Bytes::from_static(br#"{"a":1,"b":2}"#));
        let b = BodyKey::of(&Bytes::from_static(br#"{ "b": 2, "a": 1 }"#));
        assert_eq!(a, b);
    }
}
