//! What `apply` and `demo` share: the runtime, loading the files, planning.

use std::path::PathBuf;

use crate::cli::error::{CommandError, ErrorKind};
use crate::cli::validate::report_diagnostics;
use dnscron_core::api::ReadClient;
use dnscron_core::config::model::Desired;
use dnscron_core::plan::{MakeOptions, Planned, Scope, make_plan};

/// A runtime the command keeps (apply also spawns its Ctrl-C listener on it).
pub fn runtime() -> Result<tokio::runtime::Runtime, CommandError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            CommandError::quoting(ErrorKind::Internal, "cannot start the async runtime", e)
        })
}

/// Loads and validates the files; on failure every problem is printed to stderr.
pub fn load_desired(paths: &[PathBuf]) -> Result<Desired, CommandError> {
    super::validate::load_printing_warnings(paths).map_err(|diags| report_diagnostics(&diags))
}

/// Plans exactly like `dnscron plan` (`plan::make_plan`); with the live state it was made from
/// (apply's DNS checks read the zones' nameservers from it).
/// `scope`: only these targets; `health`: read the registrar health findings (a review-bound
/// apply keeps the reviewed plan's instead).
pub async fn planned(
    client: &ReadClient,
    desired: &Desired,
    allow_mass_changes: bool,
    scope: Option<Scope>,
    health: bool,
) -> Result<Planned, CommandError> {
    let opts = MakeOptions {
        allow_mass_changes,
        stamp: super::stamp::plan_stamp(),
        scope,
        health,
        mail_dns: None,
    };
    Ok(make_plan(client, desired, &opts).await?)
}
