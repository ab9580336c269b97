//! dnscron and octoDNS side by side (section 6, issue 14): the same generated zone planned by
//! `dnscron plan` against the emulator and by `octodns-sync` against a YAML copy of the same
//! live records, alternating, measured in the same run.
//!
//! octoDNS has no provider for the Hosting Customer API, so its live side is a second
//! `YamlProvider` holding exactly the records the emulator serves: the cheapest faithful target
//! (no network, no server). The comparison therefore favours octoDNS on reading (a local file
//! against dnscron's paginated HTTP reads) and charges it only for what it does itself: start
//! Python, load and validate both zones, diff them and print the plan.

use std::fmt::Write as _;
use std::path::Path;

use dnscron::emulator::{RateLimit, RecordSeed};

use super::child::{self, ChildRun, DNSCRON_ENV, Runs, mib};
use super::report::{Figure, Section, Verdict};
use super::setup::{self, Scratch};
use super::workload::{Shape, ZoneGen, single_zone};
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

const TITLE: &str = "6. dnscron and octoDNS side by side (issue 14)";

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
        one_size(&bin, octodns, n, &mut section)?;
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

/// Writes the octoDNS configuration and both zone files under `dir`; returns the config's path.
pub fn write_octodns(zone: &ZoneGen, dir: &Path) -> std::io::Result<std::path::PathBuf> {
    for side in ["desired", "live"] {
        std::fs::create_dir_all(dir.join(side))?;
    }
    let file = format!("{}.yaml", zone.zone);
    std::fs::write(
        dir.join("desired").join(&file),
        octodns_zone(&zone.desired()),
    )?;
    std::fs::write(dir.join("live").join(&file), octodns_zone(&zone.live()))?;
    let config = dir.join("config.yaml");
    std::fs::write(&config, octodns_config(&zone.zone, dir))?;
    Ok(config)
}

/// Two YAML providers (order not enforced: names come in generation order, `n10` after `n9`),
/// the desired one as the source and the live one as the target.
pub fn octodns_config(zone: &str, dir: &Path) -> String {
    let provider = |name: &str| {
        format!(
            "  {name}:\n    class: octodns.provider.yaml.YamlProvider\n    directory: {}\n    \
             enforce_order: false\n",
            dir.join(name).display()
        )
    };
    format!(
        "providers:\n{}{}zones:\n  {zone}.:\n    sources: [desired]\n    targets: [live]\n",
        provider("desired"),
        provider("live")
    )
}

/// An octoDNS zone file: each name once, its records (one value each) in a list.
pub fn octodns_zone(records: &[RecordSeed]) -> String {
    let mut out = String::from("---\n");
    let mut last: Option<&str> = None;
    for r in records {
        if last != Some(r.name.as_str()) {
            let _ = writeln!(out, "{}:", r.name);
            last = Some(&r.name);
        }
        let _ = writeln!(
            out,
            "- {{type: {}, ttl: {}, value: \"{}\"}}",
            r.rtype,
            r.ttl,
            r.content.replace('\\', "\\\\").replace('"', "\\\"")
        );
    }
    out
}

/// Changes a plan found, by action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub create: usize,
    pub update: usize,
    pub delete: usize,
}

impl std::fmt::Display for Changes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} / {} / {}", self.create, self.update, self.delete)
    }
}

/// What each tool's measured runs found (`None`: its summary line wasn't there).
pub struct Found {
    pub dnscron: Vec<Option<Changes>>,
    pub octodns: Vec<Option<Changes>>,
}

/// From `dnscron plan`'s text: `Plan: 3 to create, 1 to update, 2 to delete[, …].` or
/// `No changes…`.
pub fn dnscron_changes(stdout: &str) -> Option<Changes> {
    if stdout.lines().any(|l| l.starts_with("No changes")) {
        return Some(Changes::default());
    }
    let line = stdout.lines().find_map(|l| l.strip_prefix("Plan: "))?;
    let pairs = line.trim_end_matches('.').split(", ").map(|part| {
        // `1 needs a portal step` and `N blocked` are also counted under their action.
        let (count, action) = part.split_once(" to ").unwrap_or((part, ""));
        Some((action, count))
    });
    tally(pairs, ["create", "update", "delete"])
}

/// From `octodns-sync`'s log: `*   Summary: Creates=2, Updates=2, Deletes=1, Existing=4, …`.
pub fn octodns_changes(stderr: &str) -> Option<Changes> {
    let line = stderr.lines().find_map(|l| l.split_once("Summary: "))?.1;
    let pairs = line.split(", ").map(|part| part.split_once('='));
    tally(pairs, ["Creates", "Updates", "Deletes"])
}

/// The counts of `keys` (create, update, delete) among `(key, count)` pairs; other keys are
/// skipped, a missing pair or a count that isn't a number is `None`.
fn tally<'a>(
    pairs: impl Iterator<Item = Option<(&'a str, &'a str)>>,
    keys: [&str; 3],
) -> Option<Changes> {
    let mut n = [0; 3];
    for pair in pairs {
        let (key, count) = pair?;
        if let Some(i) = keys.iter().position(|k| *k == key) {
            n[i] = count.parse().ok()?;
        }
    }
    let [create, update, delete] = n;
    Some(Changes {
        create,
        update,
        delete,
    })
}

/// The rows of one size: each figure of both tools and their ratio, and the changes check.
pub fn figures(
    label: &str,
    ours: &Runs,
    theirs: &Runs,
    found: &Found,
    generated: Changes,
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
        Figure::info(
            format!("{label}: CPU (user + sys, median of {n}), dnscron / octoDNS"),
            cpu,
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

    use super::super::workload::Drift;
    use super::*;

    #[test]
    fn octodns_files_hold_the_zone_dnscron_plans() {
        let drift = Drift {
            creates: 1,
            updates: 2,
            deletes: 1,
        };
        let z = ZoneGen::new("a.example.com", 6, drift).with_shape(Shape::ATxt);
        let desired = "---\nn0:\n\
            - {type: A, ttl: 3600, value: \"10.0.0.0\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf1.example.net ~all\"}\n\
            n1:\n\
            - {type: A, ttl: 3600, value: \"10.0.0.2\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf3.example.net ~all\"}\n\
            n2:\n\
            - {type: A, ttl: 3600, value: \"10.0.0.4\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf5.example.net ~all\"}\n";
        assert_eq!(octodns_zone(&z.desired()), desired);
        // Stride 6 / 3 = 2: record 0 (n0 A) is missing live, record 2 (n1 A) has another
        // content, record 4 (n2 A) another ttl; `x0` is undeclared.
        let live = "---\nn0:\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf1.example.net ~all\"}\n\
            n1:\n\
            - {type: A, ttl: 3600, value: \"10.106.207.194\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf3.example.net ~all\"}\n\
            n2:\n\
            - {type: A, ttl: 300, value: \"10.0.0.4\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf5.example.net ~all\"}\n\
            x0:\n\
            - {type: A, ttl: 3600, value: \"10.137.84.64\"}\n";
        assert_eq!(octodns_zone(&z.live()), live);
        // dnscron's file declares the same records (default ttl 3600).
        let dnscron = "zone: a.example.com\nrecords:\n\
            \x20 - { name: n0, type: A, content: \"10.0.0.0\" }\n\
            \x20 - { name: n0, type: TXT, content: \"v=spf1 include:_spf1.example.net ~all\" }\n\
            \x20 - { name: n1, type: A, content: \"10.0.0.2\" }\n\
            \x20 - { name: n1, type: TXT, content: \"v=spf1 include:_spf3.example.net ~all\" }\n\
            \x20 - { name: n2, type: A, content: \"10.0.0.4\" }\n\
            \x20 - { name: n2, type: TXT, content: \"v=spf1 include:_spf5.example.net ~all\" }\n";
        assert_eq!(z.yaml(), dnscron);
        assert_eq!(z.seed().records, z.live());
    }

    #[test]
    fn octodns_config_names_both_providers() {
        let expected = "providers:\n\
            \x20 desired:\n    class: octodns.provider.yaml.YamlProvider\n    \
            directory: /b/desired\n    enforce_order: false\n\
            \x20 live:\n    class: octodns.provider.yaml.YamlProvider\n    \
            directory: /b/live\n    enforce_order: false\n\
            zones:\n  a.example.com.:\n    sources: [desired]\n    targets: [live]\n";
        assert_eq!(octodns_config("a.example.com", Path::new("/b")), expected);
    }

    #[test]
    fn values_are_quoted_for_yaml() {
        let r = RecordSeed::new("q", "TXT", r#"say "hi" \o/"#);
        let expected = "---\nq:\n- {type: TXT, ttl: 3600, value: \"say \\\"hi\\\" \\\\o/\"}\n";
        assert_eq!(octodns_zone(&[r]), expected);
    }

    #[test]
    fn summary_lines_are_read() {
        let c = |create, update, delete| Changes {
            create,
            update,
            delete,
        };
        let ours = "+ big.example.com\n\nPlan: 3 to create, 1 to update, 2 to delete, 1 needs a \
                    portal step.\n";
        assert_eq!(dnscron_changes(ours), Some(c(3, 1, 2)));
        assert_eq!(dnscron_changes("Plan: 4 to delete.\n"), Some(c(0, 0, 4)));
        let none = "No changes. The live account matches the files.\n";
        assert_eq!(dnscron_changes(none), Some(c(0, 0, 0)));
        assert_eq!(dnscron_changes("error: refused\n"), None);
        assert_eq!(dnscron_changes("Plan: x to create.\n"), None);
        let theirs = "INFO Plan \n*   Delete <ARecord A 3600, x0.big.example.com., ['10.9.0.0']>\n\
                      *   Summary: Creates=2, Updates=2, Deletes=1, Existing=4, Meta=False\n";
        assert_eq!(octodns_changes(theirs), Some(c(2, 2, 1)));
        assert_eq!(octodns_changes("INFO Manager sync\n"), None);
    }

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
        let rows: Vec<_> = figures("10k", &ours, &theirs, &found, drift)
            .into_iter()
            .map(|f| (f.name, f.value, f.target, f.bound, f.verdict))
            .collect();
        let s = String::from;
        let expected = vec![
            (
                s("10k: CPU (user + sys, median of 3), dnscron / octoDNS"),
                s("0.160 s / 5.100 s → 31.9× less"),
                s(""),
                s(""),
                Verdict::Info,
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
