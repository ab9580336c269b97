//! Request efficiency (section 1): requests of plan and apply by route on workload W, beside the
//! theoretical minimum computed from the generated workload.

use std::collections::BTreeMap;
use std::time::Instant;

use dnscron_api::StatsSnapshot;
use dnscron_core::plan::{MakeOptions, make_plan};
use dnscron_emulator::RateLimit;

use super::report::{Figure, Section, Verdict};
use super::workload::{Account, workload_w};
use super::{BenchError, apply_runs, millis, ratio, setup};

pub type Routes = BTreeMap<String, u64>;

/// The fewest requests a plan of `account` can send: every page of each zone's live records,
/// the domain list once (registrar findings; the workload registers no domain, so one page and
/// no registrar reads), the site list once, each managed site's cron list once; nothing else.
pub fn plan_minimum(account: &Account) -> Routes {
    let mut min = Routes::new();
    let pages: u64 = account
        .zones
        .iter()
        .map(|z| setup::pages(z.live_records()))
        .sum();
    if !account.zones.is_empty() {
        min.insert("GET /dns/{zone}/records".into(), pages);
        min.insert("GET /domains".into(), 1);
    }
    if !account.sites.is_empty() {
        min.insert("GET /sites".into(), setup::pages(account.sites.len()));
        min.insert("GET /sites/{slug}/cron".into(), account.sites.len() as u64);
    }
    min
}

/// The fewest requests apply can send after its plan: one write per change, one cron listing
/// before each cron delete (indexes move), and the verification re-read of the touched targets
/// (every page of each touched zone after the change, the site list, each touched site's cron).
pub fn apply_minimum(account: &Account) -> Routes {
    let mut min = Routes::new();
    let mut add = |route: &str, n: u64| {
        if n > 0 {
            *min.entry(route.to_string()).or_default() += n;
        }
    };
    let d = account.record_changes();
    add("POST /dns/{zone}/records", d.creates as u64);
    add("PUT /dns/{zone}/records/{record}", d.updates as u64);
    add("DELETE /dns/{zone}/records/{record}", d.deletes as u64);
    let cron = account.cron_replacements() as u64;
    add("POST /sites/{slug}/cron", cron);
    add("DELETE /sites/{slug}/cron/{index}", cron);
    add("GET /sites/{slug}/cron", cron);
    let touched_pages: u64 = account
        .zones
        .iter()
        .filter(|z| z.drift.changes() > 0)
        .map(|z| setup::pages(z.final_records()))
        .sum();
    add("GET /dns/{zone}/records", touched_pages);
    let touched_sites = account.sites.iter().filter(|s| s.replaced > 0).count() as u64;
    if touched_sites > 0 {
        add("GET /sites", setup::pages(account.sites.len()));
        add("GET /sites/{slug}/cron", touched_sites);
    }
    min
}

/// One figure per route (actual from the client, the emulator's count beside it) and a total.
pub fn route_figures(
    section: &mut Section,
    phase: &str,
    client: &Routes,
    server: &Routes,
    min: &Routes,
) {
    let mut routes: Vec<&String> = min.keys().chain(client.keys()).collect();
    routes.sort();
    routes.dedup();
    for route in routes {
        let got = client.get(route).copied().unwrap_or(0);
        let seen = server.get(route).copied().unwrap_or(0);
        let want = min.get(route).copied().unwrap_or(0);
        section.push(Figure::new(
            format!("{phase}: `{route}`"),
            format!("{got} (server saw {seen})"),
            "= minimum",
            want.to_string(),
            Verdict::of(got == want),
        ));
    }
    let total: u64 = client.values().sum();
    let want: u64 = min.values().sum();
    section.push(Figure::new(
        format!("{phase}: all requests, ratio to the minimum"),
        format!("{total} → {}", ratio(total as f64, want as f64)),
        "1.00",
        want.to_string(),
        Verdict::of(total == want),
    ));
}

pub async fn run(smoke: bool) -> Result<Section, BenchError> {
    let account = workload_w(smoke);
    let d = account.record_changes();
    let mut section = Section::new(
        "1. Request efficiency (workload W)",
        &format!(
            "Workload W: {} zones × 50 records, 1 zone × {} records, {} sites × 5 cron jobs; the live \
             account differs by {} record creates, {} updates, {} deletes and {} cron replacements \
             (≈ 2 %). Rate limiting off. `plan` = `make_plan` (what `dnscron plan` runs); `apply` = \
             the apply executor on that plan, verification included. Counts are the client's \
             `Stats` (every attempt); the emulator's own counters are shown beside them. The \
             minimum is computed from the generated workload: plan = ⌈live records/100⌉ pages \
             per zone + `GET /domains` + `GET /sites` + one cron list per site; apply = one write per change + one \
             cron listing per cron delete + the re-read of the touched targets.",
            account.zones.len() - 1,
            account.zones.last().map_or(0, |z| z.records),
            account.sites.len(),
            d.creates,
            d.updates,
            d.deletes,
            account.cron_replacements()
        ),
    );
    let (_dir, desired) = setup::write_and_load(&account, "w")?;
    let emu = setup::start(account.seed(RateLimit::off()))?;
    let client = setup::write_client(&emu)?;
    let started = Instant::now();
    let planned = make_plan(
        client.read(),
        &desired,
        &MakeOptions {
            allow_mass_changes: true,
            ..MakeOptions::default()
        },
    )
    .await
    .map_err(|e| BenchError::step("plan of workload W", e))?;
    let plan_wall = started.elapsed();
    let plan_stats: StatsSnapshot = client.read().stats().snapshot();
    let plan_server = setup::emulator_routes(&emu.counters());
    route_figures(
        &mut section,
        "plan",
        &plan_stats.requests,
        &plan_server,
        &plan_minimum(&account),
    );
    section.push(Figure::info(
        "plan: wall (rate limiting off)",
        millis(plan_wall),
    ));
    let changes = planned.plan.changes.len();
    section.push(Figure::new(
        "plan: changes found",
        changes.to_string(),
        "= generated drift",
        account.changes().to_string(),
        Verdict::of(changes == account.changes()),
    ));
    apply_runs::efficiency(
        &mut section,
        &emu,
        &client,
        &planned,
        &account,
        &plan_stats,
        &plan_server,
    )
    .await?;
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::super::workload::{Drift, SiteGen, ZoneGen};
    use super::*;

    #[test]
    fn minimums_follow_the_workload() {
        let account = Account {
            zones: vec![
                ZoneGen::new(
                    "a.example.com",
                    150,
                    Drift {
                        creates: 1,
                        updates: 2,
                        deletes: 60,
                    },
                ),
                ZoneGen::new("b.example.com", 10, Drift::default()),
            ],
            sites: vec![SiteGen {
                slug: "s".into(),
                jobs: 5,
                replaced: 2,
            }],
        };
        let plan = plan_minimum(&account);
        // a: 150 - 1 + 60 = 209 live → 3 pages; b: 1 page.
        assert_eq!(plan["GET /dns/{zone}/records"], 4);
        assert_eq!(plan["GET /domains"], 1);
        assert_eq!(plan["GET /sites"], 1);
        assert_eq!(plan["GET /sites/{slug}/cron"], 1);
        let apply = apply_minimum(&account);
        assert_eq!(apply["POST /dns/{zone}/records"], 1);
        assert_eq!(apply["PUT /dns/{zone}/records/{record}"], 2);
        assert_eq!(apply["DELETE /dns/{zone}/records/{record}"], 60);
        assert_eq!(apply["DELETE /sites/{slug}/cron/{index}"], 2);
        // Two re-lists before the deletes, one for verification.
        assert_eq!(apply["GET /sites/{slug}/cron"], 3);
        // Only zone a is touched: 150 records after → 2 pages.
        assert_eq!(apply["GET /dns/{zone}/records"], 2);
    }
}
