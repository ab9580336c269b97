use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};
use serde_json::json;

use super::demo;
use crate::common::emulator::{Api, example_emulator, start_emulator};

fn big_zone_seed(n: usize) -> Seed {
    let zone = ZoneSeed::new("big.example").with_records((0..n).map(|i| {
        let ip = format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256);
        RecordSeed::new(&format!("r{i:04}"), "A", &ip)
    }));
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("t", "u"))
        .with_zone(zone);
    seed.rate_limit = RateLimit::off();
    seed
}

fn id_of(record: &serde_json::Value) -> i64 {
    record["id"].as_i64().unwrap()
}

/// Pages through a 1,000-record zone while records are inserted and deleted between pages
/// (deterministic) and by a concurrent writer: every record that survives is seen exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paging_a_1000_record_zone_under_concurrent_writes_skips_and_repeats_nothing() {
    let emu = start_emulator(big_zone_seed(1000));
    let api = Api::new(&emu.base_url(), "t");
    let original: Vec<i64> = emu.state().zones["big.example"]
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(original.len(), 1000);
    let deleted = Arc::new(Mutex::new(BTreeSet::new()));

    // A concurrent writer: inserts new records and deletes every 7th original one.
    let writer = {
        let api = api.clone();
        let deleted = deleted.clone();
        let targets: Vec<i64> = original.iter().copied().step_by(7).collect();
        tokio::spawn(async move {
            for (n, id) in targets.into_iter().enumerate() {
                let body = json!({"name": format!("w{n}"), "type": "A", "ttl": 300, "content": "192.0.2.1"});
                assert_eq!(api.post("/dns/big.example/records", body).await.status, 201);
                let resp = api.delete(&format!("/dns/big.example/records/{id}")).await;
                if resp.status == 200 {
                    deleted.lock().unwrap().insert(id);
                }
            }
        })
    };

    let mut seen: HashMap<i64, usize> = HashMap::new();
    let mut cursor: Option<String> = None;
    let mut page_no = 0;
    loop {
        let mut url = "/dns/big.example/records?limit=37".to_string();
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let resp = api.get(&url).await;
        assert_eq!(resp.status, 200, "{:?}", resp.body);
        for r in resp.body["records"].as_array().unwrap() {
            *seen.entry(id_of(r)).or_default() += 1;
        }
        // Between pages: delete one record already read and one not yet read, insert two.
        page_no += 1;
        for idx in [page_no * 3, 500 + page_no * 3] {
            let Some(id) = original.get(idx).copied() else {
                continue;
            };
            let resp = api.delete(&format!("/dns/big.example/records/{id}")).await;
            if resp.status == 200 {
                deleted.lock().unwrap().insert(id);
            }
        }
        for k in 0..2 {
            let body = json!({"name": format!("p{page_no}-{k}"), "type": "A", "ttl": 300, "content": "192.0.2.2"});
            assert_eq!(api.post("/dns/big.example/records", body).await.status, 201);
        }
        if !resp.body["meta"]["has_more"].as_bool().unwrap() {
            break;
        }
        cursor = resp.body["meta"]["next_cursor"]
            .as_str()
            .map(str::to_string);
    }
    writer.await.unwrap();

    let deleted = deleted.lock().unwrap().clone();
    assert!(deleted.len() > 100, "the writers deleted {}", deleted.len());
    for (id, count) in &seen {
        assert_eq!(*count, 1, "record {id} was listed {count} times");
    }
    let survivors: Vec<i64> = original
        .iter()
        .copied()
        .filter(|id| !deleted.contains(id))
        .collect();
    let skipped: Vec<&i64> = survivors
        .iter()
        .filter(|id| !seen.contains_key(id))
        .collect();
    assert!(skipped.is_empty(), "surviving records skipped: {skipped:?}");
}

#[tokio::test]
async fn default_page_is_20_and_limit_is_capped_at_100() {
    let emu = start_emulator(big_zone_seed(150));
    let api = Api::new(&emu.base_url(), "t");
    let first = api.get("/dns/big.example/records").await;
    assert_eq!(first.body["records"].as_array().unwrap().len(), 20);
    assert_eq!(first.body["meta"]["has_more"], true);
    assert!(first.body["meta"]["next_cursor"].is_string());
    let hundred = api.get("/dns/big.example/records?limit=100").await;
    assert_eq!(hundred.body["records"].as_array().unwrap().len(), 100);
    for bad in ["0", "101", "abc", "-1", "2.5"] {
        let resp = api
            .get(&format!("/dns/big.example/records?limit={bad}"))
            .await;
        assert_eq!(resp.status, 422, "limit={bad}");
        assert!(resp.body["error"]["details"]["limit"].is_array());
    }
    assert_eq!(
        api.get_all("/dns/big.example/records", "records", 100)
            .await
            .len(),
        150
    );
}

#[tokio::test]
async fn cursors_are_checked_and_keyed_on_the_row() {
    let emu = start_emulator(big_zone_seed(50));
    let api = Api::new(&emu.base_url(), "t");
    for bad in ["garbage", "c1_zz", "c1_616263"] {
        let resp = api
            .get(&format!("/dns/big.example/records?cursor={bad}"))
            .await;
        assert_eq!(resp.status, 422, "cursor={bad}");
        assert!(resp.body["error"]["details"]["cursor"].is_array());
    }
    let first = api.get("/dns/big.example/records?limit=10").await;
    let cursor = first.body["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let last_id = id_of(&first.body["records"][9]);
    // A cursor of another list is refused.
    let other = api.get(&format!("/dns?cursor={cursor}")).await;
    assert_eq!(other.status, 422);
    // Deleting the rows of the page already read (including the cursor's own row) and adding
    // rows elsewhere does not shift the next page.
    for r in first.body["records"].as_array().unwrap() {
        api.delete(&format!("/dns/big.example/records/{}", id_of(r)))
            .await;
    }
    let body = json!({"name": "late", "type": "A", "ttl": 300, "content": "192.0.2.9"});
    api.post("/dns/big.example/records", body).await;
    let second = api
        .get(&format!(
            "/dns/big.example/records?limit=10&cursor={cursor}"
        ))
        .await;
    assert_eq!(second.status, 200);
    assert_eq!(id_of(&second.body["records"][0]), last_id + 1);
}

#[tokio::test]
async fn every_list_paginates() {
    let emu = example_emulator();
    let api = demo(&emu);
    for (path, key, total) in [
        ("/sites", "sites", 3),
        ("/domains", "domains", 3),
        ("/dns", "zones", 4),
        ("/sites/blog/cron", "cron_jobs", 3),
        ("/dns/example.com/records", "records", 15),
    ] {
        let one = api.get(&format!("{path}?limit=1")).await;
        assert_eq!(one.body[key].as_array().unwrap().len(), 1, "{path}");
        assert_eq!(one.body["meta"]["has_more"], true, "{path}");
        let all = api.get_all(path, key, 1).await;
        assert_eq!(all.len(), total, "{path}");
        let bad = api.get(&format!("{path}?limit=0")).await;
        assert_eq!(bad.status, 422, "{path}");
    }
}
