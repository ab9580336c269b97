//! The writing client. Every write carries the caller's Idempotency-Key, so a retry after a
//! lost response replays the stored result instead of writing twice.

use std::fmt;

use dnscron_provider::limits::IDEMPOTENCY_KEY_MAX_CHARS;
use reqwest::Method;
use serde::Serialize;
use serde_json::Value;

use super::config::ApiConfig;
use super::core::{Call, Reply};
use super::decode::decode;
use super::error::ApiError;
use super::payload;
use super::read::ReadClient;
use super::retry::Safety;

/// 1 to 200 printable ASCII characters (spec, Idempotency 1), no space at either end (header
/// values lose those).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey(String);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IdempotencyKeyError {
    #[error("an idempotency key must have 1 to {max} characters, this one has {0}", max = IDEMPOTENCY_KEY_MAX_CHARS)]
    Length(usize),
    #[error("an idempotency key may only hold printable ASCII characters (no space at either end)")]
    Character,
}

impl IdempotencyKey {
    pub fn new(value: impl Into<String>) -> Result<IdempotencyKey, IdempotencyKeyError> {
        let value = value.into();
        let len = value.chars().count();
        if !(1..=IDEMPOTENCY_KEY_MAX_CHARS).contains(&len) {
            return Err(IdempotencyKeyError::Length(len));
        }
        let printable = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
        if !printable || value.starts_with(' ') || value.ends_with(' ') {
            return Err(IdempotencyKeyError::Character);
        }
        Ok(IdempotencyKey(value))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IdempotencyKey({:?})", self.0)
    }
}

/// A successful write (or probe).
#[derive(Clone, Debug, PartialEq)]
pub struct WriteResponse {
    pub status: u16,
    /// `Value::Null` when the body was empty.
    pub body: Value,
    pub request_id: Option<String>,
    /// The server answered from its idempotency store (`Idempotent-Replayed: true`): nothing
    /// ran now. Verify the effect rather than trusting it (a stale replay).
    pub replayed: bool,
    /// HTTP attempts it took (1 = no retry).
    pub attempts: u32,
}

/// One write as `plan::request::derive` makes it from a planned change: apply sends exactly this.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteRequest {
    pub method: Method,
    /// The route template for statistics, e.g. `/dns/{zone}/records/{record}`.
    pub route: &'static str,
    /// Path segments after the base URL (percent-encoded when the URL is built).
    pub segments: Vec<String>,
    pub body: Option<Value>,
}

impl WriteRequest {
    /// `/dns/example.com/records/5`, for messages and reports.
    pub fn path(&self) -> String {
        format!("/{}", self.segments.join("/"))
    }
}

/// A [`ReadClient`] plus the writes apply needs. Shares the reader's pacer and statistics.
#[derive(Clone, Debug)]
pub struct WriteClient {
    read: ReadClient,
}

impl WriteClient {
    pub fn new(config: ApiConfig) -> Result<WriteClient, ApiError> {
        Ok(WriteClient {
            read: ReadClient::new(config)?,
        })
    }

    pub fn read(&self) -> &ReadClient {
        &self.read
    }

    /// Sends a planned write as it is. The typed methods below are for callers without a plan
    /// (tests, manual repairs); apply sends only what `plan::request::derive` made.
    pub async fn send(
        &self,
        request: &WriteRequest,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let segments: Vec<&str> = request.segments.iter().map(String::as_str).collect();
        self.write(
            request.method.clone(),
            request.route,
            &segments,
            request.body.as_ref(),
            key,
        )
        .await
    }

    pub async fn create_record(
        &self,
        zone: &str,
        record: &payload::RecordWrite,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let segments = ["dns", zone, "records"];
        self.write(
            Method::POST,
            "/dns/{zone}/records",
            &segments,
            Some(record),
            key,
        )
        .await
    }

    pub async fn update_record(
        &self,
        zone: &str,
        id: i64,
        record: &payload::RecordWrite,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let id = id.to_string();
        let segments = ["dns", zone, "records", id.as_str()];
        let route = "/dns/{zone}/records/{record}";
        self.write(Method::PUT, route, &segments, Some(record), key)
            .await
    }

    pub async fn delete_record(
        &self,
        zone: &str,
        id: i64,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let id = id.to_string();
        let segments = ["dns", zone, "records", id.as_str()];
        let route = "/dns/{zone}/records/{record}";
        self.write::<()>(Method::DELETE, route, &segments, None, key)
            .await
    }

    pub async fn create_cron(
        &self,
        slug: &str,
        job: &payload::CronJobWrite,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let segments = ["sites", slug, "cron"];
        self.write(
            Method::POST,
            "/sites/{slug}/cron",
            &segments,
            Some(job),
            key,
        )
        .await
    }

    /// Deletes by the index of the current listing: re-list right before (indexes move).
    pub async fn delete_cron(
        &self,
        slug: &str,
        index: i64,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let index = index.to_string();
        let segments = ["sites", slug, "cron", index.as_str()];
        let route = "/sites/{slug}/cron/{index}";
        self.write::<()>(Method::DELETE, route, &segments, None, key)
            .await
    }

    pub async fn put_nameservers(
        &self,
        domain: &str,
        body: &payload::NameserversWrite,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let segments = ["domains", domain, "nameservers"];
        let route = "/domains/{domain}/nameservers";
        self.write(Method::PUT, route, &segments, Some(body), key)
            .await
    }

    /// `POST /dns/zones/probe`: a dry run that changes nothing, so it is retried like a GET
    /// and needs no key.
    pub async fn probe_zone(&self, domain: &str) -> Result<WriteResponse, ApiError> {
        let body = serde_json::to_vec(&serde_json::json!({ "domain": domain }))
            .map_err(|e| encode_error("/dns/zones/probe", &e))?;
        let reply = self
            .read
            .core
            .send(Call {
                method: Method::POST,
                route: "/dns/zones/probe",
                segments: &["dns", "zones", "probe"],
                query: Vec::new(),
                body: Some(body),
                key: None,
                safety: Safety::Read,
            })
            .await?;
        response(reply, "POST", "/dns/zones/probe")
    }

    async fn write<B: Serialize>(
        &self,
        method: Method,
        route: &'static str,
        segments: &[&str],
        body: Option<&B>,
        key: &IdempotencyKey,
    ) -> Result<WriteResponse, ApiError> {
        let path = format!("/{}", segments.join("/"));
        let body = body
            .map(serde_json::to_vec)
            .transpose()
            .map_err(|e| encode_error(&path, &e))?;
        let method_name = method.as_str().to_string();
        let reply = self
            .read
            .core
            .send(Call {
                method,
                route,
                segments,
                query: Vec::new(),
                body,
                key: Some(key),
                safety: Safety::Write,
            })
            .await?;
        response(reply, &method_name, &path)
    }
}

fn response(reply: Reply, method: &str, path: &str) -> Result<WriteResponse, ApiError> {
    let body = if reply.body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        decode(&reply, method, path)?
    };
    Ok(WriteResponse {
        status: reply.status,
        body,
        request_id: reply.request_id,
        replayed: reply.replayed,
        attempts: reply.attempts,
    })
}

fn encode_error(path: &str, err: &serde_json::Error) -> ApiError {
    ApiError::Client {
        message: format!("cannot encode the body for {path}: {err}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idempotency_keys() {
        assert!(IdempotencyKey::new("plan-1:create:www:A").is_ok());
        assert!(IdempotencyKey::new("x".repeat(200)).is_ok());
        assert!(IdempotencyKey::new("a b").is_ok());
        assert_eq!(
            IdempotencyKey::new("").unwrap_err(),
            IdempotencyKeyError::Length(0)
        );
        assert_eq!(
            IdempotencyKey::new("x".repeat(201)).unwrap_err(),
            IdempotencyKeyError::Length(201)
        );
        for bad in ["a\nb", "tab\there", " lead", "trail ", "ключ"] {
            assert_eq!(
                IdempotencyKey::new(bad).unwrap_err(),
                IdempotencyKeyError::Character,
                "{bad:?}"
            );
        }
    }
}
