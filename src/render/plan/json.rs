//! The plan as the plan file's JSON (format_version 3, docs/plan.md): `--format json` and
//! `plan --out` write the same bytes, and `apply --plan` reads them with `plan_file::load`.

use dnscron_core::plan::Plan;
use dnscron_core::plan::PlanError;
use dnscron_core::plan_file as file;

/// Pretty JSON with a final newline.
pub fn render(plan: &Plan) -> Result<String, PlanError> {
    file::to_json(plan)
}
