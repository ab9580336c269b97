//! The controller's HTTP face on `--listen`: `/metrics` for Prometheus, `/healthz` and `/readyz`
//! for Kubernetes' probes, `/status` for people and scripts.
//!
//! Both probes answer from flags alone, never from the API: an API outage is in the metrics and
//! the status, and must not take the pod out of its Service (readiness) or restart it
//! (liveness), which would stop the scrapes that show the outage. No handler reads a request
//! body, so a request costs the server its headers (bounded by hyper) and nothing more.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

use super::metrics::{Metrics, classic};

/// OpenMetrics 1.0, which Prometheus asks for first; it reads `# EOF` as a whole exposition.
pub const OPENMETRICS_CONTENT_TYPE: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// The classic text format, for a client whose `Accept` prefers it.
pub const CLASSIC_CONTENT_TYPE: &str = classic::CONTENT_TYPE;
const TEXT_CONTENT_TYPE: &str = "text/plain; charset=utf-8";
const JSON_CONTENT_TYPE: &str = "application/json";

/// `/status` before the first round finished: the same version as the loop's documents, no round.
pub const NO_ROUND_STATUS: &str = r#"{"status_version":1,"round":null}"#;
pub const NOT_READY: &str = "not ready: the first round has not finished\n";

/// What the loop tells the server: the metrics, readiness, the last round's status.
#[derive(Debug, Default)]
pub struct Shared {
    pub metrics: Metrics,
    ready: AtomicBool,
    status: Mutex<Option<String>>,
}

impl Shared {
    pub fn new(metrics: Metrics) -> Self {
        Self {
            metrics,
            ready: AtomicBool::new(false),
            status: Mutex::new(None),
        }
    }

    /// The first round finished, whatever its outcome: `/readyz` answers 200 from now on.
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// The last round's status document (JSON, written by the loop), served as it is.
    pub fn set_status(&self, json: String) {
        *self.status.lock().unwrap_or_else(PoisonError::into_inner) = Some(json);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    // A panic while the lock was held can only have happened before or after the one store:
    // the value is whole.
    pub fn status(&self) -> Option<String> {
        self.status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Serves the endpoints on `listener` until `shutdown` completes; then stops accepting, lets
/// the requests in flight finish and returns.
pub async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(shared))
        .with_graceful_shutdown(shutdown)
        .await
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/status", get(status))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(shared)
}

// The answer depends on `Accept`: a cache between the two must keep them apart.
async fn metrics(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok());
    let mut response = if classic::prefers_classic(accept) {
        with_type(
            StatusCode::OK,
            CLASSIC_CONTENT_TYPE,
            shared.metrics.encode_classic(),
        )
    } else {
        with_type(
            StatusCode::OK,
            OPENMETRICS_CONTENT_TYPE,
            shared.metrics.encode(),
        )
    };
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response
}

async fn healthz() -> Response {
    with_type(StatusCode::OK, TEXT_CONTENT_TYPE, "ok\n".to_owned())
}

async fn readyz(State(shared): State<Arc<Shared>>) -> Response {
    if shared.is_ready() {
        with_type(StatusCode::OK, TEXT_CONTENT_TYPE, "ready\n".to_owned())
    } else {
        with_type(
            StatusCode::SERVICE_UNAVAILABLE,
            TEXT_CONTENT_TYPE,
            NOT_READY.to_owned(),
        )
    }
}

async fn status(State(shared): State<Arc<Shared>>) -> Response {
    match shared.status() {
        Some(json) => with_type(StatusCode::OK, JSON_CONTENT_TYPE, json),
        None => with_type(
            StatusCode::SERVICE_UNAVAILABLE,
            JSON_CONTENT_TYPE,
            NO_ROUND_STATUS.to_owned(),
        ),
    }
}

// The fallback also sees the known paths' other methods when the method router has none, so the
// method is judged first: any method but GET and HEAD is a 405, on any path.
async fn not_found(method: Method) -> Response {
    if method == Method::GET || method == Method::HEAD {
        with_type(
            StatusCode::NOT_FOUND,
            TEXT_CONTENT_TYPE,
            "not found: this server has /metrics, /healthz, /readyz and /status\n".to_owned(),
        )
    } else {
        method_not_allowed().await
    }
}

async fn method_not_allowed() -> Response {
    let mut response = with_type(
        StatusCode::METHOD_NOT_ALLOWED,
        TEXT_CONTENT_TYPE,
        "method not allowed: only GET and HEAD\n".to_owned(),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    response
}

fn with_type(status: StatusCode, content_type: &'static str, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}
