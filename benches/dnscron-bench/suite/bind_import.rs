//! Importing a BIND zone file (issue 31): `dnscron import --from bind` on a generated
//! 100,000-record zone, the binary in a child process from start to the files written and
//! checked (it reloads what it wrote), and the reader alone in this process.
//!
//! The file uses what real exports do: `$TTL`, `$ORIGIN`, blank owners, parentheses over lines,
//! comments, TXT split into 255-octet strings with escapes, and every type the API holds.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use dnscron_core::dns::ZoneName;
use dnscron_core::import::from_files::bind::Bind;
use dnscron_core::import::from_files::read;

use super::child::{self, DNSCRON_ENV};
use super::report::{Figure, Section, Verdict};
use super::setup::Scratch;
use super::{BenchError, Options, millis};

const RECORDS: usize = 100_000;
const SMOKE_RECORDS: usize = 1_000;
const TARGET: Duration = Duration::from_secs(2);
const ZONE: &str = "bench.example";

pub fn run(opts: &Options) -> Result<Section, BenchError> {
    let records = if opts.smoke { SMOKE_RECORDS } else { RECORDS };
    let runs = if opts.smoke { 1 } else { 3 };
    let mut section = Section::new(
        "8. Importing a BIND zone file (issue 31)",
        &format!(
            "A generated zone file of {records} records (A, AAAA, CNAME, MX, TXT with 255-octet \
             splits and escapes, SRV, CAA; `$TTL`, `$ORIGIN`, blank owners, parentheses, \
             comments). `dnscron import --from bind FILE --out DIR --force` in a child process, \
             the median of {runs} runs after a warm-up, from start to the YAML written and \
             reloaded; then the reader alone (`from_files::read` with `Bind`) in this process. Peak RSS: {}.",
            child::rss_method()
        ),
    );
    let dir = Scratch::new("bind-import")?;
    let file = dir.path().join("zone.db");
    std::fs::write(&file, zone_file(records)).map_err(|e| BenchError::Setup(e.to_string()))?;
    let bin = child::dnscron_bin(opts.dnscron_bin.as_deref());
    let args: Vec<String> = [
        "import",
        "--from",
        "bind",
        &file.display().to_string(),
        "--out",
        &dir.path().join("out").display().to_string(),
        "--force",
    ]
    .map(String::from)
    .to_vec();
    let import = child::repeat(&bin, &args, runs, |_| {})?;
    let imported = imported_records(&bin, &args)?;
    section.push(Figure::new(
        format!("import --from bind, {records} records: wall / CPU / peak RSS"),
        import.show(),
        format!("< {} s", TARGET.as_secs()),
        "",
        Verdict::of(import.wall < TARGET),
    ));
    section.push(Figure::new(
        "records written",
        imported.to_string(),
        records.to_string(),
        "",
        Verdict::of(imported == records),
    ));
    let read = read_alone(&file)?;
    section.push(Figure::info(
        "of which reading the file (the reader alone)",
        millis(read),
    ));
    match opts.octodns.as_deref() {
        Some(octodns) => octodns_bind(octodns, &file, &import, runs, &mut section)?,
        None => section.note(
            "octoDNS's BIND source (PyPI `octodns-bind`) reading the same file: not run in this \
             run; pass `--octodns VENV/bin/octodns-sync` of a virtualenv that also has \
             `octodns-bind` (BENCHMARKS.md, \"octoDNS side by side\").",
        ),
    }
    Ok(section)
}

/// octoDNS reads a zone file into its zone model (records validated, leniently: a record it
/// would refuse is still read) through its BIND source; the count printed is of its records
/// (octoDNS holds one per name and type).
const OCTODNS_BIND_READ: &str = "import sys\n\
from octodns.zone import Zone\n\
from octodns_bind import ZoneFileSource\n\
source = ZoneFileSource('bench', sys.argv[1], file_extension='.db', check_origin=False)\n\
zone = Zone(sys.argv[2] + '.', [])\n\
source.populate(zone, lenient=True)\n\
print(len(zone.records))\n";

/// octoDNS's BIND source (`octodns_bind.ZoneFileSource`) reading the same file in the same run,
/// through the Python of the virtualenv `--octodns` names; a note instead where that virtualenv
/// has no `octodns-bind`.
fn octodns_bind(
    octodns: &Path,
    file: &Path,
    dnscron: &child::Runs,
    runs: usize,
    section: &mut Section,
) -> Result<(), BenchError> {
    let python = octodns.with_file_name("python");
    let installed = std::process::Command::new(&python)
        .args(["-c", "import octodns_bind"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        section.note(format!(
            "octoDNS's BIND source: `octodns-bind` is not installed beside {}, so its column is \
             skipped (`pip install octodns-bind` in that virtualenv).",
            octodns.display()
        ));
        return Ok(());
    }
    // ZoneFileSource finds a zone's file by its name and the extension.
    let dir = file
        .parent()
        .map(|p| p.join("octodns-bind"))
        .ok_or_else(|| BenchError::Setup("the zone file has no folder".into()))?;
    std::fs::create_dir_all(&dir).map_err(|e| BenchError::Setup(e.to_string()))?;
    std::fs::copy(file, dir.join(format!("{ZONE}.db")))
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let args: Vec<String> = vec![
        "-c".into(),
        OCTODNS_BIND_READ.into(),
        dir.display().to_string(),
        ZONE.into(),
    ];
    let octo = child::repeat(&python, &args, runs, |_| {})?;
    section.push(Figure::info(
        "octoDNS's BIND source (octodns-bind), the same file: wall / CPU / peak RSS",
        octo.show(),
    ));
    section.push(Figure::info(
        "octodns-bind's wall time over dnscron import's (same run)",
        format!(
            "{:.1}×",
            octo.wall.as_secs_f64() / dnscron.wall.as_secs_f64().max(1e-9)
        ),
    ));
    Ok(())
}

/// The `zone … N records of M` line of one more run: how many records the files declare.
fn imported_records(bin: &Path, args: &[String]) -> Result<usize, BenchError> {
    let run = child::measure_with_output(bin, args, &DNSCRON_ENV)?;
    if !run.success {
        return Err(BenchError::step(
            "dnscron import --from bind",
            run.stderr_head(),
        ));
    }
    run.stdout
        .lines()
        .next()
        .and_then(|l| l.split_once(": "))
        .and_then(|(_, counts)| counts.split(' ').next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| BenchError::step("reading import's summary", run.stdout.clone()))
}

fn read_alone(file: &Path) -> Result<Duration, BenchError> {
    let zone = ZoneName::parse(ZONE).map_err(|e| BenchError::Setup(e.to_string()))?;
    let started = Instant::now();
    let bind = Bind { origin: Some(zone) };
    read(&bind, file).map_err(|e| BenchError::step("reading the zone file", e))?;
    Ok(started.elapsed())
}

/// A zone of exactly `records` importable records, after its SOA and apex NS.
pub fn zone_file(records: usize) -> String {
    let mut out = format!(
        "; generated by dnscron-bench\n$TTL 1h\n$ORIGIN {ZONE}.\n\
         @ IN SOA ns1.example.net. hostmaster ( 1 2h 1h 1w 5m )\n  IN NS ns1.example.net.\n"
    );
    let long: String = "k".repeat(300);
    for i in 0..records {
        let host = format!("h{i}");
        let _ = match i % 8 {
            0 => writeln!(
                out,
                "{host} 300 IN A 10.{}.{}.{}",
                (i >> 16) & 255,
                (i >> 8) & 255,
                i & 255
            ),
            1 => writeln!(
                out,
                "{host} IN AAAA 2001:db8::{:x}:{:x}",
                i >> 16,
                i & 0xffff
            ),
            2 => writeln!(out, "{host} CNAME h{}", i - 2),
            3 => writeln!(
                out,
                "{host} 1D MX ( 10\n    mx{i}.example.net. ) ; a comment"
            ),
            4 => writeln!(
                out,
                "{host} TXT \"{}\" \"{}\\059 {i}\"",
                &long[..255],
                &long[255..]
            ),
            5 => writeln!(out, "_sip{i}._tcp SRV 10 60 5060 sip.example.net."),
            6 => writeln!(out, "{host} CAA 0 issue \"ca{i}.example.net\""),
            // A blank owner: the previous line's (`h{i-1}`, a CAA record's).
            _ => writeln!(out, "  TXT \"blank owner {i}\""),
        };
    }
    out
}
