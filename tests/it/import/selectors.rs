//! `--all`, `--zone`, `--site`, their errors, and overwrite protection.

use dnscron_emulator::Gaps;

use super::{dnscron, emulator, files_under, read};
use crate::common::{Test, assert_cli_snapshot};

#[test]
fn all_writes_every_zone_and_site_with_modes_and_comments() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let stdout = dnscron(&emu, dir.path(), &["import", "--all"]).run_for_stdout();
    assert_eq!(
        files_under(dir.path()),
        [
            "sites/blog.yaml",
            "sites/legacy.yaml",
            "sites/quiet.yaml",
            "sites/shop.yaml",
            "zones/agency.example.yaml",
            "zones/big.example.yaml",
            "zones/edge.example.yaml",
            "zones/elsewhere.example.yaml",
            "zones/example.com.yaml",
            "zones/example.net.yaml",
            "zones/example.org.yaml",
        ]
    );
    assert!(dir.path().join("dnscron.schema.json").is_file());
    insta::assert_snapshot!("import_all_stdout", stdout);
    insta::assert_snapshot!(
        "import_edge_zone",
        read(dir.path(), "zones/edge.example.yaml")
    );
    insta::assert_snapshot!(
        "import_example_com",
        read(dir.path(), "zones/example.com.yaml")
    );
    // Registered elsewhere: no nameservers key at all.
    insta::assert_snapshot!(read(dir.path(), "zones/elsewhere.example.yaml"));
    // No cron jobs: `cron: []`, so the file still owns the (empty) list.
    insta::assert_snapshot!(read(dir.path(), "sites/quiet.yaml"));
    // A suspended site says so.
    insta::assert_snapshot!(read(dir.path(), "sites/legacy.yaml"));
}

#[test]
fn zone_and_site_selectors_write_only_what_was_asked() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &[
            "import",
            "--zone",
            "Example.ORG.",
            "--zone",
            "example.net",
            "--out",
            "repo",
        ],
    ));
    let repo = dir.path().join("repo");
    assert_eq!(
        files_under(&repo),
        ["zones/example.net.yaml", "zones/example.org.yaml"]
    );
    // Hosted here: `nameservers: { mode: hosted }`.
    insta::assert_snapshot!(read(&repo, "zones/example.org.yaml"));

    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--site", "shop", "--out", "repo"],
    ));
    assert_eq!(
        files_under(&repo),
        [
            "sites/shop.yaml",
            "zones/example.net.yaml",
            "zones/example.org.yaml"
        ]
    );
    insta::assert_snapshot!("import_site_shop", read(&repo, "sites/shop.yaml"));
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["plan", "repo", "--detailed-exitcode"]
    ));
}

#[test]
fn unknown_zones_and_sites_are_errors_that_write_nothing() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "nope.example"]
    ));
    assert_cli_snapshot!(dnscron(&emu, dir.path(), &["import", "--site", "nope"]));
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "not a zone"]
    ));
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn selectors_are_required_and_exclusive() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["import"],
        vec!["import", "--all", "--zone", "example.com"],
        vec!["import", "--probe", "example.io", "--site", "shop"],
    ] {
        // clap's usage errors: exit 2.
        assert_cli_snapshot!(Test::new().args(&args).current_dir(dir.path()));
    }
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--site", "blog"],
    ));
    let zone = dir.path().join("zones/example.com.yaml");
    std::fs::write(&zone, "# edited by hand\n").unwrap();
    std::fs::write(dir.path().join("dnscron.schema.json"), "{}").unwrap();

    // Names both files and --force.
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--site", "blog"],
    ));
    assert_eq!(
        std::fs::read_to_string(&zone).unwrap(),
        "# edited by hand\n"
    );

    // A new file beside the existing ones is fine, and the schema is never a reason to refuse.
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.org"]
    ));
    assert_eq!(read(dir.path(), "dnscron.schema.json"), "{}");

    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--force"],
    ));
    insta::assert_snapshot!(
        "import_example_com",
        read(dir.path(), "zones/example.com.yaml")
    );
    assert_eq!(
        read(dir.path(), "dnscron.schema.json"),
        read(&crate::common::repo_root(), "schema/dnscron.schema.json")
    );
}
