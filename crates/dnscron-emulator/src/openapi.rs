//! `GET /openapi.json`: an OpenAPI 3.1 description of the endpoints the emulator implements.
//! `info.version` is "1.2", as the spec says the machine-readable description lists.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use dnscron_provider::{Endpoint, RecordType, list_keys};
use serde_json::{Map, Value, json};

use super::constraints::{
    COMMAND_PATTERN, CURSOR_PATTERN, DOMAIN_PATTERN, FQDN_PATTERN, LINE_PATTERN, NAME_MAX,
    NAME_PATTERN, NAMESERVERS_MAX, NAMESERVERS_MIN, SCHEDULE_PATTERN, content_pattern,
};
use super::idempotency::MAX_KEY_LEN;
use super::pagination::{DEFAULT_LIMIT, MAX_LIMIT};
use super::shared::Shared;
use super::validate::{COMMAND_MAX, CONTENT_MAX, TTL_MAX, TTL_MIN};

pub(crate) async fn handler(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(document(&shared.settings().gaps.hosted_mode_value))
}

pub(crate) fn document(hosted_mode: &str) -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Hosting Customer API",
            "version": "1.2",
            "description": "Served by the dnscron emulator: the endpoints it implements."
        },
        "servers": [{ "url": "/api/v1" }],
        "security": [{ "bearer": [] }],
        "paths": paths(),
        "components": components(hosted_mode),
    })
}

/// The operations the emulator implements. Each path, method, scope (`x-scope`) and
/// `Idempotency-Key` parameter comes from the API's description (`Endpoint`); what is written
/// here is only what the description leaves to the document: ids, bodies and schemas.
fn paths() -> Value {
    let operations = [
        list_op(Endpoint::ListSites, "listSites", list_keys::SITES, "Site"),
        op(Endpoint::SiteHealth, "getSiteHealth", None, "200", "Health"),
        list_op(
            Endpoint::ListCronJobs,
            "listCronJobs",
            list_keys::CRON_JOBS,
            "CronJob",
        ),
        op(
            Endpoint::CreateCronJob,
            "createCronJob",
            Some("CronJobWrite"),
            "201",
            "CronJob",
        ),
        op(
            Endpoint::DeleteCronJob,
            "deleteCronJob",
            None,
            "200",
            "Result",
        ),
        list_op(
            Endpoint::ListDomains,
            "listDomains",
            list_keys::DOMAINS,
            "Domain",
        ),
        op(Endpoint::GetDomain, "getDomain", None, "200", "Domain"),
        op(
            Endpoint::GetRegistrar,
            "getRegistrar",
            None,
            "200",
            "Registrar",
        ),
        op(
            Endpoint::SetNameservers,
            "setNameservers",
            Some("NameserversWrite"),
            "200",
            "Result",
        ),
        list_op(Endpoint::ListZones, "listZones", list_keys::ZONES, "Zone"),
        op(
            Endpoint::ProbeZone,
            "probeZone",
            Some("ProbeRequest"),
            "200",
            "ProbeResult",
        ),
        list_op(
            Endpoint::ListRecords,
            "listRecords",
            list_keys::RECORDS,
            "Record",
        ),
        op(
            Endpoint::CreateRecord,
            "createRecord",
            Some("RecordWrite"),
            "201",
            "Record",
        ),
        op(
            Endpoint::UpdateRecord,
            "updateRecord",
            Some("RecordWrite"),
            "200",
            "Record",
        ),
        op(
            Endpoint::DeleteRecord,
            "deleteRecord",
            None,
            "200",
            "Result",
        ),
    ];
    let mut paths = Map::new();
    for (endpoint, operation) in operations {
        let path = paths
            .entry(endpoint.path())
            .or_insert_with(|| Value::Object(Map::new()));
        path[endpoint.method().as_str().to_ascii_lowercase()] = operation;
    }
    paths.insert(
        "/openapi.json".into(),
        json!({ "get": {
            "operationId": "getOpenApi",
            "responses": { "200": { "description": "This document", "content": { "application/json": {} } } }
        } }),
    );
    Value::Object(paths)
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn path_param(name: &str) -> Value {
    let schema = if matches!(name, "index" | "record") {
        json!({ "type": "integer" })
    } else {
        json!({ "type": "string" })
    };
    json!({ "name": name, "in": "path", "required": true, "schema": schema })
}

/// The `{name}` parameters of a path, in order.
fn path_params(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
        .map(path_param)
        .collect()
}

fn error_responses() -> Value {
    let err = json!({ "description": "Error", "content": { "application/json": { "schema": schema_ref("ErrorEnvelope") } } });
    // 400: a request HTTP itself can't read (hyper answers it, with no body).
    json!({ "400": { "description": "Malformed HTTP request" }, "401": err, "403": err, "404": err, "409": err, "422": err, "429": err, "502": err, "500": err })
}

fn op(
    endpoint: Endpoint,
    id: &str,
    body: Option<&str>,
    status: &str,
    response: &str,
) -> (Endpoint, Value) {
    let mut responses = error_responses();
    responses[status] = json!({
        "description": "Success",
        "content": { "application/json": { "schema": schema_ref(response) } }
    });
    let mut parameters = path_params(endpoint.path());
    if endpoint.idempotent() {
        parameters.push(json!({
            "name": "Idempotency-Key", "in": "header", "required": false,
            "schema": { "type": "string", "minLength": 1, "maxLength": MAX_KEY_LEN, "pattern": "^[ -~]+$" }
        }));
    }
    let mut value = json!({
        "operationId": id,
        "parameters": parameters,
        "responses": responses,
    });
    if let Some(scope) = endpoint.scope() {
        value["x-scope"] = json!(scope.as_str());
    }
    if let Some(body) = body {
        value["requestBody"] = json!({
            "required": true,
            "content": { "application/json": { "schema": schema_ref(body) } }
        });
    }
    (endpoint, value)
}

fn list_op(endpoint: Endpoint, id: &str, key: &str, item: &str) -> (Endpoint, Value) {
    let (endpoint, mut value) = op(endpoint, id, None, "200", "Meta");
    if let Some(list) = value["parameters"].as_array_mut() {
        list.extend([
            json!({ "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT } }),
            json!({ "name": "cursor", "in": "query", "schema": { "type": "string", "pattern": CURSOR_PATTERN },
              "description": "opaque: meta.next_cursor of the same list" }),
        ]);
    }
    let mut properties =
        json!({ key: { "type": "array", "items": schema_ref(item) }, "meta": schema_ref("Meta") });
    if key == list_keys::RECORDS {
        properties["nameservers"] = json!({ "type": "array", "items": { "type": "string" } });
    }
    value["responses"]["200"]["content"]["application/json"]["schema"] =
        json!({ "type": "object", "required": [key, "meta"], "properties": properties });
    (endpoint, value)
}

fn components(hosted_mode: &str) -> Value {
    json!({
        "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
        "schemas": {
            "Meta": { "type": "object", "properties": {
                "next_cursor": { "type": ["string", "null"] }, "has_more": { "type": "boolean" } } },
            "Site": { "type": "object", "required": ["slug"], "properties": {
                "slug": { "type": "string" }, "state": { "type": "string" }, "url": { "type": "string" },
                "health": { "type": "string" }, "deploy_state": { "type": "string" } } },
            "Health": { "type": "object", "properties": {
                "health": { "type": "string" }, "freshness": { "type": "string", "format": "date-time" },
                "open_incidents": { "type": "integer" } } },
            "CronJob": { "type": "object", "required": ["index", "schedule", "command"], "properties": {
                "index": { "type": "integer" }, "schedule": { "type": "string" }, "command": { "type": "string" } } },
            "CronJobWrite": { "type": "object", "required": ["schedule", "command"], "properties": {
                "schedule": { "type": "string", "description": "5-field cron expression", "pattern": SCHEDULE_PATTERN },
                "command": { "type": "string", "description": "php or wp command",
                    "maxLength": COMMAND_MAX, "pattern": COMMAND_PATTERN } } },
            "Domain": { "type": "object", "required": ["domain"], "properties": {
                "domain": { "type": "string" }, "expiry": { "type": "string", "format": "date" },
                "auto_renew": { "type": "boolean" }, "dnssec": { "type": "string", "enum": ["active", "inactive"] },
                "transfer_state": { "type": "string" } } },
            "Registrar": { "type": "object", "properties": {
                "nameservers": { "type": "object", "properties": {
                    "registry": { "type": "array", "items": { "type": "string" } },
                    "resolver": { "type": "array", "items": { "type": "string" } },
                    "state": { "type": "string", "enum": ["synced", "pending"] } } },
                "dnssec": { "type": "object", "properties": {
                    "state": { "type": "string", "enum": ["active", "inactive"] },
                    "our_ds": { "type": "array", "items": { "type": "string" } },
                    "registry_ds": { "type": "array", "items": { "type": "string" } } } },
                "lock": { "type": "boolean" }, "whois_privacy": { "type": "boolean" } } },
            "NameserversWrite": nameservers_write(hosted_mode),
            "Zone": { "type": "object", "required": ["zone"], "properties": {
                "zone": { "type": "string" }, "dnssec": { "type": "string", "enum": ["active", "inactive"] } } },
            "Record": { "type": "object", "required": ["id", "name", "type", "ttl", "content"], "properties": {
                "id": { "type": "integer" }, "name": { "type": "string" },
                "type": { "type": "string", "enum": RecordType::names() },
                "ttl": { "type": "integer" }, "content": { "type": "string" } } },
            "RecordWrite": record_write(),
            "ImportRecord": { "type": "object", "properties": {
                "name": { "type": "string" }, "type": { "type": "string" },
                "ttl": { "type": "integer" }, "content": { "type": "string" } } },
            "ProbeRequest": { "type": "object", "required": ["domain"], "properties": {
                "domain": { "type": "string", "maxLength": NAME_MAX, "pattern": DOMAIN_PATTERN } } },
            "ProbeResult": { "type": "object", "properties": {
                "domain": { "type": "string" }, "dry_run": { "type": "boolean" }, "hosted": { "type": "boolean" },
                "import_plan": { "type": "object", "properties": {
                    "records": { "type": "array", "items": schema_ref("ImportRecord") },
                    "skipped": { "type": "array", "items": { "type": "object" } } } },
                "registrar_steps": { "type": "array", "items": { "type": "object", "properties": {
                    "step": { "type": "string" }, "where": { "type": "string" },
                    "description": { "type": "string" }, "continue_url": { "type": "string" },
                    "nameservers": { "type": "array", "items": { "type": "string" } } } } } } },
            "Result": { "type": "object", "properties": { "result": { "type": "string" } } },
            "ErrorEnvelope": { "type": "object", "required": ["error"], "properties": {
                "error": { "type": "object", "required": ["type", "message", "request_id"], "properties": {
                    "type": { "type": "string", "enum": ["unauthenticated", "forbidden", "not_found", "method_not_allowed",
                        "conflict", "idempotency_conflict", "validation_error", "rate_limited", "upstream_error", "server_error"] },
                    "message": { "type": "string" },
                    "details": { "type": "object", "additionalProperties": { "type": "array", "items": { "type": "string" } } },
                    "request_id": { "type": "string" },
                    "continue_url": { "type": "string" } } } } }
        }
    })
}

/// Custom nameservers: 2 to 6 fully qualified host names, each once (outside the domain,
/// which a schema cannot say).
fn nameservers_write(hosted_mode: &str) -> Value {
    json!({
        "type": "object", "required": ["mode"],
        "properties": {
            "mode": { "type": "string", "enum": [hosted_mode, "custom"] },
            "nameservers": { "type": "array", "minItems": NAMESERVERS_MIN, "maxItems": NAMESERVERS_MAX,
                "uniqueItems": true,
                "items": { "type": "string", "maxLength": NAME_MAX, "pattern": FQDN_PATTERN } } },
        "if": { "properties": { "mode": { "const": "custom" } } },
        "then": { "required": ["nameservers"] }
    })
}

/// A record write, with the content rule of each type and the apex rules.
fn record_write() -> Value {
    let mut rules = vec![
        json!({ "if": { "properties": { "type": { "const": "A" } } },
                "then": { "properties": { "content": { "format": "ipv4" } } } }),
        json!({ "if": { "properties": { "type": { "const": "AAAA" } } },
                "then": { "properties": { "content": { "format": "ipv6" } } } }),
        json!({ "if": { "properties": { "type": { "enum": ["NS", "CNAME"] } } },
                "then": { "properties": { "name": { "not": { "const": "@" } } } } }),
    ];
    for rtype in RecordType::ALL {
        if let Some(pattern) = content_pattern(*rtype) {
            rules.push(json!({ "if": { "properties": { "type": { "const": rtype.as_str() } } },
                "then": { "properties": { "content": { "maxLength": NAME_MAX, "pattern": pattern } } } }));
        }
    }
    json!({
        "type": "object", "required": ["name", "type", "ttl", "content"],
        "properties": {
            "name": { "type": "string", "maxLength": NAME_MAX, "pattern": NAME_PATTERN },
            "type": { "type": "string", "enum": RecordType::names() },
            "ttl": { "type": "integer", "minimum": TTL_MIN, "maximum": TTL_MAX },
            "content": { "type": "string", "maxLength": CONTENT_MAX, "pattern": LINE_PATTERN } },
        "allOf": rules
    })
}
