//! The API's description (`dnscron_provider`) held against both sides, as data: the emulator's
//! served `/openapi.json` states its record types, limits, scopes and idempotent endpoints, and
//! the client's loader refuses exactly past its bounds. No list here is kept by hand: a change
//! to the spec is one edit in the description, and a side that doesn't follow it fails here.
//! (tests/it/emulator/constraints.rs then holds the emulator's answers to its document.)

use std::path::PathBuf;

use dnscron_provider::{Endpoint, Method, RecordType, limits};
use serde_json::Value;

use crate::common::emulator::{Api, example_emulator};

async fn served_document() -> Value {
    let emu = example_emulator();
    let resp = Api::new(&emu.base_url(), "demo-token")
        .get("/openapi.json")
        .await;
    assert_eq!(resp.status, 200);
    resp.body
}

fn number(schema: &Value, key: &str) -> u64 {
    schema[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {schema}"))
}

fn type_names(schema: &Value) -> Vec<&str> {
    let names = schema["enum"].as_array();
    names
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

#[tokio::test]
async fn the_served_document_states_the_described_types_and_limits() {
    let doc = served_document().await;
    let schemas = &doc["components"]["schemas"];
    let record = &schemas["RecordWrite"]["properties"];
    assert_eq!(type_names(&record["type"]), RecordType::names());
    assert_eq!(
        type_names(&schemas["Record"]["properties"]["type"]),
        RecordType::names()
    );
    assert_eq!(
        number(&record["ttl"], "minimum"),
        u64::from(limits::TTL_MIN)
    );
    assert_eq!(
        number(&record["ttl"], "maximum"),
        u64::from(limits::TTL_MAX)
    );
    let content = number(&record["content"], "maxLength");
    assert_eq!(content, limits::CONTENT_MAX_CHARS as u64);
    let name = number(&record["name"], "maxLength");
    assert_eq!(name, limits::NAME_MAX_CHARS as u64);

    let cron = &schemas["CronJobWrite"]["properties"];
    let command = number(&cron["command"], "maxLength");
    assert_eq!(command, limits::CRON_COMMAND_MAX_CHARS as u64);
    let programs = format!("^({})", limits::CRON_PROGRAMS.join("|"));
    let pattern = cron["command"]["pattern"].as_str().unwrap_or_default();
    assert!(pattern.starts_with(&programs), "{pattern}");
    // The schedule's pattern separates its fields by single spaces and has no other.
    let schedule = cron["schedule"]["pattern"].as_str().unwrap_or_default();
    assert_eq!(schedule.split(' ').count(), limits::CRON_SCHEDULE_FIELDS);

    let nameservers = &schemas["NameserversWrite"]["properties"]["nameservers"];
    let (min, max) = (
        number(nameservers, "minItems"),
        number(nameservers, "maxItems"),
    );
    assert_eq!(min, limits::CUSTOM_NAMESERVERS_MIN as u64);
    assert_eq!(max, limits::CUSTOM_NAMESERVERS_MAX as u64);
}

/// Every operation of the document, as (endpoint, operation); one the description lacks fails.
fn operations(doc: &Value) -> Vec<(Endpoint, &Value)> {
    let mut found = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        if path == "/openapi.json" {
            continue;
        }
        for (method, operation) in item.as_object().into_iter().flatten() {
            let method = match method.as_str() {
                "get" => Method::Get,
                "post" => Method::Post,
                "put" => Method::Put,
                "delete" => Method::Delete,
                other => panic!("{other} {path}: a method the API doesn't use"),
            };
            let endpoint = Endpoint::find(method, path)
                .unwrap_or_else(|| panic!("{method:?} {path} is not in the API's description"));
            found.push((endpoint, operation));
        }
    }
    found
}

fn parameter<'a>(operation: &'a Value, name: &str) -> Option<&'a Value> {
    let parameters = operation["parameters"].as_array();
    parameters.into_iter().flatten().find(|p| p["name"] == name)
}

#[tokio::test]
async fn every_served_operation_has_the_described_scope_idempotency_and_paging() {
    let doc = served_document().await;
    let operations = operations(&doc);
    assert!(operations.len() >= 15, "{} operations", operations.len());
    for (endpoint, operation) in operations {
        let scope = endpoint.scope().map(|s| s.as_str());
        assert_eq!(operation["x-scope"].as_str(), scope, "{endpoint:?}");
        let key = parameter(operation, "Idempotency-Key");
        assert_eq!(key.is_some(), endpoint.idempotent(), "{endpoint:?}");
        if let Some(key) = key {
            let max = number(&key["schema"], "maxLength");
            assert_eq!(
                max,
                limits::IDEMPOTENCY_KEY_MAX_CHARS as u64,
                "{endpoint:?}"
            );
        }
        if let Some(limit) = parameter(operation, "limit") {
            let schema = &limit["schema"];
            let max = number(schema, "maximum");
            assert_eq!(max, u64::from(limits::PAGE_SIZE_MAX), "{endpoint:?}");
            let default = number(schema, "default");
            assert_eq!(
                default,
                u64::from(limits::PAGE_SIZE_DEFAULT),
                "{endpoint:?}"
            );
        }
    }
}

fn load(files: &[(&str, String)]) -> Result<(), String> {
    let texts: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(name, text)| (PathBuf::from(name), text.clone()))
        .collect();
    dnscron_core::config::load_texts(&texts)
        .map(drop)
        .map_err(|diags| format!("{diags:?}"))
}

fn zone_with(ttl: u32, content: &str) -> Vec<(&'static str, String)> {
    let content = serde_json::to_string(content).unwrap_or_default();
    let text = format!(
        "zone: example.com\nrecords:\n  - {{ name: txt, type: TXT, ttl: {ttl}, content: {content} }}\n"
    );
    vec![("example.com.yaml", text)]
}

fn site_with(jobs: usize) -> Vec<(&'static str, String)> {
    let mut text = "site: blog\ncron:\n".to_string();
    for minute in 0..jobs {
        text.push_str(&format!(
            "  - {{ schedule: \"{minute} * * * *\", command: \"wp cron event run\" }}\n"
        ));
    }
    vec![("blog.yaml", text)]
}

#[test]
fn the_client_loader_refuses_exactly_past_the_described_bounds() {
    let (min, max) = (limits::TTL_MIN, limits::TTL_MAX);
    for (ttl, ok) in [(min - 1, false), (min, true), (max, true), (max + 1, false)] {
        let loaded = load(&zone_with(ttl, "x"));
        assert_eq!(loaded.is_ok(), ok, "ttl {ttl}: {loaded:?}");
    }
    let max = limits::CONTENT_MAX_CHARS;
    for (len, ok) in [(max, true), (max + 1, false)] {
        let loaded = load(&zone_with(300, &"c".repeat(len)));
        assert_eq!(loaded.is_ok(), ok, "content of {len}: {loaded:?}");
    }
    let max = limits::CRON_JOBS_PER_SITE_MAX;
    for (jobs, ok) in [(max, true), (max + 1, false)] {
        let loaded = load(&site_with(jobs));
        assert_eq!(loaded.is_ok(), ok, "{jobs} cron jobs: {loaded:?}");
    }
}
