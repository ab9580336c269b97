//! `apply --reviewed FILE [--reviewed FILE]...`: the reviewed plans, each loaded and checked as
//! one, combined into the one plan the changes made now are matched against
//! (`apply::review_union`; docs/apply.md, "Several reviewed plans").

use std::path::{Path, PathBuf};

use dnscron_core::apply::review_union::{self, UnionError};
use dnscron_core::plan::Plan;
use dnscron_core::untrusted::escape;

use crate::cli::error::CommandError;

/// The reviewed plans: their union, and how to name them in messages.
pub(super) struct Reviewed {
    pub plan: Plan,
    pub label: String,
}

/// Loads every file (each refused on its own, naming it) and combines them.
pub(super) fn load(
    files: &[PathBuf],
    read: impl Fn(&Path) -> Result<Plan, CommandError>,
) -> Result<Reviewed, CommandError> {
    let plans = files
        .iter()
        .map(|f| read(f))
        .collect::<Result<Vec<_>, _>>()?;
    let plan = review_union::union(&plans).map_err(|e| refused(files, e))?;
    let label = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Reviewed { plan, label })
}

fn refused(files: &[PathBuf], error: UnionError) -> CommandError {
    let name = |i: usize| {
        files
            .get(i)
            .map(|f| f.display().to_string())
            .unwrap_or_default()
    };
    match error {
        UnionError::Empty => CommandError::user("no reviewed plan file given")
            .with_hint("pass --reviewed FILE (repeatable) with the plan files that were reviewed"),
        UnionError::MixedApiUrls {
            index,
            api_url,
            first_url,
        } => CommandError::user(format!(
            "the reviewed plans were made against different APIs: {} against {}, {} against {}; nothing was sent",
            name(0),
            escape(&first_url),
            name(index),
            escape(&api_url)
        ))
        .with_hint("apply the plans of one account together; run apply once per API URL with that URL's plans"),
        UnionError::SharedPlanId {
            first,
            index,
            plan_id,
        } => CommandError::user(format!(
            "{} and {} have the same plan_id {} but different contents; nothing was sent",
            name(first),
            name(index),
            escape(&plan_id)
        ))
        .with_hint("a plan_id belongs to one plan: pass the plan files as `dnscron plan --out` wrote them"),
    }
}
