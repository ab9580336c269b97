//! `import --from octodns`, then `plan` against an emulator seeded with the same records shows no
//! changes, for each configuration of the corpus in tests/it/import/octodns/ (each names the
//! octoDNS doc or issue it comes from). The seed never comes from our reader: octoDNS's own
//! YamlProvider loads the configuration (tests/it/import/octodns/dump.py) and prints what the
//! zone's targets would receive, which becomes the seed.

use std::path::{Path, PathBuf};
use std::process::Command;

use dnscron_emulator::RecordSeed;

use super::bind_differential::{emulator_with, plan_against, summary_counts};
use crate::ci_recipes::runner::copy_dir;
use crate::common::{Test, assert_cli_snapshot, repo_root};

/// The types the API holds (its description's list): what octoDNS reads of any other type can't
/// be seeded, and the import must list it instead.
const API_TYPES: [&str; 9] = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "CAA", "PTR"];

/// The Python with octoDNS installed: `OCTODNS_PYTHON` (as .ci/run sets it), else `python3`.
fn python() -> PathBuf {
    std::env::var_os("OCTODNS_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from)
}

/// One value as octoDNS's reader gives it: `name ttl type rdata`.
#[derive(Debug)]
struct OctodnsValue {
    name: String,
    ttl: u32,
    rtype: String,
    rdata: String,
}

/// What octoDNS reads from `config` (in `dir`, where its `directory:` is relative).
fn octodns_dump(dir: &Path, config: &str) -> Vec<OctodnsValue> {
    let output = Command::new(python())
        .arg(repo_root().join("tests/it/import/octodns/dump.py"))
        .arg(config)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("python can't be run ({e}): set OCTODNS_PYTHON"));
    assert!(
        output.status.success(),
        "octoDNS's reader refused {config} (these tests compare the import with octoDNS's own \
         YamlProvider; install it with `pip install octodns` into a virtualenv and set \
         OCTODNS_PYTHON to its python, as .ci/run does):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.splitn(4, '\t').collect();
            OctodnsValue {
                name: fields[0].to_string(),
                ttl: fields[1].parse().unwrap(),
                rtype: fields[2].to_string(),
                rdata: fields[3].to_string(),
            }
        })
        .collect()
}

/// Imports `config`, seeds an emulator from octoDNS's reading of it, and plans: no changes.
/// `ignored` records are in the seed (octoDNS leaves them live) and not managed.
fn assert_differential(case: &str, listed: bool, ignored: usize) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/octodns"), dir.path());
    let config = format!("{case}/config.yaml");
    let values = octodns_dump(dir.path(), &config);
    let seed: Vec<RecordSeed> = values
        .iter()
        .filter(|v| API_TYPES.contains(&v.rtype.as_str()))
        .map(|v| RecordSeed::new(&v.name, &v.rtype, &v.rdata).with_ttl(v.ttl))
        .collect();
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
    let stdout = crate::common::stdout_of(&import);
    let (managed, source, left) = summary_counts(stdout);
    assert_eq!(managed, source - left, "{stdout}");
    assert_eq!(
        managed + ignored,
        seed.len(),
        "the records the API holds of {case}"
    );
    let plan = plan_against(dir.path(), seed);
    insta::assert_snapshot!(format!("octodns_plan_{case}"), plan);
}

/// value/values, a list under one name, '' and '*', TXT's `\;`, MX (both spellings), SRV and
/// CAA as mappings, NS below the apex, `octodns.ignored`, `octodns.excluded`, `!include`.
#[test]
fn every_record_form_of_the_yaml_provider() {
    assert_differential("forms", false, 1);
}

/// ALIAS, a dynamic record and SSHFP are listed with their file:line; a split zone folder and
/// `escaped_semicolons: false` are read as octoDNS reads them.
#[test]
fn what_the_api_cannot_hold_is_listed_and_the_rest_imported() {
    assert_differential("listed", true, 0);
}

/// The cutover: the zone added empty in the portal; the first plan creates every record octoDNS
/// would push, apply writes them, and the plan after shows no changes.
#[test]
fn into_an_empty_zone_the_first_plan_creates_every_record() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/octodns"), dir.path());
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
    let emu = emulator_with(Vec::new());
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
    assert_eq!(emu.state().visible_records("example.com").len(), 16);
}
