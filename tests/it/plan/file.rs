//! The plan file is checked on load like a YAML file: shape with line:col, version, requests,
//! and the embedded desired state with the loader's own rules. Each refusal in full.

use dnscron::cli::error::CommandError;
use dnscron::render::plan as render;
use dnscron_core::plan::PlanError;
use dnscron_core::plan_file as file;

use super::fixtures::*;

fn saved() -> String {
    let (desired, live) = example_account();
    render::json(&plan_of(&desired, &live)).unwrap()
}

fn refusal(text: &str) -> String {
    let err: PlanError = file::load(text, "plan.json").unwrap_err();
    CommandError::from(err).body()
}

fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value: serde_json::Value = serde_json::from_str(&saved()).unwrap();
    edit(&mut value);
    serde_json::to_string_pretty(&value).unwrap()
}

#[test]
fn a_saved_plan_loads() {
    let text = saved();
    assert_eq!(
        render::json(&file::load(&text, "plan.json").unwrap()).unwrap(),
        text
    );
}

#[test]
fn a_truncated_file_is_refused_with_its_position() {
    let text = saved();
    let cut: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_eq!(
        refusal(&cut),
        "the plan file is not a valid dnscron plan: plan.json:5:44: EOF while parsing a value\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

#[test]
fn a_wrong_type_is_refused_with_its_position() {
    let text = edited(|v| v["changes"][0]["id"] = "one".into());
    let line = text
        .lines()
        .position(|l| l.contains(r#""id": "one""#))
        .unwrap()
        + 1;
    assert_eq!(
        refusal(&text),
        format!(
            "the plan file is not a valid dnscron plan: plan.json:{line}:17: invalid type: string \"one\", expected usize\n\
             hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
        )
    );
}

#[test]
fn a_desired_record_that_breaks_a_rule_is_refused() {
    let text = edited(|v| v["desired"]["zones"][0]["records"][0]["ttl"] = 5.into());
    assert_eq!(
        refusal(&text),
        "the plan file is not a valid dnscron plan: plan.json: its `desired` section breaks the rules of the files (places as recorded when the plan was made):\n  \
         zones/example.com.yaml:10:3: `ttl` is 5; it must be from 60 to 604800\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

#[test]
fn another_format_version_is_refused() {
    for (version, shown) in [(serde_json::json!(2), "2"), (serde_json::json!(4), "4")] {
        let text = edited(|v| v["format_version"] = version);
        assert_eq!(
            refusal(&text),
            format!(
                "the plan file has format_version {shown}; this dnscron reads format_version 3\n\
                 hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
            )
        );
    }
    assert_eq!(
        refusal("{}"),
        "the plan file has format_version none; this dnscron reads format_version 3\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

#[test]
fn a_change_without_its_request_data_is_refused() {
    let text = edited(|v| v["changes"][2]["after"] = serde_json::Value::Null);
    assert_eq!(
        refusal(&text),
        "the plan file is not a valid dnscron plan: plan.json: change 3 (update of a record) lacks the `after` value of the matching kind its request needs\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}
