//! The plan file's JSON Schema, generated from its types: `dnscron schema --plan` prints it and
//! `schema/plan.schema.json` is the committed copy.

use schemars::generate::SchemaSettings;

use super::document::PlanFileV5;

/// The schema as a JSON value (draft-07, like the desired-state schema).
pub fn json_schema() -> serde_json::Value {
    let generator = SchemaSettings::draft07().into_generator();
    let mut schema = generator.into_root_schema_for::<PlanFileV5>();
    schema.insert("title".into(), "dnscron plan file".into());
    schema.insert(
        "description".into(),
        format!(
            "A saved dnscron plan, format_version {}: the file a plan is saved to for review and a review-bound apply reads (docs/plan.md).",
            super::FORMAT_VERSION
        )
        .into(),
    );
    schema.to_value()
}
