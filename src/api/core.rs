//! The one place requests are sent: pacing, retries, headers, statistics.

use std::sync::{Arc, Mutex, Once, OnceLock};
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
const MAX_RETRY_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

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

/// A plain-http base URL (loopback, or `--allow-insecure-http`) never leads to a TLS connection
/// (redirects are not followed), so its client gets an empty root store instead of the system's
/// CA bundle: `demo` then runs where there is none (an empty root, a `FROM scratch` image).
fn client_builder(base_url: &Url) -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    if base_url.scheme() == "http" {
        builder.tls_certs_only(std::iter::empty())
    } else {
        builder
    }
}

pub(super) struct Core {
    http: reqwest::Client,
    base_url: Url,
    auth: HeaderValue,
    pacer: Arc<Pacer>,
    pub(super) stats: Stats,
    retry: RetryPolicy,
    /// Rate headers of the latest response (for `doctor`).
    last_rate: Mutex<Option<RateHeaders>>,
}

/// One logical request (retries included).
pub(super) struct Call<'a> {
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

pub(super) struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
    pub request_id: Option<String>,
    pub replayed: bool,
    pub attempts: u32,
}

/// What a call is sent to, in the forms errors, logs and statistics use (never the full URL).
struct Target {
    url: Url,
    method: String,
    path: String,
    route: String,
}

#[derive(Default)]
struct Tally {
    attempts: u32,
    failures: u32,
    rate_limited: u32,
    waited: Duration,
}

struct Success {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

enum Failure {
    Transport(reqwest::Error),
    Status(u16, HeaderMap, Vec<u8>),
}

impl Core {
    pub fn new(config: ApiConfig) -> Result<Core, ApiError> {
        check_url_policy(&config.base_url, config.allow_insecure_http)?;
        install_crypto_provider();
        let http = client_builder(&config.base_url)
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
            last_rate: Mutex::new(None),
        })
    }

    pub fn base_url(&self) -> &Url {
        &self.base_url
    }

    pub fn last_rate(&self) -> Option<RateHeaders> {
        *self.last_rate.lock().unwrap_or_else(|e| e.into_inner())
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

    /// Sends `call`, retrying what the policy allows, until a success or a final error.
    pub async fn send(&self, call: Call<'_>) -> Result<Reply, ApiError> {
        let target = Target {
            url: self.url(&call),
            method: call.method.as_str().to_string(),
            path: format!("/{}", call.segments.join("/")),
            route: format!("{} {}", call.method, call.route),
        };
        let mut tally = Tally::default();
        loop {
            tally.attempts += 1;
            if tally.attempts > 1 {
                self.stats.retry();
            }
            match self.attempt(&call, &target, &mut tally).await? {
                Ok(success) => return Ok(self.finish(&target, success, tally.attempts)),
                Err(failure) => {
                    self.after_failure(&call, &target, &mut tally, failure)
                        .await?
                }
            }
        }
    }

    /// One HTTP exchange. The outer error is final (the rate-limit wait was refused); the
    /// inner one may be retried.
    async fn attempt(
        &self,
        call: &Call<'_>,
        target: &Target,
        tally: &mut Tally,
    ) -> Result<Result<Success, Failure>, ApiError> {
        let permit = self
            .pacer
            .acquire(&mut tally.waited)
            .await
            .map_err(|source| ApiError::WaitExceeded {
                method: target.method.clone(),
                path: target.path.clone(),
                source,
            })?;
        self.stats.request(&target.route);
        let mut req = self
            .http
            .request(call.method.clone(), target.url.clone())
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
        let resp = match req.send().await {
            Ok(resp) => resp,
            // Dropping the permit ends its in-flight count; nothing was learned.
            Err(e) => return Ok(Err(Failure::Transport(e))),
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let rate = rate_headers(status, &headers);
        *self.last_rate.lock().unwrap_or_else(|e| e.into_inner()) = Some(rate);
        self.pacer.observe(permit, rate);
        self.note_deprecation(&headers);
        Ok(match resp.bytes().await {
            Err(e) => Err(Failure::Transport(e)),
            Ok(body) if (200..300).contains(&status) => Ok(Success {
                status,
                headers,
                body: body.to_vec(),
            }),
            Ok(body) => Err(Failure::Status(status, headers, body.to_vec())),
        })
    }

    /// Returns `Ok` when the call should be attempted again (after backing off when needed).
    async fn after_failure(
        &self,
        call: &Call<'_>,
        target: &Target,
        tally: &mut Tally,
        failure: Failure,
    ) -> Result<(), ApiError> {
        let (method, path) = (&target.method, &target.path);
        match failure {
            Failure::Status(429, headers, body) => {
                self.stats.rate_limited();
                tally.rate_limited += 1;
                if tally.rate_limited > self.retry.max_rate_limited {
                    return Err(status_error(target, 429, &headers, &body, tally.attempts));
                }
                // The pacer already blocks every request until the Retry-After.
                tracing::info!("{method} {path}: rate limited (429); retrying after Retry-After");
                Ok(())
            }
            Failure::Status(status, headers, body) => {
                tally.failures += 1;
                if retryable_status(call.safety, status) && tally.failures < self.retry.max_attempts
                {
                    self.back_off(target, &format!("HTTP {status}"), tally.failures)
                        .await;
                    return Ok(());
                }
                Err(status_error(
                    target,
                    status,
                    &headers,
                    &body,
                    tally.attempts,
                ))
            }
            Failure::Transport(e) => {
                tally.failures += 1;
                let timeout = e.is_timeout();
                let message = error_chain(&e.without_url());
                if tally.failures < self.retry.max_attempts {
                    self.back_off(target, &message, tally.failures).await;
                    return Ok(());
                }
                Err(ApiError::Transport {
                    method: method.clone(),
                    path: path.clone(),
                    message,
                    timeout,
                    attempts: tally.attempts,
                })
            }
        }
    }

    fn finish(&self, target: &Target, success: Success, attempts: u32) -> Reply {
        let headers = &success.headers;
        let replayed = header_str(headers, h::IDEMPOTENT_REPLAYED)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let request_id = header_str(headers, h::REQUEST_ID).map(str::to_string);
        if replayed {
            self.stats.replay();
            tracing::info!(
                "{} {}: the server replayed its stored response (Idempotent-Replayed: true{})",
                target.method,
                target.path,
                request_id
                    .as_deref()
                    .map(|r| format!(", request_id {r}"))
                    .unwrap_or_default()
            );
        }
        Reply {
            status: success.status,
            body: success.body,
            request_id,
            replayed,
            attempts,
        }
    }

    async fn back_off(&self, target: &Target, reason: &str, failures: u32) {
        let delay = self.retry.backoff(failures);
        tracing::warn!(
            "{} {}: {reason}; retrying in {}ms (attempt {} of {})",
            target.method,
            target.path,
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
    let wait = if let Ok(secs) = value.parse::<f64>() {
        Duration::try_from_secs_f64(secs).ok()?
    } else {
        let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
        let delta = date.signed_duration_since(chrono::Utc::now());
        delta.to_std().unwrap_or(Duration::ZERO)
    };
    // Anything longer is past every sensible --max-wait; capping keeps Instant math safe.
    Some(wait.min(MAX_RETRY_AFTER))
}

fn status_error(
    target: &Target,
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
        method: target.method.clone(),
        path: target.path.clone(),
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
        assert_eq!(parse_retry_after("1e300"), None);
        assert_eq!(parse_retry_after("1e9"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("soon"), None);
    }
}
