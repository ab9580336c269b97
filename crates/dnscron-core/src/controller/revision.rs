//! Which revision a directory holds. (The lead's minimal version: a content digest of the YAML
//! files; superseded by the git-aware reader.)

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Revision {
    pub id: String,
    pub source: RevisionSource,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevisionSource {
    Git,
    Digest,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    canonical: PathBuf,
    digest: String,
}

pub struct Snapshot {
    pub revision: Revision,
    pub probe: Probe,
    pub files: Vec<(PathBuf, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn texts(dir: &Path) -> Result<Vec<(PathBuf, String)>, RevisionError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        let entries = std::fs::read_dir(&at).map_err(|source| RevisionError::Read {
            path: at.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                let text =
                    std::fs::read_to_string(&path).map_err(|source| RevisionError::Read {
                        path: path.clone(),
                        source,
                    })?;
                out.push((path, text));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn digest(dir: &Path, files: &[(PathBuf, String)]) -> String {
    let mut hash = Sha256::new();
    for (path, text) in files {
        let rel = path.strip_prefix(dir).unwrap_or(path);
        hash.update(rel.to_string_lossy().as_bytes());
        hash.update([0]);
        hash.update(text.as_bytes());
        hash.update([0]);
    }
    let out = hash.finalize();
    let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

pub fn probe(dir: &Path) -> Result<Probe, RevisionError> {
    let files = texts(dir)?;
    Ok(Probe {
        canonical: dir.to_path_buf(),
        digest: digest(dir, &files),
    })
}

pub fn read(dir: &Path) -> Result<Snapshot, RevisionError> {
    let files = texts(dir)?;
    let id = digest(dir, &files);
    Ok(Snapshot {
        revision: Revision {
            id: id.clone(),
            source: RevisionSource::Digest,
        },
        probe: Probe {
            canonical: dir.to_path_buf(),
            digest: id,
        },
        files,
    })
}
