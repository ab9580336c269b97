//! Sites, health and cron jobs.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use dnscron_provider::Endpoint;
use serde_json::{Value, json};

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::json_body::list_keys;
use crate::pagination::{PageParams, page};
use crate::render::add_extra;
use crate::settings::CronDeleteAnswer;
use crate::shared::{Shared, cron_index, cron_slot, lock};
use crate::state::{CronEntry, SiteState};
use crate::validate::{CRON_MAX, cron_input};

pub(crate) async fn list(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let params = PageParams::parse(query.as_deref(), list_keys::SITES)?;
    let extra = shared.settings().gaps.extra_fields;
    let state = lock(&shared.state);
    let rows = state
        .sites
        .iter()
        .filter(|(slug, _)| who.may_see_site(slug))
        .map(|(slug, site)| (slug.clone(), site_json(slug, site, extra)));
    let (items, meta) = page(rows, &params, list_keys::SITES)?;
    Ok(Json(json!({ "sites": items, "meta": meta })))
}

fn site_json(slug: &str, site: &SiteState, extra: bool) -> Value {
    let active = site.state == "active";
    let mut value = json!({
        "slug": slug,
        "state": site.state,
        "url": site.url,
        "health": if active { "healthy" } else { "unknown" },
        "deploy_state": if active { "deployed" } else { "idle" },
    });
    if extra {
        add_extra(
            &mut value,
            json!({"plan": "business", "php_version": "8.3"}),
        );
    }
    value
}

/// Site lookup shared by the per-site endpoints: pinned (403) then existing (404).
fn with_site<T>(
    shared: &Shared,
    who: &Principal,
    slug: &str,
    f: impl FnOnce(&mut SiteState) -> ApiResult<T>,
) -> ApiResult<T> {
    who.require_site(slug)?;
    let mut state = lock(&shared.state);
    let site = state
        .sites
        .get_mut(slug)
        .ok_or_else(|| ApiError::not_found(format!("no site `{slug}`; see GET /sites")))?;
    f(site)
}

pub(crate) async fn health(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path(slug): Path<String>,
) -> ApiResult<Json<Value>> {
    with_site(&shared, &who, &slug, |site| {
        let active = site.state == "active";
        Ok(Json(json!({
            "health": if active { "healthy" } else { "unknown" },
            "freshness": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "open_incidents": 0,
        })))
    })
}

pub(crate) async fn list_cron(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path(slug): Path<String>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let list = format!("cron:{slug}");
    let params = PageParams::parse(query.as_deref(), &list)?;
    let gaps = shared.settings().gaps;
    with_site(&shared, &who, &slug, |site| {
        let rows = site
            .cron
            .iter()
            .map(|(slot, job)| (*slot, cron_json(cron_index(&gaps, site, *slot), job)));
        let (items, meta) = page(rows, &params, &list)?;
        Ok(Json(json!({ (list_keys::CRON_JOBS): items, "meta": meta })))
    })
}

fn cron_json(index: i64, job: &CronEntry) -> Value {
    json!({ "index": index, "schedule": job.schedule, "command": job.command })
}

fn require_active(shared: &Shared, slug: &str, site: &SiteState) -> ApiResult<()> {
    if site.state == "active" {
        return Ok(());
    }
    let portal = shared.settings().portal_url;
    Err(ApiError::conflict(
        format!(
            "the site `{slug}` is {}; cron changes need an active site. Reactivate it in the portal",
            site.state
        ),
        format!("{portal}/sites/{slug}/reactivate"),
    ))
}

pub(crate) async fn create_cron(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path(slug): Path<String>,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    who.require(Endpoint::CreateCronJob)?;
    let gaps = shared.settings().gaps;
    with_site(&shared, &who, &slug, |site| {
        let (schedule, command) = cron_input(&body)?;
        require_active(&shared, &slug, site)?;
        if site.cron.len() >= CRON_MAX {
            return Err(ApiError::invalid(
                "cron_jobs",
                format!("a site has at most {CRON_MAX} cron jobs; delete one first"),
            ));
        }
        let slot = site.next_slot;
        site.next_slot += 1;
        let job = CronEntry { schedule, command };
        let value = cron_json(0, &job);
        site.cron.insert(slot, job);
        let mut value = value;
        value["index"] = json!(cron_index(&gaps, site, slot));
        Ok((StatusCode::CREATED, Json(value)))
    })
}

pub(crate) async fn delete_cron(
    State(shared): State<Arc<Shared>>,
    Extension(who): Extension<Principal>,
    Path((slug, index)): Path<(String, String)>,
) -> ApiResult<Response> {
    who.require(Endpoint::DeleteCronJob)?;
    let gaps = shared.settings().gaps;
    with_site(&shared, &who, &slug, |site| {
        let index: i64 = index
            .parse()
            .map_err(|_| ApiError::invalid("index", format!("`{index}` is not an integer")))?;
        require_active(&shared, &slug, site)?;
        let slot = cron_slot(&gaps, site, index).ok_or_else(|| {
            ApiError::not_found(format!(
                "site `{slug}` has no cron job at index {index}; list the jobs again"
            ))
        })?;
        let job = site
            .cron
            .remove(&slot)
            .ok_or_else(|| ApiError::server("cron slot vanished"))?;
        Ok(match gaps.cron_delete_answer {
            CronDeleteAnswer::Job => {
                let mut value = cron_json(index, &job);
                value["result"] = json!("removed");
                Json(value).into_response()
            }
            CronDeleteAnswer::Result => Json(json!({ "result": "removed" })).into_response(),
            CronDeleteAnswer::Empty => StatusCode::OK.into_response(),
        })
    })
}
