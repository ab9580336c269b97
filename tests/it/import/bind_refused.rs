//! `import --from bind`: the refused forms (an `$INCLUDE` leaving the file's folder, directly or
//! through a symlink; no origin; syntax errors, all located at once; `--origin` with several
//! files; one zone twice) and what is listed while the rest is written (a class other than IN,
//! a TTL the API refuses, a name outside the zone). None of them needs an API token.

use std::path::Path;

use crate::ci_recipes::runner::copy_dir;
use crate::common::{Test, assert_cli_snapshot, repo_root};

/// The refused corpus (tests/it/import/bind/refused/) in a fresh folder, with `secret.zone`
/// beside it, outside it.
fn refused_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_root().join("tests/it/import/bind/refused"),
        &dir.path().join("refused"),
    );
    std::fs::write(dir.path().join("secret.zone"), "secret A 192.0.2.66\n").unwrap();
    dir
}

fn import(dir: &Path, args: &[&str]) -> Test {
    super::import_from("bind", dir, args)
}

/// The import of `args` is refused as the snapshot `name` says, and nothing is written.
fn assert_refused(dir: &Path, name: &str, args: &[&str]) {
    assert_cli_snapshot!(name, import(dir, args));
    assert!(!dir.join("out").exists(), "something was written");
}

/// What an import of one zone into `out` prints after its report.
fn written_and_next(zone: &str) -> String {
    format!(
        "wrote out/zones/{zone}.yaml\nwrote out/dnscron.schema.json\n\
         next: with the zone {zone} in the account (added in the portal if new), `dnscron validate out` and `dnscron plan out`: against a zone holding these records it shows no changes, against an empty one every record as a create\n"
    )
}

#[test]
fn an_include_outside_the_folder_is_refused() {
    let dir = refused_corpus();
    assert_refused(
        dir.path(),
        "bind_refused_include_outside",
        &["refused/outside.zone"],
    );
}

#[test]
fn an_include_through_a_symlink_leading_outside_is_refused() {
    let dir = refused_corpus();
    std::os::unix::fs::symlink("../secret.zone", dir.path().join("refused/link.zone")).unwrap();
    assert_refused(
        dir.path(),
        "bind_refused_include_symlink",
        &["refused/symlink.zone"],
    );
    // The same symlink pointing inside the folder is followed.
    std::fs::write(dir.path().join("refused/inside.zone"), "www A 192.0.2.1\n").unwrap();
    std::fs::remove_file(dir.path().join("refused/link.zone")).unwrap();
    std::os::unix::fs::symlink("inside.zone", dir.path().join("refused/link.zone")).unwrap();
    import(dir.path(), &["refused/symlink.zone"])
        .expect_stdout(
            "zone example.com from refused/symlink.zone: 1 record of 2 (1 left out)\n  \
             left out refused/symlink.zone:5 @ SOA: the SOA record belongs to the service that hosts the zone\n"
                .to_string()
                + &written_and_next("example.com"),
        )
        .run();
}

#[test]
fn a_file_that_names_no_zone_needs_origin() {
    let dir = refused_corpus();
    assert_refused(
        dir.path(),
        "bind_refused_no_origin",
        &["refused/no_origin.zone"],
    );
    import(
        dir.path(),
        &["refused/no_origin.zone", "--origin", "example.org"],
    )
    .expect_stdout(
        "zone example.org from refused/no_origin.zone: 1 record of 1\n".to_string()
            + &written_and_next("example.org"),
    )
    .run();
    insta::assert_snapshot!(
        "bind_no_origin_with_origin_file",
        std::fs::read_to_string(dir.path().join("out/zones/example.org.yaml")).unwrap()
    );
}

#[test]
fn every_syntax_error_of_a_file_is_located_at_once() {
    let dir = refused_corpus();
    assert_refused(dir.path(), "bind_refused_syntax", &["refused/syntax.zone"]);
}

#[test]
fn another_class_a_refused_ttl_and_a_name_outside_are_listed_and_the_rest_written() {
    let dir = refused_corpus();
    assert_cli_snapshot!(
        "bind_listed_class_ttl_outside",
        import(dir.path(), &["refused/class.zone"])
    );
    insta::assert_snapshot!(
        "bind_listed_class_ttl_outside_file",
        std::fs::read_to_string(dir.path().join("out/zones/example.com.yaml")).unwrap()
    );
}

#[test]
fn origin_with_several_files_and_one_zone_twice_are_refused() {
    let dir = refused_corpus();
    assert_refused(
        dir.path(),
        "bind_refused_origin_with_two_files",
        &[
            "refused/class.zone",
            "refused/outside.zone",
            "--origin",
            "example.com",
        ],
    );
    std::fs::write(
        dir.path().join("refused/again.zone"),
        "$ORIGIN example.com.\n$TTL 300\nwww A 192.0.2.1\n",
    )
    .unwrap();
    assert_refused(
        dir.path(),
        "bind_refused_one_zone_twice",
        &["refused/class.zone", "refused/again.zone"],
    );
}

#[test]
fn from_needs_files_and_files_need_from() {
    let dir = refused_corpus();
    assert_cli_snapshot!(
        "bind_refused_from_without_files",
        Test::new()
            .args(["import", "--from", "bind"])
            .current_dir(dir.path())
    );
    assert_cli_snapshot!(
        "bind_refused_files_without_from",
        Test::new()
            .args(["import", "refused/class.zone"])
            .current_dir(dir.path())
    );
}

/// Zones with the same records, imported together with `--extract-sets`: the writer the account
/// import uses moves them into a record set.
#[test]
fn extract_sets_works_on_zone_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for zone in ["a.example", "b.example", "c.example"] {
        let name = format!("{zone}.zone");
        std::fs::write(
            dir.path().join(&name),
            format!(
                "$ORIGIN {zone}.\n$TTL 3600\n@ MX 10 mx.mailhost.example.\n@ TXT \"v=spf1 include:_spf.mailhost.example -all\"\nwww A 192.0.2.{}\n",
                files.len() + 1
            ),
        )
        .unwrap();
        files.push(name);
    }
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.push("--extract-sets");
    assert_cli_snapshot!("bind_extract_sets", import(dir.path(), &args));
    insta::assert_snapshot!(
        "bind_extract_sets_zone_file",
        std::fs::read_to_string(dir.path().join("out/zones/a.example.yaml")).unwrap()
    );
}
