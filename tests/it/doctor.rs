//! `dnscron doctor` against a healthy emulator, a bad token, a wrong prefix, an unreachable URL,
//! and a server that announces deprecation.

use dnscron_emulator::Seed;
use serde_json::json;

use crate::client::stub::{Reply, Stub};
use crate::common::emulator::start_emulator;
use crate::common::{Test, assert_cli_snapshot};

fn doctor(url: &str, token: &str) -> Test {
    Test::new().arg("doctor").api(url, token)
}

#[test]
fn a_healthy_server_passes_every_check() {
    let emu = start_emulator(Seed::example());
    // The snapshot holds all the output: the token is not in it.
    assert_cli_snapshot!("doctor_healthy", doctor(&emu.base_url(), "demo-token"));
    let routes = emu.counters().per_route;
    assert!(
        routes
            .keys()
            .all(|r| r.starts_with("GET ") || r.ends_with("/dns/zones/probe")),
        "doctor writes nothing: {routes:?}"
    );
}

#[test]
fn a_read_only_token_shows_no_dns_scope_and_still_passes() {
    let emu = start_emulator(Seed::example());
    assert_cli_snapshot!(doctor(&emu.base_url(), "readonly-token"));
}

#[test]
fn a_bad_token_fails_with_a_hint_and_is_never_printed() {
    let emu = start_emulator(Seed::example());
    let out = doctor(&emu.base_url(), "tok_not_valid_SECRET").snapshot();
    assert!(!out.contains("SECRET"), "the token is never printed: {out}");
    insta::with_settings!({filters => crate::common::filters()}, {
        insta::assert_snapshot!("doctor_bad_token", out);
    });
}

#[test]
fn a_wrong_prefix_is_told_apart_from_a_dead_server() {
    let emu = start_emulator(Seed::example());
    let url = emu.base_url().replace("/api/v1", "/api/v2");
    assert_cli_snapshot!(doctor(&url, "demo-token"));
}

#[test]
fn an_unreachable_url_fails_with_a_hint() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    assert_cli_snapshot!(doctor(
        &format!("http://127.0.0.1:{port}/api/v1"),
        "demo-token"
    ));
}

#[test]
fn missing_settings_are_user_errors() {
    assert_cli_snapshot!(Test::new().arg("doctor"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deprecation_and_an_unusual_description_fail_while_the_version_is_shown() {
    let stub = Stub::start(|seen| {
        let reply = match seen.path.as_str() {
            "/sites" => Reply::ok(json!({"sites": [], "meta": {"has_more": false}})),
            "/openapi.json" => Reply::ok(json!({"openapi": "3.1.0", "info": {"version": "1.3"}})),
            "/dns" => Reply::ok(json!({"zones": [], "meta": {"has_more": false}})),
            _ => Reply::error(404, "not_found", "no such thing"),
        };
        reply
            .header("deprecation", "@1767225600")
            .header("x-ratelimit-limit", "120")
            .header("x-ratelimit-remaining", "0")
    })
    .await;
    let url = stub.base_url.clone();
    let out = tokio::task::spawn_blocking(move || doctor(&url, "demo-token").snapshot())
        .await
        .unwrap();
    insta::with_settings!({filters => crate::common::filters()}, {
        insta::assert_snapshot!("doctor_deprecated", out);
    });
    let probe = stub
        .requests()
        .into_iter()
        .find(|s| s.path == "/dns/zones/probe");
    assert_eq!(
        probe.map(|s| s.body),
        Some(r#"{"domain":"example.com"}"#.to_string())
    );
}
