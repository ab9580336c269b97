//! `--all`, `--zone`, `--site`, their errors, and overwrite protection.

use dnscron::emulator::Gaps;

use super::{dnscron, emulator, files_under, read};
use crate::common::Run;

#[test]
fn all_writes_every_zone_and_site_with_modes_and_comments() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--all"]);
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    assert_eq!(
        files_under(dir.path()),
        [
            "sites/blog.yaml",
            "sites/legacy.yaml",
            "sites/quiet.yaml",
            "sites/shop.yaml",
            "zones/big.example.yaml",
            "zones/edge.example.yaml",
            "zones/elsewhere.example.yaml",
            "zones/example.com.yaml",
            "zones/example.net.yaml",
            "zones/example.org.yaml",
        ]
    );
    assert!(dir.path().join("dnscron.schema.json").is_file());
    insta::assert_snapshot!("import_all_stdout", out.stdout);
    insta::assert_snapshot!(
        "import_edge_zone",
        read(dir.path(), "zones/edge.example.yaml")
    );
    insta::assert_snapshot!(
        "import_example_com",
        read(dir.path(), "zones/example.com.yaml")
    );
    // Registered elsewhere: no nameservers key at all.
    let elsewhere = read(dir.path(), "zones/elsewhere.example.yaml");
    assert!(!elsewhere.contains("nameservers"), "{elsewhere}");
    assert!(read(dir.path(), "sites/quiet.yaml").contains("cron: []"));
    let legacy = read(dir.path(), "sites/legacy.yaml");
    assert!(legacy.contains("the site is suspended"), "{legacy}");
}

#[test]
fn zone_and_site_selectors_write_only_what_was_asked() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(
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
    );
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    let repo = dir.path().join("repo");
    assert_eq!(
        files_under(&repo),
        ["zones/example.net.yaml", "zones/example.org.yaml"]
    );
    let org = read(&repo, "zones/example.org.yaml");
    assert!(org.contains("nameservers:\n  mode: hosted\n"), "{org}");

    let out = dnscron(
        &emu,
        dir.path(),
        &["import", "--site", "shop", "--out", "repo"],
    );
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    assert!(files_under(&repo).contains(&"sites/shop.yaml".to_string()));
    insta::assert_snapshot!("import_site_shop", read(&repo, "sites/shop.yaml"));
    let plan = dnscron(&emu, dir.path(), &["plan", "repo", "--detailed-exitcode"]);
    assert_eq!(plan.code, Some(0), "{}", plan.snapshot());
}

#[test]
fn unknown_zones_and_sites_are_errors_that_write_nothing() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--zone", "nope.example"]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("no DNS zone `nope.example`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint: "), "{}", out.stderr);
    let out = dnscron(&emu, dir.path(), &["import", "--site", "nope"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("no site `nope`"), "{}", out.stderr);
    let out = dnscron(&emu, dir.path(), &["import", "--zone", "not a zone"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("--zone not a zone"), "{}", out.stderr);
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
        let out = Run::new(&args).current_dir(dir.path()).output();
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let first = dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--site", "blog"],
    );
    assert_eq!(first.code, Some(0), "{}", first.snapshot());
    let zone = dir.path().join("zones/example.com.yaml");
    std::fs::write(&zone, "# edited by hand\n").unwrap();
    std::fs::write(dir.path().join("dnscron.schema.json"), "{}").unwrap();

    let refused = dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--site", "blog"],
    );
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("zones/example.com.yaml"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("sites/blog.yaml"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert_eq!(
        std::fs::read_to_string(&zone).unwrap(),
        "# edited by hand\n"
    );

    // A new file beside the existing ones is fine, and the schema is never a reason to refuse.
    let other = dnscron(&emu, dir.path(), &["import", "--zone", "example.org"]);
    assert_eq!(other.code, Some(0), "{}", other.snapshot());
    assert_eq!(read(dir.path(), "dnscron.schema.json"), "{}");

    let forced = dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--force"],
    );
    assert_eq!(forced.code, Some(0), "{}", forced.snapshot());
    assert!(read(dir.path(), "zones/example.com.yaml").starts_with("# yaml-language-server"));
    assert!(read(dir.path(), "dnscron.schema.json").contains("\"$schema\""));
}
