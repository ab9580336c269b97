use std::io::Write;

use crate::cli::error::CommandError;

/// Writes to stdout; a closed pipe (`dnscron plan | head`) becomes `ErrorKind::BrokenPipe`,
/// which exits 0 quietly instead of panicking like `println!` would.
pub fn write_stdout(text: &str) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
