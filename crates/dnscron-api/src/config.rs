//! Client configuration and the base-URL policy.

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;

use super::budget::Budget;
use super::error::ApiError;
use super::pacer::WaitEvent;
use super::retry::{RetryEvent, RetryPolicy};
use super::token::Token;

/// Default bound on the total rate-limit wait of one request (`--max-wait`).
pub(crate) const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(600);

/// Default deadline of one attempt, connect to last body byte (`--timeout`).
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default cap on one response body: a 100-row page is under 300 KB.
pub(super) const DEFAULT_MAX_BODY: u64 = 4 * 1024 * 1024;
/// A request retries only while another attempt could still end within this many timeouts
/// of its start (rate-limit waits aside): 2 minutes with the default 30 s.
pub(super) const BUDGET_TIMEOUTS: u32 = 4;

/// Called for every rate-limit wait, before it starts (for progress bars with an ETA).
pub type WaitHook = Arc<dyn Fn(&WaitEvent) + Send + Sync>;

/// Called for every response (and every attempt that got none): a long-running front end
/// counts them by route and status (the controller's metrics).
pub type ResponseHook = Arc<dyn Fn(&ResponseEvent) + Send + Sync>;

/// One attempt's answer, as a metric counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseEvent {
    pub method: String,
    /// The path template, e.g. `/dns/{zone}/records`.
    pub route: &'static str,
    /// `None`: no response (timeout, connection refused or reset).
    pub status: Option<u16>,
}

/// Called for every retry, before its pause: the caller sums them up (the log has a line each
/// only at debug level).
pub type RetryHook = Arc<dyn Fn(&RetryEvent) + Send + Sync>;

#[derive(Clone)]
pub struct ApiConfig {
    /// Includes the version prefix, e.g. `https://api.example.net/api/v1`.
    pub base_url: Url,
    pub token: Token,
    /// Allow plain http:// to hosts other than loopback.
    pub allow_insecure_http: bool,
    /// A request that would have to wait longer than this in total for the rate limit fails.
    pub max_wait: Duration,
    /// Per attempt, connect to last body byte, however the server paces its bytes.
    pub request_timeout: Duration,
    /// Failed attempts and backoffs of one request stop once another attempt could not end
    /// within this long of the request's start (rate-limit waits excluded: `max_wait` bounds
    /// those). `None`: `BUDGET_TIMEOUTS` × `request_timeout`.
    pub give_up_after: Option<Duration>,
    /// Largest response body read; a larger one is refused (by Content-Length) or cut off.
    pub max_body: u64,
    pub retry: RetryPolicy,
    pub on_wait: Option<WaitHook>,
    pub on_retry: Option<RetryHook>,
    pub on_response: Option<ResponseHook>,
    /// At most this many requests in any rolling minute (a long-running client's share of the
    /// user's bucket); `None`: only the server's limit paces.
    pub budget: Option<Budget>,
}

impl ApiConfig {
    /// A configuration with the defaults; the URL must parse (the policy is checked when the
    /// client is built, see [`check_url_policy`]).
    pub fn new(base_url: &str, token: Token) -> Result<ApiConfig, ApiError> {
        let base_url = parse_base_url(base_url)?;
        Ok(ApiConfig {
            base_url,
            token,
            allow_insecure_http: false,
            max_wait: DEFAULT_MAX_WAIT,
            request_timeout: DEFAULT_TIMEOUT,
            give_up_after: None,
            max_body: DEFAULT_MAX_BODY,
            retry: RetryPolicy::default(),
            on_wait: None,
            on_retry: None,
            on_response: None,
            budget: None,
        })
    }
}

impl ApiConfig {
    /// How long a request may keep retrying (see `give_up_after`).
    pub fn retry_budget(&self) -> Duration {
        self.give_up_after
            .unwrap_or_else(|| self.request_timeout.saturating_mul(BUDGET_TIMEOUTS))
    }
}

impl fmt::Debug for ApiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiConfig")
            .field("base_url", &self.base_url.as_str())
            .field("token", &self.token)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("max_wait", &self.max_wait)
            .field("request_timeout", &self.request_timeout)
            .field("give_up_after", &self.give_up_after)
            .field("max_body", &self.max_body)
            .field("retry", &self.retry)
            .field("on_wait", &self.on_wait.as_ref().map(|_| "hook"))
            .field("on_retry", &self.on_retry.as_ref().map(|_| "hook"))
            .field("on_response", &self.on_response.as_ref().map(|_| "hook"))
            .field("budget", &self.budget)
            .finish()
    }
}

pub fn parse_base_url(input: &str) -> Result<Url, ApiError> {
    let invalid = |reason: &str| ApiError::InvalidUrl {
        url: input.to_string(),
        reason: reason.to_string(),
    };
    let url = Url::parse(input.trim()).map_err(|e| invalid(&e.to_string()))?;
    if url.host_str().is_none() {
        return Err(invalid("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Credentials in a URL end up in logs and error messages; the token has its own channel.
        return Err(ApiError::UrlWithCredentials);
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("it has a query or fragment"));
    }
    Ok(url)
}

/// https anywhere; http only to loopback unless explicitly allowed.
pub fn check_url_policy(url: &Url, allow_insecure_http: bool) -> Result<(), ApiError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if allow_insecure_http || is_loopback(url) => Ok(()),
        "http" => Err(ApiError::InsecureUrl {
            url: url.to_string(),
        }),
        other => Err(ApiError::InvalidUrl {
            url: url.to_string(),
            reason: format!("scheme `{other}` is not supported; use https://"),
        }),
    }
}

fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn policy(url: &str, allow: bool) -> Result<(), ApiError> {
        check_url_policy(&parse_base_url(url).unwrap(), allow)
    }

    #[test]
    fn https_is_always_accepted() {
        assert!(policy("https://api.example.net/api/v1", false).is_ok());
    }

    #[test]
    fn http_only_to_loopback() {
        for ok in [
            "http://127.0.0.1:8080/api/v1",
            "http://127.9.8.7/api/v1",
            "http://[::1]:99/api/v1",
            "http://localhost:3000/api/v1",
            "http://LOCALHOST./api/v1",
        ] {
            assert!(policy(ok, false).is_ok(), "{ok}");
        }
        for bad in [
            "http://api.example.net/api/v1",
            "http://10.0.0.1/api/v1",
            "http://128.0.0.1/api/v1",
            "http://localhost.example.net/api/v1",
            "http://[::2]/api/v1",
        ] {
            let err = policy(bad, false).unwrap_err();
            assert!(matches!(err, ApiError::InsecureUrl { .. }), "{bad}");
            assert!(policy(bad, true).is_ok(), "{bad}");
        }
    }

    #[test]
    fn other_schemes_and_credentials_are_refused() {
        assert!(policy("ftp://example.net/", true).is_err());
        let err = parse_base_url("https://user:tok_SECRET@example.net/").unwrap_err();
        assert!(matches!(err, ApiError::UrlWithCredentials), "{err}");
        assert!(!err.to_string().contains("tok_SECRET"), "{err}");
        assert!(parse_base_url("not a url").is_err());
    }
}
