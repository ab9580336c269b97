//! What `plan`, `apply` and `demo` share: the runtime, loading the files, making a plan.

use std::path::PathBuf;

use crate::api::{ApiConfig, ReadClient};
use crate::cli::validate::report_diagnostics;
use crate::config::{self, model::Desired};
use crate::error::CommandError;
use crate::plan::{self, DiffOptions, Plan};

pub fn runtime() -> Result<tokio::runtime::Runtime, CommandError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CommandError::internal(format!("cannot start the async runtime: {e}")))
}

/// Loads and validates the files; on failure every problem is printed to stderr.
pub fn load_desired(paths: &[PathBuf]) -> Result<Desired, CommandError> {
    config::load(paths).map_err(|diags| report_diagnostics(&diags))
}

pub fn diff_options(config: &ApiConfig, allow_mass_changes: bool) -> DiffOptions {
    DiffOptions {
        api_url: config.base_url.to_string(),
        allow_mass_changes,
        ..DiffOptions::default()
    }
}

/// Reads exactly what the files name and plans it.
pub async fn make_plan(
    client: &ReadClient,
    desired: &Desired,
    opts: &DiffOptions,
) -> Result<Plan, CommandError> {
    let live = plan::snapshot::fetch(client, desired).await?;
    Ok(plan::diff(desired, &live, opts)?)
}
