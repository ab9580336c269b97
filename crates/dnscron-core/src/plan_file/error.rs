//! Why a plan file is refused: [`PlanFileError`] for `load`, `check_size` and `to_json`, and the
//! typed refusals of a file's content it carries. They live with the file, not with
//! the planner: the planner knows nothing of files (stages only look down).

use super::{FORMAT_VERSION, checks};
use crate::config::Diagnostics;
use crate::plan::request::RequestError;

/// Why a plan file's content is not a plan; `plan_file::load` words each for the user.
#[derive(Debug, thiserror::Error)]
pub enum FromFileError {
    #[error("format_version {found} is not {FORMAT_VERSION}")]
    UnsupportedFormat { found: u32 },
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error("the `desired` section breaks the rules of the files: {0}")]
    Desired(Diagnostics),
    /// The `request` written for readers is not the one the change derives (an edited file).
    /// `index` is the change's position in `changes`.
    #[error(
        "change {id}'s request `{field}` differs from the request its change derives; apply sends only derived requests"
    )]
    RequestDiffers {
        id: usize,
        index: usize,
        field: &'static str,
    },
    #[error("`plan_id` {0}; it must be 1 to {max} ASCII letters, digits, `-` or `_`", max = checks::PLAN_ID_MAX)]
    PlanId(checks::PlanIdProblem),
    #[error("`api_url` {0}; it must be the http(s) URL of the API the plan was made against")]
    ApiUrl(checks::ApiUrlProblem),
    #[error("`scope` {0}; a plan writes the revision it was given and the commit it named")]
    Scope(checks::ScopeProblem),
    #[error("the file is larger than {limit} bytes, the most a plan file may have")]
    TooLarge { limit: usize },
}

/// Why a plan file could not be written or read; what to do about it is worded by the binary.
#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    #[error("the plan file is not a valid dnscron plan: {message}")]
    BadPlanFile { message: String },
    #[error(
        "the plan file has format_version {found}; this dnscron reads format_version {FORMAT_VERSION}"
    )]
    UnsupportedFormat { found: String },
    /// A plan file refused for what it holds; `at` is `FILE:line:col` where that is known,
    /// else `FILE`.
    #[error("the plan file is not a valid dnscron plan: {at}: {problem}")]
    PlanFile { at: String, problem: FromFileError },
}
