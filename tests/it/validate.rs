//! `dnscron validate` and `dnscron schema` as a user runs them.

use crate::common::Run;

#[test]
fn examples_validate_with_a_summary_line() {
    let out = Run::new(["validate", "examples/dns"]).output();
    insta::assert_snapshot!(out.snapshot(), @r"
    exit: Some(0)
    --- stdout
    valid: 2 zones, 17 records, 2 sites, 4 cron jobs
    --- stderr
    ");
}

#[test]
fn default_path_is_the_current_directory() {
    let out = Run::new(["validate"])
        .current_dir(crate::common::repo_root().join("examples/dns/sites"))
        .output();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "valid: 0 zones, 0 records, 2 sites, 4 cron jobs\n"
    );
}

#[test]
fn every_mistake_is_reported_at_its_line_and_column() {
    let out = Run::new(["validate", "tests/it/fixtures/validate/many-mistakes.yaml"]).output();
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn missing_file_and_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = Run::new(["validate", "does-not-exist.yaml", "."])
        .current_dir(dir.path())
        .output();
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn bad_yaml_syntax_and_wrong_type() {
    let out = Run::new([
        "validate",
        "tests/it/fixtures/validate/bad-syntax.yaml",
        "tests/it/fixtures/validate/wrong-type.yaml",
    ])
    .output();
    insta::assert_snapshot!(out.snapshot());
}

#[test]
fn schema_command_prints_the_committed_schema() {
    let out = Run::new(["schema"]).output();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let committed =
        std::fs::read_to_string(crate::common::repo_root().join("schema/dnscron.schema.json"))
            .unwrap();
    assert!(
        out.stdout == committed,
        "schema/dnscron.schema.json is out of date; regenerate it with\n    \
         cargo run -- schema > schema/dnscron.schema.json"
    );
}

#[test]
fn schema_lists_exactly_the_keys_the_loader_accepts() {
    use dnscron::config::raw::keys;
    let schema = dnscron::config::json_schema();
    for (def, keys) in [
        ("ZoneDoc", keys::ZONE),
        ("Defaults", keys::DEFAULTS),
        ("Nameservers", keys::NAMESERVERS),
        ("IgnoreRule", keys::IGNORE),
        ("Record", keys::RECORD),
        ("Safety", keys::SAFETY),
        ("SiteDoc", keys::SITE),
        ("CronJob", keys::CRON),
    ] {
        let props = schema["definitions"][def]["properties"]
            .as_object()
            .unwrap();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(names, keys, "{def}");
        for (key, prop) in props {
            assert!(
                prop["description"].is_string(),
                "{def}.{key} has no description"
            );
        }
        assert_eq!(
            schema["definitions"][def]["additionalProperties"], false,
            "{def}"
        );
    }
}
