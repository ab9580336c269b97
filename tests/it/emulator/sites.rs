use dnscron_emulator::{CronIndexAfterDelete, Gaps, Seed, SiteSeed, TokenSeed};
use serde_json::{Value, json};

use super::demo;
use crate::common::emulator::{example_emulator, start_emulator};

fn jobs(body: &Value) -> Vec<(i64, String)> {
    body["cron_jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["index"].as_i64().unwrap(),
                j["command"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn sites_are_listed_with_state_and_health_works_on_inactive_sites() {
    let emu = example_emulator();
    let api = demo(&emu);
    let resp = api.get("/sites").await;
    assert_eq!(resp.status, 200);
    let sites = resp.body["sites"].as_array().unwrap();
    let states: Vec<_> = sites
        .iter()
        .map(|s| (s["slug"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [
            ("blog", "active"),
            ("legacy", "suspended"),
            ("shop", "active")
        ]
    );
    assert!(sites[0]["url"].is_string());
    assert_eq!(resp.body["meta"]["has_more"], false);
    let health = api.get("/sites/legacy/health").await;
    assert_eq!(health.status, 200);
    for field in ["health", "freshness", "open_incidents"] {
        assert!(!health.body[field].is_null(), "{field}");
    }
    assert_eq!(api.get("/sites/nope/health").await.status, 404);
}

#[tokio::test]
async fn cron_jobs_are_listed_with_their_index() {
    let emu = example_emulator();
    let resp = demo(&emu).get("/sites/blog/cron").await;
    assert_eq!(resp.status, 200);
    let listed = jobs(&resp.body);
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[2], (2, "wp cache flush".to_string()));
    let shop = demo(&emu).get("/sites/shop/cron").await;
    assert_eq!(shop.body["cron_jobs"][0]["schedule"], "*/5  *  * * *");
    assert_eq!(demo(&emu).get("/sites/nope/cron").await.status, 404);
}

#[tokio::test]
async fn cron_writes_are_validated() {
    let emu = example_emulator();
    let api = demo(&emu);
    let ok = api
        .post(
            "/sites/blog/cron",
            json!({"schedule": "*/10 * * * *", "command": "wp cron event run"}),
        )
        .await;
    assert_eq!(ok.status, 201);
    assert_eq!(ok.body["index"], 3);
    assert_eq!(jobs(&api.get("/sites/blog/cron").await.body).len(), 4);
    let cases = [
        (
            json!({"schedule": "* * * *", "command": "wp cache flush"}),
            "schedule",
        ),
        (
            json!({"schedule": "0 0 * * * *", "command": "wp cache flush"}),
            "schedule",
        ),
        (
            json!({"schedule": "99 * * * *", "command": "wp cache flush"}),
            "schedule",
        ),
        (
            json!({"schedule": "0 * * * *", "command": "rm -rf /tmp/x"}),
            "command",
        ),
        (json!({"schedule": "0 * * * *"}), "command"),
        (json!({"command": "wp cache flush"}), "schedule"),
    ];
    for (body, field) in cases {
        let resp = api.post("/sites/blog/cron", body.clone()).await;
        assert_eq!(resp.status, 422, "{body}");
        assert_eq!(resp.error_type(), "validation_error");
        assert!(
            resp.body["error"]["details"][field].is_array(),
            "{body}: {:?}",
            resp.body
        );
    }
    assert_eq!(jobs(&api.get("/sites/blog/cron").await.body).len(), 4);
}

#[tokio::test]
async fn at_most_five_cron_jobs_per_site() {
    let emu = example_emulator();
    let api = demo(&emu);
    for i in 0..3 {
        let body = json!({"schedule": format!("{i} 1 * * *"), "command": "php artisan queue:work"});
        assert_eq!(api.post("/sites/shop/cron", body).await.status, 201);
    }
    let sixth = api
        .post(
            "/sites/shop/cron",
            json!({"schedule": "0 5 * * *", "command": "php x.php"}),
        )
        .await;
    assert_eq!(sixth.status, 422);
    assert!(sixth.body["error"]["details"]["cron_jobs"].is_array());
    assert_eq!(emu.state().cron("shop").len(), 5);
}

#[tokio::test]
async fn cron_writes_on_a_site_that_is_not_active_need_the_portal() {
    let emu = example_emulator();
    let api = demo(&emu);
    let body = json!({"schedule": "0 * * * *", "command": "php legacy/hourly.php"});
    for resp in [
        api.post("/sites/legacy/cron", body).await,
        api.delete("/sites/legacy/cron/0").await,
    ] {
        assert_eq!((resp.status, resp.error_type()), (409, "conflict"));
        let url = resp.body["error"]["continue_url"].as_str().unwrap();
        assert!(url.starts_with("https://portal.veldhost.example/"));
    }
    assert_eq!(emu.state().cron("legacy").len(), 1);
    assert_eq!(api.get("/sites/legacy/cron").await.status, 200);
}

#[tokio::test]
async fn delete_renumbers_by_default() {
    let emu = example_emulator();
    let api = demo(&emu);
    let resp = api.delete("/sites/blog/cron/0").await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.body["command"], "wp cron event run --due-now");
    let listed = jobs(&api.get("/sites/blog/cron").await.body);
    assert_eq!(
        listed,
        [
            (0, "wp transient delete --expired".to_string()),
            (1, "wp cache flush".to_string())
        ]
    );
    assert_eq!(api.delete("/sites/blog/cron/2").await.status, 404);
    let bad = api.delete("/sites/blog/cron/abc").await;
    assert_eq!((bad.status, bad.error_type()), (422, "validation_error"));
}

#[tokio::test]
async fn stable_indexes_from_one_when_the_seed_says_so() {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("t", "u"))
        .with_site(
            SiteSeed::new("s")
                .with_cron("0 1 * * *", "wp a")
                .with_cron("0 2 * * *", "wp b")
                .with_cron("0 3 * * *", "wp c"),
        );
    seed.gaps = Gaps {
        cron_index_base: 1,
        cron_index_after_delete: CronIndexAfterDelete::Stable,
        ..Gaps::default()
    };
    let emu = start_emulator(seed);
    let api = crate::common::emulator::Api::new(&emu.base_url(), "t");
    assert_eq!(api.delete("/sites/s/cron/1").await.status, 200);
    let added = api
        .post(
            "/sites/s/cron",
            json!({"schedule": "0 4 * * *", "command": "wp d"}),
        )
        .await;
    assert_eq!(added.body["index"], 4);
    let listed = jobs(&api.get("/sites/s/cron").await.body);
    let indexes: Vec<i64> = listed.iter().map(|(i, _)| *i).collect();
    assert_eq!(indexes, [2, 3, 4]);
    assert_eq!(api.delete("/sites/s/cron/1").await.status, 404);
}
