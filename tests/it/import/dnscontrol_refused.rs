//! `import --from dnscontrol`: the refused forms (broken JSON and a field of the wrong type,
//! located by line and column; a domain with no records; a glob an `ignore:` rule can't say;
//! `--origin`; a domain twice), each writing nothing. None of them needs an API token.

use std::path::Path;

use crate::ci_recipes::runner::copy_dir;
use crate::common::{Test, assert_cli_snapshot, repo_root};

fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("tests/it/import/dnscontrol"), dir.path());
    dir
}

fn import(dir: &Path, args: &[&str]) -> Test {
    super::import_from("dnscontrol", dir, args)
}

/// The import of `args` is refused as the snapshot `name` says, and nothing is written.
fn assert_refused(dir: &Path, name: &str, args: &[&str]) {
    assert_cli_snapshot!(name, import(dir, args));
    assert!(!dir.join("out").exists(), "something was written");
}

#[test]
fn broken_json_is_located() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_broken",
        &["refused/broken.json"],
    );
}

#[test]
fn a_field_of_the_wrong_type_is_located() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_wrong_type",
        &["refused/wrong_type.json"],
    );
}

#[test]
fn a_domain_with_no_records_is_refused() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_no_records",
        &["refused/no_records.json"],
    );
}

#[test]
fn a_glob_beyond_star_and_question_mark_is_refused() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_pattern",
        &["refused/pattern.json"],
    );
}

#[test]
fn origin_is_for_bind_only() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_origin",
        &["records.json", "--origin", "foo.com"],
    );
}

#[test]
fn one_domain_in_two_files_is_refused() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_one_zone_twice",
        &["records.json", "pseudo.json"],
    );
}

#[test]
fn an_empty_domain_list_is_refused() {
    let dir = corpus();
    std::fs::write(dir.path().join("empty.json"), "{\"domains\": []}\n").unwrap();
    assert_refused(dir.path(), "dnscontrol_refused_no_domains", &["empty.json"]);
}

#[test]
fn a_record_an_ignore_covers_is_refused() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_declared_and_ignored",
        &["refused/declared_and_ignored.json"],
    );
    // The same IGNORE beside records it doesn't cover is written (ignored.json).
    import(dir.path(), &["ignored.json"]).run_for_stdout();
}

/// A single-label target is relative (accepted: meaning.json's `rel CNAME test`); one with a
/// dot must end with one.
#[test]
fn a_dotted_target_without_a_final_dot_is_refused() {
    let dir = corpus();
    assert_refused(
        dir.path(),
        "dnscontrol_refused_dotted_target",
        &["refused/dotted_target.json"],
    );
}
