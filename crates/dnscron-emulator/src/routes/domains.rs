//! Domains, registrar state and the nameserver mode.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::{Extension, Json};
use dnscron_provider::Endpoint;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::json_body::list_keys;
use crate::pagination::{PageParams, page};
use crate::render::{add_extra, hostnames};
use crate::settings::Gaps;
use crate::shared::{Shared, lock};
use crate::state::DomainState;
use crate::validate::nameservers_input;

pub(crate) fn dnssec_word(active: bool) -> &'static str {
    if active { "active" } else { "inactive" }
}

fn domain_json(name: &str, d: &DomainState, extra: bool) -> Value {
    let mut value = json!({
        "domain": name,
        "expiry": d.expiry,
        "auto_renew": d.auto_renew,
        "dnssec": dnssec_word(d.dnssec),
        "transfer_state": d.transfer_state,
    });
    if extra {
        add_extra(
            &mut value,
            json!({"registrar": "veldhost", "privacy_service": "included"}),
        );
    }
    value
}

pub(crate) async fn list(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let params = PageParams::parse(query.as_deref(), list_keys::DOMAINS)?;
    let extra = shared.settings().gaps.extra_fields;
    let state = lock(&shared.state);
    let rows = state
        .domains
        .iter()
        .map(|(name, d)| (name.clone(), domain_json(name, d, extra)));
    let (items, meta) = page(rows, &params, list_keys::DOMAINS)?;
    Ok(Json(json!({ "domains": items, "meta": meta })))
}

fn lookup<'a>(
    domains: &'a mut std::collections::BTreeMap<String, DomainState>,
    name: &str,
) -> ApiResult<(String, &'a mut DomainState)> {
    let key = name.trim_end_matches('.').to_ascii_lowercase();
    match domains.get_mut(&key) {
        Some(d) => Ok((key, d)),
        None => Err(ApiError::not_found(format!(
            "no domain `{name}` in this account; see GET /domains"
        ))),
    }
}

pub(crate) async fn detail(
    State(shared): State<Arc<Shared>>,
    Path(domain): Path<String>,
) -> ApiResult<Json<Value>> {
    let gaps = shared.settings().gaps;
    let mut state = lock(&shared.state);
    let (name, d) = lookup(&mut state.domains, &domain)?;
    let mut value = domain_json(&name, d, gaps.extra_fields);
    add_extra(
        &mut value,
        json!({
            "nameservers": hostnames(&gaps, &d.registry_ns),
            "lock": d.lock,
            "whois_privacy": d.whois_privacy,
        }),
    );
    Ok(Json(value))
}

/// A DS record the service would publish for the domain: deterministic, plausible shape.
fn our_ds(domain: &str) -> String {
    let digest = Sha256::digest(domain.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02X}")).collect();
    let key_tag = u16::from_be_bytes([digest[0], digest[1]]);
    format!("{key_tag} 13 2 {hex}")
}

fn registrar_json(gaps: &Gaps, name: &str, d: &DomainState) -> Value {
    let ours = d.our_ds.clone().unwrap_or_else(|| vec![our_ds(name)]);
    let registry_ds = match &d.registry_ds {
        Some(ds) => ds.clone(),
        None if d.dnssec => ours.clone(),
        None => Vec::new(),
    };
    let state = d.ns_state.clone().unwrap_or_else(|| {
        let word = if d.nameservers_synced() {
            "synced"
        } else {
            "pending"
        };
        word.to_string()
    });
    json!({
        "nameservers": {
            "registry": hostnames(gaps, &d.registry_ns),
            "resolver": hostnames(gaps, &d.resolver_ns),
            "state": state,
        },
        "dnssec": {
            "state": dnssec_word(d.dnssec),
            "our_ds": ours,
            "registry_ds": registry_ds,
        },
        "lock": d.lock,
        "whois_privacy": d.whois_privacy,
    })
}

pub(crate) async fn registrar(
    State(shared): State<Arc<Shared>>,
    Path(domain): Path<String>,
) -> ApiResult<Json<Value>> {
    let gaps = shared.settings().gaps;
    let mut state = lock(&shared.state);
    let (name, d) = lookup(&mut state.domains, &domain)?;
    Ok(Json(registrar_json(&gaps, &name, d)))
}

pub(crate) async fn set_nameservers(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path(domain): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    who.require(Endpoint::SetNameservers)?;
    let settings = shared.settings();
    let mut state = lock(&shared.state);
    let (name, d) = lookup(&mut state.domains, &domain)?;
    let (hosted, list) = nameservers_input(&body, &name, &settings.gaps.hosted_mode_value)?;
    if d.dnssec {
        return Err(ApiError::conflict(
            format!(
                "DNSSEC is active on {name}; turn it off in the portal before changing nameservers"
            ),
            format!(
                "{}/domains/{name}/dnssec?next=nameservers",
                settings.portal_url
            ),
        ));
    }
    let target = if hosted {
        settings.service_nameservers.clone()
    } else {
        list.iter()
            .map(|ns| ns.trim_end_matches('.').to_ascii_lowercase())
            .collect()
    };
    // The emulator has no resolver lag: what the registry delegates to is live at once.
    d.registry_ns = target.clone();
    d.resolver_ns = target;
    d.ns_state = None;
    let registrar = registrar_json(&settings.gaps, &name, d);
    Ok(Json(json!({
        "result": "nameservers_updated",
        "domain": name,
        "nameservers": registrar["nameservers"],
    })))
}
