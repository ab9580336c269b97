//! Rate-limit waits as apply shows them (issue 22): a wait is said only when one happens.

use dnscron_emulator::{RateLimit, Seed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::Test;

/// `n` zones with no records, each declared with one: plan and verification read them
/// concurrently (8 at a time).
fn zones_case(dir: &std::path::Path, n: usize) -> (Seed, std::path::PathBuf) {
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    let mut files = Vec::new();
    for i in 0..n {
        let zone = format!("z{i:02}.example");
        seed = seed.with_zone(ZoneSeed::new(&zone));
        let text = format!(
            "zone: {zone}\nrecords:\n  - {{ name: www, type: A, content: 192.0.2.{} }}\n",
            i + 1
        );
        files.push((format!("zones/z{i:02}.yaml"), text));
    }
    (seed, write_files(dir, &files))
}

/// A bucket of 1,000 refilled at 1 a minute (X-RateLimit-Limit: 1, X-RateLimit-Remaining up to
/// 999): the 12 zones' reads and writes fit in it, so apply neither waits nor says it waits.
/// (The pacer used to take the bucket as one minute's refill deep: concurrent reads announced
/// "waiting 60s for the rate limit" and went on at the next response.)
#[test]
fn a_bucket_deeper_than_its_rate_applies_without_a_wait_said() {
    let dir = tempfile::tempdir().unwrap();
    let (seed, root) = zones_case(dir.path(), 12);
    let emu = emulator_with(seed, gap_settings()[0].clone());
    emu.set_rate_limit(RateLimit {
        enabled: true,
        per_minute: 1,
        burst: 1_000,
    });
    let output = Test::new()
        .api(&emu.base_url(), "demo-token")
        .plan_stamp()
        .args(["apply", "--yes"])
        .arg(&root)
        .snapshot();
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(output);
    });
    assert_eq!(emu.counters().rate_limited, 0);
    emu.set_rate_limit(RateLimit::off());
}
