//! Keeps `/openapi.json` and the emulator's validation in step: every bound the document
//! publishes is read from it and sent to the emulator just inside (accepted) and just outside
//! (422). Changing a bound on one side only fails here.

use dnscron_provider::RecordType;
use reqwest::Method;
use serde_json::{Value, json};

use super::demo;
use crate::common::emulator::{Api, Resp, example_emulator};

/// A record of each type that the content rules accept: a new type is a compile error here.
fn sample(rtype: RecordType) -> (&'static str, &'static str) {
    match rtype {
        RecordType::A => ("a", "192.0.2.1"),
        RecordType::AAAA => ("aaaa", "2001:db8::1"),
        RecordType::CNAME => ("alias", "target.example.net."),
        RecordType::MX => ("mx", "10 mail.example.net."),
        RecordType::TXT => ("txt", "hello"),
        RecordType::NS => ("sub", "ns1.example.net."),
        RecordType::SRV => ("_sip._tcp", "10 60 5060 sip.example.net."),
        RecordType::CAA => ("caa", "0 issue \"letsencrypt.org\""),
        RecordType::PTR => ("ptr", "host.example.net."),
    }
}

fn bound(schema: &Value, key: &str) -> usize {
    schema[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {schema}")) as usize
}

struct Probe {
    api: Api,
    seen: Vec<(String, u16)>,
    expected: Vec<(String, u16)>,
}

impl Probe {
    fn check(&mut self, what: String, expected: u16, resp: Resp) {
        self.seen.push((what.clone(), resp.status));
        self.expected.push((what, expected));
    }

    async fn record(&mut self, what: &str, expected: u16, body: Value) {
        let resp = self.api.post("/dns/example.com/records", body).await;
        self.check(what.to_string(), expected, resp);
    }
}

fn txt(name: &str, ttl: usize, content: &str) -> Value {
    json!({ "name": name, "type": "TXT", "ttl": ttl, "content": content })
}

/// A relative name of exactly `len` characters (labels of at most 63).
fn name_of(len: usize) -> String {
    let mut labels = Vec::new();
    let mut left = len;
    while left > 64 {
        labels.push("a".repeat(63));
        left -= 64;
    }
    labels.push("b".repeat(left));
    labels.join(".")
}

#[tokio::test]
async fn every_published_bound_is_the_enforced_one() {
    let emu = example_emulator();
    let mut p = Probe {
        api: demo(&emu),
        seen: Vec::new(),
        expected: Vec::new(),
    };
    let doc = p.api.get("/openapi.json").await.body;
    let schemas = &doc["components"]["schemas"];

    let limit = &doc["paths"]["/sites"]["get"]["parameters"][0]["schema"];
    let (min, max) = (bound(limit, "minimum"), bound(limit, "maximum"));
    for (n, status) in [(min - 1, 422), (min, 200), (max, 200), (max + 1, 422)] {
        let resp = p.api.get(&format!("/sites?limit={n}")).await;
        p.check(format!("limit={n}"), status, resp);
    }

    let record = &schemas["RecordWrite"]["properties"];
    let (min, max) = (
        bound(&record["ttl"], "minimum"),
        bound(&record["ttl"], "maximum"),
    );
    for (ttl, status) in [(min - 1, 422), (min, 201), (max, 201), (max + 1, 422)] {
        p.record(
            &format!("ttl {ttl}"),
            status,
            txt(&format!("ttl{ttl}"), ttl, "x"),
        )
        .await;
    }
    let max = bound(&record["content"], "maxLength");
    for (len, status) in [(max, 201), (max + 1, 422)] {
        let body = txt(&format!("len{len}"), 300, &"c".repeat(len));
        p.record(&format!("content of {len}"), status, body).await;
    }
    let max = bound(&record["name"], "maxLength");
    for (len, status) in [(max, 201), (max + 1, 422)] {
        p.record(
            &format!("name of {len}"),
            status,
            txt(&name_of(len), 300, "x"),
        )
        .await;
    }
    // The document publishes the typed list, in its order; each type is then sent.
    assert_eq!(record["type"]["enum"], json!(RecordType::names()));
    for &rtype in RecordType::ALL {
        let (name, content) = sample(rtype);
        let wire = rtype.as_str();
        let body = json!({ "name": name, "type": wire, "ttl": 300, "content": content });
        p.record(&format!("type {wire}"), 201, body).await;
    }
    let body = json!({ "name": "spf", "type": "SPF", "ttl": 300, "content": "v=spf1 -all" });
    p.record("type SPF", 422, body).await;

    let key = doc["paths"]["/dns/{zone}/records"]["post"]["parameters"]
        .as_array()
        .and_then(|ps| ps.iter().find(|x| x["name"] == "Idempotency-Key"))
        .map(|x| x["schema"].clone())
        .unwrap_or_default();
    let (min, max) = (bound(&key, "minLength"), bound(&key, "maxLength"));
    for (len, status) in [(min - 1, 422), (min, 201), (max, 201), (max + 1, 422)] {
        let req = p
            .api
            .request(Method::POST, "/dns/example.com/records")
            .header("Idempotency-Key", "k".repeat(len))
            .json(&txt(&format!("key{len}"), 300, "x"));
        let resp = Api::send(req).await;
        p.check(format!("Idempotency-Key of {len}"), status, resp);
    }

    let cron = &schemas["CronJobWrite"]["properties"];
    let max = bound(&cron["command"], "maxLength");
    for (command, status) in [
        (format!("php {}", "a".repeat(max - 4)), 201),
        (format!("php {}", "a".repeat(max - 3)), 422),
        ("wp cache flush".to_string(), 201),
        ("bash -c true".to_string(), 422),
    ] {
        let body = json!({ "schedule": "*/5 * * * *", "command": command });
        let resp = p.api.post("/sites/shop/cron", body).await;
        p.check(format!("command of {}", command.len()), status, resp);
    }
    for (schedule, status) in [("0 3 * * 1", 201), ("0 3 * *", 422)] {
        let body = json!({ "schedule": schedule, "command": "php x" });
        let resp = p.api.post("/sites/blog/cron", body).await;
        p.check(format!("schedule {schedule}"), status, resp);
    }

    let ns = &schemas["NameserversWrite"]["properties"]["nameservers"];
    let (min, max) = (bound(ns, "minItems"), bound(ns, "maxItems"));
    for (n, status) in [(min - 1, 422), (min, 200), (max, 200), (max + 1, 422)] {
        let list: Vec<String> = (1..=n).map(|i| format!("ns{i}.example.net")).collect();
        let body = json!({ "mode": "custom", "nameservers": list });
        let resp = p.api.put("/domains/example.org/nameservers", body).await;
        p.check(format!("{n} nameservers"), status, resp);
    }

    let probe = &schemas["ProbeRequest"]["properties"]["domain"];
    let max = bound(probe, "maxLength");
    for (domain, status) in [
        ("example.io".to_string(), 200),
        (String::new(), 422),
        (format!("{}.io", name_of(max - 3)), 404),
        (format!("{}.io", name_of(max - 2)), 422),
    ] {
        let resp = p
            .api
            .post("/dns/zones/probe", json!({ "domain": domain }))
            .await;
        p.check(format!("probe domain of {}", domain.len()), status, resp);
    }

    assert_eq!(p.seen, p.expected);
}
