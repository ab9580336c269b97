//! The admin endpoint (outside /api/v1, loopback only, no token): counters, state, settings,
//! and the switches a script or a walk-through flips: DNSSEC (the portal step), an outage, a
//! token revoked.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::settings::{Faults, Gaps, RateLimit, validate_settings};
use crate::shared::{Shared, cron_index, lock};

pub(crate) async fn counters(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(serde_json::to_value(lock(&shared.counters).clone()).unwrap_or_default())
}

pub(crate) async fn state(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let gaps = shared.settings().gaps;
    let snapshot = lock(&shared.state).snapshot(|site, slot| cron_index(&gaps, site, slot));
    Json(serde_json::to_value(snapshot).unwrap_or_default())
}

/// The settings that may change at run time.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RuntimeSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaps: Option<Gaps>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<Faults>,
}

pub(crate) async fn settings(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let s = shared.settings();
    let current = RuntimeSettings {
        gaps: Some(s.gaps),
        rate_limit: Some(s.rate_limit),
        faults: Some(s.faults),
    };
    Json(serde_json::to_value(current).unwrap_or_default())
}

/// `PUT /_admin/settings` with any of `gaps`, `rate_limit`, `faults` (each replaced whole).
pub(crate) async fn set_settings(
    State(shared): State<Arc<Shared>>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let new: RuntimeSettings = serde_json::from_slice(&body)
        .map_err(|e| ApiError::invalid("body", format!("not valid settings: {e}")))?;
    let current = shared.settings();
    validate_settings(
        new.gaps.as_ref().unwrap_or(&current.gaps),
        new.rate_limit.as_ref().unwrap_or(&current.rate_limit),
        new.faults.as_ref().unwrap_or(&current.faults),
    )
    .map_err(|m| ApiError::invalid("body", m))?;
    if let Some(faults) = &new.faults {
        lock(&shared.faults).reseed(faults.seed);
    }
    if new.rate_limit.is_some() {
        lock(&shared.buckets).reset();
    }
    shared.update_settings(|s| {
        if let Some(g) = new.gaps {
            s.gaps = g;
        }
        if let Some(r) = new.rate_limit {
            s.rate_limit = r;
        }
        if let Some(f) = new.faults {
            s.faults = f;
        }
    });
    Ok(settings(State(shared)).await)
}

/// `PUT /_admin/domains/{domain}/dnssec` with `{"active": false}`: what the customer does in the
/// portal after a 409 `continue_url` (turn DNSSEC off before a nameserver change).
pub(crate) async fn set_dnssec(
    State(shared): State<Arc<Shared>>,
    Path(domain): Path<String>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Dnssec {
        active: bool,
    }
    let want: Dnssec = serde_json::from_slice(&body)
        .map_err(|e| ApiError::invalid("body", format!("expected {{\"active\": bool}}: {e}")))?;
    if !shared.set_dnssec(&domain, want.active) {
        return Err(ApiError::not_found(format!("no domain {domain}")));
    }
    Ok(Json(
        serde_json::json!({ "domain": domain, "active": want.active }),
    ))
}

/// `{"active": bool}`, the body of the on/off switches.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Switch {
    active: bool,
}

fn switch(body: &Bytes) -> ApiResult<bool> {
    let switch: Switch = serde_json::from_slice(body)
        .map_err(|e| ApiError::invalid("body", format!("expected {{\"active\": bool}}: {e}")))?;
    Ok(switch.active)
}

/// `GET /_admin/outage`: whether every API request is answered 503.
pub(crate) async fn outage(State(shared): State<Arc<Shared>>) -> Json<Value> {
    let active = lock(&shared.faults).outage;
    Json(serde_json::json!({ "active": active }))
}

/// `PUT /_admin/outage` with `{"active": true}`: every API request is answered 503, nothing
/// changes, until `{"active": false}` (`EmulatorHandle::set_outage`).
pub(crate) async fn set_outage(
    State(shared): State<Arc<Shared>>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    let active = switch(&body)?;
    lock(&shared.faults).outage = active;
    Ok(Json(serde_json::json!({ "active": active })))
}

/// `PUT /_admin/tokens/revoked` with `{"token": "…", "revoked": true}`: the token's requests
/// are answered 401 from now on, as after its owner revoked it in the portal; `false` restores
/// it (`EmulatorHandle::set_token_revoked`). The token goes in the body, never the path, so no
/// access log of a proxy keeps it. 404 for a token the seed doesn't have.
pub(crate) async fn set_token_revoked(
    State(shared): State<Arc<Shared>>,
    body: Bytes,
) -> ApiResult<Json<Value>> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Revocation {
        token: String,
        revoked: bool,
    }
    let want: Revocation = serde_json::from_slice(&body).map_err(|e| {
        ApiError::invalid(
            "body",
            format!("expected {{\"token\": string, \"revoked\": bool}}: {e}"),
        )
    })?;
    if !shared.tokens.contains_key(&want.token) {
        return Err(ApiError::not_found("no such token in the seed"));
    }
    let mut faults = lock(&shared.faults);
    match want.revoked {
        true => faults.revoked.insert(want.token),
        false => faults.revoked.remove(&want.token),
    };
    Ok(Json(serde_json::json!({ "revoked": want.revoked })))
}
