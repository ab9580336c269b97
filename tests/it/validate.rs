//! `dnscron validate` and `dnscron schema` as a user runs them.

use crate::common::{Test, assert_cli_snapshot};

/// The examples are valid; validate shows what a plan would find from them alone (an SPF near
/// its lookup limit, an include it can't follow offline) and exits 0.
#[test]
fn examples_validate_with_their_findings_and_a_summary_line() {
    assert_cli_snapshot!(Test::new().args(["validate", "examples/dns"]));
}

#[test]
fn default_path_is_the_current_directory() {
    Test::new()
        .arg("validate")
        .current_dir(crate::common::repo_root().join("examples/dns/sites"))
        .expect_stdout("valid: 0 zones, 0 records, 2 sites, 4 cron jobs\n")
        .run();
}

#[test]
fn every_mistake_is_reported_at_its_line_and_column() {
    assert_cli_snapshot!(
        Test::new().args(["validate", "tests/it/fixtures/validate/many-mistakes.yaml"])
    );
}

#[test]
fn missing_file_and_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["validate", "does-not-exist.yaml", "."])
            .current_dir(dir.path())
    );
}

#[test]
fn bad_yaml_syntax_and_wrong_type() {
    assert_cli_snapshot!(Test::new().args([
        "validate",
        "tests/it/fixtures/validate/bad-syntax.yaml",
        "tests/it/fixtures/validate/wrong-type.yaml",
    ]));
}

#[test]
fn schema_command_prints_the_committed_schema() {
    let printed = Test::new().arg("schema").run_for_stdout();
    let committed =
        std::fs::read_to_string(crate::common::repo_root().join("schema/dnscron.schema.json"))
            .unwrap();
    assert!(
        printed == committed,
        "schema/dnscron.schema.json is out of date; regenerate it with\n    \
         cargo run -- schema > schema/dnscron.schema.json"
    );
}

/// The words a newcomer meets first: a tab says to indent with spaces and points at the tab; a
/// nickname gets its 5 fields; a refused field is named with its range and value; a misspelled
/// key is one problem with its correction.
#[test]
fn tabs_nicknames_cron_fields_and_misspelled_keys_say_what_to_write() {
    assert_cli_snapshot!(Test::new().args([
        "validate",
        "tests/it/fixtures/validate/tab-indent.yaml",
        "tests/it/fixtures/validate/cron-words.yaml",
        "tests/it/fixtures/validate/misspelled-key.yaml",
    ]));
}

/// A file is untrusted input (a pull request's file is): an ESC in a comment and bidi controls
/// in values are drawn escaped in the excerpt and the message, never sent to the terminal.
#[test]
fn control_characters_from_a_file_are_drawn_escaped() {
    let out = Test::new()
        .args([
            "validate",
            "tests/it/fixtures/validate/control-in-comment.yaml",
            "tests/it/fixtures/validate/control-in-value.yaml",
        ])
        .snapshot();
    assert!(
        !out.chars()
            .any(|c| c != '\n' && dnscron_api::untrusted::is_unsafe_char(c)),
        "{out:?}"
    );
    insta::assert_snapshot!(out);
}
