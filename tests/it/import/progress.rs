//! `import --all`'s progress in CI logs (issue 38): an account read at the rate-limit bucket's
//! pace says where the import is once a minute, as `plan` does (tests/it/plan/progress.rs), the
//! lines naming `import`. The emulator runs in this test's runtime on tokio's paused clock, so
//! the minutes of pacing take no real time.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dnscron::render::plan::progress::PlanProgress;
use dnscron_api::{ApiConfig, ReadClient, Token};
use dnscron_core::import::{self, Selection};
use dnscron_core::plan::{ReadProgress, ReadProgressHook};
use dnscron_emulator::{DomainSeed, RateLimit, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed};

const ZONES: usize = 60;
const SITES: usize = 2;

fn seed() -> Seed {
    let mut seed = Seed::default().with_token(TokenSeed::full("t", "owner"));
    // 60 a minute, 10 at once: the 122 reads and the listings take about two minutes.
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
    for slug in ["blog", "shop"] {
        seed = seed.with_site(SiteSeed::new(slug).with_cron("0 3 * * *", "php nightly.php"));
    }
    seed
}

/// `import: read N of M after Km[, Ss of it waiting for the rate limit]`, taken apart.
fn parse(line: &str) -> (usize, usize, String, bool) {
    let rest = line
        .strip_prefix("import: read ")
        .unwrap_or_else(|| panic!("{line}"));
    let (done, rest) = rest.split_once(" of ").unwrap();
    let (total, rest) = rest.split_once(" after ").unwrap();
    let (after, waited) = match rest.split_once(", ") {
        Some((after, waited)) => {
            assert!(
                waited.ends_with("s of it waiting for the rate limit"),
                "{line}"
            );
            (after, true)
        }
        None => (rest, false),
    };
    (
        done.parse().unwrap(),
        total.parse().unwrap(),
        after.to_string(),
        waited,
    )
}

#[tokio::test(start_paused = true)]
async fn import_all_paced_at_the_bucket_says_where_it_is_once_a_minute() {
    let emu = dnscron_emulator::start(seed(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&lines);
    let progress = PlanProgress::lines(move |line| sink.lock().unwrap().push(line.to_string()))
        .named("import");
    let mut config = ApiConfig::new(&emu.base_url(), Token::new("t").unwrap()).unwrap();
    config.on_wait = Some(progress.wait_hook());
    let client = ReadClient::new(config).unwrap();
    let progress = Arc::new(progress.with_stats(client.stats()));
    let hook = ReadProgressHook(Arc::clone(&progress) as Arc<dyn ReadProgress>);
    let all = Selection {
        all: true,
        ..Selection::default()
    };
    let started = tokio::time::Instant::now();
    let fetched = progress
        .alongside(import::fetch(&client, &all, Some(&hook)))
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!((fetched.zones.len(), fetched.sites.len()), (ZONES, SITES));
    let lines = lines.lock().unwrap().clone();
    assert!(took > Duration::from_secs(100), "{took:?}");
    assert_eq!(
        lines.len() as u64,
        took.as_secs() / 60,
        "{lines:#?} in {took:?}"
    );
    let mut last_done = 0;
    for (minute, line) in lines.iter().enumerate() {
        let (done, total, after, waited) = parse(line);
        assert_eq!(after, format!("{}m", minute + 1), "{line}");
        // Each zone's records and registrar state; the sites' cron jobs are queued once the
        // site list is in, after the zones.
        assert!(
            total == 2 * ZONES || total == 2 * ZONES + SITES,
            "every zone's records and registrar state: {line}"
        );
        assert!(done > last_done && done < total, "{line}");
        assert!(waited, "no wait in {line}");
        last_done = done;
    }
    // All of it, counted: a progress that told of a read twice or never would end elsewhere.
    assert_eq!(
        progress_counts(&progress),
        (2 * ZONES + SITES, 2 * ZONES + SITES)
    );
}

/// The reads queued and done as the progress's next line would say them.
fn progress_counts(progress: &PlanProgress) -> (usize, usize) {
    let line = progress.line(Duration::from_secs(60));
    let (done, total, _, _) = parse(&line);
    (done, total)
}
