//! The plan file: `plan --out FILE` and `plan --format json` write it, `apply --plan FILE` reads
//! it. It is the [`Plan`] as pretty JSON (format_version 2, docs/plan.md), desired state and
//! diff options included, and it is checked on load as strictly as a YAML file: the JSON's
//! shape with `line:col`, the format version, every change's request, and the desired state
//! with the same rules as `dnscron validate`.

use serde::Deserialize;

use crate::config;

use super::model::{FORMAT_VERSION, Plan};
use super::{PlanError, request};

/// Pretty JSON with a final newline.
pub fn to_json(plan: &Plan) -> Result<String, PlanError> {
    let mut text = serde_json::to_string_pretty(plan).map_err(|e| PlanError::BadPlanFile {
        message: format!("cannot serialize the plan: {e}"),
    })?;
    text.push('\n');
    Ok(crate::untrusted::json_text(text))
}

/// Reads a plan file; `origin` names it in messages (a path, or `-`).
pub fn load(text: &str, origin: &str) -> Result<Plan, PlanError> {
    check_version(text, origin)?;
    let plan: Plan = serde_json::from_str(text).map_err(|e| shape_error(origin, &e))?;
    for change in &plan.changes {
        request::method_and_body(change, &plan.options).map_err(|e| PlanError::BadPlanFile {
            message: format!("{origin}: {e}"),
        })?;
    }
    let desired = config::revalidate(&plan.desired).map_err(|diags| {
        let problems: Vec<String> = diags
            .items
            .iter()
            .map(|d| match &d.location {
                Some(at) => format!("\n  {at}: {}", d.message),
                None => format!("\n  {}", d.message),
            })
            .collect();
        PlanError::BadPlanFile {
            message: format!(
                "{origin}: its `desired` section breaks the rules of the files (places as recorded when the plan was made):{}",
                problems.concat()
            ),
        }
    })?;
    Ok(Plan { desired, ..plan })
}

/// The version is checked before the shape, so an older or newer file gets "wrong version"
/// rather than a confusing message about a field that moved.
fn check_version(text: &str, origin: &str) -> Result<(), PlanError> {
    #[derive(Deserialize)]
    struct Probe {
        format_version: Option<serde_json::Value>,
    }
    let probe: Probe = serde_json::from_str(text).map_err(|e| shape_error(origin, &e))?;
    match probe.format_version {
        Some(v) if v.as_u64() == Some(u64::from(FORMAT_VERSION)) => Ok(()),
        Some(v) => Err(PlanError::UnsupportedFormat {
            found: v.to_string(),
        }),
        None => Err(PlanError::UnsupportedFormat {
            found: "none".into(),
        }),
    }
}

/// `plan.json:3:14: invalid type: …`, the position without serde's trailing " at line … column …".
fn shape_error(origin: &str, err: &serde_json::Error) -> PlanError {
    let text = err.to_string();
    let what = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(head, _)| head);
    PlanError::BadPlanFile {
        message: format!("{origin}:{}:{}: {what}", err.line(), err.column()),
    }
}
