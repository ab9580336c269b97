//! The one place requests are sent: pacing, retries, headers, statistics.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock};
use std::time::Duration;

use tokio::time::Instant;

use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, Url};

use super::answer::{
    Named, check_json, cutoff_error, header_str, log_answer, request_id, status_error,
};
use super::config::{ApiConfig, ResponseEvent, ResponseHook, RetryHook, check_url_policy};
use super::error::ApiError;
use super::exchange::{Cutoff, read_body, send_head};
use super::pacer::{Pacer, RateHeaders, WaitTooLong};
use super::payload::headers as h;
use super::retry::{
    self, RetryCause, RetryEvent, RetryPolicy, Safety, rate_headers, retryable_status, server_wait,
};
use super::stats::Stats;
use super::untrusted::escape;
use super::write::IdempotencyKey;

pub const USER_AGENT: &str = concat!("dnscron/", env!("CARGO_PKG_VERSION"));

static DEPRECATION: OnceLock<String> = OnceLock::new();

/// Numbers every logical request of the process, so a retry hook can tell how many distinct
/// requests its retries belong to, whichever client sent them.
static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

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

/// A client for `url`, the process's TLS provider installed: for the controller's webhook.
pub fn http_client_builder(url: &Url) -> reqwest::ClientBuilder {
    install_crypto_provider();
    client_builder(url)
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
    /// The token itself, to keep it out of the `-vv` header log should a server echo it.
    secret: String,
    pacer: Arc<Pacer>,
    pub(super) stats: Stats,
    retry: RetryPolicy,
    timeout: Duration,
    budget: Duration,
    max_body: u64,
    max_wait: Duration,
    /// Rate headers of the latest response (for `doctor`).
    last_rate: Mutex<Option<RateHeaders>>,
    on_retry: Option<RetryHook>,
    on_response: Option<ResponseHook>,
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

impl Target {
    fn named(&self) -> Named<'_> {
        Named {
            method: &self.method,
            path: &self.path,
        }
    }
}

#[derive(Default)]
struct Tally {
    attempts: u32,
    failures: u32,
    rate_limited: u32,
    /// Rate-limit and Retry-After waits (bounded by `max_wait`, not by the retry budget).
    waited: Duration,
}

struct Success {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

enum Failure {
    Cutoff(Cutoff),
    Status(u16, HeaderMap, Vec<u8>),
    /// Not worth another attempt (a login page answers the same every time).
    Final(ApiError),
}

/// Another attempt after `delay`, and why (typed for the hook, in words for the log).
struct Retry {
    delay: Duration,
    cause: RetryCause,
    reason: String,
}

impl Core {
    pub(super) fn new(config: ApiConfig) -> Result<Core, ApiError> {
        check_url_policy(&config.base_url, config.allow_insecure_http)?;
        install_crypto_provider();
        let http = client_builder(&config.base_url)
            .user_agent(USER_AGENT)
            .connect_timeout(config.request_timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ApiError::Client {
                message: error_chain(&e.without_url()),
            })?;
        let stats = Stats::default();
        let auth = config.token.authorization();
        let secret = auth
            .to_str()
            .ok()
            .and_then(|a| a.strip_prefix("Bearer "))
            .unwrap_or_default()
            .to_string();
        Ok(Core {
            http,
            base_url: config.base_url.clone(),
            auth,
            secret,
            pacer: Pacer::with_budget(
                config.max_wait,
                config.on_wait.clone(),
                stats.clone(),
                config.budget,
            ),
            stats,
            retry: config.retry.clone(),
            timeout: config.request_timeout,
            budget: config.retry_budget(),
            max_body: config.max_body,
            max_wait: config.max_wait,
            last_rate: Mutex::new(None),
            on_retry: config.on_retry.clone(),
            on_response: config.on_response.clone(),
        })
    }

    pub(super) fn budget_room(&self) -> Option<u32> {
        self.pacer.budget_room()
    }

    pub(super) fn budget(&self) -> Option<super::Budget> {
        self.pacer.budget()
    }

    pub(super) fn base_url(&self) -> &Url {
        &self.base_url
    }

    pub(super) fn last_rate(&self) -> Option<RateHeaders> {
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

    /// Sends `call`, retrying what the policy and the retry budget allow, until a success or
    /// a final error.
    pub(super) async fn send(&self, call: Call<'_>) -> Result<Reply, ApiError> {
        let target = Target {
            url: self.url(&call),
            method: call.method.as_str().to_string(),
            path: format!("/{}", call.segments.join("/")),
            route: format!("{} {}", call.method, call.route),
        };
        let started = Instant::now();
        let request = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
        let mut tally = Tally::default();
        loop {
            tally.attempts += 1;
            if tally.attempts > 1 {
                self.stats.retry();
            }
            let failure = match self.attempt(&call, &target, &mut tally).await? {
                Ok(success) => return Ok(self.finish(&target, success, tally.attempts)),
                Err(failure) => failure,
            };
            let (error, retry) = self.judge(&call, &target, &mut tally, failure)?;
            let spent = started.elapsed().saturating_sub(tally.waited);
            match retry {
                // Another attempt only if it could still end within the budget.
                Some(retry) if spent + retry.delay + self.timeout <= self.budget => {
                    if let Some(hook) = &self.on_retry {
                        hook(&RetryEvent {
                            request,
                            cause: retry.cause,
                            delay: retry.delay,
                        });
                    }
                    self.back_off(&target, &retry, tally.failures).await;
                }
                _ => return Err(error),
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
        let sent_at = Instant::now();
        let deadline = sent_at + self.timeout;
        let resp = match send_head(self.request(call, target), deadline).await {
            Ok(resp) => resp,
            // Dropping the permit ends its in-flight count; nothing was learned.
            Err(cutoff) => {
                self.answered(call, None);
                return Ok(Err(Failure::Cutoff(cutoff)));
            }
        };
        let status = resp.status().as_u16();
        self.answered(call, Some(status));
        let headers = resp.headers().clone();
        let floor = self.retry.backoff(tally.rate_limited + 1);
        let rate = rate_headers(status, &headers, floor);
        *self.last_rate.lock().unwrap_or_else(|e| e.into_inner()) = Some(rate);
        self.pacer.observe(permit, rate);
        self.note_deprecation(&headers);
        let body = read_body(resp, deadline, self.max_body).await;
        let took = sent_at.elapsed();
        let query = target.url.query();
        log_answer(&target.named(), query, status, &headers, took, &self.secret);
        Ok(match body {
            Err(cutoff) => Err(Failure::Cutoff(cutoff)),
            Ok(body) if (200..300).contains(&status) => {
                match check_json(&target.named(), status, &headers, &body) {
                    Ok(()) => Ok(Success {
                        status,
                        headers,
                        body,
                    }),
                    Err(e) => Err(Failure::Final(e)),
                }
            }
            Ok(body) => Err(Failure::Status(status, headers, body)),
        })
    }

    fn answered(&self, call: &Call<'_>, status: Option<u16>) {
        if let Some(hook) = &self.on_response {
            hook(&ResponseEvent {
                method: call.method.as_str().to_string(),
                route: call.route,
                status,
            });
        }
    }

    fn request(&self, call: &Call<'_>, target: &Target) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .request(call.method.clone(), target.url.clone())
            .header(header::AUTHORIZATION, self.auth.clone())
            .header(header::ACCEPT, "application/json");
        if call.method == Method::GET {
            // A caching proxy must not answer a re-read (verification) from before a write.
            req = req.header(header::CACHE_CONTROL, "no-cache");
        }
        if let Some(key) = call.key {
            req = req.header(h::IDEMPOTENCY_KEY, key.as_str());
        }
        if let Some(body) = &call.body {
            req = req
                .header(header::CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        req
    }

    /// The error to report if no attempt follows, and the retry the policy allows, if any.
    /// `Err` is final at once (a Retry-After past `--max-wait`).
    fn judge(
        &self,
        call: &Call<'_>,
        target: &Target,
        tally: &mut Tally,
        failure: Failure,
    ) -> Result<(ApiError, Option<Retry>), ApiError> {
        let named = target.named();
        Ok(match failure {
            Failure::Final(error) => (error, None),
            Failure::Status(429, headers, body) => {
                self.stats.rate_limited();
                tally.rate_limited += 1;
                let error = status_error(&named, 429, &headers, &body, tally.attempts);
                if tally.rate_limited > self.retry.max_rate_limited {
                    return Ok((error, None));
                }
                // The pacer already blocks every request until the Retry-After.
                tracing::info!(
                    target: retry::LOG_TARGET,
                    "{} {}: rate limited (429); retrying after Retry-After",
                    target.method,
                    target.path
                );
                let retry = Retry {
                    delay: Duration::ZERO,
                    cause: RetryCause::Status(429),
                    reason: "HTTP 429".into(),
                };
                (error, Some(retry))
            }
            Failure::Status(status, headers, body) => {
                let error = status_error(&named, status, &headers, &body, tally.attempts);
                if !retryable_status(call.safety, status) {
                    return Ok((error, None));
                }
                let retry = match (
                    self.again(tally, RetryCause::Status(status), format!("HTTP {status}")),
                    server_wait(status, &headers),
                ) {
                    (Some(retry), Some(wait)) => {
                        Some(self.server_wait(target, tally, retry, wait)?)
                    }
                    (retry, _) => retry,
                };
                (error, retry)
            }
            Failure::Cutoff(cutoff) => {
                let cause = match &cutoff {
                    Cutoff::Transport(e) => RetryCause::of_transport(e),
                    Cutoff::Deadline { .. } => RetryCause::Timeout,
                    Cutoff::Cut { .. } | Cutoff::TooLarge { .. } => RetryCause::Dropped,
                };
                let (error, reason) =
                    cutoff_error(&named, cutoff, tally.attempts, self.timeout, self.max_body);
                let retry = match error {
                    ApiError::TooLarge { .. } => None,
                    ApiError::Status { .. }
                    | ApiError::Transport { .. }
                    | ApiError::NoAnswer { .. }
                    | ApiError::Cut { .. }
                    | ApiError::NotJson { .. }
                    | ApiError::Redirect { .. }
                    | ApiError::NoEndpoint { .. }
                    | ApiError::Decode { .. }
                    | ApiError::WaitExceeded { .. }
                    | ApiError::InsecureUrl { .. }
                    | ApiError::InvalidUrl { .. }
                    | ApiError::UrlWithCredentials
                    | ApiError::Pagination { .. }
                    | ApiError::Client { .. } => self.again(tally, cause, reason),
                };
                (error, retry)
            }
        })
    }

    /// Counts a failure; a retry after the backoff while attempts remain.
    fn again(&self, tally: &mut Tally, cause: RetryCause, reason: String) -> Option<Retry> {
        tally.failures += 1;
        (tally.failures < self.retry.max_attempts).then(|| Retry {
            delay: self.retry.backoff(tally.failures),
            cause,
            reason,
        })
    }

    /// Obeys a 503's Retry-After like a 429's: within `--max-wait`, and never sooner than
    /// the backoff (`Retry-After: 0` from an overloaded server still gets a pause).
    fn server_wait(
        &self,
        target: &Target,
        tally: &mut Tally,
        retry: Retry,
        wait: Duration,
    ) -> Result<Retry, ApiError> {
        if tally.waited.saturating_add(wait) > self.max_wait {
            return Err(ApiError::WaitExceeded {
                method: target.method.clone(),
                path: target.path.clone(),
                source: WaitTooLong {
                    needed: wait,
                    waited: tally.waited,
                    max_wait: self.max_wait,
                },
            });
        }
        let delay = retry.delay.max(wait);
        tally.waited += delay;
        Ok(Retry {
            delay,
            cause: retry.cause,
            reason: format!("{} with Retry-After {}", retry.reason, wait.as_secs_f64()),
        })
    }

    fn finish(&self, target: &Target, success: Success, attempts: u32) -> Reply {
        let headers = &success.headers;
        let replayed = header_str(headers, h::IDEMPOTENT_REPLAYED)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let request_id = request_id(headers);
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

    async fn back_off(&self, target: &Target, retry: &Retry, failures: u32) {
        if retry.delay.is_zero() {
            return;
        }
        tracing::warn!(
            target: retry::LOG_TARGET,
            "{} {}: {}; retrying in {}ms (attempt {} of {})",
            target.method,
            target.path,
            retry.reason,
            retry.delay.as_millis(),
            failures + 1,
            self.retry.max_attempts
        );
        tokio::time::sleep(retry.delay).await;
    }

    fn note_deprecation(&self, headers: &HeaderMap) {
        if let Some(value) = header_str(headers, h::DEPRECATION)
            && DEPRECATION.set(value.to_string()).is_ok()
        {
            tracing::warn!(
                "the API announced that this version is deprecated (Deprecation: {}); \
                 check the API changelog for the sunset date and upgrade dnscron",
                escape(value)
            );
        }
    }
}

/// An error and its causes on one line (reqwest's Display alone hides the cause).
pub fn error_chain(err: &dyn std::error::Error) -> String {
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
