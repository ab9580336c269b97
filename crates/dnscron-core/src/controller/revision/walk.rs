//! The YAML files of a resolved directory, as `config::load` selects them, read with bounds.
//!
//! Names starting with `.` are skipped, files as well as folders: `.git`, and a ConfigMap's
//! `..data` and `..2026_…` folders, whose files the top-level links already lead to (read
//! through those too, each would be read twice). A symlink is followed only to a target inside
//! the directory: the revision is what the directory holds, and a link out of it would read
//! files no revision names.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{RevisionError, read_text};

/// The loader refuses a file with more text than this, so reading more is pointless.
pub(super) const MAX_FILE_BYTES: u64 = crate::config::MAX_SCALAR_BYTES as u64;
pub(super) const MAX_FILES: usize = 10_000;
/// Deeper than this is taken for a symlink loop rather than a real layout (as `config::load`).
pub(super) const MAX_DEPTH: usize = 32;

pub(super) struct YamlFile {
    /// Below the resolved directory, for the digest.
    pub relative: PathBuf,
    /// The directory as the caller named it, joined with `relative`.
    pub shown: PathBuf,
    pub text: String,
}

/// What writing a file changes, without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stamp {
    relative: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
    /// The inode and its change time: the kernel sets them on every write or replacement, and
    /// neither `touch` nor an archive's extraction can set them back (unix only).
    changed: Option<(u64, i64, i64)>,
}

struct Walk<'a> {
    /// What the caller named (for the paths given back and errors).
    shown: &'a Path,
    /// Its canonical form, the bound every symlink must stay within.
    root: &'a Path,
    /// Below `root`.
    found: Vec<PathBuf>,
}

/// Every `*.yaml`/`*.yml` below `root` (the canonical form of `shown`) and its text, sorted as
/// `config::load` walks a directory.
pub(super) fn yaml_files(shown: &Path, root: &Path) -> Result<Vec<YamlFile>, RevisionError> {
    yaml_paths(shown, root)?
        .into_iter()
        .map(|relative| {
            let shown = shown.join(&relative);
            // Named as the caller knows it, not by its resolved path.
            let text = read_text(&root.join(&relative), &shown, MAX_FILE_BYTES)?;
            Ok(YamlFile {
                relative,
                shown,
                text,
            })
        })
        .collect()
}

/// The [`Stamp`] of every file [`yaml_files`] would read.
pub(super) fn stamps(shown: &Path, root: &Path) -> Result<Vec<Stamp>, RevisionError> {
    yaml_paths(shown, root)?
        .into_iter()
        .map(|relative| {
            let meta = std::fs::metadata(root.join(&relative))
                .map_err(|e| RevisionError::io(&shown.join(&relative), e))?;
            Ok(Stamp {
                len: meta.len(),
                modified: meta.modified().ok(),
                changed: changed(&meta),
                relative,
            })
        })
        .collect()
}

#[cfg(unix)]
fn changed(meta: &std::fs::Metadata) -> Option<(u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.ino(), meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
fn changed(_: &std::fs::Metadata) -> Option<(u64, i64, i64)> {
    None
}

fn yaml_paths(shown: &Path, root: &Path) -> Result<Vec<PathBuf>, RevisionError> {
    let mut walk = Walk {
        shown,
        root,
        found: Vec::new(),
    };
    walk.folder(Path::new(""), 0)?;
    Ok(walk.found)
}

impl Walk<'_> {
    fn folder(&mut self, relative: &Path, depth: usize) -> Result<(), RevisionError> {
        if depth > MAX_DEPTH {
            return Err(RevisionError::TooDeep {
                path: self.shown.join(relative),
                limit: MAX_DEPTH,
            });
        }
        for name in self.sorted_names(relative)? {
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let relative = relative.join(&name);
            match self.kind(&relative)? {
                Kind::Folder => self.folder(&relative, depth + 1)?,
                Kind::Yaml => self.add(relative)?,
                Kind::Other => {}
            }
        }
        Ok(())
    }

    fn sorted_names(&self, relative: &Path) -> Result<Vec<OsString>, RevisionError> {
        let path = self.root.join(relative);
        let io = |e| RevisionError::io(&self.shown.join(relative), e);
        let mut names = std::fs::read_dir(&path)
            .map_err(io)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(io)?;
        names.sort();
        Ok(names)
    }

    /// What an entry is, a symlink judged by its target (which must stay inside the root when
    /// it would be read or walked).
    fn kind(&self, relative: &Path) -> Result<Kind, RevisionError> {
        let path = self.root.join(relative);
        let shown = || self.shown.join(relative);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| RevisionError::io(&shown(), e))?;
        if !meta.file_type().is_symlink() {
            return Ok(Kind::of(&meta, relative));
        }
        let target = match std::fs::canonicalize(&path) {
            Ok(target) => target,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return if is_yaml(relative) {
                    Err(RevisionError::Dangling { path: shown() })
                } else {
                    Ok(Kind::Other)
                };
            }
            Err(err) => return Err(RevisionError::io(&shown(), err)),
        };
        let meta = std::fs::metadata(&target).map_err(|e| RevisionError::io(&shown(), e))?;
        let kind = Kind::of(&meta, relative);
        let read_or_walked = matches!(kind, Kind::Folder | Kind::Yaml);
        if read_or_walked && !target.starts_with(self.root) {
            return Err(RevisionError::OutsideDir {
                path: shown(),
                target,
            });
        }
        Ok(kind)
    }

    fn add(&mut self, relative: PathBuf) -> Result<(), RevisionError> {
        if self.found.len() >= MAX_FILES {
            return Err(RevisionError::TooManyFiles {
                dir: self.shown.to_path_buf(),
                limit: MAX_FILES,
            });
        }
        self.found.push(relative);
        Ok(())
    }
}

enum Kind {
    Folder,
    Yaml,
    Other,
}

impl Kind {
    fn of(meta: &std::fs::Metadata, relative: &Path) -> Kind {
        if meta.is_dir() {
            Kind::Folder
        } else if meta.is_file() && is_yaml(relative) {
            Kind::Yaml
        } else {
            Kind::Other
        }
    }
}

fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e == "yaml" || e == "yml")
}
