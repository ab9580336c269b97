//! Putting the exported files in place: into a folder that is new or empty (or with `force`,
//! over what is there), each file atomically, never outside the folder (`import`'s writer,
//! which checks every path, symlinks resolved, before writing anything).

use std::path::{Path, PathBuf};

use crate::import::{ImportError, OutFile, write_files};

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The output folder holds something already; nothing was written.
    #[error("the output folder {} is not empty ({entries} entr{}); nothing was written", out.display(), if *entries == 1 { "y" } else { "ies" })]
    NotEmpty { out: PathBuf, entries: usize },
    /// The output path exists and is not a folder.
    #[error("{} exists and is not a folder; nothing was written", out.display())]
    NotAFolder { out: PathBuf },
    #[error("reading {}: {source}", out.display())]
    Read {
        out: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A path outside the folder, or a failed write.
    #[error(transparent)]
    Write(#[from] ImportError),
}

/// Writes `files` under `out`, creating it. Without `force`, refuses an `out` that holds
/// anything, before writing. Returns the paths written.
pub fn write_export(
    out: &Path,
    files: &[OutFile],
    force: bool,
) -> Result<Vec<PathBuf>, ExportError> {
    match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(ExportError::Read {
                out: out.to_path_buf(),
                source,
            });
        }
        Ok(_) if !out.is_dir() => {
            return Err(ExportError::NotAFolder {
                out: out.to_path_buf(),
            });
        }
        Ok(_) => {
            let read = |source| ExportError::Read {
                out: out.to_path_buf(),
                source,
            };
            let entries = std::fs::read_dir(out).map_err(read)?.count();
            if entries > 0 && !force {
                return Err(ExportError::NotEmpty {
                    out: out.to_path_buf(),
                    entries,
                });
            }
        }
    }
    Ok(write_files(out, files, true)?)
}
