//! `import --from octodns`: the refused forms (an `!include` leaving its file's folder, directly
//! or through a symlink; a zone without its file and a source that is not a YAML provider, both
//! located at once; `--origin`; what octoDNS means that the import can't tell or reproduce:
//! targets that disagree, a string for a list, an ignored record with an invalid value, a second
//! record of one name and type, an option octoDNS refuses, processors), each with its whole
//! output and nothing written.

use std::path::Path;

use crate::ci_recipes::runner::copy_dir;
use crate::common::{assert_cli_snapshot, repo_root};

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/octodns"), dir.path());
    dir
}

/// The import of `args` is refused as the snapshot `name` says, and nothing is written.
fn assert_refused(dir: &Path, name: &str, args: &[&str]) {
    assert_cli_snapshot!(name, super::import_from("octodns", dir, args));
    assert!(!dir.join("out").exists(), "something was written");
}

#[test]
fn an_include_outside_the_folder_is_refused() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "octodns_refused_include_outside",
        &["refused/include_outside.yaml"],
    );
}

#[test]
fn an_include_through_a_symlink_leading_outside_is_refused() {
    let dir = corpus();
    std::os::unix::fs::symlink(
        "../../forms/zones/shared.yaml",
        dir.path().join("refused/zones/link.yaml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("refused/zones/example.com.yaml"),
        "www: !include link.yaml\n",
    )
    .unwrap();
    assert_refused(
        dir.path(),
        "octodns_refused_include_symlink",
        &["refused/include_outside.yaml"],
    );
}

#[test]
fn a_missing_zone_file_and_a_source_that_is_not_yaml_are_refused_together() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "octodns_refused_missing",
        &["refused/missing.yaml"],
    );
}

#[test]
fn a_missing_configuration_and_origin_are_refused() {
    let dir = corpus();
    assert_refused(dir.path(), "octodns_refused_no_config", &["nothing.yaml"]);
    assert_refused(
        dir.path(),
        "octodns_refused_origin",
        &["forms/config.yaml", "--origin", "example.com"],
    );
}

#[test]
fn what_octodns_means_and_the_import_cannot_reproduce_is_refused_together() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "octodns_refused_meaning",
        &["refused/meaning.yaml"],
    );
}
