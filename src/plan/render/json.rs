//! The plan as pretty JSON (format_version 1, docs/plan.md): `--format json` and `plan --out`.

use crate::plan::model::Plan;

/// Pretty JSON with a final newline. Read back with `Plan::from_json`.
pub fn render(plan: &Plan) -> String {
    // The plan has only string map keys, so serialization cannot fail; should it ever, the output
    // is still valid JSON that `Plan::from_json` rejects with the reason.
    let mut out = serde_json::to_string_pretty(plan).unwrap_or_else(|e| {
        serde_json::json!({ "error": format!("could not serialize the plan: {e}") }).to_string()
    });
    out.push('\n');
    out
}
