//! API flags shared by every command that talks to the service (flatten into its args).

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::error::CommandError;
use dnscron_api::{ApiConfig, Token, check_url_policy, parse_base_url};

#[derive(Debug, Clone, clap::Args)]
pub struct ApiArgs {
    /// Base URL of the API, including the version prefix (e.g. https://api.example.net/api/v1).
    #[arg(long, env = "DNSCRON_API_URL", value_name = "URL")]
    pub api_url: Option<String>,
    /// Read the API token from this file (one trailing newline is ignored) instead of the
    /// DNSCRON_TOKEN environment variable.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Allow plain http:// to a host other than loopback (the token travels unencrypted).
    #[arg(long)]
    pub allow_insecure_http: bool,
    /// Longest total wait for the rate limit per request before failing (e.g. 90s, 10m, 1h).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    pub max_wait: Duration,
    /// Deadline of each HTTP attempt, connect to last byte, however slowly the server sends
    /// (e.g. 30s, 500ms); a request stops retrying once another attempt could not end within
    /// 4 times this of its start (2 minutes by default).
    #[arg(
        long,
        env = "DNSCRON_TIMEOUT",
        value_name = "DURATION",
        default_value = "30s",
        value_parser = parse_timeout
    )]
    pub timeout: Duration,
}

impl ApiArgs {
    pub fn into_config(self) -> Result<ApiConfig, CommandError> {
        let url = self
            .api_url
            .filter(|u| !u.trim().is_empty())
            .ok_or_else(|| {
                CommandError::user("no API URL given")
                    .with_hint("pass --api-url URL or set DNSCRON_API_URL (it includes /api/v1)")
            })?;
        let base_url = parse_base_url(&url).map_err(CommandError::from)?;
        check_url_policy(&base_url, self.allow_insecure_http).map_err(CommandError::from)?;
        let token = Token::load(self.token_file.as_deref())?;
        let mut config = ApiConfig::new(base_url.as_str(), token).map_err(CommandError::from)?;
        config.allow_insecure_http = self.allow_insecure_http;
        config.max_wait = self.max_wait;
        config.request_timeout = self.timeout;
        config.on_retry = Some(super::retries::hook());
        Ok(config)
    }
}

/// A duration that is not zero: a deadline of 0 would fail every request.
fn parse_timeout(input: &str) -> Result<Duration, String> {
    match parse_duration(input)? {
        Duration::ZERO => Err(format!(
            "`{input}` is no time at all: write e.g. 30s or 500ms"
        )),
        timeout => Ok(timeout),
    }
}

/// `90s`, `10m`, `1h30m`, `500ms`, or a bare number of seconds.
pub(crate) fn parse_duration(input: &str) -> Result<Duration, String> {
    let text = input.trim();
    let bad = || format!("`{input}` is not a duration: write e.g. 90s, 10m or 1h30m");
    if text.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let value: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ms" => Duration::from_millis(value),
            "s" => Duration::from_secs(value),
            "m" => Duration::from_secs(value.saturating_mul(60)),
            "h" => Duration::from_secs(value.saturating_mul(3600)),
            _ => return Err(bad()),
        };
        total = total.saturating_add(unit);
        rest = &rest[unit_len..];
    }
    Ok(total)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("45").unwrap(), Duration::from_secs(45));
        for bad in ["", "m", "10x", "1.5m", "-3s", "10 m"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_timeout("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(
            parse_timeout("0s").unwrap_err(),
            "`0s` is no time at all: write e.g. 30s or 500ms"
        );
    }

    fn args(url: Option<&str>, insecure: bool) -> ApiArgs {
        ApiArgs {
            api_url: url.map(str::to_string),
            token_file: None,
            allow_insecure_http: insecure,
            max_wait: Duration::from_secs(90),
            timeout: Duration::from_secs(7),
        }
    }

    #[test]
    fn config_errors_say_what_to_do() {
        let err = args(None, false).into_config().unwrap_err();
        assert!(err.to_string().contains("no API URL"), "{err}");
        assert!(err.hints()[0].contains("DNSCRON_API_URL"));

        let err = args(Some("http://api.example.net/api/v1"), false)
            .into_config()
            .unwrap_err();
        assert!(err.to_string().contains("--allow-insecure-http"), "{err}");
    }

    #[test]
    fn token_file_is_used_and_its_errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tok");
        let mut a = args(Some("https://api.example.net/api/v1"), false);
        a.token_file = Some(path.clone());
        let err = a.clone().into_config().unwrap_err();
        assert!(err.to_string().contains("tok"), "{err}");
        assert!(err.hints()[0].contains("--token-file"));

        std::fs::write(&path, "tok_abc\n").unwrap();
        let config = a.into_config().unwrap();
        assert_eq!(config.max_wait, Duration::from_secs(90));
        assert_eq!(config.request_timeout, Duration::from_secs(7));
        assert_eq!(config.retry_budget(), Duration::from_secs(28));
        assert_eq!(config.base_url.as_str(), "https://api.example.net/api/v1");
        assert_eq!(config.token, Token::new("tok_abc").unwrap());
    }
}
