use serde_json::json;

use super::demo;
use crate::common::emulator::{Api, example_emulator};

#[tokio::test]
async fn admin_endpoint_serves_counters_state_and_settings_without_a_token() {
    let emu = example_emulator();
    demo(&emu).get("/sites").await;
    demo(&emu).get("/nope").await;
    let admin = Api::anonymous(&emu.admin_url());
    let counters = admin.get("/counters").await;
    assert_eq!(counters.status, 200);
    assert_eq!(counters.body["requests"], 2);
    assert_eq!(counters.body["per_route"]["GET /api/v1/sites"], 1);
    assert_eq!(counters.body["per_route"]["unmatched"], 1);
    let state = admin.get("/state").await;
    let com = state.body["zones"]["example.com"].as_array().unwrap();
    assert!(
        com.iter()
            .any(|r| r["type"] == "SOA" && r["hidden"] == true)
    );
    assert_eq!(
        state.body["sites"]["blog"]["cron"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let set = admin
        .put("/settings", json!({"gaps": {"cron_index_base": 1}}))
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    assert_eq!(emu.gaps().cron_index_base, 1);
    assert_eq!(
        demo(&emu).get("/sites/blog/cron").await.body["cron_jobs"][0]["index"],
        1
    );
    for bad in [json!({"gapz": {}}), json!({"gaps": {"cron_index_base": 2}})] {
        assert_eq!(admin.put("/settings", bad).await.status, 422);
    }
    // The admin endpoint is not counted as API traffic.
    assert_eq!(emu.counters().requests, 3);
}

#[tokio::test]
async fn async_start_serves_and_shutdown_returns_the_counters() {
    let seed = dnscron_emulator::Seed::from_path(
        crate::common::repo_root().join("examples/emulator-seed.yaml"),
    )
    .unwrap();
    let emu = dnscron_emulator::start(seed, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    assert!(emu.base_url().starts_with("http://127.0.0.1:") && emu.base_url().ends_with("/api/v1"));
    let api = Api::new(&emu.base_url(), "demo-token");
    assert_eq!(api.get("/domains").await.status, 200);
    let counters = emu.shutdown().await;
    assert_eq!(counters.requests, 1);
    assert_eq!(counters.route("GET /api/v1/domains"), 1);
}

#[test]
fn a_seed_that_does_not_parse_names_the_problem() {
    let err = dnscron_emulator::Seed::from_yaml_str(
        "zones:\n  - zone: a.example\n    records: [{name: x}]\n",
    )
    .unwrap_err()
    .to_string();
    let missing = dnscron_emulator::Seed::from_path("/nonexistent/seed.yaml")
        .unwrap_err()
        .to_string();
    // The missing key, and the path that was not found.
    insta::assert_snapshot!(format!("{err}\n{missing}"));
}

/// The outage switch over HTTP: every API request 503 while it is on, nothing changed, and the
/// API back when it is off; a body that isn't the switch is refused.
#[tokio::test]
async fn the_outage_switch_is_reachable_over_the_admin_endpoint() {
    let emu = example_emulator();
    let admin = Api::anonymous(&emu.admin_url());
    assert_eq!(admin.get("/outage").await.body, json!({"active": false}));
    let on = admin.put("/outage", json!({"active": true})).await;
    assert_eq!((on.status, on.body), (200, json!({"active": true})));
    assert_eq!(admin.get("/outage").await.body, json!({"active": true}));
    assert_eq!(demo(&emu).get("/domains").await.status, 503);
    // The admin endpoint itself stays up: that is how the outage ends.
    let off = admin.put("/outage", json!({"active": false})).await;
    assert_eq!(off.status, 200);
    assert_eq!(demo(&emu).get("/domains").await.status, 200);
    for bad in [json!({"active": "yes"}), json!({"on": true}), json!({})] {
        assert_eq!(admin.put("/outage", bad).await.status, 422);
    }
    assert_eq!(admin.get("/outage").await.body, json!({"active": false}));
}

/// Revoking a token over HTTP: its requests are 401 while another token still works; restored,
/// it works again; a token the seed doesn't have is a 404, a malformed body a 422.
#[tokio::test]
async fn a_token_is_revoked_and_restored_over_the_admin_endpoint() {
    let emu = example_emulator();
    let admin = Api::anonymous(&emu.admin_url());
    let revoked = admin
        .put(
            "/tokens/revoked",
            json!({"token": "demo-token", "revoked": true}),
        )
        .await;
    assert_eq!(
        (revoked.status, revoked.body),
        (200, json!({"revoked": true}))
    );
    assert_eq!(demo(&emu).get("/domains").await.status, 401);
    assert_eq!(
        Api::new(&emu.base_url(), "readonly-token")
            .get("/domains")
            .await
            .status,
        200
    );
    let restored = admin
        .put(
            "/tokens/revoked",
            json!({"token": "demo-token", "revoked": false}),
        )
        .await;
    assert_eq!(restored.status, 200);
    assert_eq!(demo(&emu).get("/domains").await.status, 200);
    let unknown = admin
        .put(
            "/tokens/revoked",
            json!({"token": "nobodys", "revoked": true}),
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert!(
        !unknown.body.to_string().contains("nobodys"),
        "{}",
        unknown.body
    );
    let malformed = admin
        .put("/tokens/revoked", json!({"token": "demo-token"}))
        .await;
    assert_eq!(malformed.status, 422);
}
