//! Start an emulator for a test and talk to it over real HTTP.

use dnscron_emulator::{self as emulator, BackgroundEmulator, RateLimit, Seed};
use reqwest::header::HeaderMap;
use serde_json::Value;

/// An emulator on 127.0.0.1:0 with its own runtime; stops when dropped.
pub fn start_emulator(seed: Seed) -> BackgroundEmulator {
    emulator::start_background(seed).expect("start the emulator")
}

/// The documented example account (examples/emulator-seed.yaml), rate limit off so tests
/// that make many requests are not throttled.
pub fn example_emulator() -> BackgroundEmulator {
    let mut seed = Seed::example();
    seed.rate_limit = RateLimit::off();
    start_emulator(seed)
}

/// A reqwest client; reqwest is built without a default TLS crypto provider, so install ring's
/// (needed to build any client, even for plain http).
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// A small JSON client bound to one token.
#[derive(Clone)]
pub struct Api {
    client: reqwest::Client,
    base: String,
    token: Option<String>,
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// `error.type` of an error envelope.
    pub fn error_type(&self) -> &str {
        self.body["error"]["type"].as_str().unwrap_or("")
    }
}

impl Api {
    pub fn new(base_url: &str, token: &str) -> Api {
        Api {
            client: client(),
            base: base_url.to_string(),
            token: Some(token.to_string()),
        }
    }

    pub fn anonymous(base_url: &str) -> Api {
        Api {
            client: client(),
            base: base_url.to_string(),
            token: None,
        }
    }

    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut req = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            req = req.bearer_auth(token);
        }
        req
    }

    pub async fn send(req: reqwest::RequestBuilder) -> Resp {
        let resp = req.send().await.expect("HTTP request to the emulator");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("response body");
        let body = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        Resp {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str) -> Resp {
        Self::send(self.request(reqwest::Method::GET, path)).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Resp {
        Self::send(self.request(reqwest::Method::POST, path).json(&body)).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Resp {
        Self::send(self.request(reqwest::Method::PUT, path).json(&body)).await
    }

    pub async fn delete(&self, path: &str) -> Resp {
        Self::send(self.request(reqwest::Method::DELETE, path)).await
    }

    /// Every item of a paginated list, following `meta.next_cursor`.
    pub async fn get_all(&self, path: &str, key: &str, limit: usize) -> Vec<Value> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let sep = if path.contains('?') { '&' } else { '?' };
            let mut url = format!("{path}{sep}limit={limit}");
            if let Some(c) = &cursor {
                url.push_str(&format!("&cursor={c}"));
            }
            let resp = self.get(&url).await;
            assert_eq!(resp.status, 200, "{url}: {:?}", resp.body);
            items.extend(resp.body[key].as_array().cloned().unwrap_or_default());
            if !resp.body["meta"]["has_more"].as_bool().unwrap_or(false) {
                return items;
            }
            cursor = resp.body["meta"]["next_cursor"]
                .as_str()
                .map(str::to_string);
        }
    }
}
