//! The plan as the plan file's JSON (format_version 4, docs/plan.md): `--format json` and
//! `plan --out` write the same bytes, and `apply --plan` reads them with `plan_file::load`.
//!
//! A finding's message is text for people: it is written escaped line by line, as every other
//! view draws it, so a script printing it raw (`jq -r`) prints no escape sequence a record or a
//! server put there.

use std::borrow::Cow;

use dnscron_core::plan::Plan;
use dnscron_core::plan_file::{self as file, PlanFileError};

use crate::render::finding;

/// Pretty JSON with a final newline.
pub fn render(plan: &Plan) -> Result<String, PlanFileError> {
    let unsafe_message = plan
        .findings
        .iter()
        .any(|f| matches!(finding::detail(f), Cow::Owned(_)));
    if !unsafe_message {
        return file::to_json(plan);
    }
    // Rare (a message quoting a control character), so the copy costs nothing in the usual run.
    let mut escaped = plan.clone();
    for f in &mut escaped.findings {
        f.message = finding::detail(f).into_owned();
    }
    file::to_json(&escaped)
}
