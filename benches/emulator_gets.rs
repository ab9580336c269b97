//! Benchmark (not a test): simple GETs per second against the emulator on loopback, rate
//! limiting off. Run: `cargo bench --bench emulator_gets` (optionally `-- SECONDS CONCURRENCY`).
//! The client runs in the same process, so both share the machine's cores.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dnscron::emulator::{self, RateLimit, Seed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let seconds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(5);
    let concurrency: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(16);
    let mut seed = Seed::example();
    seed.rate_limit = RateLimit::off();
    let emu = emulator::start_background(seed)?;
    let url = format!("{}/sites", emu.base_url());
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let ok = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let elapsed = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(concurrency)
            .build()?;
        // Warm up the connection pool.
        for _ in 0..concurrency {
            client.get(&url).bearer_auth("demo-token").send().await?;
        }
        let start = Instant::now();
        let deadline = start + Duration::from_secs(seconds);
        let mut tasks = Vec::new();
        for _ in 0..concurrency {
            let (client, url, ok, failed) =
                (client.clone(), url.clone(), ok.clone(), failed.clone());
            tasks.push(tokio::spawn(async move {
                while Instant::now() < deadline {
                    let success = match client.get(&url).bearer_auth("demo-token").send().await {
                        Ok(resp) => resp.status().is_success() && resp.bytes().await.is_ok(),
                        Err(_) => false,
                    };
                    let counter = if success { &ok } else { &failed };
                    counter.fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
        for task in tasks {
            task.await?;
        }
        Ok::<_, Box<dyn std::error::Error>>(start.elapsed())
    })?;
    let ok = ok.load(Ordering::Relaxed);
    let rate = ok as f64 / elapsed.as_secs_f64();
    println!(
        "emulator_gets: {ok} GET /api/v1/sites in {:.2} s with {concurrency} connections = {rate:.0} requests/s ({} failed; {} cores)",
        elapsed.as_secs_f64(),
        failed.load(Ordering::Relaxed),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
    );
    emu.shutdown();
    Ok(())
}
