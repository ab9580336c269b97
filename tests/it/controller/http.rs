//! The endpoints of `--listen`, each asserted whole: status, content type, body.

use std::sync::Arc;
use std::time::Duration;

use dnscron::cli::controller::http::Shared;
use dnscron::cli::controller::metrics::{Metrics, RevisionSource};
use dnscron_core::controller::{RoundOutcome, Trigger};
use reqwest::{Method, StatusCode};

use super::Served;
use crate::common::emulator::client;

const TEXT: &str = "text/plain; charset=utf-8";
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Status, content type and body of one request.
async fn request(method: Method, url: &str) -> (StatusCode, String, String) {
    let response = client().request(method, url).send().await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, content_type, response.text().await.unwrap())
}

async fn get(url: &str) -> (StatusCode, String, String) {
    request(Method::GET, url).await
}

fn shared() -> Arc<Shared> {
    Arc::new(Shared::new(Metrics::new()))
}

#[tokio::test]
async fn healthz_answers_ok_before_and_after_the_first_round() {
    let shared = shared();
    let served = Served::start(Arc::clone(&shared)).await;
    let ok = (StatusCode::OK, TEXT.to_owned(), "ok\n".to_owned());
    assert_eq!(get(&served.url("/healthz")).await, ok);
    shared.set_ready();
    assert_eq!(get(&served.url("/healthz")).await, ok);
    served.stop().await.unwrap();
}

#[tokio::test]
async fn readyz_turns_ready_when_the_first_round_finished() {
    let shared = shared();
    let served = Served::start(Arc::clone(&shared)).await;
    assert_eq!(
        get(&served.url("/readyz")).await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            TEXT.to_owned(),
            "not ready: the first round has not finished\n".to_owned()
        )
    );
    // A round that ended in an error counts: readiness is about the process, not the API.
    shared
        .metrics
        .round_finished("error", Duration::from_secs(1));
    shared.set_ready();
    assert_eq!(
        get(&served.url("/readyz")).await,
        (StatusCode::OK, TEXT.to_owned(), "ready\n".to_owned())
    );
    served.stop().await.unwrap();
}

#[tokio::test]
async fn status_is_503_with_no_round_then_the_document_the_loop_set() {
    let shared = shared();
    let served = Served::start(Arc::clone(&shared)).await;
    assert_eq!(
        get(&served.url("/status")).await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "application/json".to_owned(),
            r#"{"status_version":1,"round":null}"#.to_owned()
        )
    );
    let first = r#"{"status_version":1,"round":{"outcome":"converged"}}"#;
    shared.set_status(first.to_owned());
    assert_eq!(
        get(&served.url("/status")).await,
        (
            StatusCode::OK,
            "application/json".to_owned(),
            first.to_owned()
        )
    );
    let second = r#"{"status_version":1,"round":{"outcome":"drift"}}"#;
    shared.set_status(second.to_owned());
    assert_eq!(
        get(&served.url("/status")).await,
        (
            StatusCode::OK,
            "application/json".to_owned(),
            second.to_owned()
        )
    );
    served.stop().await.unwrap();
}

#[tokio::test]
async fn metrics_is_the_openmetrics_exposition_of_the_shared_metrics() {
    let shared = shared();
    shared.metrics.round_started(Trigger::Start.name());
    shared.metrics.set_revision(
        "0123456789abcdef0123456789abcdef01234567",
        RevisionSource::Git,
    );
    shared
        .metrics
        .round_finished(RoundOutcome::Converged.name(), Duration::from_millis(300));
    let served = Served::start(Arc::clone(&shared)).await;

    let (status, content_type, body) = get(&served.url("/metrics")).await;
    assert_eq!(
        (status, content_type.as_str()),
        (StatusCode::OK, OPENMETRICS)
    );
    assert_eq!(body, shared.metrics.encode());
    assert!(
        body.contains(
            "dnscron_controller_revision_info{revision=\"0123456789abcdef0123456789abcdef01234567\",source=\"git\"} 1\n"
        ),
        "{body}"
    );
    assert!(
        body.contains("dnscron_controller_rounds_total{outcome=\"converged\"} 1\n"),
        "{body}"
    );
    assert!(body.ends_with("# EOF\n"), "{body}");

    // A scrape sees what the loop reported since the last one.
    shared
        .metrics
        .round_finished(RoundOutcome::Converged.name(), Duration::from_millis(300));
    let (_, _, body) = get(&served.url("/metrics")).await;
    assert!(
        body.contains("dnscron_controller_rounds_total{outcome=\"converged\"} 2\n"),
        "{body}"
    );
    served.stop().await.unwrap();
}

/// `GET /metrics` with an `Accept` header: status, content type, `Vary`, body.
async fn metrics_accepting(url: &str, accept: Option<&str>) -> (String, String, String) {
    let mut request = client().get(url);
    if let Some(accept) = accept {
        request = request.header(reqwest::header::ACCEPT, accept);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|v: &reqwest::header::HeaderValue| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let (content_type, vary) = (
        header(reqwest::header::CONTENT_TYPE),
        header(reqwest::header::VARY),
    );
    (content_type, vary, response.text().await.unwrap())
}

#[tokio::test]
async fn metrics_answers_the_classic_text_format_to_a_client_that_prefers_it() {
    let shared = shared();
    shared
        .metrics
        .round_finished(RoundOutcome::Converged.name(), Duration::from_millis(4));
    let served = Served::start(Arc::clone(&shared)).await;
    let url = served.url("/metrics");
    const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";

    // Prometheus's own Accept, curl's, none: OpenMetrics.
    let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    for accept in [Some(prometheus), Some("*/*"), None] {
        let (content_type, vary, body) = metrics_accepting(&url, accept).await;
        assert_eq!(
            (content_type.as_str(), vary.as_str()),
            (OPENMETRICS, "accept")
        );
        assert_eq!(body, shared.metrics.encode());
    }
    // A client asking for the text format: no `# EOF`, counters named with `_total`.
    for accept in ["text/plain", "text/plain;version=0.0.4;q=0.9,*/*;q=0.1"] {
        let (content_type, vary, body) = metrics_accepting(&url, Some(accept)).await;
        assert_eq!((content_type.as_str(), vary.as_str()), (CLASSIC, "accept"));
        assert_eq!(body, shared.metrics.encode_classic());
        assert!(
            !body.contains("# EOF") && !body.contains("# UNIT"),
            "{body}"
        );
        assert!(
            body.contains("# TYPE dnscron_controller_rounds_total counter\n"),
            "{body}"
        );
        assert!(
            body.contains("dnscron_controller_round_duration_seconds_bucket{le=\"0.005\"} 1\n"),
            "{body}"
        );
    }
    served.stop().await.unwrap();
}

#[tokio::test]
async fn head_answers_like_get_without_a_body() {
    let shared = shared();
    let served = Served::start(shared).await;
    assert_eq!(
        request(Method::HEAD, &served.url("/metrics")).await,
        (StatusCode::OK, OPENMETRICS.to_owned(), String::new())
    );
    assert_eq!(
        request(Method::HEAD, &served.url("/healthz")).await,
        (StatusCode::OK, TEXT.to_owned(), String::new())
    );
    served.stop().await.unwrap();
}

#[tokio::test]
async fn any_other_path_is_404() {
    let served = Served::start(shared()).await;
    let not_found = (
        StatusCode::NOT_FOUND,
        TEXT.to_owned(),
        "not found: this server has /metrics, /healthz, /readyz and /status\n".to_owned(),
    );
    for path in ["/", "/metrics/", "/status/x", "/api/v1/targets", "/METRICS"] {
        assert_eq!(get(&served.url(path)).await, not_found, "{path}");
    }
    served.stop().await.unwrap();
}

#[tokio::test]
async fn any_method_but_get_and_head_is_405_on_every_path() {
    let served = Served::start(shared()).await;
    for method in [
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
    ] {
        for path in ["/metrics", "/healthz", "/readyz", "/status", "/elsewhere"] {
            let response = client()
                .request(method.clone(), served.url(path))
                .body("ignored")
                .send()
                .await
                .unwrap();
            assert_eq!(
                response.status(),
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
            assert_eq!(
                response.headers()[reqwest::header::ALLOW],
                "GET, HEAD",
                "{method} {path}"
            );
            assert_eq!(
                response.headers()[reqwest::header::CONTENT_TYPE],
                TEXT,
                "{method} {path}"
            );
            assert_eq!(
                response.text().await.unwrap(),
                "method not allowed: only GET and HEAD\n",
                "{method} {path}"
            );
        }
    }
    served.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_ends_serve_and_closes_the_port() {
    let served = Served::start(shared()).await;
    let addr = served.addr;
    let http = client();
    // A kept-alive connection from an earlier request must not hold the shutdown up.
    assert_eq!(
        http.get(served.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    served.stop().await.unwrap();
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "still listening on {addr}"
    );
    drop(http);
}
