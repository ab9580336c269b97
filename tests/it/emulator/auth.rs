use dnscron_emulator::{Scope, Seed, SiteSeed, TokenSeed};
use serde_json::json;

use super::{demo, readonly};
use crate::common::emulator::{Api, example_emulator, start_emulator};

#[tokio::test]
async fn missing_invalid_or_malformed_tokens_answer_401() {
    let emu = example_emulator();
    let anon = Api::anonymous(&emu.base_url());
    let resp = anon.get("/sites").await;
    assert_eq!(resp.status, 401);
    assert_eq!(resp.error_type(), "unauthenticated");
    let bad = Api::new(&emu.base_url(), "no-such-token")
        .get("/sites")
        .await;
    assert_eq!((bad.status, bad.error_type()), (401, "unauthenticated"));
    let malformed = Api::send(
        anon.request(reqwest::Method::GET, "/sites")
            .header("authorization", "Token demo-token"),
    )
    .await;
    assert_eq!(malformed.status, 401);
    assert_eq!(demo(&emu).get("/sites").await.status, 200);
}

#[tokio::test]
async fn read_scope_reads_but_cannot_write() {
    let emu = example_emulator();
    let ro = readonly(&emu);
    assert_eq!(ro.get("/dns/example.com/records").await.status, 200);
    let record = json!({"name": "new", "type": "A", "ttl": 300, "content": "192.0.2.1"});
    let resp = ro.post("/dns/example.com/records", record).await;
    assert_eq!((resp.status, resp.error_type()), (403, "forbidden"));
    let cron = json!({"schedule": "0 * * * *", "command": "wp cache flush"});
    assert_eq!(ro.post("/sites/blog/cron", cron).await.status, 403);
    let ns = json!({"mode": "veldhost"});
    assert_eq!(
        ro.put("/domains/example.org/nameservers", ns).await.status,
        403
    );
    let probe = json!({"domain": "example.io"});
    assert_eq!(ro.post("/dns/zones/probe", probe).await.status, 403);
}

#[tokio::test]
async fn each_write_needs_its_own_scope() {
    let seed = Seed::example()
        .with_token(TokenSeed::full("dns-only", "demo").with_scopes(&[Scope::Dns]))
        .with_token(TokenSeed::full("manage-only", "demo").with_scopes(&[Scope::Manage]));
    let emu = start_emulator(seed);
    let dns_only = Api::new(&emu.base_url(), "dns-only");
    let manage_only = Api::new(&emu.base_url(), "manage-only");
    let record = json!({"name": "new", "type": "A", "ttl": 300, "content": "192.0.2.1"});
    let cron = json!({"schedule": "0 * * * *", "command": "wp cache flush"});
    assert_eq!(
        dns_only
            .post("/dns/example.com/records", record.clone())
            .await
            .status,
        201
    );
    assert_eq!(
        dns_only.post("/sites/shop/cron", cron.clone()).await.status,
        403
    );
    assert_eq!(manage_only.post("/sites/shop/cron", cron).await.status, 201);
    let denied = manage_only.post("/dns/example.com/records", record).await;
    assert_eq!(denied.status, 403);
    // Names the missing scope.
    insta::assert_snapshot!(denied.body["error"]["message"].as_str().unwrap());
}

#[tokio::test]
async fn sites_not_pinned_to_the_token_are_forbidden() {
    let seed = Seed::default()
        .with_token(TokenSeed::full("blog-token", "u").pinned_to(&["blog"]))
        .with_site(SiteSeed::new("blog").with_cron("0 * * * *", "wp cache flush"))
        .with_site(SiteSeed::new("shop"));
    let emu = start_emulator(seed);
    let api = Api::new(&emu.base_url(), "blog-token");
    let sites = api.get("/sites").await;
    let slugs: Vec<_> = sites.body["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slug"].as_str().unwrap())
        .collect();
    assert_eq!(slugs, ["blog"]);
    assert_eq!(api.get("/sites/blog/cron").await.status, 200);
    assert_eq!(api.get("/sites/blog/health").await.status, 200);
    let cron = api.get("/sites/shop/cron").await;
    assert_eq!((cron.status, cron.error_type()), (403, "forbidden"));
    assert_eq!(api.get("/sites/shop/health").await.status, 403);
    let write = json!({"schedule": "0 * * * *", "command": "wp cache flush"});
    assert_eq!(
        api.post("/sites/shop/cron", write.clone()).await.status,
        403
    );
    assert_eq!(api.delete("/sites/shop/cron/0").await.status, 403);
    assert_eq!(api.post("/sites/blog/cron", write).await.status, 201);
}
