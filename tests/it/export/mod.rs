//! `dnscron export --to bind|octodns`: what it writes and says (snapshots), the folders it
//! refuses to write into, and, in `differential`, what BIND and octoDNS read from its files; in
//! `round_trip`, `import --from` then `plan` on them.
//!
//! The account exported is tests/it/export/account/: every record type, TXT texts with quotes,
//! backslashes, escapes, a control character and a key over 255 octets, names `@`, `*`, `*.dev`,
//! an IDN and ones that sort differently as text and as numbers, TTLs from `defaults.ttl` and
//! their own, one record set in two zones, custom and hosted nameservers, `ignore:`,
//! `prune: false` and a site's cron; and three TXT texts octoDNS can't hold.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dnscron_core::config::model::Desired;

use crate::ci_recipes::runner::copy_dir;
use crate::common::{Test, assert_cli_snapshot, repo_root};

mod differential;
mod round_trip;

/// name, type, TTL, canonical content: one record as both sides compare it.
type Row = (String, String, u32, String);

fn account() -> PathBuf {
    repo_root().join("tests/it/export/account")
}

/// The account as `plan` loads it.
fn desired() -> Desired {
    dnscron_core::config::load(&[account()]).unwrap()
}

/// The records the files give `zone` (sets expanded, defaults applied).
fn declared(desired: &Desired, zone: &str) -> BTreeSet<Row> {
    let spec = desired
        .zones
        .iter()
        .find(|z| z.zone.as_str() == zone)
        .unwrap_or_else(|| panic!("no zone {zone}"));
    spec.records
        .iter()
        .map(|r| {
            (
                r.name.clone(),
                r.rtype.as_str().to_string(),
                r.ttl,
                r.canonical.clone(),
            )
        })
        .collect()
}

/// A folder holding a copy of the account as `account/`, for runs whose output names paths.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&account(), &dir.path().join("account"));
    dir
}

fn export(dir: &Path, args: &[&str]) -> Test {
    Test::new().arg("export").args(args).current_dir(dir)
}

/// Runs `test`, which must exit 0 (its stderr says what was left); its stdout.
fn succeeds(test: Test) -> String {
    let run = test.snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
    crate::common::stdout_of(&run).to_string()
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out.sort();
    out
}

#[test]
fn export_help() {
    assert_cli_snapshot!(Test::new().args(["export", "--help"]));
}

/// BIND: one file per zone; stdout the files and the count, stderr what the files can't hold
/// (the nameserver modes, the SOA a hosted zone lacks, `ignore:`, `prune: false`, the cron).
#[test]
fn bind_writes_a_file_per_zone_and_says_what_it_left() {
    let dir = workdir();
    assert_cli_snapshot!(export(
        dir.path(),
        &["--to", "bind", "--out", "out", "account"]
    ));
    assert_eq!(
        tree(&dir.path().join("out")),
        ["empty.example.zone", "example.com.zone", "example.org.zone"]
    );
}

/// octoDNS, as JSON: the configuration and a file per zone, what is left and the three TXT
/// texts octoDNS can't hold, each with its place; those fail the command after the rest is
/// written.
#[test]
fn octodns_json_lists_what_was_left_and_what_was_not_exported() {
    let dir = workdir();
    let run = export(
        dir.path(),
        &["--to", "octodns", "--out", "out", "--json", "account"],
    );
    assert_cli_snapshot!(run);
    assert_eq!(
        tree(&dir.path().join("out")),
        [
            "config.yaml",
            "zones/empty.example.yaml",
            "zones/example.com.yaml",
            "zones/example.org.yaml"
        ]
    );
    let config = std::fs::read_to_string(dir.path().join("out/config.yaml")).unwrap();
    assert!(!config.to_lowercase().contains("token"), "{config}");
}

/// Without `--out`, a new folder `export-<tool>` in the working directory.
#[test]
fn the_default_folder_is_named_after_the_tool() {
    let dir = workdir();
    let stdout = succeeds(export(dir.path(), &["--to", "bind", "account"]));
    assert!(stdout.contains("to export-bind for bind"), "{stdout}");
    assert_eq!(
        tree(&dir.path().join("export-bind")),
        ["empty.example.zone", "example.com.zone", "example.org.zone"]
    );
}

/// A folder that holds anything is refused, nothing written; `--force` writes over the files
/// export writes and keeps the others.
#[test]
fn a_folder_that_is_not_empty_is_refused_unless_forced() {
    let dir = workdir();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine\n").unwrap();
    assert_cli_snapshot!(export(
        dir.path(),
        &["--to", "bind", "--out", "out", "account"]
    ));
    assert_eq!(tree(&out), ["notes.txt"]);
    std::fs::write(out.join("example.com.zone"), "old\n").unwrap();
    succeeds(export(
        dir.path(),
        &["--to", "bind", "--out", "out", "--force", "account"],
    ));
    assert_eq!(
        tree(&out),
        [
            "empty.example.zone",
            "example.com.zone",
            "example.org.zone",
            "notes.txt"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine\n"
    );
    let zone = std::fs::read_to_string(out.join("example.com.zone")).unwrap();
    assert!(zone.starts_with("; zone example.com"), "{zone}");
}

/// A file that would be written through a symlink leading outside the folder: refused even with
/// `--force`, before anything is written; the file it points at is untouched.
#[test]
fn a_path_leading_outside_the_folder_is_refused_even_when_forced() {
    let dir = workdir();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("zones")).unwrap();
    let victim = dir.path().join("victim.yaml");
    std::fs::write(&victim, "keep\n").unwrap();
    std::os::unix::fs::symlink(&victim, out.join("zones/example.org.yaml")).unwrap();
    assert_cli_snapshot!(export(
        dir.path(),
        &["--to", "octodns", "--out", "out", "--force", "account"]
    ));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
    assert_eq!(tree(&out), ["zones/example.org.yaml"]);
}

/// `--out` naming a file, not a folder: refused.
#[test]
fn an_out_that_is_a_file_is_refused() {
    let dir = workdir();
    std::fs::write(dir.path().join("out"), "a file\n").unwrap();
    assert_cli_snapshot!(export(
        dir.path(),
        &["--to", "bind", "--out", "out", "account"]
    ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out")).unwrap(),
        "a file\n"
    );
}

/// Invalid files: the problems `validate` shows, located, and nothing written (no folder).
#[test]
fn invalid_files_get_the_errors_validate_gives_and_nothing_is_written() {
    let dir = workdir();
    let zone = dir.path().join("account/zones/example.org.yaml");
    let text = std::fs::read_to_string(&zone).unwrap();
    std::fs::write(&zone, text.replace("content: example.org.", "content: www")).unwrap();
    let export = export(dir.path(), &["--to", "bind", "--out", "out", "account"]).snapshot();
    let validate = Test::new()
        .args(["validate", "account"])
        .current_dir(dir.path())
        .snapshot();
    assert!(export.starts_with("exit: Some(1)"), "{export}");
    assert_eq!(
        export.split_once("--- stderr\n").unwrap().1,
        validate.split_once("--- stderr\n").unwrap().1
    );
    assert!(!dir.path().join("out").exists());
}

/// A repository of several accounts (dnscron-accounts.yaml): each account's zones in a folder
/// of its name, so production's and staging's `example.com` don't meet; `--account` picks.
#[test]
fn each_account_of_a_repository_gets_its_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    let list = "accounts:\n\
                \x20 - { name: prod, folder: prod, api_url: https://api.example.net/api/v1, token_env: DNSCRON_TOKEN_PROD }\n\
                \x20 - { name: staging, folder: staging, api_url: https://api.example.net/api/v1, token_env: DNSCRON_TOKEN_STAGING }\n";
    std::fs::write(dir.path().join("dnscron-accounts.yaml"), list).unwrap();
    for (account, address) in [("prod", "203.0.113.10"), ("staging", "192.0.2.10")] {
        let zones = dir.path().join(account).join("zones");
        std::fs::create_dir_all(&zones).unwrap();
        let zone = format!(
            "zone: example.com\nrecords:\n  - {{ name: \"@\", type: A, content: {address} }}\n"
        );
        std::fs::write(zones.join("example.com.yaml"), zone).unwrap();
    }
    let stdout = succeeds(export(dir.path(), &["--to", "bind", "--out", "out"]));
    assert!(
        stdout.ends_with("exported 2 zones, 2 records to out for bind\n"),
        "{stdout}"
    );
    let out = dir.path().join("out");
    assert_eq!(
        tree(&out),
        ["prod/example.com.zone", "staging/example.com.zone"]
    );
    for (account, address) in [("prod", "203.0.113.10"), ("staging", "192.0.2.10")] {
        let file = std::fs::read_to_string(out.join(account).join("example.com.zone")).unwrap();
        assert!(
            file.contains(&format!("example.com. 3600 IN A {address}\n")),
            "{file}"
        );
    }
    // octoDNS's YAML goes outside the repository (inside, the loader would read it).
    let elsewhere = tempfile::tempdir().unwrap();
    let one = elsewhere.path().join("one");
    succeeds(export(
        dir.path(),
        &[
            "--to",
            "octodns",
            "--out",
            one.to_str().unwrap(),
            "--account",
            "staging",
        ],
    ));
    assert_eq!(
        tree(&one),
        ["staging/config.yaml", "staging/zones/example.com.yaml"]
    );
}
