//! The emulator's throughput (issue 3): simple GETs per second on loopback, rate limiting off.
//! It replaced the per-issue `emulator_gets` bench, so its figure lands in BENCHMARKS.md with
//! the others.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dnscron_emulator::RateLimit;

use super::report::{Figure, Section, Verdict};
use super::workload::{Account, SiteGen, TOKEN};
use super::{BenchError, setup};

const CONNECTIONS: usize = 16;
const TARGET: f64 = 5_000.0;

pub async fn run(smoke: bool) -> Result<Section, BenchError> {
    let seconds = if smoke { 1 } else { 5 };
    let mut section = Section::new(
        "5. Emulator throughput (issue 3)",
        &format!(
            "`GET /api/v1/sites` (one site, one page) with plain reqwest from {CONNECTIONS} \
             concurrent connections for {seconds} s after a warm-up, rate limiting off. Client and \
             emulator run in this process and share the machine's cores."
        ),
    );
    let account = Account {
        zones: Vec::new(),
        sites: vec![SiteGen {
            slug: "s00".into(),
            jobs: 1,
            replaced: 0,
        }],
    };
    let emu = setup::start(account.seed(RateLimit::off()))?;
    // reqwest is built without a default TLS provider; the API client installs ring the same way.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = format!("{}/sites", emu.base_url());
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    for _ in 0..CONNECTIONS {
        http.get(&url)
            .bearer_auth(TOKEN)
            .send()
            .await
            .map_err(|e| BenchError::step("warm-up GET", e))?;
    }
    let ok = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let (http, url, ok, failed) = (http.clone(), url.clone(), ok.clone(), failed.clone());
            tokio::spawn(async move {
                while Instant::now() < deadline {
                    let good = match http.get(&url).bearer_auth(TOKEN).send().await {
                        Ok(resp) => resp.status().is_success() && resp.bytes().await.is_ok(),
                        Err(_) => false,
                    };
                    if good { &ok } else { &failed }.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.map_err(|e| BenchError::step("GET worker", e))?;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let ok = ok.load(Ordering::Relaxed);
    let rate = ok as f64 / elapsed;
    section.push(Figure::new(
        "GETs per second",
        format!("{rate:.0}"),
        format!("≥ {TARGET:.0}"),
        "",
        Verdict::of(rate >= TARGET),
    ));
    section.push(Figure::new(
        "failed GETs",
        failed.load(Ordering::Relaxed).to_string(),
        "0",
        "",
        Verdict::of(failed.load(Ordering::Relaxed) == 0),
    ));
    Ok(section)
}
