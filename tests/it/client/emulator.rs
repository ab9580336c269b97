//! The client and the snapshot against the real emulator (over HTTP on 127.0.0.1).

use std::fmt::Write as _;

use dnscron_api::payload::RecordWrite;
use dnscron_api::{ApiConfig, IdempotencyKey, ReadClient, Token, WriteClient};
use dnscron_core::plan::snapshot;
use dnscron_emulator::{self as emulator, Emulator, Seed};

fn config(emu: &dnscron_emulator::EmulatorHandle, token: &str) -> ApiConfig {
    ApiConfig::new(&emu.base_url(), Token::new(token).unwrap()).unwrap()
}

/// A seed with one user (two tokens), zone big.test with `records` A records, domain big.test.
fn seed(records: usize, per_minute: u32, burst: u32) -> Seed {
    let mut yaml = String::from(
        "tokens:\n  - { token: t-one, user: u, scopes: [read, dns, manage] }\n  \
         - { token: t-two, user: u, scopes: [read, dns, manage] }\n\
         domains:\n  - { domain: big.test }\n\
         zones:\n  - zone: big.test\n    records:",
    );
    if records == 0 {
        yaml.push_str(" []");
    }
    yaml.push('\n');
    for i in 0..records {
        let _ = writeln!(
            yaml,
            "      - {{ name: h{i}, type: A, ttl: 300, content: 192.0.2.{} }}",
            i % 250 + 1
        );
    }
    let _ = writeln!(
        yaml,
        "rate_limit: {{ enabled: true, per_minute: {per_minute}, burst: {burst} }}"
    );
    Seed::from_yaml_str(&yaml).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshot_of_the_examples_sends_only_the_minimum_gets() {
    let emu = emulator::start_background(Seed::example()).unwrap();
    let desired =
        dnscron_core::config::load(&[crate::common::repo_root().join("examples/dns")]).unwrap();
    let client = ReadClient::new(config(&emu, "demo-token")).unwrap();
    emu.reset_counters();
    let live = snapshot::fetch(&client, &desired).await.unwrap();
    assert_eq!(live.zones.len(), desired.zones.len());
    assert!(live.zones.iter().all(|z| !z.records.is_empty()));
    assert!(live.zones.iter().all(|z| !z.service_nameservers.is_empty()));
    let with_ns = desired
        .zones
        .iter()
        .filter(|z| z.nameservers.is_some())
        .count();
    assert_eq!(live.domains.len(), with_ns);
    assert_eq!(live.sites.len(), desired.sites.len());
    assert!(
        live.sites
            .iter()
            .all(|s| s.state.as_deref() == Some("active") && s.cron.is_some())
    );

    // Small zones: one page each; one registrar read per `nameservers`; one /sites page; one
    // cron list per site with `cron`.
    let cron_sites = desired.sites.iter().filter(|s| s.cron.is_some()).count();
    let minimum = desired.zones.len() + with_ns + 1 + cron_sites;
    let stats = client.stats().snapshot();
    assert_eq!(stats.total_requests() as usize, minimum, "{stats:?}");
    assert_eq!(stats.non_get_requests(), 0);
    let counters = emu.counters();
    assert_eq!(counters.requests as usize, minimum, "{counters:?}");
    assert_eq!(counters.rate_limited, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_pages_of_a_250_record_zone_in_three_requests() {
    let emu = emulator::start_background(seed(250, 120, 120)).unwrap();
    let client = ReadClient::new(config(&emu, "t-one")).unwrap();
    let listing = client.list_records("big.test").await.unwrap();
    let names: std::collections::BTreeSet<_> = listing.records.iter().map(|r| r.name).collect();
    assert_eq!(names.len(), 250);
    assert_eq!(client.stats().snapshot().pages, 3);
    assert_eq!(emu.counters().requests, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_key_replays_instead_of_writing_twice() {
    let emu = emulator::start_background(seed(0, 120, 120)).unwrap();
    let client = WriteClient::new(config(&emu, "t-one")).unwrap();
    let record = RecordWrite {
        name: "www".into(),
        rtype: "A".into(),
        ttl: 300,
        content: "192.0.2.9".into(),
    };
    let key = IdempotencyKey::new("it-emulator-create-www").unwrap();
    let first = client
        .create_record("big.test", &record, &key)
        .await
        .unwrap();
    let second = client
        .create_record("big.test", &record, &key)
        .await
        .unwrap();
    assert!(!first.replayed);
    assert!(second.replayed);
    assert_eq!(first.body, second.body);
    assert_eq!(
        client
            .read()
            .list_records("big.test")
            .await
            .unwrap()
            .records
            .len(),
        1
    );
    // The same key for another request is refused, not retried.
    let other = RecordWrite {
        content: "192.0.2.10".into(),
        ..record
    };
    let err = client
        .create_record("big.test", &other, &key)
        .await
        .unwrap_err();
    assert_eq!(err.error_type(), Some("idempotency_conflict"));
    assert!(err.needs_portal_step().is_none());
    assert_eq!(emu.counters().idempotency_conflicts, 1);
}

/// The emulator in this test's runtime, so both sides pace on its (paused) clock.
async fn start_here(seed: Seed) -> Emulator {
    emulator::start(seed, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

// Paused time: the bucket's refill and the pacer's waits run on tokio's virtual clock, which
// jumps ahead whenever every task waits, so ~1.75 s of pacing takes no real time.
#[tokio::test(start_paused = true)]
async fn alone_the_pacer_gets_no_429_from_a_small_bucket() {
    // 20 requests a second, 5 at once: 40 sequential reads need ~1.75 s and no 429.
    let emu = start_here(seed(1, 1200, 5)).await;
    let started = tokio::time::Instant::now();
    let client = ReadClient::new(config(&emu, "t-one")).unwrap();
    for _ in 0..40 {
        client.list_records("big.test").await.unwrap();
    }
    assert_eq!(emu.counters().rate_limited, 0);
    assert_eq!(client.stats().snapshot().rate_limited, 0);
    assert!(client.stats().snapshot().rate_limit_wait > std::time::Duration::ZERO);
    // 35 requests beyond the burst at 20 a second.
    let elapsed = started.elapsed();
    assert!(
        elapsed >= std::time::Duration::from_millis(1700)
            && elapsed < std::time::Duration::from_millis(2500),
        "{elapsed:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn two_clients_of_one_user_both_finish() {
    let emu = start_here(seed(1, 1200, 5)).await;
    let one = ReadClient::new(config(&emu, "t-one")).unwrap();
    let two = ReadClient::new(config(&emu, "t-two")).unwrap();
    let run = |client: ReadClient| async move {
        for _ in 0..30 {
            client.list_records("big.test").await.unwrap();
        }
        client.stats().snapshot()
    };
    let (a, b) = tokio::join!(run(one), run(two));
    // Every read succeeded; the 429s the shared bucket caused were obeyed and retried.
    assert_eq!(a.requests["GET /dns/{zone}/records"] - a.rate_limited, 30);
    assert_eq!(b.requests["GET /dns/{zone}/records"] - b.rate_limited, 30);
    assert_eq!(emu.counters().rate_limited, a.rate_limited + b.rate_limited);
}
