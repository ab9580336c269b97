//! What `apply` and `demo` share: the runtime, loading the files.

use std::path::PathBuf;

use crate::cli::error::{CommandError, ErrorKind};
use crate::cli::validate::report_diagnostics;
use dnscron_core::config::model::Desired;

/// A runtime the command keeps (apply also spawns its Ctrl-C listener on it).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CommandError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            CommandError::quoting(ErrorKind::Internal, "cannot start the async runtime", e)
        })
}

/// Loads and validates the files; on failure every problem is printed to stderr.
pub(crate) fn load_desired(paths: &[PathBuf]) -> Result<Desired, CommandError> {
    super::validate::load_printing_warnings(paths).map_err(|diags| report_diagnostics(&diags))
}
