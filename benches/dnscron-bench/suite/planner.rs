//! Planner (section 3): `dnscron plan` of one big zone (the real binary as a child: wall, CPU, peak
//! RSS, requests), the in-process split of where the time goes, and the diff engine alone.

use std::time::{Duration, Instant};

use tokio::runtime::Runtime;

use dnscron::emulator::RateLimit;
use dnscron::plan::{DiffOptions, diff, render, snapshot};

use super::child::{self, ChildRun};
use super::efficiency::plan_minimum;
use super::report::{Figure, Section, Verdict};
use super::workload::{TOKEN, single_zone};
use super::{BenchError, Options, millis, setup};

struct Size {
    records: usize,
    /// Targets: wall and peak RSS (none for smoke sizes).
    target: Option<(Duration, u64)>,
    runs: usize,
}

fn sizes(smoke: bool) -> Vec<Size> {
    if smoke {
        vec![
            Size {
                records: 1_000,
                target: None,
                runs: 2,
            },
            Size {
                records: 5_000,
                target: None,
                runs: 2,
            },
        ]
    } else {
        vec![
            Size {
                records: 10_000,
                target: Some((Duration::from_millis(150), 50)),
                runs: 7,
            },
            Size {
                records: 100_000,
                target: Some((Duration::from_millis(1_500), 300)),
                runs: 3,
            },
        ]
    }
}

/// Runs of each step of the in-process split; the fastest is reported, the least disturbed by
/// other work on the machine.
const SPLIT_RUNS: usize = 3;

fn fastest(
    runs: usize,
    mut step: impl FnMut() -> Result<(), BenchError>,
) -> Result<Duration, BenchError> {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        step()?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

pub fn run(runtime: &Runtime, opts: &Options) -> Result<Section, BenchError> {
    let bin = child::dnscron_bin(opts.dnscron_bin.as_deref());
    // Relative to the checkout: the report must not name paths of this machine.
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| bin.strip_prefix(cwd).ok().map(|p| p.to_path_buf()))
        .unwrap_or_else(|| bin.clone());
    let mut section = Section::new(
        "3. Planner",
        &format!(
            "One zone, about 2 % drifted (so the plan has changes to render), rate limiting off, \
             the emulator in this process. **`dnscron plan`** is the dnscron CLI (`{}`) run as a \
             child, `plan DIR --api-url … --allow-mass-changes`, stdout to /dev/null: wall is the \
             median of the measured runs after one warm-up, CPU is user + system of the child \
             (median), peak RSS is the largest {}. The split runs the same library code in this \
             process: `config::load`, `snapshot::fetch` (all pages over HTTP), `plan::diff`, the \
             text render; **diff alone** is `plan::diff` on the in-memory desired state and \
             snapshot (median of 5).",
            shown.display(),
            child::rss_method()
        ),
    );
    for size in sizes(opts.smoke) {
        one_size(runtime, &bin, &size, &mut section)?;
    }
    Ok(section)
}

fn one_size(
    runtime: &Runtime,
    bin: &std::path::Path,
    size: &Size,
    section: &mut Section,
) -> Result<(), BenchError> {
    let n = size.records;
    let label = format!("{}k", n / 1_000);
    let account = single_zone(n);
    let (dir, desired) = setup::write_and_load(&account, &label)?;
    let load = fastest(SPLIT_RUNS, || setup::load(dir.path()).map(drop))?;
    let text = std::fs::read_to_string(dir.path().join("zones/big.example.com.yaml"))
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let parse = fastest(SPLIT_RUNS, || {
        dnscron::config::parse_yaml(&text)
            .map(drop)
            .map_err(|e| BenchError::step("parsing the zone file", e))
    })?;
    let emu = setup::start(account.seed(RateLimit::off()))?;
    let client = setup::read_client(&emu, TOKEN)?;
    let diff_opts = DiffOptions {
        api_url: emu.base_url(),
        allow_mass_changes: true,
        ..DiffOptions::default()
    };
    // In-process split.
    let mut live = None;
    let fetch = fastest(SPLIT_RUNS, || {
        live = Some(
            runtime
                .block_on(snapshot::fetch(&client, &desired))
                .map_err(|e| BenchError::step("snapshot of the big zone", e))?,
        );
        Ok(())
    })?;
    let live = live.unwrap_or_default();
    let mut diffs = Vec::new();
    let mut plan = None;
    for _ in 0..5 {
        let t = Instant::now();
        plan = Some(diff(&desired, &live, &diff_opts).map_err(|e| BenchError::step("diff", e))?);
        diffs.push(t.elapsed());
    }
    let render_started = Instant::now();
    let text = plan
        .as_ref()
        .map(|p| render::text::render(p, false))
        .unwrap_or_default();
    let render = render_started.elapsed();
    let diff_median = median(diffs);

    // The real binary.
    let min: u64 = plan_minimum(&account).values().sum();
    let args = [
        "plan".to_string(),
        dir.path().display().to_string(),
        "--api-url".into(),
        emu.base_url(),
        "--allow-mass-changes".into(),
    ];
    let envs = [("DNSCRON_TOKEN", TOKEN), ("NO_COLOR", "1")];
    let mut runs: Vec<ChildRun> = Vec::new();
    let mut requests = Vec::new();
    for i in 0..=size.runs {
        emu.reset_counters();
        let run = child::measure(bin, &args, &envs)?;
        if !run.success {
            return Err(BenchError::step(
                "dnscron plan (child)",
                run.stderr.lines().take(5).collect::<Vec<_>>().join(" | "),
            ));
        }
        if i > 0 {
            requests.push(emu.counters().requests);
            runs.push(run);
        }
    }
    let wall = median(runs.iter().map(|r| r.wall).collect());
    let cpu = runs
        .iter()
        .map(|r| r.cpu)
        .collect::<Option<Vec<_>>>()
        .map(median);
    let rss = runs.iter().filter_map(|r| r.max_rss_kib).max();
    let (wall_verdict, rss_verdict, wall_target, rss_target) = match size.target {
        Some((w, m)) => (
            Verdict::of(wall <= w),
            rss.map_or(Verdict::NotMeasured, |r| Verdict::of(r <= m * 1024)),
            format!("≤ {}", millis(w)),
            format!("≤ {m} MiB"),
        ),
        None => (Verdict::Info, Verdict::Info, String::new(), String::new()),
    };
    section.push(Figure::new(
        format!("{label}: `dnscron plan` wall (median of {})", runs.len()),
        millis(wall),
        wall_target,
        "",
        wall_verdict,
    ));
    section.push(Figure::info(
        format!("{label}: `dnscron plan` CPU (user + sys)"),
        cpu.map_or("unknown".into(), millis),
    ));
    section.push(Figure::new(
        format!("{label}: `dnscron plan` peak RSS"),
        rss.map_or("unknown".into(), mib),
        rss_target,
        "",
        rss_verdict,
    ));
    let all_min = requests.iter().all(|r| *r == min);
    section.push(Figure::new(
        format!("{label}: requests per plan"),
        format!("{:?}", requests.first().copied().unwrap_or(0)),
        "= minimum",
        min.to_string(),
        Verdict::of(all_min),
    ));
    section.push(Figure::info(
        format!("{label}: in-process split (fastest of {SPLIT_RUNS}): load files (of which YAML parse) / fetch / diff / render"),
        format!(
            "{} ({}) / {} / {} / {}",
            millis(load),
            millis(parse),
            millis(fetch),
            millis(diff_median),
            millis(render)
        ),
    ));
    section.push(Figure::info(
        format!("{label}: diff alone (in memory, median of 5)"),
        millis(diff_median),
    ));
    section.push(Figure::info(
        format!("{label}: plan size"),
        format!(
            "{} changes, {} KiB of text",
            plan.map_or(0, |p| p.changes.len()),
            text.len() / 1024
        ),
    ));
    if wall_verdict == Verdict::Missed || rss_verdict == Verdict::Missed {
        section.note(format!(
            "{label}: target missed; the split above shows where the time goes (load {}, of which \
             parsing the YAML {}; fetch {}, diff {}, render {}; the emulator serving the pages \
             shares this machine's 2 cores with the child).",
            millis(load),
            millis(parse),
            millis(fetch),
            millis(diff_median),
            millis(render)
        ));
    }
    Ok(())
}
