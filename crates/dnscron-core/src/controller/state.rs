//! The controller's state file: the last revision that converged and the files it declared,
//! so that a restart loses no promise (the next revision is applied as its difference from
//! this one, bound to what this one declared). Written atomically (a temporary file in the same
//! folder, synced, renamed over the old one): a crash mid-write leaves the previous state.
//!
//! The files are kept as text, not as a desired state, and loaded again through the same rules
//! as any file: the state file is untrusted input (another version wrote it, a person edited
//! it), and a revision the rules now refuse is reported, never applied from.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Diagnostics;
use crate::config::model::Desired;

use super::revision::{Revision, RevisionSource};

/// The state file's own format version.
pub(crate) const STATE_VERSION: u32 = 1;
/// Larger state files are refused (a whole account's files are a few MB).
const MAX_STATE_BYTES: u64 = 256 * 1024 * 1024;

/// The last revision that converged.
#[derive(Clone, Debug)]
pub struct Converged {
    pub revision: Revision,
    /// When it converged, RFC 3339.
    pub at: String,
    /// Its files, each at the path the folder gives it.
    pub files: Vec<(PathBuf, String)>,
    pub desired: Desired,
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot read the state file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the state file {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the state file {} is larger than {max} bytes", path.display())]
    TooLarge { path: PathBuf, max: u64 },
    #[error("the state file {} is not a dnscron controller state: {message}", path.display())]
    Malformed { path: PathBuf, message: String },
    #[error("the state file {} has state_version {found}; this dnscron reads {STATE_VERSION}", path.display())]
    UnsupportedVersion { path: PathBuf, found: u32 },
    #[error("the state file {} names a file outside its folder: {name}", path.display())]
    OutsidePath { path: PathBuf, name: String },
    /// The converged revision's files no longer load (the rules changed, or the file was
    /// edited): nothing can be attributed to it.
    #[error("the converged revision in the state file {} no longer loads", path.display())]
    Invalid {
        path: PathBuf,
        diagnostics: Box<Diagnostics>,
    },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateDoc {
    state_version: u32,
    converged: Option<ConvergedDoc>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConvergedDoc {
    revision: String,
    source: SourceDoc,
    at: String,
    files: Vec<FileDoc>,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum SourceDoc {
    Git,
    Digest,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    path: String,
    text: String,
}

/// Where a controller starts from.
#[derive(Debug)]
pub enum Start {
    /// The last converged revision, kept in the state file.
    Converged(Box<Converged>),
    /// A first start: no state file, none written yet, or one that can't be used (`unreadable`:
    /// why). Nothing is then written that the controller can't attribute to a revision it saw
    /// converge, so an unreadable file costs a baseline, never a wrong write; it is written
    /// anew when the next revision converges.
    First { unreadable: Option<StateError> },
}

impl Start {
    pub fn converged(self) -> Option<Converged> {
        match self {
            Start::Converged(converged) => Some(*converged),
            Start::First { .. } => None,
        }
    }
}

/// Where the state is kept: a file, or only in memory (then a restart forgets it, and the
/// controller says so when it starts).
#[derive(Clone, Debug)]
pub struct StateStore {
    file: Option<PathBuf>,
    /// The folder the files' paths are relative to.
    dir: PathBuf,
}

impl StateStore {
    pub fn new(file: Option<PathBuf>, dir: PathBuf) -> StateStore {
        StateStore { file, dir }
    }

    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Where to start from: what [`StateStore::load`] reads, or a first start (an unreadable
    /// file says why).
    pub fn start(&self) -> Start {
        match self.load() {
            Ok(Some(converged)) => Start::Converged(Box::new(converged)),
            Ok(None) => Start::First { unreadable: None },
            Err(error) => Start::First {
                unreadable: Some(error),
            },
        }
    }

    /// The converged revision kept, if any (none without a file, or before the first save).
    pub fn load(&self) -> Result<Option<Converged>, StateError> {
        let Some(path) = &self.file else {
            return Ok(None);
        };
        let text = match read_capped(path)? {
            Some(text) => text,
            None => return Ok(None),
        };
        let doc: StateDoc = serde_json::from_str(&text).map_err(|e| StateError::Malformed {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if doc.state_version != STATE_VERSION {
            return Err(StateError::UnsupportedVersion {
                path: path.clone(),
                found: doc.state_version,
            });
        }
        doc.converged
            .map(|c| self.converged_of(path, c))
            .transpose()
    }

    fn converged_of(&self, path: &Path, doc: ConvergedDoc) -> Result<Converged, StateError> {
        let mut files = Vec::with_capacity(doc.files.len());
        for file in doc.files {
            let relative = checked_relative(&file.path).ok_or_else(|| StateError::OutsidePath {
                path: path.to_path_buf(),
                name: dnscron_api::untrusted::escape(&file.path).to_string(),
            })?;
            files.push((self.dir.join(relative), file.text));
        }
        let desired = crate::config::load_texts(&files).map_err(|d| StateError::Invalid {
            path: path.to_path_buf(),
            diagnostics: Box::new(d),
        })?;
        let source = match doc.source {
            SourceDoc::Git => RevisionSource::Git,
            SourceDoc::Digest => RevisionSource::Digest,
        };
        Ok(Converged {
            revision: Revision {
                id: doc.revision,
                source,
            },
            at: doc.at,
            files,
            desired,
        })
    }

    /// Keeps `converged` (atomically); without a file, does nothing.
    pub fn save(&self, converged: &Converged) -> Result<(), StateError> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let files = converged
            .files
            .iter()
            .map(|(p, text)| FileDoc {
                path: p
                    .strip_prefix(&self.dir)
                    .unwrap_or(p)
                    .to_string_lossy()
                    .into_owned(),
                text: text.clone(),
            })
            .collect();
        let source = match converged.revision.source {
            RevisionSource::Git => SourceDoc::Git,
            RevisionSource::Digest => SourceDoc::Digest,
        };
        let doc = StateDoc {
            state_version: STATE_VERSION,
            converged: Some(ConvergedDoc {
                revision: converged.revision.id.clone(),
                source,
                at: converged.at.clone(),
                files,
            }),
        };
        let json = serde_json::to_vec(&doc).map_err(|e| StateError::Malformed {
            path: path.clone(),
            message: e.to_string(),
        })?;
        write_atomically(path, &json).map_err(|source| StateError::Write {
            path: path.clone(),
            source,
        })
    }
}

/// The file's text; `None` when it does not exist yet (a first start).
fn read_capped(path: &Path) -> Result<Option<String>, StateError> {
    let read_err = |source| StateError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_err(e)),
    };
    if meta.len() > MAX_STATE_BYTES {
        return Err(StateError::TooLarge {
            path: path.to_path_buf(),
            max: MAX_STATE_BYTES,
        });
    }
    std::fs::read_to_string(path).map(Some).map_err(read_err)
}

/// `name` as a relative path with no `..`, no root and no prefix.
fn checked_relative(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    let normal = path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    (normal && !name.is_empty()).then(|| path.to_path_buf())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "state".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        // The rename itself is durable only once the folder is synced; not every filesystem
        // allows opening a folder, and the rename is done either way.
        if let Ok(folder) = std::fs::File::open(&dir) {
            let _ = folder.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZONE: &str =
        "zone: a.example\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n";

    fn converged(dir: &Path) -> Converged {
        let files = vec![(dir.join("zones/a.yaml"), ZONE.to_string())];
        Converged {
            revision: Revision {
                id: "0123456789abcdef0123456789abcdef01234567".into(),
                source: RevisionSource::Git,
            },
            at: "2026-11-27T16:00:00Z".into(),
            desired: crate::config::load_texts(&files).unwrap_or_else(|d| panic!("{d}")),
            files,
        }
    }

    #[test]
    fn a_saved_state_loads_back_with_the_same_desired_state() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = tmp.path().join("repo");
        let store = StateStore::new(Some(tmp.path().join("state.json")), dir.clone());
        assert!(store.load().unwrap_or_else(|e| panic!("{e}")).is_none());
        let kept = converged(&dir);
        store.save(&kept).unwrap_or_else(|e| panic!("{e}"));
        let back = store
            .load()
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("nothing kept"));
        assert_eq!(back.revision, kept.revision);
        assert_eq!(back.desired, kept.desired);
        assert_eq!(back.files, kept.files);
        // Nothing left beside it but the state file.
        let names: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["state.json"]);
    }

    #[test]
    fn a_state_file_that_is_not_ours_is_refused_with_where() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = tmp.path().join("state.json");
        let store = StateStore::new(Some(path.clone()), tmp.path().into());
        let refused = |text: &str| {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
            match store.load() {
                Err(e) => e
                    .to_string()
                    .replace(&tmp.path().display().to_string(), "TMP"),
                Ok(_) => panic!("accepted {text}"),
            }
        };
        assert_eq!(
            refused("{\"state_version\": 9, \"converged\": null}"),
            "the state file TMP/state.json has state_version 9; this dnscron reads 1"
        );
        assert_eq!(
            refused("\"x\""),
            "the state file TMP/state.json is not a dnscron controller state: invalid type: string \"x\", expected struct StateDoc at line 1 column 3"
        );
        let outside = "{\"state_version\":1,\"converged\":{\"revision\":\"r\",\"source\":\"git\",\"at\":\"t\",\"files\":[{\"path\":\"../etc/x.yaml\",\"text\":\"\"}]}}";
        assert_eq!(
            refused(outside),
            "the state file TMP/state.json names a file outside its folder: ../etc/x.yaml"
        );
        let broken = "{\"state_version\":1,\"converged\":{\"revision\":\"r\",\"source\":\"git\",\"at\":\"t\",\"files\":[{\"path\":\"a.yaml\",\"text\":\"zone: [\"}]}}";
        assert_eq!(
            refused(broken),
            "the converged revision in the state file TMP/state.json no longer loads"
        );
    }

    #[test]
    fn without_a_file_nothing_is_kept() {
        let store = StateStore::new(None, PathBuf::from("repo"));
        let kept = converged(Path::new("repo"));
        store.save(&kept).unwrap_or_else(|e| panic!("{e}"));
        assert!(store.load().unwrap_or_else(|e| panic!("{e}")).is_none());
    }
}
