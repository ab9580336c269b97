//! `import --from octodns` beside octoDNS's own planner: for each case of the corpus in
//! tests/it/import/octodns/ (a folder with a config.yaml; each names the octoDNS doc or source it
//! comes from), octoDNS 1.22 (plan.py: its YamlProvider, then `Zone.changes` against a target
//! holding the live records) and dnscron (the import, then its first plan, applied to an
//! emulator holding the same live records) must change the same names and types and leave the
//! zone the same, except where the import lists a record as not imported.
//!
//! octoDNS's answers are recorded next to each case (CASE/octodns.json, written by
//! tests/recorders/octodns.sh), so `cargo test` needs no Python; with the cargo feature
//! `live-tools` (.ci/run), `octodns_answers_are_recorded_as_octodns_gives_them_now` runs
//! octoDNS again and fails when a recording is stale.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use dnscron_core::dns::{RecordType, ZoneName, canonical_live_content};
use dnscron_emulator::{BackgroundEmulator, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use crate::ci_recipes::runner::copy_dir;
use crate::common::emulator::start_emulator;
use crate::common::{Test, assert_cli_snapshot, repo_root};

/// `name ttl type content`, content in the API's form (TXT as its text).
type Row = (String, u32, String, String);

/// What octoDNS answered for one case (plan.py's JSON).
#[derive(Debug, PartialEq, serde::Deserialize)]
struct Answer {
    octodns: String,
    zones: BTreeMap<String, ZoneAnswer>,
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct ZoneAnswer {
    target: String,
    /// What the old provider serves before the cutover.
    live: Vec<Row>,
    /// `[action, name, type]`, one per RRset octoDNS would change.
    changes: Vec<(String, String, String)>,
    /// The live zone with octoDNS's changes applied.
    after: Vec<Row>,
}

fn corpus() -> std::path::PathBuf {
    repo_root().join("tests/it/import/octodns")
}

fn recording(case: &str) -> String {
    let path = corpus().join(case).join("octodns.json");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record octoDNS's answers with tests/recorders/octodns.sh)",
            path.display()
        )
    })
}

fn recorded(case: &str) -> Answer {
    serde_json::from_str(&recording(case)).unwrap()
}

fn emulator_with(answer: &Answer, live: impl Fn(&ZoneAnswer) -> &[Row]) -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    for (zone, answer) in &answer.zones {
        let records = live(answer).iter().map(|(name, ttl, rtype, content)| {
            RecordSeed::new(name, rtype, content).with_ttl(*ttl)
        });
        seed = seed.with_zone(ZoneSeed::new(zone.trim_end_matches('.')).with_records(records));
    }
    seed.rate_limit = RateLimit::off();
    start_emulator(seed)
}

/// One zone's records as (name, type) → {(ttl, canonical content)}: both tools' spellings of
/// one record compare equal.
type Zone = BTreeMap<(String, String), BTreeSet<(u32, String)>>;

fn canonical(zone: &str, rows: impl IntoIterator<Item = Row>) -> Zone {
    let parsed = ZoneName::parse(zone.trim_end_matches('.')).unwrap();
    let mut out = Zone::new();
    for (name, ttl, rtype, content) in rows {
        let typed = RecordType::from_str(&rtype).unwrap();
        let content = canonical_live_content(typed, &content, &parsed);
        out.entry((name.to_ascii_lowercase(), rtype))
            .or_default()
            .insert((ttl, content));
    }
    out
}

/// The emulator's zone now, as rows.
fn rows_now(emu: &BackgroundEmulator, zone: &str) -> Vec<Row> {
    let state = emu.state();
    state
        .visible_records(zone.trim_end_matches('.'))
        .into_iter()
        .map(|r| (r.name.clone(), r.ttl, r.rtype.clone(), r.content.clone()))
        .collect()
}

/// The (name, type) of each record the import lists as not imported (`  not imported
/// FILE:LINE NAME TYPE …`).
fn not_imported(import: &str) -> BTreeSet<(String, String)> {
    crate::common::stdout_of(import)
        .lines()
        .filter_map(|line| line.strip_prefix("  not imported "))
        .map(|rest| {
            let fields: Vec<&str> = rest.split(' ').collect();
            (fields[1].to_ascii_lowercase(), fields[2].to_string())
        })
        .collect()
}

/// Imports CASE, plans against an emulator holding octoDNS's live records (with changes or
/// not, and only the `findings`, `code target [declared_at]`), applies, and compares the zone
/// with octoDNS's: the same, but where the import says it didn't import.
fn assert_differential(case: &str, listed: bool, changes: bool, findings: &[&str]) {
    let answer = recorded(case);
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&corpus(), dir.path());
    let config = format!("{case}/config.yaml");
    let import = Test::new()
        .args(["import", "--from", "octodns", &config, "--out", "out"])
        .current_dir(dir.path())
        .snapshot();
    let exit = if listed {
        "exit: Some(1)"
    } else {
        "exit: Some(0)"
    };
    assert!(import.starts_with(exit), "{import}");
    insta::assert_snapshot!(format!("octodns_import_{case}"), import);
    let left_out = not_imported(&import);
    let emu = emulator_with(&answer, |z| &z.live);
    let dnscron = |args: &[&str]| {
        Test::new()
            .args(args)
            .api(&emu.base_url(), "demo-token")
            .current_dir(dir.path())
            .plan_stamp()
    };
    let plan = dnscron(&["plan", "out", "--format", "json", "--detailed-exitcode"]).snapshot();
    assert!(
        plan.starts_with(if changes {
            "exit: Some(2)"
        } else {
            "exit: Some(0)"
        }),
        "{plan}"
    );
    let json: serde_json::Value = serde_json::from_str(crate::common::stdout_of(&plan))
        .unwrap_or_else(|e| panic!("{e}: {plan}"));
    let found: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let at = f["declared_at"].as_str().map(|at| format!(" {at}"));
            let (code, target) = (&f["code"], &f["target"]["name"]);
            format!(
                "{} {}{}",
                code.as_str().unwrap(),
                target.as_str().unwrap(),
                at.unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(found, findings, "{case}");
    if changes {
        let apply = dnscron(&["apply", "out", "--yes"]).snapshot();
        assert!(apply.starts_with("exit: Some(0)"), "{apply}");
    }
    for (zone, octodns) in &answer.zones {
        let live = canonical(zone, octodns.live.clone());
        let theirs = canonical(zone, octodns.after.clone());
        let ours = canonical(zone, rows_now(&emu, zone));
        let kept = |k: &&(String, String)| !left_out.contains(*k);
        // What each changed: octoDNS's plan, and what dnscron's apply changed in the zone.
        let changed_theirs: BTreeSet<(String, String)> = octodns
            .changes
            .iter()
            .map(|(_, name, rtype)| (name.to_ascii_lowercase(), rtype.clone()))
            .filter(|k| kept(&k))
            .collect();
        let keys: BTreeSet<&(String, String)> = live.keys().chain(ours.keys()).collect();
        let changed_ours: BTreeSet<(String, String)> = keys
            .into_iter()
            .filter(|k| live.get(*k) != ours.get(*k))
            .filter(kept)
            .cloned()
            .collect();
        assert_eq!(
            changed_ours, changed_theirs,
            "{case} {zone}: what each changed"
        );
        let keys: BTreeSet<&(String, String)> = theirs.keys().chain(ours.keys()).collect();
        let differ: Vec<_> = keys
            .into_iter()
            .filter(|k| theirs.get(*k) != ours.get(*k))
            .filter(kept)
            .map(|k| (k, theirs.get(k), ours.get(k)))
            .collect();
        assert!(
            differ.is_empty(),
            "{case} {zone}: (name, type), octoDNS's zone, dnscron's: {differ:#?}"
        );
    }
}

/// value/values, a list under one name, '' and '*', TXT's `\;`, MX (both spellings), SRV and
/// CAA as mappings, NS below the apex, `octodns.ignored`, `octodns.excluded`, `!include`.
#[test]
fn every_record_form_of_the_yaml_provider() {
    assert_differential(
        "forms",
        false,
        false,
        &["spf-not-followed example.com out/zones/example.com.yaml:18:5"],
    );
}

/// ALIAS, a dynamic record and SSHFP are listed with their file:line; a split zone folder and
/// `escaped_semicolons: false` are read as octoDNS reads them.
#[test]
fn what_the_api_cannot_hold_is_listed_and_the_rest_imported() {
    assert_differential("listed", true, true, &[]);
}

/// Issue 38: against a live zone that differs from the files, `ignored` (whatever the live
/// value), `excluded` and `included` leaving the target out are left alone by name and type,
/// `included` naming the target is managed, TXT chunks and quotes are read as octoDNS reads
/// them, and the creates, updates and deletes octoDNS plans are dnscron's too.
#[test]
fn what_octodns_leaves_alone_and_what_it_changes_are_the_same() {
    assert_differential(
        "meaning",
        false,
        true,
        &["ignored-records-kept example.com"],
    );
}

/// Issue 38's corners: `ignored: 'false'` is a non-empty string, so ignored; `ignored: false`
/// is managed; a wildcard left alone is listed (its rule would be the glob `?`, keeping the
/// stray one-character `a` TXT that octoDNS deletes, and dnscron deletes too).
#[test]
fn a_quoted_false_and_a_wildcard_left_alone_mean_what_octodns_means() {
    assert_differential("corners", true, true, &["ignored-records-kept example.com"]);
}

/// `shared_filename`, `populate_should_replace`, `escaped_semicolons: false`, the
/// SplitYamlProvider (no zone file), an `alias:` zone, options that change nothing read.
#[test]
fn every_provider_option_that_changes_a_zone_is_read_as_octodns_reads_it() {
    assert_differential("options", false, false, &[]);
}

/// The cutover: the zone added empty in the portal; the first plan creates every record octoDNS
/// would push, apply writes them, and the plan after shows no changes.
#[test]
fn into_an_empty_zone_the_first_plan_creates_every_record() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&corpus(), dir.path());
    Test::new()
        .args([
            "import",
            "--from",
            "octodns",
            "forms/config.yaml",
            "--out",
            "out",
        ])
        .current_dir(dir.path())
        .run_for_stdout();
    let emu = emulator_with(&recorded("forms"), |_| &[]);
    let dnscron = |args: &[&str]| {
        Test::new()
            .args(args)
            .api(&emu.base_url(), "demo-token")
            .current_dir(dir.path())
            .plan_stamp()
    };
    assert_cli_snapshot!(
        "octodns_cutover_first_plan",
        dnscron(&["plan", "out", "--detailed-exitcode"])
    );
    assert_cli_snapshot!("octodns_cutover_apply", dnscron(&["apply", "out", "--yes"]));
    dnscron(&["plan", "out", "--detailed-exitcode"]).run_for_stdout();
    // What octoDNS pushes into an empty zone is what it would have pushed: the recording's live.
    let pushed = &recorded("forms").zones["example.com."].live;
    assert_eq!(
        canonical("example.com.", rows_now(&emu, "example.com")),
        canonical("example.com.", pushed.clone())
    );
}

#[cfg(feature = "live-tools")]
mod live {
    use super::*;

    /// The recordings are what octoDNS answers now: a case changed without recording again fails
    /// here (the feature `live-tools`: .ci/run runs it with OCTODNS_PYTHON set).
    #[test]
    fn octodns_answers_are_recorded_as_octodns_gives_them_now() {
        let python = std::env::var_os("OCTODNS_PYTHON").expect(
            "the live comparison runs octoDNS: set OCTODNS_PYTHON to a Python with octodns==1.22.0",
        );
        let mut cases: Vec<String> = std::fs::read_dir(corpus())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("config.yaml").is_file())
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        cases.sort();
        assert_eq!(cases, ["corners", "forms", "listed", "meaning", "options"]);
        for case in cases {
            let output = std::process::Command::new(&python)
                .arg("plan.py")
                .arg(&case)
                .current_dir(corpus())
                .output()
                .unwrap_or_else(|e| panic!("{}: {e}", std::path::Path::new(&python).display()));
            assert!(
                output.status.success(),
                "octoDNS refused {case}:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(
                String::from_utf8(output.stdout).unwrap(),
                recording(&case),
                "tests/it/import/octodns/{case}/octodns.json is stale: run tests/recorders/octodns.sh"
            );
        }
    }
}
