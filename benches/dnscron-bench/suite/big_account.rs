//! Big account (section 7, issue 21): 300 zones of 4 records, one registered domain per zone, and
//! a change to a few of them. What each job sends when it reads everything (every target, the
//! registrar health of every domain: what every job did before issue 21) and when it reads the
//! change's scope; the wall time those counts cost at the real bucket; one scoped plan and apply
//! paced for real; and merge to live, apply start → the change served by the emulator's DNS.

use std::time::{Duration, Instant};

use dnscron_api::WriteClient;
use dnscron_core::apply::{self, ApplyOptions, ApplyReport, ApplyResult, Silent};
use dnscron_core::config::changed::ChangedTargets;
use dnscron_core::config::model::Desired;
use dnscron_core::dnscheck::{AddressBook, NameserverAddress};
use dnscron_core::plan::{MakeOptions, Planned, Scope, make_plan};
use dnscron_emulator::{BackgroundEmulator, DomainSeed, RateLimit, Seed};

use super::pacing::lower_bound;
use super::report::{Figure, Section, Verdict};
use super::workload::{Account, Drift, ZoneGen};
use super::{BenchError, secs, setup};

/// Records per zone, live and in the files before the change.
const RECORDS: usize = 4;

/// One case: which zones change and by how many added records each.
struct Case {
    name: &'static str,
    zones: usize,
    added_per_zone: usize,
}

const CASES: [Case; 2] = [
    Case {
        name: "one record",
        zones: 1,
        added_per_zone: 1,
    },
    Case {
        name: "100 records in 10 zones",
        zones: 10,
        added_per_zone: 10,
    },
];

fn account(zones: usize, case: &Case) -> Account {
    // The changed zones are spread over the account, not its first files.
    let step = zones / case.zones.max(1);
    let zones = (0..zones)
        .map(|i| {
            let added = if i % step == step / 2 && i / step < case.zones {
                case.added_per_zone
            } else {
                0
            };
            let drift = Drift {
                creates: added,
                ..Drift::default()
            };
            ZoneGen::new(&format!("z{i:03}.example"), RECORDS + added, drift)
        })
        .collect();
    Account {
        zones,
        sites: Vec::new(),
    }
}

/// The account's live side with a domain registered for every zone.
pub(super) fn seed(account: &Account, limit: RateLimit) -> Seed {
    let mut seed = account.seed(limit);
    seed.domains = account
        .zones
        .iter()
        .map(|z| DomainSeed::new(&z.zone))
        .collect();
    seed
}

/// The scope `plan --changed-since` finds when exactly the changed zones' files differ.
fn scope(account: &Account) -> Scope {
    let changed = ChangedTargets {
        since: "HEAD~1".into(),
        commit: "0".repeat(40),
        zones: account
            .zones
            .iter()
            .filter(|z| z.drift.changes() > 0)
            .map(|z| (z.zone.clone(), false))
            .collect(),
        sites: Default::default(),
        removed: Default::default(),
    };
    Scope::of(&changed)
}

fn opts(scope: Option<&Scope>, health: bool) -> MakeOptions {
    MakeOptions {
        allow_mass_changes: true,
        scope: scope.cloned(),
        health,
        ..MakeOptions::default()
    }
}

/// Every request `client` sent (each job has its own).
fn total(client: &WriteClient) -> u64 {
    client.read().stats().snapshot().requests.values().sum()
}

async fn plan(
    client: &WriteClient,
    desired: &Desired,
    opts: &MakeOptions,
) -> Result<Planned, BenchError> {
    make_plan(client.read(), desired, opts)
        .await
        .map_err(|e| BenchError::step("big-account plan", e))
}

async fn execute(
    client: &WriteClient,
    planned: &Planned,
    dns: Option<apply::dns::DnsOptions>,
) -> ApplyReport {
    let mut opts = ApplyOptions::new(&planned.plan, &Silent);
    opts.dns = dns.map(|d| d.with_nameservers_of(&planned.live));
    apply::apply(client, &planned.plan, &opts).await
}

fn converged(report: &ApplyReport) -> bool {
    matches!(report.result, ApplyResult::Converged)
}

/// Requests of (plan, apply --reviewed, drift) reading everything, then reading the scope.
struct Counts {
    plan: u64,
    apply: u64,
    drift: u64,
}

/// Every job on its own client (counts start at zero), `scope` or everything.
async fn jobs(
    account: &Account,
    desired: &Desired,
    scope: Option<&Scope>,
) -> Result<(Counts, bool), BenchError> {
    let emu = setup::start(seed(account, RateLimit::off()))?;
    let client = setup::write_client(&emu)?;
    let planned = plan(&client, desired, &opts(scope, true)).await?;
    let plan_requests = total(&client);
    // apply --reviewed plans again (before issue 21: everything, registrar health included;
    // now: the reviewed scope, no health), writes and re-reads.
    let client = setup::write_client(&emu)?;
    let now = plan(&client, desired, &opts(scope, scope.is_none())).await?;
    let report = execute(&client, &now, None).await;
    let apply_requests = total(&client);
    let changes_ok = planned.plan.changes.len() == account.changes() && converged(&report);
    // The nightly drift job: everything, once.
    let client = setup::write_client(&emu)?;
    plan(&client, desired, &opts(None, true)).await?;
    let counts = Counts {
        plan: plan_requests,
        apply: apply_requests,
        drift: total(&client),
    };
    Ok((counts, changes_ok))
}

/// At the real bucket (120 deep, 2 a second) from full: what the pacer must wait for `n`.
fn at_real_bucket(n: u64) -> String {
    let bound = lower_bound(n as usize, &RateLimit::default());
    if bound.is_zero() {
        "0 s (within the bucket)".into()
    } else if bound < Duration::from_secs(60) {
        secs(bound)
    } else {
        format!("{} (≈ {:.0} min)", secs(bound), bound.as_secs_f64() / 60.0)
    }
}

fn push_counts(
    section: &mut Section,
    case: &str,
    before: &Counts,
    after: &Counts,
    goals: [u64; 3],
) {
    let jobs = [
        ("plan in the PR", before.plan, after.plan, goals[0]),
        (
            "apply --reviewed on merge",
            before.apply,
            after.apply,
            goals[1],
        ),
        (
            "nightly drift detection",
            before.drift,
            after.drift,
            goals[2],
        ),
    ];
    for (job, was, now, goal) in jobs {
        section.push(Figure::new(
            format!("{case}: {job}: requests, everything read → scope read"),
            format!("{was} → {now}"),
            format!("≤ {goal}"),
            "",
            Verdict::of(now <= goal),
        ));
        section.push(Figure::info(
            format!("{case}: {job}: wait at the real bucket, everything → scope"),
            format!("{} → {}", at_real_bucket(was), at_real_bucket(now)),
        ));
    }
}

fn summary_rows(section: &mut Section, case: &Case, before: &Counts, after: &Counts) {
    let goal = |one: &str| {
        if case.zones == 1 {
            one.to_string()
        } else {
            String::new()
        }
    };
    let rows = [
        (
            "`plan dns/ --changed-since` in the PR",
            before.plan,
            after.plan,
            goal("≤ 6, < 2 s"),
        ),
        (
            "`apply dns/ --reviewed plan.json` on merge",
            before.apply,
            after.apply,
            goal("≤ 8"),
        ),
        (
            "nightly drift detection (`plan dns/`)",
            before.drift,
            after.drift,
            "unchanged".into(),
        ),
    ];
    for (job, was, now, goal) in rows {
        section.summary.push(format!(
            "| {} | {job} | {was} | {} | {now} | {} | {goal} |",
            case.name,
            at_real_bucket(was),
            at_real_bucket(now)
        ));
    }
}

/// The scoped plan and apply of the one-record case, at the real 120/min bucket.
async fn paced(
    account: &Account,
    desired: &Desired,
    scope: &Scope,
) -> Result<Duration, BenchError> {
    let emu = setup::start(seed(account, RateLimit::default()))?;
    let client = setup::write_client(&emu)?;
    let started = Instant::now();
    plan(&client, desired, &opts(Some(scope), true)).await?;
    let now = plan(&client, desired, &opts(Some(scope), false)).await?;
    let report = execute(&client, &now, None).await;
    if !converged(&report) {
        return Err(BenchError::step(
            "paced apply",
            format!("{:?}", report.result),
        ));
    }
    Ok(started.elapsed())
}

/// Apply start → every nameserver serves the change: the emulator's DNS answers the old
/// records to the first questions of each name (`dns_lag_queries`), as a nameserver still
/// loading the zone would.
async fn merge_to_live(
    account: &Account,
    desired: &Desired,
    scope: &Scope,
) -> Result<(Duration, bool), BenchError> {
    let mut seed = seed(account, RateLimit::off());
    seed.faults.dns_lag_queries = 2;
    let emu: BackgroundEmulator = dnscron_emulator::start_background_with_dns(seed)
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let at = emu
        .dns_addr()
        .ok_or_else(|| BenchError::Setup("the emulator serves no DNS".into()))?;
    let book: Vec<NameserverAddress> = ["ns1.veldhost.net", "ns2.veldhost.net"]
        .iter()
        .map(|host| format!("{host}={at}").parse())
        .collect::<Result<_, _>>()
        .map_err(|e| BenchError::Setup(format!("{e:?}")))?;
    let mut dns = apply::dns::DnsOptions::new(AddressBook::new(book).without_system_resolver());
    dns.wait = Duration::from_secs(10);
    let client = setup::write_client(&emu)?;
    let started = Instant::now();
    let now = plan(&client, desired, &opts(Some(scope), false)).await?;
    let report = execute(&client, &now, Some(dns)).await;
    let live = converged(&report) && report.dns_check.as_ref().is_some_and(|c| c.all_live());
    Ok((started.elapsed(), live))
}

pub async fn run(smoke: bool) -> Result<Section, BenchError> {
    let zones = if smoke { 30 } else { 300 };
    let mut section = Section::new(
        "7. Big account (issue 21)",
        &format!(
            "{zones} zones × {RECORDS} records, one registered domain per zone; the files differ from \
             the live account in 1 record of 1 zone, or in 100 records over 10 zones. Each job runs \
             as the command does (`make_plan`, then the apply executor) on its own client, rate \
             limiting off: reading everything (every target and the registrar health of every \
             domain, which every job did before issue 21) and reading the scope \
             `plan --changed-since` finds (the changed zones; the bench builds that scope, the \
             git side is tested in tests/it/scope/). The wait at the real bucket (120 deep, 2 a \
             second) is the pacer's lower bound from a full bucket. Then the one-record plan and \
             apply paced for real, and merge to live: apply start until the emulator's DNS, \
             answering the old records to the first 2 questions of each name, serves the change."
        ),
    );
    section.summary = vec![
        "| change | job | requests, everything read (before issue 21) | at the real bucket | requests, scope read | at the real bucket | goal |".into(),
        "|---|---|---:|---:|---:|---:|---:|".into(),
    ];
    for case in &CASES {
        let account = account(zones, case);
        let (_dir, desired) = setup::write_and_load(&account, "big")?;
        let scope = scope(&account);
        let (before, ok_before) = jobs(&account, &desired, None).await?;
        let (after, ok_after) = jobs(&account, &desired, Some(&scope)).await?;
        let goals = match case.zones {
            1 => [6, 8, before.drift],
            _ => [before.plan, before.apply, before.drift],
        };
        push_counts(&mut section, case.name, &before, &after, goals);
        summary_rows(&mut section, case, &before, &after);
        section.push(Figure::new(
            format!("{}: changes planned and applied", case.name),
            format!(
                "{} (converged: {})",
                account.changes(),
                ok_before && ok_after
            ),
            "all, converged",
            account.changes().to_string(),
            Verdict::of(ok_before && ok_after),
        ));
        if case.zones == 1 && !smoke {
            let wall = paced(&account, &desired, &scope).await?;
            section.push(Figure::new(
                "one record: plan + apply --reviewed, paced at the real 120/min bucket",
                super::millis(wall),
                "< 2 s",
                "",
                Verdict::of(wall < Duration::from_secs(2)),
            ));
            let (wall, live) = merge_to_live(&account, &desired, &scope).await?;
            section.summary.push(format!(
                "| {} | merge to live: apply start → served by every nameserver | | | | {} ({}) | ≤ 5 s |",
                case.name,
                secs(wall),
                if live { "live" } else { "NOT live" }
            ));
            section.push(Figure::new(
                "one record: merge to live (apply start → served by every nameserver)",
                format!(
                    "{} ({})",
                    secs(wall),
                    if live { "live" } else { "NOT live" }
                ),
                "≤ 5 s",
                "",
                Verdict::of(live && wall <= Duration::from_secs(5)),
            ));
        }
    }
    if smoke {
        section.note(
            "Smoke sizes: the real-bucket run and merge to live (real DNS waits) are left out.",
        );
    }
    section.note(format!(
        "Before issue 21 (issue 21's own measurement on this account): plan 603, apply --reviewed \
         610, drift 603 requests; the \"everything\" column above re-measures that reading with \
         this build. {}",
        routes_note()
    ));
    Ok(section)
}

fn routes_note() -> &'static str {
    "Scoped, a one-zone plan sends `GET /dns/{zone}/records`, `GET /domains/{domain}` and \
     `GET /domains/{domain}/registrar`; the apply, one listing, the write and the re-read."
}
