//! `import --from dnscontrol`, then `plan` against an emulator seeded with the same records
//! shows no changes, for every IR of the corpus in tests/it/import/dnscontrol/ (each names the
//! DNSControl parse test whose shape it copies). DNSControl can't be installed here, so each
//! seed is written by hand below from the IR, never from our reader.

use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use crate::ci_recipes::runner::copy_dir;
use crate::common::emulator::start_emulator;
use crate::common::{Test, repo_root};

fn r(name: &str, rtype: &str, content: &str, ttl: u32) -> RecordSeed {
    RecordSeed::new(name, rtype, content).with_ttl(ttl)
}

/// One zone of the seed: the records the IR declares, and live records it leaves alone.
struct Zone {
    name: &'static str,
    declared: Vec<RecordSeed>,
    kept: Vec<RecordSeed>,
}

fn zone(name: &'static str, declared: Vec<RecordSeed>) -> Zone {
    Zone {
        name,
        declared,
        kept: Vec::new(),
    }
}

/// records.json's two domains, every record the API holds (all of them).
fn records_seed() -> Vec<Zone> {
    vec![
        zone(
            "foo.com",
            vec![
                r("@", "A", "1.2.3.4", 300),
                r("@", "AAAA", "2001:db8::1", 300),
                r("www", "CNAME", "foo.com.", 300),
                r("@", "MX", "15 mail.foo.com.", 300),
                r("mail", "A", "192.0.2.25", 3600),
                r("@", "TXT", "v=spf1 mx -all", 300),
                // `txtstrings` ["bonie", "clyde"], no `ttl`: DNSControl's default, 300.
                r("@", "TXT", "bonieclyde", 300),
                r("_ntp._udp", "SRV", "1 100 123 one.foo.com.", 300),
                r("_ntp._udp", "SRV", "2 100 123 three.example.com.", 300),
                r("@", "CAA", "0 issue \"letsencrypt.org\"", 300),
                r("@", "CAA", "128 iodef \"mailto:test@example.com\"", 300),
                r("@", "CAA", "0 issuewild \";\"", 300),
                r("sub", "NS", "ns1.other-dns.net.", 86400),
            ],
        ),
        zone(
            "bar.org",
            vec![
                r("@", "A", "192.0.2.80", 600),
                r("www", "CNAME", "bar.org.", 600),
                r("www2", "CNAME", "www.bar.org.", 300),
            ],
        ),
    ]
}

/// ignored.json's records, and live records its IGNOREs cover and NO_PURGE keeps: a plan
/// that touched any of them would not be empty.
fn ignored_seed() -> Vec<Zone> {
    vec![Zone {
        name: "foo.com",
        declared: vec![r("@", "A", "1.2.3.4", 300), r("www", "A", "1.2.3.5", 300)],
        kept: vec![
            r("testignore", "TXT", "set by hand", 300),
            r("two", "A", "192.0.2.2", 300),
            r("three", "TXT", "findme", 300),
            r("legacy-1", "A", "192.0.2.3", 300),
            r("stray", "A", "192.0.2.99", 300),
        ],
    }]
}

/// pseudo.json's one record the API holds; the seven pseudo-records are listed.
fn pseudo_seed() -> Vec<Zone> {
    vec![zone("foo.com", vec![r("www", "A", "1.2.3.4", 300)])]
}

fn emulator_with(zones: Vec<Zone>) -> dnscron_emulator::BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    for zone in zones {
        let records: Vec<_> = zone.declared.into_iter().chain(zone.kept).collect();
        seed = seed.with_zone(ZoneSeed::new(zone.name).with_records(records));
    }
    seed.rate_limit = RateLimit::off();
    start_emulator(seed)
}

/// Each zone line of the summary → (Z, N, M, a + b).
fn summary_counts(stdout: &str) -> Vec<(&str, usize, usize, usize)> {
    stdout
        .lines()
        .filter(|line| line.starts_with("zone "))
        .map(super::zone_counts)
        .map(|(zone, (managed, records, left))| (zone, managed, records, left))
        .collect()
}

/// Imports `file`, plans against `seed`: no changes, only the `findings` (`code target`); each
/// zone's managed count is its source records minus those listed, and `listed` of them are.
fn assert_differential(
    file: &str,
    source: &[(&str, usize)],
    listed: usize,
    seed: Vec<Zone>,
    findings: &[&str],
) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/dnscontrol"), dir.path());
    let import = Test::new()
        .args(["import", "--from", "dnscontrol", file, "--out", "out"])
        .current_dir(dir.path())
        .snapshot();
    let exit = if listed > 0 {
        "exit: Some(1)"
    } else {
        "exit: Some(0)"
    };
    assert!(import.starts_with(exit), "{import}");
    let stem = file.trim_end_matches(".json");
    insta::assert_snapshot!(format!("dnscontrol_import_{stem}"), import);
    for zone in source.iter().map(|(z, _)| z) {
        let written = std::fs::read_to_string(dir.path().join(format!("out/zones/{zone}.yaml")));
        insta::assert_snapshot!(format!("dnscontrol_file_{stem}_{zone}"), written.unwrap());
    }
    let counts = summary_counts(crate::common::stdout_of(&import));
    let mut total_listed = 0;
    for ((zone, managed, records, left), (want_zone, want_records)) in counts.iter().zip(source) {
        assert_eq!((*zone, *records), (*want_zone, *want_records));
        assert_eq!(*managed, records - left, "{zone}");
        let seeded = seed.iter().find(|z| z.name == *zone).unwrap();
        assert_eq!(*managed, seeded.declared.len(), "{zone}");
        total_listed += left;
    }
    assert_eq!((counts.len(), total_listed), (source.len(), listed));
    let emu = emulator_with(seed);
    assert_eq!(super::unchanged_plan_findings(&emu, dir.path()), findings);
}

#[test]
fn every_record_form_of_two_domains() {
    assert_differential(
        "records.json",
        &[("foo.com", 13), ("bar.org", 3)],
        0,
        records_seed(),
        &[],
    );
}

#[test]
fn ignores_become_rules_and_no_purge_keeps_the_rest() {
    assert_differential(
        "ignored.json",
        &[("foo.com", 2)],
        0,
        ignored_seed(),
        &[
            "ignored-records-kept foo.com",
            "unpruned-records-kept foo.com",
        ],
    );
}

#[test]
fn pseudo_records_are_listed_and_the_rest_imported() {
    assert_differential("pseudo.json", &[("foo.com", 8)], 7, pseudo_seed(), &[]);
}

/// The cutover: each domain's zone added empty in the portal; the first plan creates every
/// record, apply writes them, and the plan after shows no changes.
#[test]
fn into_an_empty_zone_the_first_plan_creates_every_record() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/dnscontrol"), dir.path());
    Test::new()
        .args(["import", "--from", "dnscontrol", "records.json"])
        .args(["--out", "out"])
        .current_dir(dir.path())
        .run_for_stdout();
    let emu = emulator_with(vec![
        zone("foo.com", Vec::new()),
        zone("bar.org", Vec::new()),
    ]);
    super::assert_cutover(module_path!(), "dnscontrol", dir.path(), &emu);
    let written = |zone: &str| emu.state().visible_records(zone).len();
    assert_eq!((written("foo.com"), written("bar.org")), (13, 3));
}
