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

/// A zone's `ignore:` rules as `(name, type, content)`.
fn rules(
    desired: &dnscron_core::config::model::Desired,
    zone: &str,
) -> Vec<(String, Option<String>, Option<String>)> {
    let spec = desired
        .zones
        .iter()
        .find(|z| z.zone.as_str() == zone)
        .unwrap();
    spec.ignore
        .iter()
        .map(|r| {
            (
                r.name.clone(),
                r.rtype.map(|t| t.as_str().to_string()),
                r.content.clone(),
            )
        })
        .collect()
}

/// BIND's files carry the `ignore:` rules as `; dnscron-ignore:` comments, which `import --from
/// bind` reads back: the imported files keep every rule, and a live record only a rule keeps is
/// not planned as a delete.
#[test]
fn bind_carries_the_ignore_rules_through_its_comments() {
    let dir = workdir();
    let run = super::export(dir.path(), &["--to", "bind", "--out", "bind", "account"]).snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
    let zone_file = std::fs::read_to_string(dir.path().join("bind/example.com.zone")).unwrap();
    assert!(
        zone_file.contains(
            "; dnscron-ignore: {\"name\":\"_acme-challenge*\",\"type\":\"TXT\",\"content\":null}\n"
        ),
        "{zone_file}"
    );
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
    let original = desired();
    let imported = dnscron_core::config::load(&[dir.path().join("out")]).unwrap();
    for zone in ZONES {
        assert_eq!(rules(&imported, zone), rules(&original, zone), "{zone}");
    }
    assert!(!rules(&imported, "example.com").is_empty());
    // The account holds a record only the rule keeps: the first plan leaves it.
    let mut expected: Vec<(&str, BTreeSet<Row>)> =
        ZONES.iter().map(|z| (*z, declared(&original, z))).collect();
    let example = &mut expected[1];
    assert_eq!(example.0, "example.com");
    let txt = example.1.iter().find(|r| r.1 == "TXT").unwrap().clone();
    example
        .1
        .insert(("_acme-challenge".into(), "TXT".into(), 300, txt.3));
    let emu = emulator_with(&expected);
    let plan = Test::new()
        .args(["plan", "out", "--format", "json", "--detailed-exitcode"])
        .api(&emu.base_url(), "demo-token")
        .current_dir(dir.path())
        .plan_stamp()
        .snapshot();
    assert!(plan.starts_with("exit: Some(0)"), "{plan}");
}

/// A `; dnscron-ignore:` comment that is not a rule is a problem of the file, located: a rule
/// lost on the way would let the first plan delete what it kept.
#[test]
fn a_broken_ignore_comment_is_refused_at_its_line() {
    let (dir, run) = import_refused(
        "$ORIGIN x.example.\n$TTL 300\n; dnscron-ignore: {\"name\":\"a\",\"type\":\"NOPE\",\"content\":null}\n; dnscron-ignore: not json\n@ A 192.0.2.1\n",
    );
    assert!(run.contains("x.zone:3:1"), "{run}");
    assert!(
        run.contains("`NOPE` is not a record type dnscron manages"),
        "{run}"
    );
    assert!(run.contains("x.zone:4:1"), "{run}");
    assert!(!dir.path().join("out").exists(), "{run}");
}

/// A hand-edited comment keeps its rule whatever its spacing: dropped, the first plan would
/// delete the MX it keeps.
#[test]
fn an_ignore_comment_without_spaces_is_read_back() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.zone"),
        "$ORIGIN x.example.\n$TTL 300\n;dnscron-ignore:{\"name\":\"@\",\"type\":\"MX\"}\n@ A 192.0.2.1\n",
    )
    .unwrap();
    import(dir.path(), "bind", &["x.zone"], "out");
    let imported = dnscron_core::config::load(&[dir.path().join("out")]).unwrap();
    assert_eq!(
        rules(&imported, "x.example"),
        [("@".into(), Some("MX".into()), None)]
    );
}

/// A rule the loader would refuse (it also ignores a declared record) is refused at its
/// comment before anything is written, not reported as a bug of the import afterwards.
#[test]
fn an_ignore_comment_over_a_declared_record_is_refused_before_writing() {
    let (dir, run) = import_refused(
        "$ORIGIN x.example.\n$TTL 300\n; dnscron-ignore: {\"name\":\"*\"}\n@ A 192.0.2.1\n",
    );
    assert!(
        run.contains("x.zone:3:1: this `; dnscron-ignore:` rule also matches `@ A 192.0.2.1`, which the file declares at x.zone:4"),
        "{run}"
    );
    assert!(!run.contains("bug"), "{run}");
    assert!(!dir.path().join("out").exists(), "{run}");
}

/// `import --from bind x.zone --out out` of a file holding `text`, which must fail (exit 1).
fn import_refused(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.zone"), text).unwrap();
    let run = Test::new()
        .args(["import", "--from", "bind", "x.zone", "--out", "out"])
        .current_dir(dir.path())
        .snapshot();
    assert!(run.starts_with("exit: Some(1)"), "{run}");
    (dir, run)
}
