//! The middleware every request goes through, in this order: request id, counters, latency,
//! authentication, rate limit (forced bursts, then the user's bucket), for writes the test's
//! write gate (`EmulatorHandle::hold_writes`), idempotency, injected
//! 502, the handler, idempotent storage, commit-then-drop; finally every error is rendered as
//! the uniform envelope and the X-Request-Id / X-RateLimit-* headers are added.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::json_body::{ErrorBody, ErrorEnvelope, headers as h};

use super::auth::{Principal, authenticate};
use super::error::ApiError;
use super::idempotency::{BodyKey, Fingerprint, Lookup, StoredResponse, check_key};
use super::ratelimit::Take;
use super::server::{DropConnection, PeerAddr};
use super::shared::{Shared, lock};

const BODY_LIMIT: usize = 1024 * 1024;
const API_PREFIX: &str = "/api/v1";
/// How long a duplicate waits for the first request with its key before giving up.
const IN_FLIGHT_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Rate-limit header values for the response.
struct RateHeaders {
    limit: u32,
    remaining: u32,
}

pub(crate) async fn pipeline(
    State(shared): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    let request_id = shared.next_request_id();
    let path = req.uri().path().to_string();
    let (response, rate) = if path.starts_with("/_admin") {
        (admin_gate(req, next).await, None)
    } else if path == API_PREFIX || path.starts_with("/api/v1/") {
        let (response, rate) = api(&shared, req, next).await;
        (response, Some(rate))
    } else {
        (next.run(req).await, None)
    };
    let counted = rate.is_some();
    let response = finalize(response, &request_id, rate).await;
    if counted {
        let mut counters = lock(&shared.counters);
        *counters
            .per_status
            .entry(response.status().as_u16())
            .or_default() += 1;
    }
    response
}

async fn admin_gate(req: Request, next: Next) -> Response {
    let loopback = req
        .extensions()
        .get::<PeerAddr>()
        .is_some_and(|p| p.0.ip().is_loopback());
    if loopback {
        next.run(req).await
    } else {
        ApiError::forbidden("the admin endpoint answers loopback clients only").into_response()
    }
}

async fn api(shared: &Shared, req: Request, next: Next) -> (Response, RateHeaders) {
    let settings = shared.settings();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string());
    let method = req.method().clone();
    count_request(shared, &method, route.as_deref());
    if settings.faults.latency_ms > 0 {
        lock(&shared.counters).faults.delayed += 1;
        // Tests wait for "a request is being held" (`wait_for_counters`).
        shared.counted.send_replace(());
        tokio::time::sleep(std::time::Duration::from_millis(settings.faults.latency_ms)).await;
    }
    let mut rate = RateHeaders {
        limit: settings.rate_limit.per_minute,
        remaining: lock(&shared.buckets).peek(None, &settings.rate_limit),
    };
    if lock(&shared.faults).outage {
        lock(&shared.counters).faults.outage += 1;
        return (ApiError::unavailable().into_response(), rate);
    }
    // Unknown paths answer 404 (and wrong methods 405) before authentication.
    let Some(route) = route else {
        return (next.run(req).await, rate);
    };
    let principal = match authenticate(shared, req.headers()) {
        Ok(p) => p,
        Err(e) => return (e.into_response(), rate),
    };
    if let Err(e) = rate_limit(shared, &principal, &mut rate) {
        return (e.into_response(), rate);
    }
    let write = is_write(&method, &route);
    let response = if write {
        guarded_write(shared, principal, req, next).await
    } else {
        let mut req = req;
        req.extensions_mut().insert(principal);
        next.run(req).await
    };
    (response, rate)
}

fn count_request(shared: &Shared, method: &Method, route: Option<&str>) {
    let key = match route {
        Some(r) => format!("{method} {r}"),
        None => "unmatched".to_string(),
    };
    {
        let mut counters = lock(&shared.counters);
        counters.requests += 1;
        *counters.per_route.entry(key).or_default() += 1;
    }
    shared.counted.send_replace(());
}

fn rate_limit(
    shared: &Shared,
    principal: &Principal,
    rate: &mut RateHeaders,
) -> Result<(), ApiError> {
    let settings = shared.settings();
    let forced = lock(&shared.faults).forced_429(&settings.faults);
    if let Some(retry_after) = forced {
        let mut counters = lock(&shared.counters);
        counters.faults.forced_429 += 1;
        counters.rate_limited += 1;
        rate.remaining = 0;
        return Err(ApiError::rate_limited(retry_after));
    }
    if !settings.rate_limit.enabled {
        return Ok(());
    }
    // tokio's clock, so a test with paused time refills the bucket in virtual time.
    let now = tokio::time::Instant::now().into_std();
    let take = lock(&shared.buckets).take(&principal.user, &settings.rate_limit, now);
    match take {
        Take::Allowed { remaining } => {
            rate.remaining = remaining;
            Ok(())
        }
        Take::Limited { retry_after } => {
            rate.remaining = 0;
            lock(&shared.counters).rate_limited += 1;
            Err(ApiError::rate_limited(retry_after))
        }
    }
}

/// The write endpoints: they accept Idempotency-Key and are subject to injected write faults.
fn is_write(method: &Method, route: &str) -> bool {
    matches!(
        (method.as_str(), route),
        ("POST", "/api/v1/sites/{slug}/cron")
            | ("DELETE", "/api/v1/sites/{slug}/cron/{index}")
            | ("POST", "/api/v1/dns/{zone}/records")
            | ("PUT", "/api/v1/dns/{zone}/records/{record}")
            | ("DELETE", "/api/v1/dns/{zone}/records/{record}")
            | ("PUT", "/api/v1/domains/{domain}/nameservers")
    )
}

async fn guarded_write(
    shared: &Shared,
    principal: Principal,
    req: Request,
    next: Next,
) -> Response {
    shared.write_gate.pass().await;
    let key = match idempotency_key(req.headers()) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    let (parts, body) = req.into_parts();
    let bytes = match to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => return ApiError::invalid("body", "is larger than 1 MiB").into_response(),
    };
    let fingerprint = Fingerprint {
        method: parts.method.clone(),
        path: parts.uri.path().to_string(),
        body: BodyKey::of(&bytes),
    };
    let token = principal.token.clone();
    if let Some(key) = &key
        && let Some(answer) = claim_key(shared, &token, key, &fingerprint).await
    {
        return answer;
    }
    let faults = shared.settings().faults;
    if lock(&shared.faults).upstream_error(&faults) {
        lock(&shared.counters).faults.upstream_errors += 1;
        if let Some(key) = &key {
            lock(&shared.idempotency).abandon(&token, key);
        }
        return ApiError::upstream().into_response();
    }
    let mut req = Request::from_parts(parts, Body::from(bytes));
    req.extensions_mut().insert(principal);
    let response = next.run(req).await;
    let mut response = match &key {
        Some(key) => remember(shared, &token, key, fingerprint, response).await,
        None => response,
    };
    if response.status().is_success() && lock(&shared.faults).drop_after_commit(&faults) {
        lock(&shared.counters).faults.dropped_after_commit += 1;
        response.extensions_mut().insert(DropConnection);
    }
    response
}

/// Claims the key for this request, or answers for it: a replay, a conflict, or (after the
/// first request with this key ended) whatever that one left behind.
async fn claim_key(shared: &Shared, token: &str, key: &str, fp: &Fingerprint) -> Option<Response> {
    // A duplicate sent while the first is still running waits for it, then replays its answer.
    let deadline = Instant::now() + IN_FLIGHT_WAIT;
    loop {
        let lookup = lock(&shared.idempotency).begin(token, key, fp, Instant::now());
        match lookup {
            Lookup::Run => return None,
            Lookup::Replay(stored) => {
                lock(&shared.counters).replays += 1;
                return Some(replay(stored));
            }
            Lookup::Conflict(message) => {
                lock(&shared.counters).idempotency_conflicts += 1;
                return Some(ApiError::idempotency_conflict(message).into_response());
            }
            Lookup::Wait if Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            Lookup::Wait => {
                return Some(
                    ApiError::idempotency_conflict(
                        "a request with this Idempotency-Key is still running; retry later",
                    )
                    .into_response(),
                );
            }
        }
    }
}

fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(h::IDEMPOTENCY_KEY) else {
        return Ok(None);
    };
    let key = value.to_str().map_err(|_| {
        ApiError::invalid("Idempotency-Key", "must contain printable characters only")
    })?;
    match check_key(key) {
        None => Ok(Some(key.to_string())),
        Some(message) => Err(ApiError::invalid("Idempotency-Key", message)),
    }
}

/// Stores a successful response under the key (and forgets the key otherwise).
async fn remember(
    shared: &Shared,
    token: &str,
    key: &str,
    fp: Fingerprint,
    response: Response,
) -> Response {
    if !response.status().is_success() || response.extensions().get::<ApiError>().is_some() {
        lock(&shared.idempotency).abandon(token, key);
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = to_bytes(body, BODY_LIMIT).await.unwrap_or_default();
    let stored = StoredResponse {
        status: parts.status,
        content_type: parts.headers.get(header::CONTENT_TYPE).cloned(),
        body: bytes.clone(),
    };
    lock(&shared.idempotency).finish(token, key, fp, stored, Instant::now());
    Response::from_parts(parts, Body::from(bytes))
}

fn replay(stored: StoredResponse) -> Response {
    let mut response = (stored.status, stored.body).into_response();
    if let Some(ct) = stored.content_type {
        response.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    response
        .headers_mut()
        .insert(h::IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    response
}

/// Renders errors as the envelope and adds the headers every response carries.
async fn finalize(response: Response, request_id: &str, rate: Option<RateHeaders>) -> Response {
    let mut response = render_error(response, request_id).await;
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(request_id) {
        headers.insert(h::REQUEST_ID, v);
    }
    if let Some(rate) = rate {
        headers.insert(h::RATE_LIMIT, HeaderValue::from(rate.limit));
        headers.insert(h::RATE_REMAINING, HeaderValue::from(rate.remaining));
    }
    response
}

async fn render_error(response: Response, request_id: &str) -> Response {
    let status = response.status();
    let error = match response.extensions().get::<ApiError>() {
        Some(e) => e.clone(),
        None if status.is_client_error() || status.is_server_error() => {
            // Something other than a handler answered (an extractor rejection, a fallback):
            // keep its text as the message, in the same envelope.
            let (_, body) = response.into_parts();
            let text = to_bytes(body, BODY_LIMIT)
                .await
                .unwrap_or_else(|_| Bytes::new());
            let message = String::from_utf8_lossy(&text).trim().to_string();
            let message = if message.is_empty() {
                status.canonical_reason().unwrap_or("error").to_string()
            } else {
                message
            };
            ApiError::from_status(status, message)
        }
        None => return response,
    };
    envelope(&error, request_id)
}

fn envelope(error: &ApiError, request_id: &str) -> Response {
    let body = ErrorEnvelope {
        error: ErrorBody {
            kind: error.kind,
            message: &error.message,
            details: error.details.as_ref(),
            request_id,
            continue_url: error.continue_url.as_deref(),
        },
    };
    let mut response = (error.status, axum::Json(body)).into_response();
    if let Some(secs) = error.retry_after {
        response
            .headers_mut()
            .insert(h::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}
