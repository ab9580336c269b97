//! `plan`'s progress in CI logs (issue 29, item 3): a plan paced at the rate-limit bucket says
//! where it is once a minute, the bucket's waits summed into that line, instead of a line per
//! wait at the start and then nothing. The emulator runs in this test's runtime on tokio's
//! paused clock, so the minutes of pacing take no real time.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron::render::plan::progress::PlanProgress;
use dnscron_api::{ApiConfig, ReadClient, Token};
use dnscron_core::config::model::Desired;
use dnscron_core::plan::{self, MakeOptions, ReadProgress, ReadProgressHook};
use dnscron_emulator::{DomainSeed, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::fixtures::zone;

const ZONES: usize = 60;

fn seed() -> Seed {
    let mut seed = Seed::default().with_token(TokenSeed::full("t", "owner"));
    // 60 a minute, 10 at once: the 120 reads take about two minutes.
    seed.rate_limit = RateLimit {
        enabled: true,
        per_minute: 60,
        burst: 10,
    };
    for i in 0..ZONES {
        let name = format!("z{i:02}.example");
        seed = seed
            .with_zone(ZoneSeed::new(&name).with_record(RecordSeed::new("www", "A", "192.0.2.1")))
            .with_domain(DomainSeed::new(&name));
    }
    seed
}

/// `plan: read N of M after Km[, Ss of it waiting for the rate limit]`, taken apart.
fn parse(line: &str) -> (usize, usize, String, Option<u64>) {
    let rest = line
        .strip_prefix("plan: read ")
        .unwrap_or_else(|| panic!("{line}"));
    let (done, rest) = rest.split_once(" of ").unwrap();
    let (total, rest) = rest.split_once(" after ").unwrap();
    let (after, waited) = match rest.split_once(", ") {
        Some((after, waited)) => {
            let secs = waited
                .strip_suffix("s of it waiting for the rate limit")
                .unwrap_or_else(|| panic!("{line}"));
            (after, Some(secs.parse().unwrap()))
        }
        None => (rest, None),
    };
    (
        done.parse().unwrap(),
        total.parse().unwrap(),
        after.to_string(),
        waited,
    )
}

#[tokio::test(start_paused = true)]
async fn a_plan_paced_at_the_bucket_says_where_it_is_once_a_minute() {
    let emu = dnscron_emulator::start(seed(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&lines);
    let progress = PlanProgress::lines(move |line| sink.lock().unwrap().push(line.to_string()));
    let mut config = ApiConfig::new(&emu.base_url(), Token::new("t").unwrap()).unwrap();
    config.on_wait = Some(progress.wait_hook());
    let client = ReadClient::new(config).unwrap();
    let progress = Arc::new(progress.with_stats(client.stats()));
    let desired = Desired {
        zones: (0..ZONES)
            .map(|i| {
                zone(
                    &format!("z{i:02}.example"),
                    &[("www", "A", 3600, "192.0.2.1")],
                )
            })
            .collect(),
        ..Desired::default()
    };
    let opts = MakeOptions {
        progress: Some(ReadProgressHook(
            Arc::clone(&progress) as Arc<dyn ReadProgress>
        )),
        ..MakeOptions::default()
    };
    let started = tokio::time::Instant::now();
    let planned = progress
        .alongside(plan::make_plan(&client, &desired, &opts))
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(
        planned.plan.changes.is_empty(),
        "{:?}",
        planned.plan.changes
    );
    let stats = client.stats().snapshot();
    let lines = lines.lock().unwrap().clone();
    // 60 record listings and 60 registrar reads, 10 at once then 1 a second.
    assert!(took > Duration::from_secs(100), "{took:?}");
    assert!(!lines.is_empty(), "no line in {took:?}");
    assert_eq!(
        lines.len() as u64,
        took.as_secs() / 60,
        "{lines:#?} in {took:?}"
    );
    let mut last_done = 0;
    for (minute, line) in lines.iter().enumerate() {
        let (done, total, after, waited) = parse(line);
        assert_eq!(after, format!("{}m", minute + 1), "{line}");
        assert_eq!(
            total,
            2 * ZONES,
            "every zone's records and registrar state: {line}"
        );
        assert!(done > last_done && done < total, "{line}");
        last_done = done;
        // The wall clock some read waited for the bucket, never the sum over the 8 workers.
        let waited = waited.unwrap_or_else(|| panic!("no wait in {line}"));
        assert!(waited > 0 && waited <= 60 * (minute as u64 + 1), "{line}");
    }
    assert!(stats.rate_limit_wall <= took, "{stats:?} in {took:?}");
    assert!(
        stats.rate_limit_wait > stats.rate_limit_wall,
        "concurrent waits sum to more than the wall clock: {stats:?}"
    );
}
