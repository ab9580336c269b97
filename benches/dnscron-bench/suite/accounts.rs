//! Several accounts (issue 40): a full plan of 20 accounts of 30 zones, each account with its own
//! emulator and its own bucket, planned side by side (as `dnscron plan` over
//! `dnscron-accounts.yaml` does: one client per account, one runtime) and one after another, in
//! the same run. Side by side, the accounts' buckets refill at once, so the whole takes about
//! one account's time.

use std::time::{Duration, Instant};

use dnscron_core::config::model::Desired;
use dnscron_core::plan::{AccountCheck, MakeOptions, make_plan};
use dnscron_emulator::{BackgroundEmulator, RateLimit};

use super::report::{Figure, Section, Verdict};
use super::workload::{Account, Drift, TOKEN, ZoneGen};
use super::{BenchError, pacing, ratio, secs, setup};

struct One {
    emu: BackgroundEmulator,
    desired: Desired,
    folder: String,
    _dir: setup::Scratch,
}

fn account(i: usize, zones: usize, limit: &RateLimit) -> Result<One, BenchError> {
    let account = Account {
        zones: (0..zones)
            .map(|z| {
                let drift = Drift {
                    updates: 1,
                    ..Drift::default()
                };
                ZoneGen::new(&format!("z{z}.a{i}.example"), 10, drift)
            })
            .collect(),
        sites: Vec::new(),
    };
    let (dir, desired) = setup::write_and_load(&account, &format!("accounts-{i}"))?;
    let emu = setup::start(account.seed(limit.clone()))?;
    let folder = dir.path().display().to_string();
    Ok(One {
        emu,
        desired,
        folder,
        _dir: dir,
    })
}

/// One account's full plan (the zones and the account's listings), as `plan <folder>` makes it.
async fn plan(one: &One) -> Result<Duration, BenchError> {
    let client = setup::read_client(&one.emu, TOKEN)?;
    let opts = MakeOptions {
        account: Some(AccountCheck {
            folders: vec![one.folder.clone()],
        }),
        ..MakeOptions::default()
    };
    let started = Instant::now();
    let planned = make_plan(&client, &one.desired, &opts)
        .await
        .map_err(|e| BenchError::step("an account's plan", e))?;
    if planned.plan.changes.is_empty() {
        return Err(BenchError::step("an account's plan", "found no change"));
    }
    Ok(started.elapsed())
}

pub async fn run(smoke: bool) -> Result<Section, BenchError> {
    let (accounts, zones) = if smoke { (3, 3) } else { (20, 30) };
    let limit = RateLimit {
        enabled: true,
        per_minute: 1_200,
        burst: 10,
    };
    let mut section = Section::new(
        "11. Several accounts: plans side by side (issue 40)",
        &format!(
            "{accounts} accounts of {zones} zones (10 records each, one update per zone), each \
             with its own emulator and token. Each emulator's bucket is time-scaled 10× like \
             section 2's: refill {}/min and {} requests deep, so one account's full plan (its \
             zones and its listings) waits on its bucket as a plan ten times its size would at \
             the real 120/min. Full plans (`make_plan` with the whole-account check, as `dnscron \
             plan` makes for each account of dnscron-accounts.yaml, one `ReadClient` each) side \
             by side on one runtime, then one after another, in the same run, each account's \
             bucket full again before each. Target: side by side within 1.5× of one account \
             planned alone (the mean of the one-after-another run); bound: the slowest \
             account's lower bound (its requests through its own bucket, section 2's formula).",
            limit.per_minute, limit.burst
        ),
    );
    let all: Vec<One> = (0..accounts)
        .map(|i| account(i, zones, &limit))
        .collect::<Result<_, _>>()?;
    let refill = |all: &[One]| {
        for one in all {
            one.emu.set_rate_limit(limit.clone());
            one.emu.reset_counters();
        }
    };
    refill(&all);
    let started = Instant::now();
    let side = futures_all(&all).await?;
    let side_wall = started.elapsed();
    let requests: Vec<u64> = all.iter().map(|o| o.emu.counters().requests).collect();
    let rate_limited: u64 = all.iter().map(|o| o.emu.counters().rate_limited).sum();
    refill(&all);
    let started = Instant::now();
    let mut one_after_another = Vec::new();
    for one in &all {
        one_after_another.push(plan(one).await?);
    }
    let sequential_wall = started.elapsed();
    let bound = requests
        .iter()
        .map(|&n| pacing::lower_bound(n as usize, &limit))
        .max()
        .unwrap_or_default();
    let slowest = side.iter().max().copied().unwrap_or_default();
    section.push(Figure::info(
        "requests per account (full plan)",
        format!(
            "{}–{}",
            requests.iter().min().unwrap_or(&0),
            requests.iter().max().unwrap_or(&0)
        ),
    ));
    let alone = sequential_wall / u32::try_from(all.len()).unwrap_or(1).max(1);
    let r = side_wall.as_secs_f64() / alone.as_secs_f64().max(f64::MIN_POSITIVE);
    section.push(Figure::info(
        "one account alone (mean of the one-after-another run)",
        secs(alone),
    ));
    section.push(Figure::new(
        "side by side: wall / one account alone",
        format!(
            "{} / {} = {}",
            secs(side_wall),
            secs(alone),
            ratio(side_wall.as_secs_f64(), alone.as_secs_f64())
        ),
        "≤ 1.5",
        secs(bound),
        Verdict::of(r <= 1.5),
    ));
    section.push(Figure::info(
        "side by side: slowest account's own plan",
        secs(slowest),
    ));
    section.push(Figure::info(
        "one after another: wall",
        secs(sequential_wall),
    ));
    section.push(Figure::info(
        "one after another / side by side",
        ratio(sequential_wall.as_secs_f64(), side_wall.as_secs_f64()),
    ));
    section.push(Figure::new(
        "429s received (side by side)",
        rate_limited.to_string(),
        "0",
        "0",
        Verdict::of(rate_limited == 0),
    ));
    Ok(section)
}

/// Every account's plan at once, each on its own task and client.
async fn futures_all(all: &[One]) -> Result<Vec<Duration>, BenchError> {
    let plans: Vec<_> = all.iter().map(plan).collect();
    let mut out = Vec::with_capacity(plans.len());
    // `join!` of a dynamic number: poll them all on this task, as the binary does.
    let mut plans: Vec<_> = plans.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<Result<Duration, BenchError>>> = plans.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (plan, slot) in plans.iter_mut().zip(done.iter_mut()) {
            if slot.is_none()
                && let std::task::Poll::Ready(result) = plan.as_mut().poll(cx)
            {
                *slot = Some(result);
            }
        }
        if done.iter().all(Option::is_some) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    for result in done.into_iter().flatten() {
        out.push(result?);
    }
    Ok(out)
}
