//! Benchmark (not a test): an apply of 300 changes under the emulator's real limit of 120
//! requests per minute (bucket of 120), with dnscron as the user's only client.
//!
//! Prints the requests sent by route, the wall time, the bucket's lower bound for that many
//! requests ((requests - 120) / 2 per second) and the 429s received. Figures: BENCHMARKS.md.
//!
//! Run: `cargo bench --bench apply_rate --profile dev` (the time is the rate limit's, not CPU).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use dnscron::api::{ApiConfig, Token, WriteClient};
use dnscron::apply::{self, ApplyOptions, Silent};
use dnscron::emulator::{self, RateLimit, Seed, TokenSeed, ZoneSeed};
use dnscron::plan;

const CHANGES: usize = 300;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let mut zone = String::from("zone: bench.example\nrecords:\n");
    for i in 0..CHANGES {
        zone.push_str(&format!(
            "  - {{ name: h{i}, type: A, content: 192.0.2.{} }}\n",
            i % 250 + 1
        ));
    }
    std::fs::write(dir.path().join("bench.yaml"), zone).unwrap();
    let desired = dnscron::config::load(&[dir.path().to_path_buf()]).unwrap();

    let mut seed = Seed::default()
        .with_token(TokenSeed::full("bench-token", "bench"))
        .with_zone(ZoneSeed::new("bench.example"));
    seed.rate_limit = RateLimit {
        enabled: true,
        per_minute: 120,
        burst: 120,
    };
    let emu = emulator::start_background(seed).unwrap();
    let config = ApiConfig::new(&emu.base_url(), Token::new("bench-token").unwrap()).unwrap();
    let client = WriteClient::new(config).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();

    let started = Instant::now();
    let report = rt.block_on(async {
        let opts = plan::MakeOptions::default();
        let plan = plan::make_plan(client.read(), &desired, &opts)
            .await
            .unwrap()
            .plan;
        assert_eq!(plan.changes.len(), CHANGES);
        let apply_opts = ApplyOptions::new(&plan, &Silent);
        apply::apply(&client, &plan, &apply_opts).await
    });
    let wall = started.elapsed().as_secs_f64();
    let counters = emu.counters();
    let requests = counters.requests;
    let bound = (requests.saturating_sub(120)) as f64 / 2.0;
    println!("result: {:?}, rounds {}", report.result, report.rounds);
    println!("{}", client.read().stats().render());
    println!(
        "requests {requests}, wall {wall:.1}s, bucket lower bound {bound:.1}s, over bound {:.1}%, 429s {}",
        (wall / bound - 1.0) * 100.0,
        counters.rate_limited
    );
}
