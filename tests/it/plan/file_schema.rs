//! The plan file's JSON Schema: the committed copy is the generated one, the schema describes
//! what is written, and its shape is tied to `FORMAT_VERSION` (a changed shape needs a bump).

use dnscron_core::plan_file::{self, FORMAT_VERSION};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::fixtures::*;
use crate::common::{Test, repo_root};

/// The shape of every format this repository has written: version → sha256 of the generated
/// schema without its descriptions and titles (rewording a doc comment changes no shape).
/// Append only: a recorded version's shape never changes, since files written with it exist.
const SHAPES: &[(u32, &str)] = &[
    (
        2,
        "a3c064e7f38b1a2b16f59aa4beee8ed6ffb29e13ea32df72642475160315e351",
    ),
    (
        3,
        "a1c4e21dc8c477f42e8028f79250ecabc554d6ac5417077c2da11880cf3a02ad",
    ),
    (
        4,
        "b56897daba1dcfb500c193d379d5719b9187ad950635b9179f98ee13ae0d6294",
    ),
    (
        5,
        "1bc62b1406e8a04912869e9b8efa20caeaae302917bc0aa3b15e27a37fd08314",
    ),
];

/// The schema without `description` and `title` texts, as compact JSON, hashed.
fn shape_digest(schema: &Value) -> String {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(map) => {
                map.retain(|key, v| {
                    !(matches!(key.as_str(), "description" | "title") && v.is_string())
                });
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
    let mut shape = schema.clone();
    strip(&mut shape);
    Sha256::digest(shape.to_string().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `schema` is the shape recorded for `version`, or what the developer must do.
fn check_shape(version: u32, schema: &Value, shapes: &[(u32, &str)]) -> Result<(), String> {
    let digest = shape_digest(schema);
    match shapes.iter().find(|(v, _)| *v == version) {
        Some((_, recorded)) if *recorded == digest => Ok(()),
        Some(_) => Err(format!(
            "the plan file's shape changed but FORMAT_VERSION is still {version}: files already \
             written as format {version} would no longer read back. Bump \
             plan_file::FORMAT_VERSION, describe the new format in docs/plan.md, regenerate \
             schema/plan.schema.json (cargo run -- schema --plan > schema/plan.schema.json) and \
             add ({}, \"{digest}\") to SHAPES in tests/it/plan/file_schema.rs",
            version + 1
        )),
        None => Err(format!(
            "no shape is recorded for FORMAT_VERSION {version}: once docs/plan.md describes it, \
             add ({version}, \"{digest}\") to SHAPES in tests/it/plan/file_schema.rs"
        )),
    }
}

#[test]
fn schema_plan_prints_the_committed_schema() {
    let printed = Test::new().args(["schema", "--plan"]).run_for_stdout();
    let committed = std::fs::read_to_string(repo_root().join("schema/plan.schema.json")).unwrap();
    assert!(
        printed == committed,
        "schema/plan.schema.json is out of date; regenerate it with\n    \
         cargo run -- schema --plan > schema/plan.schema.json"
    );
}

#[test]
fn the_shape_of_this_format_version_is_the_recorded_one() {
    if let Err(message) = check_shape(FORMAT_VERSION, &plan_file::json_schema(), SHAPES) {
        panic!("{message}");
    }
}

#[test]
fn a_changed_shape_without_a_version_bump_is_caught() {
    let schema = plan_file::json_schema();
    let mut added = schema.clone();
    added["definitions"]["Change"]["properties"]["scope"] = json!({"type": "object"});
    let mut retyped = schema.clone();
    retyped["definitions"]["Summary"]["properties"]["create"] = json!({"type": "string"});
    for changed in [added, retyped] {
        let message = check_shape(FORMAT_VERSION, &changed, SHAPES).unwrap_err();
        assert!(
            message.contains(&format!(
                "FORMAT_VERSION is still {FORMAT_VERSION}: files already written"
            )) && message.contains("Bump plan_file::FORMAT_VERSION"),
            "{message}"
        );
    }
    // A new version with its shape recorded passes; one without is told what to record.
    let next = FORMAT_VERSION + 1;
    let mut extended = schema.clone();
    extended["definitions"]["Change"]["properties"]["scope"] = json!({"type": "object"});
    let digest = shape_digest(&extended);
    assert_eq!(check_shape(next, &extended, &[(next, &digest)]), Ok(()));
    assert!(
        check_shape(next, &extended, SHAPES)
            .is_err_and(|m| m.contains(&format!("add ({next}, \"{digest}\")")))
    );
}

#[test]
fn rewording_a_description_is_not_a_shape_change() {
    let mut reworded = plan_file::json_schema();
    reworded["definitions"]["Change"]["properties"]["id"]["description"] = "other words".into();
    reworded["title"] = "another title".into();
    assert_eq!(
        shape_digest(&reworded),
        shape_digest(&plan_file::json_schema())
    );
}

/// The schema describes the file that is written: its top-level keys, and every key of every
/// change, finding and target of a saved plan, are properties the schema lists.
#[test]
fn the_schema_lists_every_key_a_saved_plan_has() {
    let (desired, live) = example_account();
    let mut plan = plan_of(&desired, &live);
    // Written only for a plan of what changed (`plan --changed-since`).
    plan.scope = Some(dnscron_core::plan::Scope {
        since: "HEAD~1".into(),
        commit: "c".repeat(40),
        targets: vec![dnscron_core::plan::TargetRef {
            kind: dnscron_core::plan::TargetKind::Zone,
            name: "gone.example".into(),
        }],
        removed: vec![dnscron_core::plan::TargetRef {
            kind: dnscron_core::plan::TargetKind::Zone,
            name: "gone.example".into(),
        }],
    });
    // Written only for a plan made with the limits lifted that goes past them.
    plan.over_limits = vec![dnscron_core::plan::OverLimits {
        zone: "example.com".into(),
        declared_at: "zones/example.com.yaml:1:1".into(),
        exceeded: vec![dnscron_core::plan::Exceeded::Empty { live: 1 }],
    }];
    let saved: Value = serde_json::from_str(&plan_file::to_json(&plan).unwrap()).unwrap();
    let schema = plan_file::json_schema();
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&saved), keys(&schema["properties"]));
    for (section, def) in [
        ("changes", "Change"),
        ("findings", "Finding"),
        ("targets", "Target"),
        ("over_limits", "OverLimits"),
    ] {
        let listed = keys(&schema["definitions"][def]["properties"]);
        for item in saved[section].as_array().unwrap() {
            for key in keys(item) {
                assert!(
                    listed.contains(&key),
                    "{section}: `{key}` is not in the schema's {def}"
                );
            }
        }
    }
}
