//! Putting imported files in place: all or nothing about existing files, each file atomically,
//! and never outside the output directory.
//!
//! File names come from the server (zone names, site slugs), so before anything is written every
//! path is checked: relative, ordinary components only, and, with symlinks resolved, still under
//! `out`. One bad path refuses the whole import.

use std::path::{Component, Path, PathBuf};

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
    for file in files {
        check_inside(out, &file.path)?;
    }
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

/// Refuses a path that is not plainly relative (`..`, a root, a prefix), or that leads outside
/// `out` through a symlink already there: a folder on the way, the file or its temporary file.
fn check_inside(out: &Path, relative: &Path) -> Result<(), ImportError> {
    let full = out.join(relative);
    let refuse = |why: Outside| ImportError::OutsideOut {
        path: full.clone(),
        why,
    };
    if relative.as_os_str().is_empty()
        || relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(refuse(Outside::NotPlain {
            relative: relative.to_path_buf(),
        }));
    }
    let Ok(root) = out.canonicalize() else {
        // `out` doesn't exist yet: import creates it, so nothing in it can be a symlink.
        return Ok(());
    };
    let mut steps: Vec<PathBuf> = relative
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| out.join(p))
        .collect();
    steps.push(tmp_path(&full));
    for step in steps {
        if step.symlink_metadata().is_err() {
            continue;
        }
        match step.canonicalize() {
            Ok(resolved) if resolved.starts_with(&root) => {}
            Ok(resolved) => {
                return Err(refuse(Outside::LeadsOutside {
                    step,
                    resolved,
                    root,
                }));
            }
            Err(_) => {
                return Err(refuse(Outside::Dangling { step }));
            }
        }
    }
    Ok(())
}

/// Why a file's place is not plainly under the output directory.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Outside {
    /// `..`, a root, a prefix or nothing: not an ordinary relative path.
    #[error(
        "the path {} is not a plain path inside the output directory",
        relative.display()
    )]
    NotPlain { relative: PathBuf },
    /// `step` (the file, a folder on the way or the temporary file) is a symlink that resolves
    /// outside `root`, the output directory.
    #[error(
        "{} leads to {}, outside the output directory {}",
        step.display(),
        resolved.display(),
        root.display()
    )]
    LeadsOutside {
        step: PathBuf,
        resolved: PathBuf,
        root: PathBuf,
    },
    #[error("{} is a symlink that leads nowhere", step.display())]
    Dangling { step: PathBuf },
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
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
    let tmp = tmp_path(path);
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(error)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn file(path: &str) -> OutFile {
        OutFile {
            path: PathBuf::from(path),
            text: "x\n".into(),
            keep_existing: false,
        }
    }

    #[test]
    fn paths_that_are_not_plain_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        for bad in ["../escaped.yaml", "sites/../../x.yaml", "/etc/x.yaml", ""] {
            let files = [file("zones/example.com.yaml"), file(bad)];
            let err = write_files(&out, &files, true).unwrap_err();
            assert!(
                matches!(err, ImportError::OutsideOut { .. }),
                "{bad}: {err}"
            );
            assert!(!out.exists(), "{bad}: something was written");
        }
        let written = write_files(&out, &[file("zones/example.com.yaml")], false).unwrap();
        assert_eq!(written, [out.join("zones/example.com.yaml")]);
    }

    #[test]
    fn a_file_or_its_temporary_file_linked_outside_is_refused_even_with_force() {
        for linked in ["zones/example.com.yaml", "zones/example.com.yaml.tmp"] {
            let dir = tempfile::tempdir().unwrap();
            let (out, victim) = (dir.path().join("out"), dir.path().join("victim"));
            std::fs::create_dir_all(out.join("zones")).unwrap();
            std::fs::write(&victim, "keep\n").unwrap();
            std::os::unix::fs::symlink(&victim, out.join(linked)).unwrap();
            let err = write_files(&out, &[file("zones/example.com.yaml")], true).unwrap_err();
            let why = Outside::LeadsOutside {
                step: out.join(linked),
                resolved: victim.canonicalize().unwrap(),
                root: out.canonicalize().unwrap(),
            };
            assert!(
                matches!(&err, ImportError::OutsideOut { why: w, .. } if *w == why),
                "{linked}: {err}"
            );
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
        }
    }
}
