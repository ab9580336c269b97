use dnscron_emulator::{RateLimit, Seed, TokenSeed};

use crate::common::emulator::{Api, start_emulator};

fn seed(limit: RateLimit) -> Seed {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("a1", "alice"))
        .with_token(TokenSeed::full("a2", "alice"))
        .with_token(TokenSeed::full("b1", "bob"));
    seed.rate_limit = limit;
    seed
}

#[tokio::test]
async fn a_small_bucket_empties_and_answers_429_with_retry_after() {
    let emu = start_emulator(seed(RateLimit {
        enabled: true,
        per_minute: 6,
        burst: 3,
    }));
    let api = Api::new(&emu.base_url(), "a1");
    for remaining in ["2", "1", "0"] {
        let resp = api.get("/sites").await;
        assert_eq!(resp.status, 200);
        assert_eq!(resp.header("x-ratelimit-limit"), Some("6"));
        assert_eq!(resp.header("x-ratelimit-remaining"), Some(remaining));
    }
    let limited = api.get("/sites").await;
    assert_eq!(
        (limited.status, limited.error_type()),
        (429, "rate_limited")
    );
    let retry: u64 = limited.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=10).contains(&retry), "retry-after {retry}");
    assert_eq!(limited.header("x-ratelimit-remaining"), Some("0"));
    assert!(limited.header("x-request-id").is_some());
    assert_eq!(emu.counters().rate_limited, 1);
}

#[tokio::test]
async fn all_tokens_of_a_user_share_one_bucket() {
    let emu = start_emulator(seed(RateLimit {
        enabled: true,
        per_minute: 1,
        burst: 2,
    }));
    let a1 = Api::new(&emu.base_url(), "a1");
    let a2 = Api::new(&emu.base_url(), "a2");
    let b1 = Api::new(&emu.base_url(), "b1");
    assert_eq!(a1.get("/sites").await.status, 200);
    assert_eq!(a2.get("/sites").await.status, 200);
    assert_eq!(a2.get("/sites").await.status, 429);
    assert_eq!(a1.get("/sites").await.status, 429);
    // Another user has a bucket of their own.
    assert_eq!(b1.get("/sites").await.status, 200);
}

#[tokio::test]
async fn the_limit_can_be_turned_off_and_changed_at_run_time() {
    let emu = start_emulator(seed(RateLimit::off()));
    let api = Api::new(&emu.base_url(), "a1");
    for _ in 0..150 {
        assert_eq!(api.get("/sites").await.status, 200);
    }
    emu.set_rate_limit(RateLimit {
        enabled: true,
        per_minute: 60,
        burst: 1,
    });
    assert_eq!(api.get("/sites").await.status, 200);
    assert_eq!(api.get("/sites").await.status, 429);
}

#[tokio::test]
async fn default_limit_is_the_described_rate_and_burst() {
    use dnscron_provider::limits::{RATE_BURST, RATE_PER_MINUTE};
    let emu = start_emulator(seed(RateLimit::default()));
    let resp = Api::new(&emu.base_url(), "a1").get("/sites").await;
    let (limit, remaining) = (RATE_PER_MINUTE.to_string(), (RATE_BURST - 1).to_string());
    assert_eq!(resp.header("x-ratelimit-limit"), Some(limit.as_str()));
    assert_eq!(
        resp.header("x-ratelimit-remaining"),
        Some(remaining.as_str())
    );
}
