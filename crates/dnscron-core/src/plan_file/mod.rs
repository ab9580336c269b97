//! The plan file: `plan --out FILE` and `plan --format json` write it, `apply --plan FILE` and
//! `show` read it. It is its own versioned type, not the serde form of the planner's model: the
//! documents here (`PlanFileV5`, `Change` with its request, the zone and site documents of
//! `Desired`) are what format_version 5 holds (docs/plan.md), each converted beside its struct
//! from the model when written and to it, checked, when read. A field added to `Plan`,
//! `plan::Change` or a zone or site document therefore changes nothing in the file until these
//! types change. The leaves are shared, as cargo keeps `TomlManifest` apart from `Manifest`
//! without copying them: targets, summary, resources, values, findings, options and scope are
//! `plan::model`'s (and `plan::Scope`), records, cron jobs, ignore rules, limits and locations
//! `config::model`'s, re-exported here. A change of a shared leaf (a field, a type, a serde
//! attribute, a variant) is a change of the file: it needs a [`FORMAT_VERSION`] bump and
//! `schema/plan.schema.json` regenerated, and the shape test (tests/it/plan/file_schema.rs)
//! fails until both are done, since files written with the old version exist. A leaf's doc
//! comments are the schema's descriptions: rewording one regenerates the schema without a bump.
//!
//! Loading checks as strictly as `validate` checks YAML: the version first, then the JSON's
//! shape with `line:col`, every change's request, and the desired state with the loader's rules.

mod accounts;
mod change;
mod checks;
mod desired;
mod document;
mod error;
#[cfg(test)]
mod roundtrip_tests;
mod schema;
#[cfg(test)]
mod tests;

use serde::Deserialize;

pub use accounts::{
    ACCOUNTS_FORMAT_VERSION, AccountPlan, AccountsProblem, PlanFile, accounts_to_json, load_any,
};
pub use checks::{ApiUrlProblem, MAX_BYTES, PlanIdProblem, ScopeProblem};
pub(crate) use document::PlanFileV5;
pub use error::{FromFileError, PlanFileError};
pub use schema::{json_schema, json_schema_of};

use crate::plan::Plan;

/// The only format this build writes and reads. Bump it with any change of the file's shape
/// (`schema/plan.schema.json`), and record the new shape in the test that checks this.
pub const FORMAT_VERSION: u32 = 5;

/// Pretty JSON with a final newline.
pub fn to_json(plan: &Plan) -> Result<String, PlanFileError> {
    let file = PlanFileV5::of(plan).map_err(|e| PlanFileError::BadPlanFile {
        message: format!("cannot write the plan: {e}"),
    })?;
    let mut text = serde_json::to_string_pretty(&file).map_err(|e| PlanFileError::BadPlanFile {
        message: format!("cannot serialize the plan: {e}"),
    })?;
    text.push('\n');
    Ok(dnscron_api::untrusted::json_text(text))
}

/// Reads a plan file; `origin` names it in messages (a path, or `-`).
pub fn load(text: &str, origin: &str) -> Result<Plan, PlanFileError> {
    check_size(text.len() as u64, origin)?;
    check_version(text, origin)?;
    let file: PlanFileV5 = serde_json::from_str(text).map_err(|e| shape_error(origin, &e))?;
    from_document(file, Some(text), origin)
}

/// The plan a format-5 document holds, checked; `text` (when the document is the whole file)
/// places a problem at its key.
fn from_document(
    file: PlanFileV5,
    text: Option<&str>,
    origin: &str,
) -> Result<Plan, PlanFileError> {
    file.into_plan().map_err(|e| match e {
        FromFileError::UnsupportedFormat { found } => PlanFileError::UnsupportedFormat {
            found: found.to_string(),
        },
        FromFileError::Request(e) => PlanFileError::BadPlanFile {
            message: format!("{origin}: {e}"),
        },
        problem @ (FromFileError::PlanId(_)
        | FromFileError::ApiUrl(_)
        | FromFileError::Scope(_)
        | FromFileError::RequestDiffers { .. }
        | FromFileError::Accounts(_)
        | FromFileError::TooLarge { .. }) => PlanFileError::PlanFile {
            at: match text {
                Some(text) => located(text, origin, &problem),
                None => origin.to_string(),
            },
            problem,
        },
        FromFileError::Desired(diags) => {
            let problems: Vec<String> = diags
                .items
                .iter()
                .map(|d| match &d.location {
                    Some(at) => format!("\n  {at}: {}", d.message),
                    None => format!("\n  {}", d.message),
                })
                .collect();
            PlanFileError::BadPlanFile {
                message: format!(
                    "{origin}: its `desired` section breaks the rules of the files (places as recorded when the plan was made):{}",
                    problems.concat()
                ),
            }
        }
    })
}

/// A plan file of `bytes` is refused above [`MAX_BYTES`]: a reader checks the size it knows
/// before reading, and `load` the text it got.
pub fn check_size(bytes: u64, origin: &str) -> Result<(), PlanFileError> {
    if bytes <= MAX_BYTES as u64 {
        return Ok(());
    }
    Err(PlanFileError::PlanFile {
        at: origin.to_string(),
        problem: FromFileError::TooLarge { limit: MAX_BYTES },
    })
}

/// `FILE:line:col` of the key the problem is about, or `FILE` when it is about no one key.
fn located(text: &str, origin: &str, problem: &FromFileError) -> String {
    let place = match problem {
        FromFileError::PlanId(_) => key_position(text, "plan_id", 0),
        FromFileError::ApiUrl(_) => key_position(text, "api_url", 0),
        FromFileError::Scope(_) => key_position(text, "scope", 0),
        FromFileError::RequestDiffers { index, .. } => key_position(text, "request", *index),
        FromFileError::UnsupportedFormat { .. }
        | FromFileError::Request(_)
        | FromFileError::Desired(_)
        | FromFileError::Accounts(_)
        | FromFileError::TooLarge { .. } => None,
    };
    match place {
        Some((line, col)) => format!("{origin}:{line}:{col}"),
        None => origin.to_string(),
    }
}

/// Line and column (1-based, in characters) of the `nth` (0-based) `"key":` in `text`, skipping
/// the same words escaped inside a string value (`\"key\"`).
fn key_position(text: &str, key: &str, nth: usize) -> Option<(usize, usize)> {
    let quoted = format!("\"{key}\"");
    let offset = text
        .match_indices(&quoted)
        .filter(|(at, _)| {
            let escaped = text[..*at].ends_with('\\');
            let colon = text[at + quoted.len()..].trim_start().starts_with(':');
            !escaped && colon
        })
        .nth(nth)?
        .0;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, col))
}

/// The version is checked before the shape, so an older or newer file gets "wrong version"
/// rather than a confusing message about a field that moved.
fn check_version(text: &str, origin: &str) -> Result<(), PlanFileError> {
    match format_version(text, origin)? {
        FORMAT_VERSION => Ok(()),
        ACCOUNTS_FORMAT_VERSION => Err(PlanFileError::OfAccounts),
        other => Err(PlanFileError::UnsupportedFormat {
            found: other.to_string(),
        }),
    }
}

/// The file's `format_version`, refused when absent or not a number.
fn format_version(text: &str, origin: &str) -> Result<u32, PlanFileError> {
    #[derive(Deserialize)]
    struct Probe {
        format_version: Option<serde_json::Value>,
    }
    let probe: Probe = serde_json::from_str(text).map_err(|e| shape_error(origin, &e))?;
    match probe.format_version {
        Some(v) => v
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| PlanFileError::UnsupportedFormat {
                found: v.to_string(),
            }),
        None => Err(PlanFileError::UnsupportedFormat {
            found: "none".into(),
        }),
    }
}

/// `plan.json:3:14: invalid type: …`, the position without serde's trailing " at line … column …".
fn shape_error(origin: &str, err: &serde_json::Error) -> PlanFileError {
    let text = err.to_string();
    let what = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(head, _)| head);
    PlanFileError::BadPlanFile {
        message: format!("{origin}:{}:{}: {what}", err.line(), err.column()),
    }
}
