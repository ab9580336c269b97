//! `import --all`'s progress in CI logs (issue 38): an account read at the rate-limit bucket's
//! pace says where the import is once a minute, as `plan` does (tests/it/plan/progress.rs), the
//! lines naming `import`. The emulator runs in this test's runtime on tokio's paused clock, so
//! the minutes of pacing take no real time.

use std::time::Duration;

use dnscron::render::plan::progress::PlanProgress;
use dnscron_core::import::{self, Selection};

use crate::common::progress::{Paced, paced_account, parse};

const ZONES: usize = 60;
const SITES: usize = 2;

#[tokio::test(start_paused = true)]
async fn import_all_paced_at_the_bucket_says_where_it_is_once_a_minute() {
    // 60 a minute, 10 at once: the 122 reads and the listings take about two minutes.
    let rig = Paced::start(paced_account(ZONES, &["blog", "shop"]), "import").await;
    let all = Selection {
        all: true,
        ..Selection::default()
    };
    let hook = rig.hook();
    let started = tokio::time::Instant::now();
    let fetched = rig
        .progress
        .alongside(import::fetch(&rig.client, &all, Some(&hook)))
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!((fetched.zones.len(), fetched.sites.len()), (ZONES, SITES));
    let lines = rig.lines();
    assert!(took > Duration::from_secs(100), "{took:?}");
    assert_eq!(
        lines.len() as u64,
        took.as_secs() / 60,
        "{lines:#?} in {took:?}"
    );
    let mut last_done = 0;
    for (minute, line) in lines.iter().enumerate() {
        let read = parse("import", line);
        assert_eq!(read.after, format!("{}m", minute + 1), "{line}");
        // Each zone's records and registrar state; the sites' cron jobs are queued once the
        // site list is in, after the zones.
        assert!(
            read.total == 2 * ZONES || read.total == 2 * ZONES + SITES,
            "every zone's records and registrar state: {line}"
        );
        assert!(read.done > last_done && read.done < read.total, "{line}");
        assert!(read.waited.is_some(), "no wait in {line}");
        last_done = read.done;
    }
    // All of it, counted: a progress that told of a read twice or never would end elsewhere.
    assert_eq!(
        progress_counts(&rig.progress),
        (2 * ZONES + SITES, 2 * ZONES + SITES)
    );
}

/// The reads queued and done as the progress's next line would say them.
fn progress_counts(progress: &PlanProgress) -> (usize, usize) {
    let read = parse("import", &progress.line(Duration::from_secs(60)));
    (read.done, read.total)
}
