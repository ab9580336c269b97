//! The one place requests are sent: pacing, retries, headers, statistics.

use std::sync::{Arc, Once, OnceLock};
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, Url};

use super::config::{ApiConfig, check_url_policy};
use super::error::ApiError;
use super::pacer::{Pacer, RateHeaders};
use super::retry::{RetryPolicy, Safety, retryable_status};
use super::stats::Stats;
use super::wire::{ErrorEnvelope, headers as h};
use super::write::IdempotencyKey;

pub const USER_AGENT: &str = concat!("dnscron/", env!("CARGO_PKG_VERSION"));

/// Retry-After assumed for a 429 that doesn't say.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(1);

static DEPRECATION: OnceLock<String> = OnceLock::new();

/// The first Deprecation header value this process saw, if any (warned once when seen).
pub fn deprecation_notice() -> Option<&'static str> {
    DEPRECATION.get().map(String::as_str)
}

fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Fails only when a provider is already installed, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

pub(crate) struct Core {
    http: reqwest::Client,
    base_url: Url,
    auth: HeaderValue,
    pacer: Arc<Pacer>,
    pub(crate) stats: Stats,
    retry: RetryPolicy,
}

/// One logical request (retries included).
pub(crate) struct Call<'a> {
    pub method: Method,
    /// Path template for statistics and logs, e.g. `/dns/{zone}/records`.
    pub route: &'static str,
    /// Path segments after the base URL, percent-encoded when the URL is built.
    pub segments: &'a [&'a str],
    pub query: Vec<(&'static str, String)>,
    pub body: Option<Vec<u8>>,
    pub key: Option<&'a IdempotencyKey>,
    pub safety: Safety,
}

pub(crate) struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
    pub request_id: Option<String>,
    pub replayed: bool,
    pub attempts: u32,
}

enum Failure {
    Transport(reqwest::Error),
    Status(u16, HeaderMap, Vec<u8>),
}

impl Core {
    pub fn new(config: ApiConfig) -> Result<Core, ApiError> {
        check_url_policy(&config.base_url, config.allow_insecure_http)?;
        install_crypto_provider();
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(config.request_timeout)
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ApiError::Client {
                message: error_chain(&e.without_url()),
            })?;
        let stats = Stats::default();
        Ok(Core {
            http,
            base_url: config.base_url,
            auth: config.token.authorization(),
            pacer: Pacer::new(config.max_wait, config.on_wait, stats.clone()),
            stats,
            retry: config.retry,
        })
    }

    pub fn base_url(&self) -> &Url {
        &self.base_url
    }

    fn url(&self, call: &Call<'_>) -> Url {
        let mut url = self.base_url.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(call.segments);
        }
        if !call.query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (k, v) in &call.query {
                pairs.append_pair(k, v);
            }
        }
        url
    }

    pub async fn send(&self, call: Call<'_>) -> Result<Reply, ApiError> {
        let url = self.url(&call);
        let method = call.method.as_str().to_string();
        let path = format!("/{}", call.segments.join("/"));
        let route = format!("{} {}", call.method, call.route);
        let mut attempts = 0u32;
        let mut failures = 0u32;
        let mut rate_limited = 0u32;
        let mut waited = Duration::ZERO;
        loop {
            attempts += 1;
            if attempts > 1 {
                self.stats.retry();
            }
            let permit =
                self.pacer
                    .acquire(&mut waited)
                    .await
                    .map_err(|source| ApiError::WaitExceeded {
                        method: method.clone(),
                        path: path.clone(),
                        source,
                    })?;
            self.stats.request(&route);
            let mut req = self
                .http
                .request(call.method.clone(), url.clone())
                .header(header::AUTHORIZATION, self.auth.clone())
                .header(header::ACCEPT, "application/json");
            if let Some(key) = call.key {
                req = req.header(h::IDEMPOTENCY_KEY, key.as_str());
            }
            if let Some(body) = &call.body {
                req = req
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(body.clone());
            }
            let outcome = match req.send().await {
                Err(e) => {
                    drop(permit);
                    Err(Failure::Transport(e))
                }
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let headers = resp.headers().clone();
                    self.pacer.observe(permit, rate_headers(status, &headers));
                    self.note_deprecation(&headers);
                    match resp.bytes().await {
                        Err(e) => Err(Failure::Transport(e)),
                        Ok(body) if (200..300).contains(&status) => {
                            Ok((status, headers, body.to_vec()))
                        }
                        Ok(body) => Err(Failure::Status(status, headers, body.to_vec())),
                    }
                }
            };
            let (status, headers, body) = match outcome {
                Ok(ok) => ok,
                Err(Failure::Status(429, headers, body)) => {
                    self.stats.rate_limited();
                    rate_limited += 1;
                    if rate_limited > self.retry.max_rate_limited {
                        return Err(status_error(&method, &path, 429, &headers, &body, attempts));
                    }
                    tracing::info!(
                        "{method} {path}: rate limited (429); retrying after Retry-After"
                    );
                    continue;
                }
                Err(Failure::Status(status, headers, body)) => {
                    failures += 1;
                    if retryable_status(call.safety, status) && failures < self.retry.max_attempts {
                        self.back_off(&method, &path, &format!("HTTP {status}"), failures)
                            .await;
                        continue;
                    }
                    return Err(status_error(
                        &method, &path, status, &headers, &body, attempts,
                    ));
                }
                Err(Failure::Transport(e)) => {
                    failures += 1;
                    let timeout = e.is_timeout();
                    let message = error_chain(&e.without_url());
                    if failures < self.retry.max_attempts {
                        self.back_off(&method, &path, &message, failures).await;
                        continue;
                    }
                    return Err(ApiError::Transport {
                        method,
                        path,
                        timeout,
                        message,
                        attempts,
                    });
                }
            };
            let replayed = header_str(&headers, h::IDEMPOTENT_REPLAYED)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            let request_id = header_str(&headers, h::REQUEST_ID).map(str::to_string);
            if replayed {
                self.stats.replay();
                tracing::info!(
                    "{method} {path}: the server replayed its stored response (Idempotent-Replayed: true{})",
                    request_id
                        .as_deref()
                        .map(|r| format!(", request_id {r}"))
                        .unwrap_or_default()
                );
            }
            return Ok(Reply {
                status,
                body,
                request_id,
                replayed,
                attempts,
            });
        }
    }

    async fn back_off(&self, method: &str, path: &str, reason: &str, failures: u32) {
        let delay = self.retry.backoff(failures);
        tracing::warn!(
            "{method} {path}: {reason}; retrying in {}ms (attempt {} of {})",
            delay.as_millis(),
            failures + 1,
            self.retry.max_attempts
        );
        tokio::time::sleep(delay).await;
    }

    fn note_deprecation(&self, headers: &HeaderMap) {
        if let Some(value) = header_str(headers, h::DEPRECATION)
            && DEPRECATION.set(value.to_string()).is_ok()
        {
            tracing::warn!(
                "the API announced that this version is deprecated (Deprecation: {value}); \
                 check the API changelog for the sunset date and upgrade dnscron"
            );
        }
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

fn rate_headers(status: u16, headers: &HeaderMap) -> RateHeaders {
    let number = |name| header_str(headers, name).and_then(|v| v.parse::<u64>().ok());
    let retry_after = (status == 429).then(|| {
        header_str(headers, h::RETRY_AFTER)
            .and_then(parse_retry_after)
            .unwrap_or(DEFAULT_RETRY_AFTER)
    });
    RateHeaders {
        limit: number(h::RATE_LIMIT),
        remaining: number(h::RATE_REMAINING),
        retry_after,
    }
}

/// Seconds (possibly fractional) or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let delta = date.signed_duration_since(chrono::Utc::now());
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

fn status_error(
    method: &str,
    path: &str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    attempts: u32,
) -> ApiError {
    let envelope = serde_json::from_slice::<ErrorEnvelope>(body)
        .ok()
        .map(Box::new);
    let body_excerpt = envelope.is_none().then(|| {
        let text = String::from_utf8_lossy(body);
        text.chars()
            .take(200)
            .collect::<String>()
            .trim()
            .to_string()
    });
    ApiError::Status {
        method: method.to_string(),
        path: path.to_string(),
        status,
        envelope,
        request_id: header_str(headers, h::REQUEST_ID).map(str::to_string),
        body_excerpt,
        attempts,
    }
}

/// An error and its causes on one line (reqwest's Display alone hides the cause).
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("12"), Some(Duration::from_secs(12)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("-3"), None);
        assert_eq!(parse_retry_after("soon"), None);
    }
}
