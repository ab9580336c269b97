//! A line of text to a chat channel: a POST of Slack's incoming-webhook shape, `{"text": …}`,
//! which Mattermost and Rocket.Chat accept as well.
//!
//! The URL is a secret (whoever has it can post to the channel), so it comes from a file, the
//! file's content is never shown (not even in an error about it), `Debug` redacts it, and no
//! error carries it: reqwest's errors are stripped of their URL, and what their causes still
//! say of it is cut out. Redirects are not followed: the URL named is the one posted to.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::Url;
use reqwest::header::CONTENT_TYPE;
use tokio::time::{Instant, timeout_at};

use super::revision::{BoundedReadError, read_bounded};
use dnscron_api::{USER_AGENT, check_url_policy, error_chain, http_client_builder};

/// How long a post may take, answer included: a chat server that hangs must not hold a round.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);
/// The most of an answer's body read; only its status counts.
pub(crate) const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// A URL file holds one line; anything larger is not one.
pub(crate) const MAX_URL_FILE_BYTES: u64 = 8 * 1024;

/// Where to post: its URL is never shown.
#[derive(Clone)]
pub struct Webhook {
    url: Url,
    http: reqwest::Client,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Webhook(<redacted>)")
    }
}

/// Why a webhook could not be read or did not take a message. None carries the URL, nor any
/// part of the URL file's content.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{}` is larger than {limit} bytes", path.display())]
    FileTooLarge { path: PathBuf, limit: u64 },
    #[error("`{}` is not UTF-8 text", path.display())]
    NotUtf8 { path: PathBuf },
    #[error("`{}` is empty", path.display())]
    Empty { path: PathBuf },
    /// `reason` is the URL parser's, which never quotes its input.
    #[error("`{}` does not hold a URL: {reason}", path.display())]
    NotUrl { path: PathBuf, reason: String },
    #[error("`{}` holds a URL without a host", path.display())]
    NoHost { path: PathBuf },
    #[error("`{}` holds an http:// URL to a host that is not a loopback address", path.display())]
    InsecureHttp { path: PathBuf },
    #[error("`{}` holds a URL whose scheme is neither https nor http", path.display())]
    UnsupportedScheme { path: PathBuf },
    #[error("cannot build the HTTP client: {message}")]
    Client { message: String },
    #[error("the webhook could not be reached: {message}")]
    Transport { message: String },
    #[error("the webhook did not answer within {} s", after.as_secs())]
    Timeout { after: Duration },
    #[error("the webhook answered with HTTP status {status}")]
    Status { status: u16 },
}

impl Webhook {
    /// The webhook whose URL is `path`'s content, trimmed: https, or http to a loopback address.
    pub fn from_file(path: &Path) -> Result<Webhook, WebhookError> {
        let url = parse_url(path, &read_url_file(path)?)?;
        let http = http_client_builder(&url)
            .user_agent(USER_AGENT)
            .connect_timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| WebhookError::Client {
                message: error_chain(&e.without_url()),
            })?;
        Ok(Webhook { url, http })
    }

    /// Posts `{"text": text}`; any answer but a 2xx is an error with its status.
    pub async fn send(&self, text: &str) -> Result<(), WebhookError> {
        let deadline = Instant::now() + TIMEOUT;
        let request = self
            .http
            .post(self.url.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(message_body(text));
        let answer = match timeout_at(deadline, request.send()).await {
            Err(_) => return Err(WebhookError::Timeout { after: TIMEOUT }),
            Ok(Err(err)) if err.is_timeout() => {
                return Err(WebhookError::Timeout { after: TIMEOUT });
            }
            Ok(Err(err)) => return Err(self.transport(err)),
            Ok(Ok(answer)) => answer,
        };
        let status = answer.status();
        // Read so the server sees its answer taken; what it says does not matter.
        drain(answer, deadline).await;
        if status.is_success() {
            Ok(())
        } else {
            Err(WebhookError::Status {
                status: status.as_u16(),
            })
        }
    }

    fn transport(&self, err: reqwest::Error) -> WebhookError {
        WebhookError::Transport {
            message: without_secret(&error_chain(&err.without_url()), &self.url),
        }
    }
}

/// Slack's incoming-webhook body, JSON-escaped by serde_json (quotes, newlines, control
/// characters).
fn message_body(text: &str) -> String {
    serde_json::json!({ "text": text }).to_string()
}

fn read_url_file(path: &Path) -> Result<String, WebhookError> {
    let bytes = read_bounded(path, MAX_URL_FILE_BYTES).map_err(|err| match err {
        BoundedReadError::Io(source) => WebhookError::Read {
            path: path.to_path_buf(),
            source,
        },
        BoundedReadError::TooLarge => WebhookError::FileTooLarge {
            path: path.to_path_buf(),
            limit: MAX_URL_FILE_BYTES,
        },
    })?;
    String::from_utf8(bytes).map_err(|_| WebhookError::NotUtf8 {
        path: path.to_path_buf(),
    })
}

/// The trimmed text as a URL the API client's rule accepts (https anywhere, http to loopback).
/// Errors name only what is wrong: a scheme given back could be the start of a secret that is
/// no URL at all.
fn parse_url(path: &Path, text: &str) -> Result<Url, WebhookError> {
    let path_buf = || path.to_path_buf();
    let text = text.trim();
    if text.is_empty() {
        return Err(WebhookError::Empty { path: path_buf() });
    }
    let url = Url::parse(text).map_err(|e| WebhookError::NotUrl {
        path: path_buf(),
        reason: e.to_string(),
    })?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(WebhookError::NoHost { path: path_buf() });
    }
    if check_url_policy(&url, false).is_err() {
        return Err(if url.scheme() == "http" {
            WebhookError::InsecureHttp { path: path_buf() }
        } else {
            WebhookError::UnsupportedScheme { path: path_buf() }
        });
    }
    Ok(url)
}

/// `message` with whatever it quotes of `url` (the whole, its path, its query) cut out: an
/// error's cause may describe the request it failed on.
fn without_secret(message: &str, url: &Url) -> String {
    let mut secrets = vec![url.as_str().to_string()];
    if url.path().len() > 1 {
        secrets.push(url.path().to_string());
    }
    if let Some(query) = url.query().filter(|q| !q.is_empty()) {
        secrets.push(query.to_string());
    }
    secrets.iter().fold(message.to_string(), |text, secret| {
        text.replace(secret, "<redacted>")
    })
}

/// Reads the answer's body until it ends, [`MAX_ANSWER_BYTES`] have come, or the deadline;
/// the number of bytes read.
async fn drain(mut answer: reqwest::Response, deadline: Instant) -> usize {
    let mut read = 0;
    while read < MAX_ANSWER_BYTES {
        match timeout_at(deadline, answer.chunk()).await {
            Ok(Ok(Some(chunk))) => read += chunk.len(),
            Ok(Ok(None)) | Ok(Err(_)) | Err(_) => break,
        }
    }
    read
}

#[cfg(test)]
#[path = "webhook_tests.rs"]
mod tests;
