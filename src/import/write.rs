//! Putting imported files in place: all or nothing about existing files, each file atomically.

use std::path::{Path, PathBuf};

use super::ImportError;

/// A file to write, its path relative to the output directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutFile {
    pub path: PathBuf,
    pub text: String,
    /// Written only when missing (unless forced); an existing one is kept without complaint.
    /// For the generated schema, which users don't edit.
    pub keep_existing: bool,
}

/// Writes `files` under `out`. Without `force`, refuses before writing anything when any of them
/// exists (naming every one). Returns the paths written.
pub fn write_files(
    out: &Path,
    files: &[OutFile],
    force: bool,
) -> Result<Vec<PathBuf>, ImportError> {
    let existing: Vec<PathBuf> = files
        .iter()
        .filter(|f| !f.keep_existing)
        .map(|f| out.join(&f.path))
        .filter(|p| p.exists())
        .collect();
    if !force && !existing.is_empty() {
        return Err(ImportError::Exists { paths: existing });
    }
    let mut written = Vec::new();
    for file in files {
        let path = out.join(&file.path);
        if file.keep_existing && !force && path.exists() {
            continue;
        }
        write_one(&path, &file.text)?;
        written.push(path);
    }
    Ok(written)
}

/// Through a temporary file and a rename, so an interrupted import never leaves half a file.
fn write_one(path: &Path, text: &str) -> Result<(), ImportError> {
    let error = |source| ImportError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(error)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(error)
}
