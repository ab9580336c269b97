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

/// Reads exactly what the files name and plans it (`plan::make_plan`: the hosted nameserver
/// mode's wire value comes from /openapi.json when the plan switches a domain to hosted). The
/// value used is stored in `opts`, so saved plans and verification use the same.
pub async fn make_plan(
    client: &ReadClient,
    desired: &Desired,
    opts: &mut DiffOptions,
) -> Result<Plan, CommandError> {
    let make = plan::MakeOptions {
        allow_mass_changes: opts.allow_mass_changes,
    };
    let planned = plan::make_plan(client, desired, &make).await?;
    opts.hosted_mode_wire_value = planned.hosted_mode_wire_value;
    Ok(planned.plan)
}
