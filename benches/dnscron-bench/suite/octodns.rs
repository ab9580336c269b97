//! dnscron and octoDNS side by side (section 6, issue 14): the same generated zone planned by
//! `dnscron plan` against the emulator and by `octodns-sync` against a YAML copy of the same
//! live records, alternating, measured in the same run.
//!
//! octoDNS has no provider for the Hosting Customer API, so its live side is a second
//! `YamlProvider` holding exactly the records the emulator serves: the cheapest faithful target
//! (no network, no server). The comparison therefore favours octoDNS on reading (a local file
//! against dnscron's paginated HTTP reads) and charges it only for what it does itself: start
//! Python, load and validate both zones, diff them and print the plan.

use std::path::Path;

use dnscron_emulator::RateLimit;

use super::child::{self, ChildRun, DNSCRON_ENV, Runs, mib};
use super::octodns_files::{Changes, dnscron_changes, octodns_changes, write_octodns};
use super::report::{Figure, Section, Verdict};
use super::setup::{self, Scratch};
use super::workload::{Shape, single_zone};
use super::{BenchError, Options};

/// Measured runs of each tool per size (alternating, no warm-up: the files were just written).
const RUNS: usize = 3;

fn sizes(smoke: bool) -> &'static [usize] {
    if smoke {
        &[1_000, 5_000]
    } else {
        &[10_000, 100_000]
    }
}

/// Unchanged since issue 14: `--write --only` matches the sections it keeps by their titles.
const TITLE: &str = "6. dnscron and octoDNS side by side (issue 14)";

/// How many times less CPU than octoDNS `dnscron plan` must take on the same zone (issue 19).
/// A ratio, not a time: both tools run alternately in one run, so the machine's load inflates
/// both sides alike.
const CPU_RATIO_TARGET: f64 = 50.0;

pub fn run(opts: &Options) -> Result<Section, BenchError> {
    let Some(octodns) = opts.octodns.as_deref() else {
        let mut section = Section::new(TITLE, "Not run in this run.");
        section.note(NOT_RUN);
        return Ok(section);
    };
    if !octodns.is_file() {
        return Err(BenchError::Setup(format!(
            "--octodns {}: no such file; install octoDNS in a virtualenv as BENCHMARKS.md says \
             (\"octoDNS side by side\") and pass its bin/octodns-sync",
            octodns.display()
        )));
    }
    let version = version(octodns)?;
    let bin = child::dnscron_bin(opts.dnscron_bin.as_deref());
    let mut section = Section::new(TITLE, &method(&version));
    for &n in sizes(opts.smoke) {
        one_size(&bin, octodns, n, opts.smoke, &mut section)?;
    }
    Ok(section)
}

/// What the section says when `--octodns` isn't given.
pub const NOT_RUN: &str = "pass `--octodns PATH` (an `octodns-sync` executable) to compare dnscron \
    with octoDNS on the same zone; BENCHMARKS.md (\"octoDNS side by side\") says how to install \
    octoDNS in a virtualenv.";

fn method(version: &str) -> String {
    format!(
        "One zone of N records (N/2 names × one A + one TXT), about 2 % drifted, generated once \
         and written for both tools. **dnscron**: `dnscron plan DIR --api-url … \
         --allow-mass-changes` against the emulator in this process (as section 3; rate limiting \
         off), reading the live records as ⌈N/100⌉ HTTP pages. **octoDNS** ({version}): \
         `octodns-sync --config-file …` (a dry run: it plans and prints the plan), its YAML \
         provider as the source and a second YAML provider holding the emulator's live records \
         as the target, since octoDNS has no provider for this API: it reads a local file where \
         dnscron pays HTTP round trips (the emulator's own CPU runs in the bench process and is \
         counted for neither). Runs alternate dnscron, octoDNS, {RUNS} each, no warm-up; CPU is \
         user + system of the child and its children (median), peak RSS the largest, wall the \
         median, each as section 3 measures them. Both plans must find the generated drift (creates / \
         updates / deletes), else the row says NO."
    )
}

fn version(octodns: &Path) -> Result<String, BenchError> {
    let out = std::process::Command::new(octodns)
        .arg("--version")
        .output()
        .map_err(|e| BenchError::step(&format!("{} --version", octodns.display()), e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.trim().to_string())
}

fn one_size(
    dnscron: &Path,
    octodns: &Path,
    n: usize,
    smoke: bool,
    section: &mut Section,
) -> Result<(), BenchError> {
    let account = single_zone(n, Shape::ATxt);
    let zone = account
        .zones
        .first()
        .ok_or_else(|| BenchError::Setup("the generated account holds no zone".into()))?;
    let dir = Scratch::new(&format!("octodns-{n}"))?;
    let files = |e: std::io::Error| BenchError::Setup(format!("writing the zone files: {e}"));
    account
        .write_files(&dir.path().join("dnscron"))
        .map_err(files)?;
    let config = write_octodns(zone, &dir.path().join("octodns")).map_err(files)?;
    let emu = setup::start(account.seed(RateLimit::off()))?;

    let plan = child::plan_args(
        &dir.path().join("dnscron").display().to_string(),
        &emu.base_url(),
    );
    let sync = vec!["--config-file".to_string(), config.display().to_string()];
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        ours.push(succeeded(child::measure_with_output(
            dnscron,
            &plan,
            &DNSCRON_ENV,
        )?)?);
        theirs.push(succeeded(child::measure(octodns, &sync, &[])?)?);
    }
    let found = Found {
        dnscron: ours.iter().map(|r| dnscron_changes(&r.stdout)).collect(),
        octodns: theirs.iter().map(|r| octodns_changes(&r.stderr)).collect(),
    };
    let generated = Changes {
        create: zone.drift.creates,
        update: zone.drift.updates,
        delete: zone.drift.deletes,
    };
    let label = format!("{}k", n / 1_000);
    let rows = figures(
        &label,
        &Runs::of(&ours),
        &Runs::of(&theirs),
        &found,
        generated,
        (!smoke).then_some(CPU_RATIO_TARGET),
    );
    section.figures.extend(rows);
    Ok(())
}

fn succeeded(run: ChildRun) -> Result<ChildRun, BenchError> {
    if run.success {
        Ok(run)
    } else {
        Err(BenchError::step(
            "a side-by-side plan (child)",
            run.stderr_head(),
        ))
    }
}

/// What each tool's measured runs found (`None`: its summary line wasn't there).
pub struct Found {
    pub dnscron: Vec<Option<Changes>>,
    pub octodns: Vec<Option<Changes>>,
}

/// The rows of one size: each figure of both tools and their ratio, and the changes check.
/// `cpu_ratio_target`: the least CPU ratio that meets the target (none at smoke sizes).
pub fn figures(
    label: &str,
    ours: &Runs,
    theirs: &Runs,
    found: &Found,
    generated: Changes,
    cpu_ratio_target: Option<f64>,
) -> Vec<Figure> {
    let secs = |d: std::time::Duration| format!("{:.3} s", d.as_secs_f64());
    let ratio = |a: f64, b: f64| {
        if a > 0.0 {
            format!(" → {:.1}× less", b / a)
        } else {
            String::new()
        }
    };
    let cpu = match (ours.cpu, theirs.cpu) {
        (Some(a), Some(b)) => format!(
            "{} / {}{}",
            secs(a),
            secs(b),
            ratio(a.as_secs_f64(), b.as_secs_f64())
        ),
        _ => "unknown (no GNU time)".into(),
    };
    let cpu_ratio = match (ours.cpu, theirs.cpu) {
        (Some(a), Some(b)) if !a.is_zero() => Some(b.as_secs_f64() / a.as_secs_f64()),
        _ => None,
    };
    let cpu_verdict = match (cpu_ratio_target, cpu_ratio) {
        (None, _) => Verdict::Info,
        (Some(_), None) => Verdict::NotMeasured,
        (Some(t), Some(r)) => Verdict::of(r >= t),
    };
    let rss = match (ours.rss_kib, theirs.rss_kib) {
        (Some(a), Some(b)) => format!("{} / {}{}", mib(a), mib(b), ratio(a as f64, b as f64)),
        _ => "unknown".into(),
    };
    let wall = format!(
        "{} / {}{}",
        secs(ours.wall),
        secs(theirs.wall),
        ratio(ours.wall.as_secs_f64(), theirs.wall.as_secs_f64())
    );
    let show = |v: &[Option<Changes>]| {
        let first = v.first().copied().flatten();
        match first {
            Some(c) if v.iter().all(|x| *x == first) => c.to_string(),
            _ => "differs between runs or missing".into(),
        }
    };
    let all_generated = |v: &[Option<Changes>]| v.iter().all(|c| *c == Some(generated));
    let n = ours.count.min(theirs.count);
    vec![
        Figure::new(
            format!("{label}: CPU (user + sys, median of {n}), dnscron / octoDNS"),
            cpu,
            cpu_ratio_target.map_or(String::new(), |t| format!("≥ {t:.0}× less (issue 19)")),
            "",
            cpu_verdict,
        ),
        Figure::info(format!("{label}: peak RSS, dnscron / octoDNS"), rss),
        Figure::info(format!("{label}: wall (median), dnscron / octoDNS"), wall),
        Figure::new(
            format!("{label}: changes found (create / update / delete), dnscron | octoDNS"),
            format!("{} | {}", show(&found.dnscron), show(&found.octodns)),
            "both = generated drift",
            generated.to_string(),
            Verdict::of(all_generated(&found.dnscron) && all_generated(&found.octodns)),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn one_table_holds_both_tools_and_their_ratio() {
        let ms = Duration::from_millis;
        let ours = Runs {
            count: 3,
            wall: ms(400),
            cpu: Some(ms(160)),
            rss_kib: Some(31 * 1024),
        };
        let theirs = Runs {
            count: 3,
            wall: ms(5_300),
            cpu: Some(ms(5_100)),
            rss_kib: Some(94 * 1024),
        };
        let drift = Changes {
            create: 67,
            update: 66,
            delete: 67,
        };
        let found = Found {
            dnscron: vec![Some(drift); 3],
            octodns: vec![Some(drift), Some(drift), None],
        };
        let rows: Vec<_> = figures("10k", &ours, &theirs, &found, drift, Some(50.0))
            .into_iter()
            .map(|f| (f.name, f.value, f.target, f.bound, f.verdict))
            .collect();
        let s = String::from;
        let expected = vec![
            (
                s("10k: CPU (user + sys, median of 3), dnscron / octoDNS"),
                s("0.160 s / 5.100 s → 31.9× less"),
                s("≥ 50× less (issue 19)"),
                s(""),
                Verdict::Missed,
            ),
            (
                s("10k: peak RSS, dnscron / octoDNS"),
                s("31.0 MiB / 94.0 MiB → 3.0× less"),
                s(""),
                s(""),
                Verdict::Info,
            ),
            (
                s("10k: wall (median), dnscron / octoDNS"),
                s("0.400 s / 5.300 s → 13.2× less"),
                s(""),
                s(""),
                Verdict::Info,
            ),
            (
                s("10k: changes found (create / update / delete), dnscron | octoDNS"),
                s("67 / 66 / 67 | differs between runs or missing"),
                s("both = generated drift"),
                s("67 / 66 / 67"),
                Verdict::Missed,
            ),
        ];
        assert_eq!(rows, expected);
    }
}
