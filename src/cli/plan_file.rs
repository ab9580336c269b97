//! Reading a plan file for `apply --plan`, `apply --reviewed` and `show`: untrusted input, so
//! never more of it than `plan_file::MAX_BYTES` (docs/plan.md, "Loading a plan file").

use std::io::Read;
use std::path::Path;

use crate::cli::error::{CommandError, ErrorKind};
use dnscron_core::plan::Plan;
use dnscron_core::plan_file::{self, MAX_BYTES};

/// The plan in `file`, checked by `plan_file::load`; `io_hint` is added when the file can't be
/// read at all.
pub(crate) fn read(file: &Path, io_hint: Option<&str>) -> Result<Plan, CommandError> {
    let text = read_text(file, io_hint)?;
    plan_file::load(&text, &file.display().to_string()).map_err(|e| refused(file, e))
}

/// The plan of one account or the plans of several (format 6), checked.
pub(crate) fn read_any(file: &Path) -> Result<plan_file::PlanFile, CommandError> {
    read_any_hinted(file, None)
}

/// [`read_any`], `io_hint` added when the file can't be read at all.
pub(crate) fn read_any_hinted(
    file: &Path,
    io_hint: Option<&str>,
) -> Result<plan_file::PlanFile, CommandError> {
    let text = read_text(file, io_hint)?;
    plan_file::load_any(&text, &file.display().to_string()).map_err(|e| refused(file, e))
}

fn refused(file: &Path, err: plan_file::PlanFileError) -> CommandError {
    CommandError::from(err).with_hint(format!("file: {}", file.display()))
}

/// The file's text, at most one byte past the cap.
fn read_text(file: &Path, io_hint: Option<&str>) -> Result<String, CommandError> {
    let origin = file.display().to_string();
    let refused = |e| CommandError::from(e).with_hint(format!("file: {origin}"));
    // A file that says it is too large is refused unread; one byte past the cap is enough for
    // `load` to refuse one that didn't say (a pipe), without reading all of it.
    if let Ok(meta) = std::fs::metadata(file) {
        plan_file::check_size(meta.len(), &origin).map_err(refused)?;
    }
    let mut text = String::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_BYTES as u64 + 1).read_to_string(&mut text))
        .map_err(|e| {
            let context = format!("cannot read the plan file {}", file.display());
            let err = CommandError::quoting(ErrorKind::User, &context, e);
            match io_hint {
                Some(hint) => err.with_hint(hint),
                None => err,
            }
        })?;
    Ok(text)
}
