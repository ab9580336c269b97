//! The plan file's JSON Schema: the committed copy is the generated one, the schema describes
//! what is written (real files of both formats conform, broken ones don't), and each format's
//! shape is tied to its version (a changed shape needs a bump).

use dnscron_core::plan_file::{self, ACCOUNTS_FORMAT_VERSION, FORMAT_VERSION};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::fixtures::*;
use super::schema_check::violations;
use crate::common::{Test, repo_root};

/// The shape of every format this repository has written: version → sha256 of the format's
/// generated schema (`json_schema_of`) without its descriptions and titles (rewording a doc
/// comment changes no shape). Format 6 is the file of several accounts, whose plans are format
/// 5's. Append only: a recorded version's shape never changes, since files written with it exist.
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
    (
        6,
        "0fd3a3b0a5004b2467cce90e6c7aa91377e41b6cdeb10c24a9d0520c8b28346a",
    ),
];

/// Every format this build writes: one account's plan, several accounts' plans.
const WRITTEN: [u32; 2] = [FORMAT_VERSION, ACCOUNTS_FORMAT_VERSION];

fn schema_of(version: u32) -> Value {
    plan_file::json_schema_of(version).unwrap()
}

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
    // No two formats share a number, whichever of the two constants moves.
    let next = shapes.iter().map(|(v, _)| *v).fold(version, u32::max) + 1;
    match shapes.iter().find(|(v, _)| *v == version) {
        Some((_, recorded)) if *recorded == digest => Ok(()),
        Some(_) => Err(format!(
            "the plan file's shape changed but its format is still {version}: files already \
             written as format {version} would no longer read back. Bump \
             plan_file::FORMAT_VERSION (one account's plan; a change there changes the file of \
             several accounts too) or plan_file::ACCOUNTS_FORMAT_VERSION to an unused number, \
             describe the new format in docs/plan.md, regenerate schema/plan.schema.json (cargo \
             run -- schema --plan > schema/plan.schema.json) and add ({next}, \"{digest}\") to \
             SHAPES in tests/it/plan/file_schema.rs"
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
fn the_shape_of_each_format_written_is_the_recorded_one() {
    for version in WRITTEN {
        if let Err(message) = check_shape(version, &schema_of(version), SHAPES) {
            panic!("{message}");
        }
    }
    assert_eq!(plan_file::json_schema_of(FORMAT_VERSION - 1), None);
}

#[test]
fn a_changed_shape_without_a_version_bump_is_caught() {
    let schema = schema_of(FORMAT_VERSION);
    let mut added = schema.clone();
    added["definitions"]["Change"]["properties"]["scope"] = json!({"type": "object"});
    let mut retyped = schema.clone();
    retyped["definitions"]["Summary"]["properties"]["create"] = json!({"type": "string"});
    for changed in [added, retyped] {
        let message = check_shape(FORMAT_VERSION, &changed, SHAPES).unwrap_err();
        assert!(
            message.contains(&format!(
                "its format is still {FORMAT_VERSION}: files already written"
            )) && message.contains("Bump plan_file::FORMAT_VERSION"),
            "{message}"
        );
    }
    // A new version with its shape recorded passes; one without is told what to record, under a
    // number no format has.
    let next = ACCOUNTS_FORMAT_VERSION + 1;
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
    let mut reworded = schema_of(FORMAT_VERSION);
    reworded["definitions"]["Change"]["properties"]["id"]["description"] = "other words".into();
    reworded["title"] = "another title".into();
    assert_eq!(
        shape_digest(&reworded),
        shape_digest(&schema_of(FORMAT_VERSION))
    );
}

/// The schema describes the file that is written: its top-level keys, and every key of every
/// change, finding and target of a saved plan, are properties the schema lists.
#[test]
fn the_schema_lists_every_key_a_saved_plan_has() {
    let plan = every_field_plan();
    let saved: Value = serde_json::from_str(&plan_file::to_json(&plan).unwrap()).unwrap();
    let schema = schema_of(FORMAT_VERSION);
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

/// The example account's plan with the fields only some plans write: `scope`, `over_limits`.
fn every_field_plan() -> dnscron_core::plan::Plan {
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
    plan
}

/// The committed schema is both formats' schemas, one `oneOf` branch each, told apart by
/// `format_version`: the same definitions, and each format's root as a definition.
#[test]
fn the_schema_is_one_branch_per_format_written() {
    let schema = plan_file::json_schema();
    assert_eq!(
        schema["oneOf"],
        json!([{"$ref": "#/definitions/Plan"}, {"$ref": "#/definitions/AccountsPlan"}])
    );
    let without = |mut v: Value, keys: &[&str]| {
        let map = v.as_object_mut().unwrap();
        keys.iter().for_each(|k| {
            map.remove(*k);
        });
        v
    };
    for (version, name) in [
        (FORMAT_VERSION, "Plan"),
        (ACCOUNTS_FORMAT_VERSION, "AccountsPlan"),
    ] {
        let alone = schema_of(version);
        for (def, body) in alone["definitions"].as_object().unwrap() {
            assert_eq!(&schema["definitions"][def], body, "{def}");
        }
        assert_eq!(
            without(schema["definitions"][name].clone(), &["description"]),
            without(alone, &["$schema", "definitions", "title", "description"]),
            "{name}"
        );
        assert_eq!(
            schema["definitions"][name]["properties"]["format_version"]["const"],
            version
        );
    }
}

/// Files as `plan` writes them: one account's, several accounts' (two emulators), and the
/// example account's with every optional field, alone and as an account of a format-6 file.
fn real_files() -> (Vec<Value>, Vec<Value>) {
    use crate::accounts::plan::{ACME_TOKEN, two};
    let t = two();
    let json = |test: Test| -> Value { serde_json::from_str(&test.run_for_stdout()).unwrap() };
    let many = json(t.dnscron(&["plan", "--format", "json"]));
    let one = json(t.alone(&t.acme, ACME_TOKEN, &["plan", "--format", "json", "./acme"]));
    let plan = every_field_plan();
    let full = serde_json::from_str(&plan_file::to_json(&plan).unwrap()).unwrap();
    let full_many = plan_file::accounts_to_json(&[plan_file::AccountPlan {
        name: "example".into(),
        api_url: plan.api_url.clone(),
        plan,
    }])
    .unwrap();
    let full_many = serde_json::from_str(&full_many).unwrap();
    (vec![one, full], vec![many, full_many])
}

#[test]
fn real_plan_files_of_both_formats_conform_to_the_schema() {
    let (ones, manys) = real_files();
    let schema = plan_file::json_schema();
    let none: Vec<String> = Vec::new();
    for (doc, version, other) in ones
        .iter()
        .map(|d| (d, FORMAT_VERSION, ACCOUNTS_FORMAT_VERSION))
        .chain(
            manys
                .iter()
                .map(|d| (d, ACCOUNTS_FORMAT_VERSION, FORMAT_VERSION)),
        )
    {
        assert_eq!(doc["format_version"], version);
        assert_eq!(violations(&schema, doc), none, "{doc}");
        assert_eq!(violations(&schema_of(version), doc), none);
        assert!(!violations(&schema_of(other), doc).is_empty());
        plan_file::load_any(&doc.to_string(), "plan.json").unwrap();
    }
}

/// A broken file of several accounts: the schema refuses it, and so does the loader. A name
/// given twice is the one rule the schema can't say (JSON Schema has no "unique by key"): the
/// loader alone refuses it.
#[test]
fn broken_plan_files_of_several_accounts_break_the_schema() {
    let (_, manys) = real_files();
    let many = &manys[0];
    let schema = plan_file::json_schema();
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = many.clone();
        edit(&mut doc);
        doc
    };
    let refused = [
        (
            "no api_url",
            broken(&|d| {
                d["accounts"][1].as_object_mut().unwrap().remove("api_url");
            }),
        ),
        (
            "another version",
            broken(&|d| d["format_version"] = 7.into()),
        ),
        (
            "format 5's version",
            broken(&|d| d["format_version"] = 5.into()),
        ),
        ("no account", broken(&|d| d["accounts"] = json!([]))),
        (
            "a plan without its id",
            broken(&|d| {
                let plan = d["accounts"][0]["plan"].as_object_mut().unwrap();
                plan.remove("plan_id");
            }),
        ),
        (
            "a name not a string",
            broken(&|d| d["accounts"][0]["name"] = 1.into()),
        ),
    ];
    for (what, doc) in &refused {
        assert_eq!(
            violations(&schema, doc),
            [": matches 0 of its oneOf schemas"],
            "{what}"
        );
        assert!(
            !violations(&schema_of(ACCOUNTS_FORMAT_VERSION), doc).is_empty(),
            "{what}"
        );
        assert!(
            plan_file::load_any(&doc.to_string(), "plan.json").is_err(),
            "{what}"
        );
    }
    // Why a branch failed, on the format's own schema.
    let reasons = |doc: &Value| violations(&schema_of(ACCOUNTS_FORMAT_VERSION), doc);
    assert_eq!(
        reasons(&refused[0].1),
        ["/accounts/1: `api_url` is missing"]
    );
    assert_eq!(reasons(&refused[1].1), ["/format_version: is not 6"]);
    assert_eq!(
        reasons(&refused[3].1),
        ["/accounts: has fewer than 1 items"]
    );
    let twice = broken(&|d| d["accounts"][1]["name"] = d["accounts"][0]["name"].clone());
    assert_eq!(violations(&schema, &twice), Vec::<String>::new());
    let err = plan_file::load_any(&twice.to_string(), "plan.json").unwrap_err();
    assert!(
        err.to_string().contains("names account `acme` twice"),
        "{err}"
    );
}
