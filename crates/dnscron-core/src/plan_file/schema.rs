//! The plan file's JSON Schema, generated from its types: `dnscron schema --plan` prints it and
//! `schema/plan.schema.json` is the committed copy. One schema describes both files this build
//! writes, told apart by `format_version` (a `oneOf`): the plan of one account (format 5) and
//! the plans of several accounts (format 6), whose `accounts[].plan` is a format-5 plan. Each
//! format's own schema ([`json_schema_of`]) is what the shape test records, so a change of one
//! account's plan shows as a change of both formats.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use super::FORMAT_VERSION;
use super::accounts::{ACCOUNTS_FORMAT_VERSION, AccountsPlanFileV6};
use super::document::PlanFileV5;

/// The schema of every plan file this build reads (draft-07, like the desired-state schema):
/// `oneOf` the format-5 plan (`#/definitions/Plan`) and the format-6 file of several accounts
/// (`#/definitions/AccountsPlan`).
pub fn json_schema() -> Value {
    let one = body(root::<PlanFileV5>());
    let mut many = root::<AccountsPlanFileV6>().to_value();
    let mut definitions = match many.get_mut("definitions").map(Value::take) {
        Some(Value::Object(definitions)) => definitions,
        Some(_) | None => Map::new(),
    };
    // The plan inside an account is the one-account plan, so `Plan` is there already; the
    // generated one (with the top-level description) is the same shape.
    definitions.insert("Plan".into(), one);
    definitions.insert("AccountsPlan".into(), strip_root(many));
    let mut schema = Map::new();
    schema.insert(
        "$schema".into(),
        "http://json-schema.org/draft-07/schema#".into(),
    );
    schema.insert("title".into(), "dnscron plan file".into());
    schema.insert(
        "description".into(),
        format!(
            "A saved dnscron plan: the file a plan is saved to for review and a review-bound \
             apply reads (docs/plan.md). format_version {FORMAT_VERSION}: the plan of one \
             account; format_version {ACCOUNTS_FORMAT_VERSION}: the plans of the accounts of \
             dnscron-accounts.yaml, each a format_version {FORMAT_VERSION} plan."
        )
        .into(),
    );
    schema.insert(
        "oneOf".into(),
        serde_json::json!([
            { "$ref": "#/definitions/Plan" },
            { "$ref": "#/definitions/AccountsPlan" }
        ]),
    );
    schema.insert("definitions".into(), Value::Object(definitions));
    Value::Object(schema)
}

/// The schema of one format alone, as a root schema: `FORMAT_VERSION` (one account) or
/// `ACCOUNTS_FORMAT_VERSION` (several); `None` for a format this build doesn't write.
pub fn json_schema_of(format_version: u32) -> Option<Value> {
    let (mut schema, what) = match format_version {
        FORMAT_VERSION => (root::<PlanFileV5>(), "the plan of one account"),
        ACCOUNTS_FORMAT_VERSION => (
            root::<AccountsPlanFileV6>(),
            "the plans of several accounts",
        ),
        _ => return None,
    };
    schema.insert("title".into(), "dnscron plan file".into());
    schema.insert(
        "description".into(),
        format!(
            "A saved dnscron plan, format_version {format_version} ({what}): the file a plan \
             is saved to for review and a review-bound apply reads (docs/plan.md)."
        )
        .into(),
    );
    Some(schema.to_value())
}

fn root<T: JsonSchema>() -> Schema {
    SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>()
}

/// A root schema as a definition: without `$schema`, `definitions` and the type's name as
/// `title` (no other definition has one).
fn body(schema: Schema) -> Value {
    strip_root(schema.to_value())
}

fn strip_root(mut schema: Value) -> Value {
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        map.remove("definitions");
        map.remove("title");
    }
    schema
}
