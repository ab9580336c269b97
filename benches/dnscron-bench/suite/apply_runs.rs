//! The apply measurements: requests of apply on workload W, an apply of 300 changes under the
//! real 120/min limit (issue 5), and an apply of 500 changes under injected faults. All run the
//! apply executor (`apply::apply`) on a plan from `make_plan`, as `dnscron apply` does.

use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

use dnscron_api::{StatsSnapshot, WriteClient};
use dnscron_core::apply::{self, ApplyOptions, ApplyReport, ApplyResult, Silent};
use dnscron_core::plan::{MakeOptions, Planned, make_plan};
use dnscron_emulator::{BackgroundEmulator, Faults, RateLimit, StateSnapshot};

use super::efficiency::{Routes, apply_minimum, plan_minimum, route_figures};
use super::report::{Figure, Section, Verdict};
use super::workload::{Account, Drift, changes_account};
use super::{BenchError, millis, secs, setup};

/// 20 creates, 20 updates, 10 deletes per 100-record zone: inside the default safety limits.
const PER_ZONE: Drift = Drift {
    creates: 20,
    updates: 20,
    deletes: 10,
};

fn delta(after: &Routes, before: &Routes) -> Routes {
    after
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.saturating_sub(before.get(k).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, v)| *v > 0)
        .collect()
}

async fn run_apply(client: &WriteClient, planned: &Planned) -> ApplyReport {
    let opts = ApplyOptions::new(&planned.plan, &Silent);
    apply::apply(client, &planned.plan, &opts).await
}

fn result_figure(report: &ApplyReport) -> Figure {
    let converged = matches!(report.result, ApplyResult::Converged);
    Figure::new(
        "apply: result",
        format!(
            "{} ({} round(s), {} done, {} replayed)",
            if converged {
                "converged"
            } else {
                "NOT converged"
            },
            report.rounds,
            report.counts.done,
            report.counts.replayed
        ),
        "converged",
        "",
        Verdict::of(converged),
    )
}

/// Request counts of apply on workload W against the minimum.
#[allow(clippy::too_many_arguments)]
pub async fn efficiency(
    section: &mut Section,
    emu: &BackgroundEmulator,
    client: &WriteClient,
    planned: &Planned,
    account: &Account,
    plan_stats: &StatsSnapshot,
    plan_server: &Routes,
) -> Result<(), BenchError> {
    let started = Instant::now();
    let report = run_apply(client, planned).await;
    let wall = started.elapsed();
    let after = client.read().stats().snapshot();
    let client_routes = delta(&after.requests, &plan_stats.requests);
    let server_routes = delta(&setup::emulator_routes(&emu.counters()), plan_server);
    route_figures(
        section,
        "apply",
        &client_routes,
        &server_routes,
        &apply_minimum(account),
    );
    section.push(result_figure(&report));
    section.push(Figure::info(
        "apply: wall (rate limiting off)",
        millis(wall),
    ));
    Ok(())
}

/// Issue 5's figure: plan + apply + verification of 300 changes at the real 120/min with a
/// 120-deep bucket, dnscron the user's only client.
pub async fn real_limit(section: &mut Section) -> Result<(), BenchError> {
    let account = changes_account(6, PER_ZONE);
    let limit = RateLimit::default();
    let (_dir, desired) = setup::write_and_load(&account, "real")?;
    let emu = setup::start(account.seed(limit.clone()))?;
    let client = setup::write_client(&emu)?;
    let started = Instant::now();
    let planned = make_plan(client.read(), &desired, &MakeOptions::default())
        .await
        .map_err(|e| BenchError::step("plan of 300 changes", e))?;
    let report = run_apply(&client, &planned).await;
    let wall = started.elapsed();
    let stats = client.read().stats().snapshot();
    let min: u64 = plan_minimum(&account).values().sum::<u64>()
        + apply_minimum(&account).values().sum::<u64>();
    let bound = super::pacing::lower_bound(min as usize, &limit);
    let sent = stats.total_requests();
    section.push(super::pacing::wall_vs_bound(
        format!(
            "apply of {} changes at 120/min: wall / bound",
            account.changes()
        ),
        wall,
        bound,
    ));
    section.push(Figure::new(
        "apply at 120/min: requests (plan + writes + verification)",
        sent.to_string(),
        "= minimum",
        min.to_string(),
        Verdict::of(sent == min),
    ));
    section.push(Figure::new(
        "apply at 120/min: 429s received",
        format!(
            "{} (server sent {})",
            stats.rate_limited,
            emu.counters().rate_limited
        ),
        "0",
        "0",
        Verdict::of(stats.rate_limited == 0),
    ));
    let mut result = result_figure(&report);
    result.name = "apply at 120/min: result".into();
    section.push(result);
    Ok(())
}

/// Records stored twice (same name, type and content) in any zone: a double write.
fn duplicates(state: &StateSnapshot) -> usize {
    state
        .zones
        .values()
        .map(|records| {
            let mut seen = HashSet::new();
            records
                .iter()
                .filter(|r| !seen.insert((&r.name, &r.rtype, &r.content)))
                .count()
        })
        .sum()
}

pub async fn faults(smoke: bool) -> Result<Section, BenchError> {
    let zones = if smoke { 2 } else { 10 };
    let account = changes_account(zones, PER_ZONE);
    let mut section = Section::new(
        "4. Apply under faults",
        &format!(
            "{zones} zones × 100 records, {} changes (creates, updates, deletes); rate limiting \
             off; 10 % of writes answered 502 `upstream_error` before anything changes and 5 % \
             committed and then dropped without a response (emulator fault seed 7). Retries and \
             replays are the client's counts; converged means apply reported `converged` *and* a \
             fresh plan by a new client is empty *and* the emulator's state holds no record twice.",
            account.changes()
        ),
    );
    let (_dir, desired) = setup::write_and_load(&account, "faults")?;
    let mut seed = account.seed(RateLimit::off());
    seed.faults = Faults {
        seed: 7,
        upstream_error_share: 0.10,
        drop_after_commit_share: 0.05,
        ..Faults::default()
    };
    let emu = setup::start(seed)?;
    let client = setup::write_client(&emu)?;
    let planned = make_plan(client.read(), &desired, &MakeOptions::default())
        .await
        .map_err(|e| BenchError::step("plan of the fault run", e))?;
    let started = Instant::now();
    let report = run_apply(&client, &planned).await;
    let wall = started.elapsed();
    let stats = client.read().stats().snapshot();
    let counters = emu.counters();

    let fresh = setup::read_client(&emu, super::workload::TOKEN)?;
    let replan = make_plan(&fresh, &desired, &MakeOptions::default())
        .await
        .map_err(|e| BenchError::step("re-plan after the fault run", e))?;
    let dups = duplicates(&emu.state());
    let converged = matches!(report.result, ApplyResult::Converged)
        && replan.plan.changes.is_empty()
        && dups == 0;

    section.push(Figure::info("wall", secs(wall)));
    section.push(Figure::info(
        "faults injected (502 / dropped after commit)",
        format!(
            "{} / {}",
            counters.faults.upstream_errors, counters.faults.dropped_after_commit
        ),
    ));
    section.push(Figure::info("retries (client)", stats.retries.to_string()));
    section.push(Figure::info(
        "replays (client / server)",
        format!("{} / {}", stats.replays, counters.replays),
    ));
    section.push(result_figure(&report));
    section.push(Figure::new(
        "converged (apply, fresh re-plan empty, no duplicate)",
        format!(
            "{} (re-plan: {} changes, duplicates: {dups})",
            if converged { "yes" } else { "no" },
            replan.plan.changes.len()
        ),
        "yes",
        "",
        Verdict::of(converged),
    ));
    let writes: BTreeMap<_, _> = stats
        .requests
        .iter()
        .filter(|(r, _)| !r.starts_with("GET "))
        .collect();
    section.push(Figure::info(
        "write attempts (changes + retries of writes)",
        format!(
            "{} for {} changes",
            writes.values().copied().sum::<u64>(),
            account.changes()
        ),
    ));
    Ok(section)
}
