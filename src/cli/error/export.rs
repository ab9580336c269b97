//! `export`: an output folder it won't write into, and the records it could not write, in
//! words, with their hints and kinds.

use dnscron_core::export::ExportError;

use super::{CommandError, ErrorKind};

impl From<ExportError> for CommandError {
    fn from(err: ExportError) -> Self {
        match err {
            ExportError::NotEmpty { .. } => CommandError::from_error(ErrorKind::User, err)
                .with_hint(
                    "choose a new or empty --out folder, or pass --force to write over the files export writes (the folder's other files are kept)",
                ),
            ExportError::NotAFolder { .. } => CommandError::from_error(ErrorKind::User, err)
                .with_hint("choose a folder for --out (it is created when missing)"),
            ExportError::Read { .. } => CommandError::from_error(ErrorKind::User, err)
                .with_hint("check that the --out folder is readable"),
            ExportError::Write(import) => CommandError::from(import),
        }
    }
}

/// The records export listed as not exported fail the command after the rest is written, so a
/// migration step in CI can't miss them.
pub fn not_exported(count: usize) -> CommandError {
    CommandError::new(
        ErrorKind::User,
        format!(
            "{count} record{} could not be exported (listed above); the files written hold the rest",
            if count == 1 { "" } else { "s" }
        ),
    )
    .with_hint(
        "the other tool can't hold these values: change them in the dnscron files, or add them to the other tool by hand",
    )
}
