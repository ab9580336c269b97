//! The router: every endpoint of issue 3 under /api/v1, the admin endpoint, and the
//! fallbacks that answer unknown paths and methods with the error envelope.

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{delete, get, post, put};

use super::error::ApiError;
use super::pipeline::pipeline;
use super::shared::Shared;

mod admin;
mod dns;
mod domains;
mod probe;
mod sites;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/api/v1/sites", get(sites::list))
        .route("/api/v1/sites/{slug}/health", get(sites::health))
        .route(
            "/api/v1/sites/{slug}/cron",
            get(sites::list_cron).post(sites::create_cron),
        )
        .route(
            "/api/v1/sites/{slug}/cron/{index}",
            delete(sites::delete_cron),
        )
        .route("/api/v1/domains", get(domains::list))
        .route("/api/v1/domains/{domain}", get(domains::detail))
        .route(
            "/api/v1/domains/{domain}/registrar",
            get(domains::registrar),
        )
        .route(
            "/api/v1/domains/{domain}/nameservers",
            put(domains::set_nameservers),
        )
        .route("/api/v1/dns", get(dns::list_zones))
        .route("/api/v1/dns/zones/probe", post(probe::probe))
        .route(
            "/api/v1/dns/{zone}/records",
            get(dns::list_records).post(dns::create_record),
        )
        .route(
            "/api/v1/dns/{zone}/records/{record}",
            put(dns::update_record).delete(dns::delete_record),
        )
        .route("/api/v1/openapi.json", get(super::openapi::handler))
        .route("/_admin/counters", get(admin::counters))
        .route("/_admin/state", get(admin::state))
        .route(
            "/_admin/settings",
            get(admin::settings).put(admin::set_settings),
        )
        .route("/_admin/domains/{domain}/dnssec", put(admin::set_dnssec))
        .route("/_admin/outage", get(admin::outage).put(admin::set_outage))
        .route("/_admin/tokens/revoked", put(admin::set_token_revoked))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(from_fn_with_state(shared.clone(), pipeline))
        .with_state(shared)
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no endpoint at {}", uri.path()))
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::method_not_allowed(format!("{method} is not allowed on {}", uri.path()))
}
