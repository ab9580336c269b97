//! The controller (section 9, issue 30): a merged revision live within 5 s and ≤ 8 requests
//! with DIR swapped the way git-sync swaps it; a simulated day within the API share; memory and
//! open files flat over 10,000 rounds. The controller runs as `dnscron controller --policy
//! apply --api-share 50` builds it (`Mode::ApplyMerged`, a budget of half the spec's bucket,
//! a state file), the emulator in the same process at the spec's bucket.

mod accounts;
mod busy;
mod day;
mod harness;
mod memory;
mod merge;

use std::time::Duration;

use super::report::{Figure, Section, Verdict};
use super::{BenchError, secs};
use merge::{RevisionRun, Start};

/// The bounds.
const LIVE_WITHIN: Duration = Duration::from_secs(5);
const REVISION_REQUESTS: usize = 8;
const MEMORY_GROWTH_PERCENT: f64 = 10.0;
/// A one-record revision can't cost less: the zone read, the write, the zone read back.
const REVISION_MINIMUM: usize = 3;

struct Sizes {
    zones: usize,
    day: Duration,
    rounds: (u64, u64),
    /// The busy repository's simulated length (its 60 zones and 20 s are the issue's).
    busy: Duration,
}

/// Issue 37's busy repository.
const BUSY_ZONES: usize = 60;
const BUSY_EVERY: Duration = Duration::from_secs(20);

fn sizes(smoke: bool) -> Sizes {
    match smoke {
        true => Sizes {
            zones: 30,
            day: Duration::from_secs(3600),
            rounds: (100, 300),
            busy: Duration::from_secs(15 * 60),
        },
        false => Sizes {
            zones: 300,
            day: Duration::from_secs(24 * 3600),
            rounds: (100, 10_000),
            busy: Duration::from_secs(3600),
        },
    }
}

pub fn run(runtime: &tokio::runtime::Runtime, smoke: bool) -> Result<Section, BenchError> {
    let sizes = sizes(smoke);
    let mut section = Section::new("9. The controller (issue 30)", &method(&sizes));
    // Memory first: the parts after it free what they allocated, and a later loop reusing
    // that memory would hide its own growth.
    let flat = memory::run(sizes.rounds.0, sizes.rounds.1)?;
    let restarted = runtime.block_on(merge::run(sizes.zones, Start::Restarted))?;
    let (first_start, _) = harness::on_paused_clock(merge::run(sizes.zones, Start::FirstStart))?;
    push_revision(
        &mut section,
        "restarted, mid-sweep, real clock",
        &restarted,
        false,
    );
    push_revision(
        &mut section,
        "first start, after the first sweep, paused clock",
        &first_start,
        true,
    );
    if let Some(sweep) = first_start.first_sweep {
        // A sweep keeps 12 of the minute's 60 free for a revision: it reads at 48 a minute.
        let documented = sweep_requests(sizes.zones) as f64 / 48.0;
        section.push(Figure::new(
            format!(
                "first start: the first whole sweep of {} zones (simulated)",
                sizes.zones
            ),
            format!("{} (≈ {:.1} min)", secs(sweep), sweep.as_secs_f64() / 60.0),
            "",
            format!(
                "≈ {documented:.1} min ({} requests at 48 a minute: 12 of the 60 kept for a revision)",
                sweep_requests(sizes.zones)
            ),
            Verdict::Info,
        ));
    }
    let day = day::run(sizes.zones, sizes.day)?;
    push_day(&mut section, &day, sizes.zones);
    let busy = busy::run(BUSY_ZONES, BUSY_EVERY, sizes.busy)?;
    push_busy(&mut section, &busy);
    push_memory(&mut section, &flat, sizes.rounds);
    section.note(format!(
        "Requests of the restarted controller's revision, route by route: {}. After the first \
         sweep: {}.",
        merge::routes(&restarted.requests),
        merge::routes(&first_start.requests)
    ));
    section.note(format!(
        "The simulated day's attempts, route by route: {}. A sweep reads the account's zone, \
         domain and site listings once (its parts share the domain listing) and each zone's \
         records and its domain's registrar state: 2 requests a zone, 7 a sweep here (3 pages \
         of zones, 3 of domains, 1 of sites).",
        day.routes
    ));
    if smoke {
        section.note(format!(
            "Smoke sizes: {} zones, {} simulated, memory after rounds {} and {}.",
            sizes.zones,
            hours(sizes.day),
            sizes.rounds.0,
            sizes.rounds.1
        ));
    }
    Ok(section)
}

fn method(sizes: &Sizes) -> String {
    format!(
        "The controller as `dnscron controller DIR --policy apply --api-share 50 --state-file …` \
         builds it (`Mode::ApplyMerged`, `controller::api_config(…, 50, 120)`: 60 requests in any \
         rolling minute, 429s waited out), against the emulator in this process at the spec's bucket (120 a minute, burst \
         120). The account: {zones} zones × {records} records, a registered domain per zone, \
         the files and the live side the same. DIR is laid out as git-sync keeps it: \
         `root/rev-1/` holds the files, a worktree of `root/.git` at a detached commit (its \
         `.git` file, the worktree's `HEAD`; written by the bench, read by the controller \
         without git), `root/current` links to it; the merged revision is `root/rev-2/`, the \
         same files with one record added to one zone's file at the next commit, swapped in by \
         a new link `current.tmp` renamed over `current`. **Revision**: from the swap until the \
         emulator's state holds the record (looked at every 10 ms), and the attempts the \
         controller's client sent in the round that applied it (its response hook, what the \
         metrics count; the server's own count beside it); the minimum is {min}: the zone read, \
         the write, the zone read back. Measured twice: a controller restarted with revision 1 \
         in its state file, the revision swapped in right after the first part of its drift \
         sweep has spent the budget down to the reserve it keeps for a revision, on the real \
         clock (the controller looks at DIR every second: this is the figure to read); and a \
         first start (no state: revision 1 taken as the base, nothing written) after its whole \
         first sweep, on tokio's paused clock (simulated time: the sweep \
         takes minutes at 60 a minute). **Day**: the same account from a first start, {day} of the paused \
         clock, a sweep every `--interval` 5 min (the default); every attempt's time is taken \
         when its answer comes; the busiest minute is the most within any `[t, t + 60 s)`. \
         **Memory**: {small} zones, `--interval 1s` on the paused clock so that rounds come back \
         to back (each waits only for the budget), VmRSS of this process (/proc/self/status) \
         and its open descriptors (/proc/self/fd) after round {early} and after round {late}, \
         measured before the other parts of the section. **Busy repository** (issue 37): \
         {busy_zones} zones, a controller restarted with revision 1 converged, and a new \
         revision swapped in every {busy_every} s for {busy_minutes} min of the paused clock, \
         each moving one record to the next zone's file (two changes); when each whole drift \
         sweep ended (the status's sweep count, as the observer sees it after each round), so \
         the longest any target waited to be read again.",
        zones = sizes.zones,
        busy_zones = BUSY_ZONES,
        busy_every = BUSY_EVERY.as_secs(),
        busy_minutes = sizes.busy.as_secs() / 60,
        records = merge::RECORDS,
        min = REVISION_MINIMUM,
        day = hours(sizes.day),
        small = memory::ZONES,
        early = sizes.rounds.0,
        late = sizes.rounds.1,
    )
}

fn push_revision(section: &mut Section, case: &str, run: &RevisionRun, simulated: bool) {
    let clock = if simulated { " (simulated)" } else { "" };
    let mut live = secs(run.live_after) + clock;
    if simulated {
        live.push_str(&format!(", {} of wall clock", secs(run.wall)));
    }
    section.push(Figure::new(
        format!("{case}: swap → record live"),
        live,
        "≤ 5 s",
        "",
        Verdict::of(run.live_after <= LIVE_WITHIN),
    ));
    section.push(Figure::info(
        format!("{case}: the controller's requests in the minute before the swap"),
        format!("{} of its 60", run.minute_before),
    ));
    let sent = run.requests.len();
    section.push(Figure::new(
        format!("{case}: requests for the revision"),
        format!("{sent} (server saw {})", run.server_requests),
        format!("≤ {REVISION_REQUESTS}"),
        REVISION_MINIMUM.to_string(),
        Verdict::of(sent <= REVISION_REQUESTS && run.server_requests as usize <= REVISION_REQUESTS),
    ));
    // The revision is read from git-sync's worktree: the second commit, by its id.
    let second = harness::commit(2);
    let named = run.revision.as_deref() == Some(second.as_str());
    section.push(Figure::new(
        format!("{case}: the revision converged, named by its commit"),
        format!(
            "{} ({})",
            run.converged,
            run.revision
                .as_deref()
                .map_or("none", |id| &id[..id.len().min(12)])
        ),
        format!("true ({})", &second[..12]),
        "",
        Verdict::of(run.converged && named),
    ));
}

fn push_day(section: &mut Section, day: &day::Day, zones: usize) {
    let share = u64::from(harness::BUCKET_PER_MINUTE) * u64::from(harness::SHARE_PERCENT) / 100;
    let minutes = day.simulated.as_secs() / 60;
    let title = format!("{} simulated", hours(day.simulated));
    section.push(Figure::new(
        format!("{title}: most requests in any rolling 60 s"),
        day.busiest_minute.to_string(),
        format!("≤ {share}"),
        format!("{share} (50 % of 120)"),
        Verdict::of(day.busiest_minute as u64 <= share),
    ));
    section.push(Figure::new(
        format!("{title}: requests in all"),
        day.requests.to_string(),
        format!("≤ {}", share * minutes),
        format!("{share} × {minutes} min"),
        Verdict::of(day.requests as u64 <= share * minutes),
    ));
    section.push(Figure::info(
        format!("{title}: whole sweeps"),
        day.sweeps.to_string(),
    ));
    let per_sweep = day.requests as f64 / day.sweeps.max(1) as f64;
    section.push(Figure::new(
        format!("{title}: requests per whole sweep (the day's, over its sweeps)"),
        format!("≈ {per_sweep:.0}"),
        "",
        format!(
            "{} (2 a zone and the listings: docs/controller.md)",
            sweep_requests(zones)
        ),
        Verdict::Info,
    ));
    section.push(Figure::new(
        format!("{title}: 429s answered, rounds failed"),
        format!("{}, {}", day.rate_limited, day.failed_rounds),
        "0, 0",
        "",
        Verdict::of(day.rate_limited == 0 && day.failed_rounds == 0),
    ));
    section.push(Figure::info(
        format!("{title}: rounds; wall clock to simulate"),
        format!("{}; {}", day.rounds, secs(day.wall)),
    ));
}

fn push_busy(section: &mut Section, busy: &busy::Busy) {
    let share = u64::from(harness::BUCKET_PER_MINUTE) * u64::from(harness::SHARE_PERCENT) / 100;
    let title = format!(
        "busy repository ({} zones, a revision every {} s, {} min simulated)",
        busy.zones,
        busy.every.as_secs(),
        busy.simulated.as_secs() / 60
    );
    section.push(Figure::info(
        format!("{title}: revisions swapped in; converged (as the observer saw them)"),
        format!("{}; {}", busy.published, busy.converged),
    ));
    section.push(Figure::info(
        format!("{title}: whole sweeps"),
        busy.sweeps_ended.len().to_string(),
    ));
    let first = busy.sweeps_ended.first().copied();
    section.push(Figure::new(
        format!("{title}: every target swept, the first time, after"),
        first.map_or_else(
            || "never".to_owned(),
            |d| format!("{} (≈ {:.1} min)", secs(d), d.as_secs_f64() / 60.0),
        ),
        "",
        format!(
            "{} requests a sweep at 48 a minute: ≈ {:.1} min with no revision",
            sweep_requests(busy.zones),
            sweep_requests(busy.zones) as f64 / 48.0
        ),
        Verdict::Info,
    ));
    section.push(Figure::info(
        format!("{title}: the longest any target waited to be read again"),
        busy.longest_sweep().map_or_else(
            || "never read".to_owned(),
            |d| format!("{} (≈ {:.1} min)", secs(d), d.as_secs_f64() / 60.0),
        ),
    ));
    section.push(Figure::new(
        format!("{title}: most requests in any rolling 60 s; rounds failed"),
        format!("{}; {}", busy.busiest_minute, busy.failed_rounds),
        format!("≤ {share}; 0"),
        "",
        Verdict::of(busy.busiest_minute as u64 <= share && busy.failed_rounds == 0),
    ));
    section.push(Figure::info(
        format!("{title}: requests in all; wall clock to simulate"),
        format!("{}; {}", busy.requests, secs(busy.wall)),
    ));
}

/// A simulated length, in hours.
fn hours(d: Duration) -> String {
    let number = format!("{:.2}", d.as_secs_f64() / 3600.0);
    format!("{} h", number.trim_end_matches('0').trim_end_matches('.'))
}

/// What docs/controller.md says a sweep reads: a zone's records and its domain's registration
/// per zone, and the account's listings.
/// A sweep of `zones` zones (each with its domain): each zone's records and registrar state,
/// and the zone, domain and site listings once (pages of 100).
fn sweep_requests(zones: usize) -> usize {
    2 * zones + 2 * zones.div_ceil(100) + 1
}

fn push_memory(section: &mut Section, flat: &memory::Flat, (early, late): (u64, u64)) {
    let mib = |kib: u64| format!("{:.1} MiB", kib as f64 / 1024.0);
    let growth = (flat.late.rss_kib as f64 / flat.early.rss_kib.max(1) as f64 - 1.0) * 100.0;
    section.push(Figure::new(
        format!("resident memory after round {early} → after round {late}"),
        format!(
            "{} → {} ({growth:+.1} %)",
            mib(flat.early.rss_kib),
            mib(flat.late.rss_kib)
        ),
        "within 10 %",
        "",
        Verdict::of(growth.abs() <= MEMORY_GROWTH_PERCENT),
    ));
    section.push(Figure::new(
        format!("open file descriptors after round {early} → after round {late}"),
        format!("{} → {}", flat.early.fds, flat.late.fds),
        "equal",
        "",
        Verdict::of(flat.early.fds == flat.late.fds),
    ));
    section.push(Figure::new(
        format!("{late} rounds: failed; simulated; wall clock"),
        format!(
            "{}; {}; {}",
            flat.failed_rounds,
            hours(flat.simulated),
            secs(flat.wall)
        ),
        "0 failed",
        "",
        Verdict::of(flat.failed_rounds == 0),
    ));
}

/// Issue 40's repository: 20 accounts of 30 zones.
const ACCOUNTS: (usize, usize) = (20, 30);

/// The controller over several accounts (issue 40): every account's first whole sweep, side by
/// side, next to one account's.
pub fn accounts_section(smoke: bool) -> Result<Section, BenchError> {
    let (accounts, zones) = match smoke {
        true => (3, 5),
        false => ACCOUNTS,
    };
    let mut section = Section::new(
        "10. The controller over several accounts (issue 40)",
        &format!(
            "One controller over a repository of {accounts} accounts of {zones} zones each \
             (4 records a zone, a registered domain per zone), each account a controller of its own \
             as `dnscron controller DIR` over `dnscron-accounts.yaml` builds it (its own client at \
             `--api-share 50` of its own bucket, its revision its folder's digest), all run side \
             by side in one runtime, each against its own emulator at the spec's bucket (120 a \
             minute). Each starts with no state (its files the base, nothing written) and runs as \
             `--once` does: the base, then one whole drift sweep. On tokio's paused clock: the \
             times are simulated, the same on any machine. Beside it, the same for one account \
             alone. `cargo bench --bench dnscron-bench -- --only controlleraccounts` (with \
             `--profile dev` the same simulated figures without a release build)."
        ),
    );
    let sweeps = accounts::run(accounts, zones)?;
    let ratio = sweeps.all.as_secs_f64() / sweeps.one.as_secs_f64().max(f64::EPSILON);
    section.push(Figure::info(
        format!("one account of {zones} zones: its first whole sweep (simulated)"),
        secs(sweeps.one),
    ));
    section.push(Figure::new(
        format!("{accounts} accounts of {zones} zones side by side: every first whole sweep done (simulated)"),
        format!("{} ({ratio:.2} × one account)", secs(sweeps.all)),
        "≤ 1.5 × one account",
        format!("1 × (each account its own bucket); {accounts} × one account run one after another"),
        Verdict::of(ratio <= 1.5),
    ));
    section.push(Figure::new(
        "requests answered by the emulators; 429s; accounts not converged",
        format!(
            "{}; {}; {}",
            sweeps.requests, sweeps.rate_limited, sweeps.not_converged
        ),
        "0 429s, 0 not converged",
        "",
        Verdict::of(sweeps.rate_limited == 0 && sweeps.not_converged == 0),
    ));
    section.push(Figure::info(
        "wall clock to simulate every account",
        secs(sweeps.wall),
    ));
    Ok(section)
}
