//! No lock-in, both ways: `export`, then `import --from` the exported files, gives back the
//! records the files declare, and the first `plan` of the imported files against an account
//! holding those records shows no changes.

use std::collections::BTreeSet;
use std::path::Path;

use dnscron_core::dns::{RecordType, wire_content};
use dnscron_emulator::{BackgroundEmulator, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::{Row, declared, desired, workdir};
use crate::common::Test;
use crate::common::emulator::start_emulator;

const ZONES: [&str; 3] = ["empty.example", "example.com", "example.org"];

/// An account holding `records` of each zone, as the API holds them.
fn emulator_with(records: &[(&str, BTreeSet<Row>)]) -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    for (zone, rows) in records {
        let seeds = rows.iter().map(|(name, rtype, ttl, canonical)| {
            let typed: RecordType = rtype.parse().unwrap();
            RecordSeed::new(name, rtype, &wire_content(typed, canonical)).with_ttl(*ttl)
        });
        seed = seed.with_zone(ZoneSeed::new(zone).with_records(seeds));
    }
    seed.rate_limit = RateLimit::off();
    start_emulator(seed)
}

/// `import --from FORMAT FILES… --out OUT` run in `dir`: exit 0.
fn import(dir: &Path, format: &str, files: &[&str], out: &str) {
    let run = Test::new()
        .args(["import", "--from", format])
        .args(files)
        .args(["--out", out])
        .current_dir(dir)
        .snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
}

/// The imported files' records equal `expected`, and the plan of them against an account
/// holding `expected` has no change.
fn assert_round_trip(dir: &Path, expected: &[(&str, BTreeSet<Row>)]) {
    let imported = dnscron_core::config::load(&[dir.join("out")]).unwrap();
    for (zone, rows) in expected {
        assert_eq!(&declared(&imported, zone), rows, "{zone}: imported records");
    }
    let emu = emulator_with(expected);
    let run = Test::new()
        .args(["plan", "out", "--format", "json", "--detailed-exitcode"])
        .api(&emu.base_url(), "demo-token")
        .current_dir(dir)
        .plan_stamp()
        .snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
    let plan: serde_json::Value = serde_json::from_str(crate::common::stdout_of(&run)).unwrap();
    assert_eq!(plan["changes"], serde_json::json!([]), "{run}");
}

#[test]
fn bind_export_then_import_gives_the_same_records_and_a_plan_of_no_changes() {
    let dir = workdir();
    let run = super::export(dir.path(), &["--to", "bind", "--out", "bind", "account"]).snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
    import(
        dir.path(),
        "bind",
        &[
            "bind/empty.example.zone",
            "bind/example.com.zone",
            "bind/example.org.zone",
        ],
        "out",
    );
    let desired = desired();
    let expected: Vec<(&str, BTreeSet<Row>)> =
        ZONES.iter().map(|z| (*z, declared(&desired, z))).collect();
    assert_round_trip(dir.path(), &expected);
}

/// What the export listed as not exported is all that is missing.
#[test]
fn octodns_export_then_import_gives_the_same_records_but_those_listed() {
    let dir = workdir();
    let run = super::export(
        dir.path(),
        &["--to", "octodns", "--out", "octodns", "account"],
    )
    .snapshot();
    assert!(run.starts_with("exit: Some(1)"), "{run}");
    let listed: BTreeSet<&str> = run
        .lines()
        .filter_map(|l| l.strip_prefix("not exported "))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(listed, BTreeSet::from(["joint", "semicolon", "unicode"]));
    // octoDNS reads its provider's `directory` from the working directory: the export's folder.
    import(
        &dir.path().join("octodns"),
        "octodns",
        &["config.yaml"],
        "../out",
    );
    let desired = desired();
    let expected: Vec<(&str, BTreeSet<Row>)> = ZONES
        .iter()
        .map(|z| {
            let rows = declared(&desired, z)
                .into_iter()
                .filter(|r| !listed.contains(r.0.as_str()))
                .collect();
            (*z, rows)
        })
        .collect();
    assert_round_trip(dir.path(), &expected);
}
