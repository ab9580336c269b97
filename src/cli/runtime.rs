use std::future::Future;

use crate::cli::error::{CommandError, ErrorKind};

/// Runs the async part of a command. Two workers: this is a 2-core CLI, and the API's rate limit,
/// not the CPU, bounds how fast requests go.
pub fn block_on<F: Future>(future: F) -> Result<F::Output, CommandError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CommandError::quoting(ErrorKind::Internal, "starting the async runtime", e))?;
    Ok(runtime.block_on(future))
}
