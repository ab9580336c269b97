//! Errors of the planning stage, each saying what happened and where; what to do about it is
//! worded by the CLI (`cli::error`).

use super::safety::OverLimits;

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The snapshot lacks a target the files declare (snapshot::fetch normally reports this first).
    #[error("{kind} `{name}` declared at {declared_at} was not found in the live account")]
    MissingLive {
        kind: &'static str,
        name: String,
        declared_at: String,
    },
    /// The snapshot was read without something the files need (a bug in the snapshot reader).
    #[error("the live snapshot lacks {what} (declared at {declared_at})")]
    IncompleteSnapshot { what: String, declared_at: String },
    #[error("{}", refusal_message(.0))]
    Unsafe(Vec<OverLimits>),
}

fn refusal_message(refusals: &[OverLimits]) -> String {
    let mut out = String::from(
        "refusing to plan mass changes (protection against a wrong or truncated file):",
    );
    for r in refusals {
        out.push_str(&format!("\n  {r}"));
    }
    out
}
