//! `POST /dns/zones/probe`: a dry run of importing a domain's zone. Changes nothing.
//!
//! Shape (the spec names only the import plan and the registrar steps; documented in
//! docs/emulator.md): `{domain, dry_run: true, hosted, import_plan: {records, skipped},
//! registrar_steps: [{step, where, description, nameservers?, continue_url?}]}`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::{Extension, Json};
use dnscron_provider::Endpoint;
use serde_json::{Value, json};

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::shared::{Settings, Shared, lock};
use crate::state::{is_system_record, relative_name, same_hosts};
use crate::validate::{check_hostname, json_object};

pub(crate) async fn probe(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    who.require(Endpoint::ProbeZone)?;
    let body = json_object(&body)?;
    let domain = match body.get("domain") {
        Some(Value::String(d)) => d.trim().trim_end_matches('.').to_ascii_lowercase(),
        Some(_) => return Err(ApiError::invalid("domain", "must be a string")),
        None => return Err(ApiError::invalid("domain", "is required")),
    };
    if check_hostname(&domain).is_err() || !domain.contains('.') {
        return Err(ApiError::invalid(
            "domain",
            format!("`{domain}` is not a domain name"),
        ));
    }
    let settings = shared.settings();
    let state = lock(&shared.state);
    if let Some(zone) = state.zones.get(&domain) {
        let records: Vec<Value> = zone
            .records
            .values()
            .filter(|r| !r.hidden)
            .map(|r| json!({"name": r.name, "type": r.rtype, "ttl": r.ttl, "content": r.content}))
            .collect();
        let delegated_here = state
            .domains
            .get(&domain)
            .is_none_or(|d| same_hosts(&d.registry_ns, &settings.service_nameservers));
        let steps = if delegated_here {
            Vec::new()
        } else {
            vec![set_ns_step(&settings, &domain, "portal")]
        };
        return Ok(Json(plan(&domain, true, records, Vec::new(), steps)));
    }
    let Some(ext) = state.external.get(&domain) else {
        return Err(ApiError::not_found(format!(
            "`{domain}` has no zone here and no public zone the probe can read"
        )));
    };
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    for r in &ext.records {
        let name = relative_name(&r.name, &domain);
        let rtype = r.rtype.to_ascii_uppercase();
        let item = json!({"name": name, "type": rtype, "ttl": r.ttl, "content": r.content});
        if is_system_record(&name, &rtype) {
            skipped.push(json!({"record": item, "reason": "managed by the service after import"}));
        } else {
            records.push(item);
        }
    }
    let mut steps = Vec::new();
    if ext.dnssec {
        steps.push(json!({
            "step": "remove_ds",
            "where": "registrar",
            "description": format!("remove the DS records of {domain} at its registrar, then wait for the DS TTL to expire"),
        }));
    }
    let place = if ext.registrar.is_some() {
        "registrar"
    } else {
        "portal"
    };
    steps.push(set_ns_step(&settings, &domain, place));
    Ok(Json(plan(&domain, false, records, skipped, steps)))
}

fn set_ns_step(settings: &Settings, domain: &str, place: &str) -> Value {
    let mut step = json!({
        "step": "set_nameservers",
        "where": place,
        "nameservers": settings.service_nameservers,
        "description": format!("delegate {domain} to {}", settings.service_nameservers.join(", ")),
    });
    if place == "portal" {
        step["continue_url"] = json!(format!(
            "{}/domains/{domain}/nameservers",
            settings.portal_url
        ));
    }
    step
}

fn plan(
    domain: &str,
    hosted: bool,
    records: Vec<Value>,
    skipped: Vec<Value>,
    steps: Vec<Value>,
) -> Value {
    json!({
        "domain": domain,
        "dry_run": true,
        "hosted": hosted,
        "import_plan": { "records": records, "skipped": skipped },
        "registrar_steps": steps,
    })
}
