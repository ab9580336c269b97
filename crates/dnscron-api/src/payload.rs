//! Wire types of the Hosting Customer API (docs/api.md).
//!
//! The client reads these shapes (the emulator writes its own, from the spec: `dnscron_emulator::json_body`).
//! Deserialization is deliberately lenient:
//! unknown fields are ignored (spec, Versioning 2), and where the spec leaves a field's name or
//! format open the client accepts every plausible variant (see the `alias` attributes).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `meta` of every list response (spec, Pagination 2).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Meta {
    /// Opaque; absent, `null` or empty once `has_more` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<String>,
    #[serde(default)]
    pub(crate) has_more: bool,
}

/// A site as listed by `GET /sites`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Site {
    #[serde(alias = "name")]
    pub slug: String,
    /// Value set not given by the spec; the emulator uses `active`, `suspended`, `provisioning`.
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deploy_state: Option<serde_json::Value>,
}

/// A scheduled task as listed by `GET /sites/{slug}/cron` (under the key `cron_jobs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CronJob {
    /// Base (0 or 1) and behaviour after a delete are not given by the spec: never trust a
    /// stored index, re-list before deleting.
    pub index: i64,
    pub schedule: String,
    pub command: String,
}

/// Body of `POST /sites/{slug}/cron`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CronJobWrite {
    pub schedule: String,
    pub command: String,
}

/// A domain as listed by `GET /domains` and returned by `GET /domains/{domain}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Domain {
    #[serde(alias = "name")]
    pub domain: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_renew: Option<serde_json::Value>,
    /// Format not given by the spec: a string (`active`, `inactive`, …), a boolean or an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dnssec: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_state: Option<serde_json::Value>,
}

/// `GET /domains/{domain}/registrar`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Registrar {
    pub nameservers: RegistrarNameservers,
    pub dnssec: RegistrarDnssec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whois_privacy: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegistrarNameservers {
    /// What the registry delegates to: the truth for "which mode is this domain in".
    #[serde(default)]
    pub registry: Vec<String>,
    /// What public resolvers currently see (may lag behind `registry`).
    #[serde(default)]
    pub resolver: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegistrarDnssec {
    /// Format not given by the spec; see [`dnssec_is_active`].
    #[serde(default)]
    pub state: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub our_ds: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_ds: Option<serde_json::Value>,
}

/// Body of `PUT /domains/{domain}/nameservers`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameserversWrite {
    /// The hosted value is server-specific (`veldhost` on the emulator by default); the other is `custom`.
    pub mode: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nameservers: Vec<String>,
}

/// A zone as listed by `GET /dns`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Zone {
    #[serde(alias = "name", alias = "domain")]
    pub zone: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dnssec: Option<serde_json::Value>,
}

/// A DNS record as listed by `GET /dns/{zone}/records`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub id: i64,
    /// Relative (`www`, `@`) or absolute (`www.example.com.`) depending on the server.
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: String,
    pub ttl: u32,
    pub content: String,
}

/// Body of `POST /dns/{zone}/records` and `PUT /dns/{zone}/records/{record}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordWrite {
    pub name: String,
    #[serde(rename = "type")]
    pub rtype: String,
    pub ttl: u32,
    pub content: String,
}

/// The uniform error body of every 4xx and 5xx response (spec, Errors).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
    /// Some servers may put `continue_url` beside `error` rather than inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_url: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<BTreeMap<String, Vec<String>>>,
    #[serde(default)]
    pub request_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_url: Option<String>,
}

impl ErrorEnvelope {
    pub fn continue_url(&self) -> Option<&str> {
        self.error
            .continue_url
            .as_deref()
            .or(self.continue_url.as_deref())
    }
}

/// The spec leaves the DNSSEC state's format open. Anything that says "on" counts as active;
/// unknown strings count as active too, so a nameserver change is flagged as a possible portal
/// step rather than silently assumed safe.
pub fn dnssec_is_active(value: Option<&serde_json::Value>) -> bool {
    use serde_json::Value;
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !matches!(
            s.to_ascii_lowercase().as_str(),
            "" | "inactive" | "off" | "disabled" | "none" | "unsigned" | "false" | "no"
        ),
        Some(Value::Object(map)) => {
            dnssec_is_active(map.get("state").or_else(|| map.get("enabled")))
        }
        Some(_) => true,
    }
}

/// Header names (spec, Limits, Idempotency and Versioning) and the keys of the list endpoints'
/// result arrays (spec, Pagination 2), as the API's description spells them.
pub(crate) use dnscron_provider::{headers, list_keys};

#[cfg(test)]
mod tests {
    // The wire types parse what the emulator sends. The emulator is a dev-dependency only: it is
    // written from the API's description and depends on nothing of this crate, so a field the
    // client misreads can't hide here.

    use dnscron_emulator::{BackgroundEmulator, RateLimit, Seed};
    use reqwest::header::HeaderMap;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::*;

    fn parse<T: DeserializeOwned>(value: &Value) -> T {
        serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("{e}: {value}"))
    }

    /// The documented example account, rate limit off.
    fn example_emulator() -> BackgroundEmulator {
        let mut seed = Seed::example();
        seed.rate_limit = RateLimit::off();
        dnscron_emulator::start_background(seed).expect("start the emulator")
    }

    struct Resp {
        headers: HeaderMap,
        body: Value,
    }

    impl Resp {
        fn header(&self, name: &str) -> Option<&str> {
            self.headers.get(name).and_then(|v| v.to_str().ok())
        }
    }

    /// Raw HTTP as the demo token, not the client: these tests read the bodies themselves.
    struct Demo {
        client: reqwest::Client,
        base: String,
    }

    impl Demo {
        fn new(emu: &BackgroundEmulator) -> Demo {
            let _ = rustls::crypto::ring::default_provider().install_default();
            Demo {
                client: reqwest::Client::new(),
                base: emu.base_url(),
            }
        }

        async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Resp {
            let mut req = self
                .client
                .request(method, format!("{}{path}", self.base))
                .bearer_auth("demo-token");
            if let Some(body) = body {
                req = req.json(&body);
            }
            let resp = req.send().await.expect("HTTP request to the emulator");
            let headers = resp.headers().clone();
            let body = resp.json().await.expect("a JSON body");
            Resp { headers, body }
        }

        async fn get(&self, path: &str) -> Resp {
            self.send(reqwest::Method::GET, path, None).await
        }

        async fn put(&self, path: &str, body: Value) -> Resp {
            self.send(reqwest::Method::PUT, path, Some(body)).await
        }
    }

    #[tokio::test]
    async fn wire_types_parse_every_response_shape() {
        let emu = example_emulator();
        let api = Demo::new(&emu);
        let sites: Vec<Site> = parse(&api.get("/sites").await.body["sites"]);
        assert_eq!(sites[0].slug, "blog");
        let cron: Vec<CronJob> = parse(&api.get("/sites/blog/cron").await.body["cron_jobs"]);
        assert_eq!(cron.len(), 3);
        let domains: Vec<Domain> = parse(&api.get("/domains").await.body["domains"]);
        assert!(dnssec_is_active(domains[0].dnssec.as_ref()));
        let registrar: Registrar = parse(&api.get("/domains/example.org/registrar").await.body);
        assert!(!dnssec_is_active(registrar.dnssec.state.as_ref()));
        assert_eq!(
            registrar.nameservers.registry,
            ["ns1.veldhost.net", "ns2.veldhost.net"]
        );
        let zones: Vec<Zone> = parse(&api.get("/dns").await.body["zones"]);
        assert_eq!(zones.len(), 4);
        let listing = api.get("/dns/example.com/records").await.body;
        let records: Vec<Record> = parse(&listing["records"]);
        assert_eq!(records.len(), 15);
        let meta: Meta = parse(&listing["meta"]);
        assert!(!meta.has_more && meta.next_cursor.is_none());
        let conflict = api
            .put(
                "/domains/example.com/nameservers",
                json!({"mode": "veldhost"}),
            )
            .await;
        let envelope: ErrorEnvelope = parse(&conflict.body);
        assert_eq!(envelope.error.kind, "conflict");
        assert!(envelope.continue_url().is_some());
        assert_eq!(
            Some(envelope.error.request_id.as_str()),
            conflict.header("x-request-id")
        );
    }
}
