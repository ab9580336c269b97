//! Errors of the planning stage, each saying what, where and what to do.

use crate::error::{CommandError, ErrorKind};

use super::safety::Refusal;

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
    Unsafe(Vec<Refusal>),
    #[error("the plan file is not a valid dnscron plan: {message}")]
    BadPlanFile { message: String },
    #[error(
        "the plan file has format_version {found}; this dnscron reads format_version {}",
        super::model::FORMAT_VERSION
    )]
    UnsupportedFormat { found: String },
}

impl PlanError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            PlanError::MissingLive { kind, .. } => Some(format!(
                "check the name, or create the {kind} in the portal first (dnscron never creates or deletes whole {kind}s)"
            )),
            PlanError::IncompleteSnapshot { .. } => Some(
                "this is a bug in dnscron; please report it with the command you ran".into(),
            ),
            PlanError::Unsafe(_) => Some(
                "if these changes are intended, run again with --allow-mass-changes, or raise the limit in the zone's `safety:` section".into(),
            ),
            PlanError::BadPlanFile { .. } | PlanError::UnsupportedFormat { .. } => Some(
                "make a new plan with `dnscron plan --out FILE` using this version of dnscron".into(),
            ),
        }
    }
}

fn refusal_message(refusals: &[Refusal]) -> String {
    let mut out = String::from(
        "refusing to plan mass changes (protection against a wrong or truncated file):",
    );
    for r in refusals {
        out.push_str(&format!("\n  {r}"));
    }
    out
}

impl From<PlanError> for CommandError {
    fn from(err: PlanError) -> Self {
        let kind = match err {
            PlanError::MissingLive { .. } => ErrorKind::User,
            PlanError::IncompleteSnapshot { .. } => ErrorKind::Internal,
            PlanError::Unsafe(_) => ErrorKind::User,
            PlanError::BadPlanFile { .. } | PlanError::UnsupportedFormat { .. } => ErrorKind::User,
        };
        let hint = err.hint();
        let out = CommandError::new(kind, err.to_string());
        match hint {
            Some(h) => out.with_hint(h),
            None => out,
        }
    }
}
