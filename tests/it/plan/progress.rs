//! `plan`'s progress in CI logs (issue 29, item 3): a plan paced at the rate-limit bucket says
//! where it is once a minute, the bucket's waits summed into that line, instead of a line per
//! wait at the start and then nothing. The emulator runs in this test's runtime on tokio's
//! paused clock, so the minutes of pacing take no real time.

use std::time::Duration;

use dnscron_core::config::model::Desired;
use dnscron_core::plan::{self, MakeOptions};

use super::fixtures::zone;
use crate::common::progress::{Paced, PacedAccounts, paced_account, parse, parse_accounts};

const ZONES: usize = 60;

/// `zones` zones as `paced_account` seeds them, each declared with its live record.
fn declared(zones: usize) -> Desired {
    Desired {
        zones: (0..zones)
            .map(|i| {
                zone(
                    &format!("z{i:02}.example"),
                    &[("www", "A", 3600, "192.0.2.1")],
                )
            })
            .collect(),
        ..Desired::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_plan_paced_at_the_bucket_says_where_it_is_once_a_minute() {
    // 60 a minute, 10 at once: the 120 reads take about two minutes.
    let rig = Paced::start(paced_account(ZONES, &[]), "plan").await;
    let desired = declared(ZONES);
    let opts = MakeOptions {
        progress: Some(rig.hook()),
        ..MakeOptions::default()
    };
    let started = tokio::time::Instant::now();
    let planned = rig
        .progress
        .alongside(plan::make_plan(&rig.client, &desired, &opts))
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(
        planned.plan.changes.is_empty(),
        "{:?}",
        planned.plan.changes
    );
    let stats = rig.client.stats().snapshot();
    let lines = rig.lines();
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
        let read = parse("plan", line);
        assert_eq!(read.after, format!("{}m", minute + 1), "{line}");
        assert_eq!(
            read.total,
            2 * ZONES,
            "every zone's records and registrar state: {line}"
        );
        assert!(read.done > last_done && read.done < read.total, "{line}");
        last_done = read.done;
        // The wall clock some read waited for the bucket, never the sum over the 8 workers.
        let waited = read.waited.unwrap_or_else(|| panic!("no wait in {line}"));
        assert!(waited > 0 && waited <= 60 * (minute as u64 + 1), "{line}");
    }
    assert!(stats.rate_limit_wall <= took, "{stats:?} in {took:?}");
    assert!(
        stats.rate_limit_wait > stats.rate_limit_wall,
        "concurrent waits sum to more than the wall clock: {stats:?}"
    );
}

/// Two accounts read side by side, each at its own bucket: each minute's line sums them and
/// names every account still reading with its own reads and wait; an account done (the small
/// one, within its burst and a few seconds) is named no more.
#[tokio::test(start_paused = true)]
async fn over_accounts_each_minute_names_every_account_still_reading() {
    const SMALL: usize = 8;
    let rig = PacedAccounts::start(
        vec![
            ("big", paced_account(ZONES, &[])),
            ("small", paced_account(SMALL, &[])),
        ],
        "plan",
    )
    .await;
    let plan_of = |index: usize, zones: usize| {
        let reads = rig.progress.account(index).unwrap();
        let client = &rig.clients[index];
        async move {
            let opts = MakeOptions {
                progress: Some(reads.hook()),
                ..MakeOptions::default()
            };
            let planned = plan::make_plan(client, &declared(zones), &opts).await;
            reads.finish();
            planned.unwrap()
        }
    };
    let started = tokio::time::Instant::now();
    let both = async { tokio::join!(plan_of(0, ZONES), plan_of(1, SMALL)) };
    let (big, small) = rig.progress.alongside(both).await;
    let planned = [big, small];
    let took = started.elapsed();
    assert!(planned.iter().all(|p| p.plan.changes.is_empty()));
    let lines = rig.lines();
    // The big account alone decides: its 120 reads at 60 a minute, the small one's beside it.
    assert!(took > Duration::from_secs(100), "{took:?}");
    assert_eq!(lines.len() as u64, took.as_secs() / 60, "{lines:#?}");
    let mut last_done = 0;
    for (minute, line) in lines.iter().enumerate() {
        let (sums, reading) = parse_accounts("plan", line);
        assert_eq!(sums.after, format!("{}m", minute + 1), "{line}");
        assert_eq!(sums.total, 2 * (ZONES + SMALL), "{line}");
        assert!(sums.done > last_done && sums.done < sums.total, "{line}");
        last_done = sums.done;
        let [big] = &reading[..] else {
            panic!("only the big account still reads: {line}")
        };
        assert_eq!(big.name, "big");
        assert_eq!(big.total, 2 * ZONES, "{line}");
        // The small account's reads are all in, the big one's the rest of the sum.
        assert_eq!(big.done + 2 * SMALL, sums.done, "{line}");
        let waited = big.waited.unwrap_or_else(|| panic!("no wait in {line}"));
        assert!(waited > 0 && waited <= 60 * (minute as u64 + 1), "{line}");
    }
}
