//! Which revision of the files a directory holds, and its YAML texts read as one revision.
//!
//! The controller is pointed at a directory that something else keeps current: a git checkout,
//! a git-sync link (`ROOT/LINK` → `ROOT/.worktrees/<commit>`, swapped atomically), a Flux
//! artifact directory, or a mounted ConfigMap (`..data` → a timestamped directory, swapped
//! atomically). A revision is the commit id when the directory is inside a repository (read
//! from `.git` without a git binary, so the image needs none), else a digest of the files.
//!
//! [`probe`] is cheap enough to run every second: it notices a swap (the directory's canonical
//! path, `..data`'s target), a new commit (HEAD and the ref it names) or, in a directory that is
//! neither, a file written in place (its size, times and inode) without reading the files.
//! [`read`] reads the files from the directory's resolved target and probes before and after: a
//! swap in between means the texts may mix two revisions, so they are read again.

mod adopt;
mod git;
mod walk;

pub use adopt::{AdoptError, MIN_PREFIX, resolve_adopted};

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use dnscron_api::untrusted::{Untrusted as U, escape};

/// Reads in a row that may each be cut by a swap before [`read`] gives up.
pub const MAX_READ_ATTEMPTS: u32 = 3;

/// What identifies the files a directory holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revision {
    /// A commit id (40 or 64 lowercase hex digits) or `sha256:` and 64 hex digits.
    pub id: String,
    pub source: RevisionSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisionSource {
    /// The commit checked out in the repository holding the directory.
    Git,
    /// The digest of the YAML files read ([`Snapshot::content_digest`]).
    Digest,
}

/// What a directory points at, without its files' contents: equal probes, same revision (a
/// repository's commit) or, short of a write that keeps a file's size, times and inode, the
/// same files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The directory, symlinks resolved: a git-sync swap changes it.
    pub dir: PathBuf,
    /// `..data`'s target, when the directory has one (a ConfigMap's swap changes it).
    pub data: Option<PathBuf>,
    /// The repository's HEAD, when the directory is in one.
    pub git: Option<GitHead>,
    /// A directory that is neither in a repository nor a ConfigMap (whose `..data` swaps) may
    /// be written in place: its YAML files' sizes and change times, read without their text.
    stamps: Option<Vec<walk::Stamp>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitHead {
    /// HEAD's text: a commit id, or `ref: refs/heads/…`.
    pub head: String,
    /// The commit HEAD resolves to: a branch that moves changes it, HEAD's text stays.
    pub commit: String,
}

/// The YAML files of one revision.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub revision: Revision,
    /// The probe taken before and after the files were read (the same both times).
    pub probe: Probe,
    /// Each file as the directory given names it (not its resolved target), and its text, in
    /// the order `config::load` reads a directory.
    pub files: Vec<(PathBuf, String)>,
    /// `sha256:` and the digest of the files' relative paths and texts, whatever the revision's
    /// source: a checkout with uncommitted edits has its commit's id and other content.
    pub content_digest: String,
}

/// Why a directory's revision could not be told. The caller keeps the revision it had.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("cannot read `{}`: {source}", Shown(path))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{}` is not a directory", Shown(path))]
    NotADirectory { path: PathBuf },
    #[error("`{}` is larger than {limit} bytes", Shown(path))]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("`{}` is not UTF-8 text", Shown(path))]
    NotUtf8 { path: PathBuf },
    #[error("`{}` does not hold a commit id (40 or 64 hex digits)", Shown(path))]
    NotHex { path: PathBuf },
    #[error("`{}` is a .git file without a `gitdir:` line", Shown(path))]
    NoGitdir { path: PathBuf },
    #[error(
        "`{}` names `{}`, which is not a valid ref name under refs/",
        Shown(path),
        U(name)
    )]
    BadRefName { path: PathBuf, name: String },
    #[error(
        "`{}` names `{}`, which neither a ref file nor packed-refs holds",
        Shown(path),
        U(name)
    )]
    RefNotFound { path: PathBuf, name: String },
    #[error("`{}` starts a chain of more than {limit} symbolic refs", Shown(path))]
    SymrefChain { path: PathBuf, limit: usize },
    /// Refs kept in reftable files (git 2.45's `--ref-format=reftable`) need a reftable reader.
    #[error(
        "the repository keeps its refs in reftable files (`{}`), which cannot be read without git",
        Shown(path)
    )]
    Reftable { path: PathBuf },
    #[error(
        "`{}` is a symlink to `{}`, outside the directory",
        Shown(path),
        Shown(target)
    )]
    OutsideDir { path: PathBuf, target: PathBuf },
    /// A symlink to nothing: in a ConfigMap, the moment between a swap and the removal of a
    /// deleted key's link; the next probe finds it settled.
    #[error("`{}` is a symlink to a file that does not exist", Shown(path))]
    Dangling { path: PathBuf },
    #[error("`{}` holds more than {limit} YAML files", Shown(dir))]
    TooManyFiles { dir: PathBuf, limit: usize },
    #[error(
        "`{}` is nested more than {limit} directories deep (a symlink loop?)",
        Shown(path)
    )]
    TooDeep { path: PathBuf, limit: usize },
    #[error(
        "`{}` changed while it was read, {attempts} times in a row",
        Shown(dir)
    )]
    Unsettled { dir: PathBuf, attempts: u32 },
}

/// A path in an error, escaped: one found through `.git` (a `gitdir:`, a `commondir`) is
/// untrusted text.
struct Shown<'a>(&'a Path);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&escape(&self.0.display().to_string()))
    }
}

impl RevisionError {
    fn io(path: &Path, source: std::io::Error) -> RevisionError {
        RevisionError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// What `dir` points at now; reads no file's text but the repository's HEAD and the ref it
/// names (a directory that is neither a repository nor a ConfigMap: its YAML files' metadata).
pub fn probe(dir: &Path) -> Result<Probe, RevisionError> {
    let resolved = std::fs::canonicalize(dir).map_err(|e| RevisionError::io(dir, e))?;
    let is_dir = std::fs::metadata(&resolved)
        .map_err(|e| RevisionError::io(dir, e))?
        .is_dir();
    if !is_dir {
        return Err(RevisionError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    let data_link = resolved.join("..data");
    let data = match std::fs::canonicalize(&data_link) {
        Ok(target) => Some(target),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(RevisionError::io(&data_link, err)),
    };
    let git = git::head(&resolved)?;
    // A repository's revision is its commit (edits not committed are not one), and the kubelet
    // only ever swaps `..data`: only another directory needs its files looked at.
    let stamps = match (&git, &data) {
        (None, None) => Some(walk::stamps(dir, &resolved)?),
        (Some(_), _) | (None, Some(_)) => None,
    };
    Ok(Probe {
        dir: resolved,
        data,
        git,
        stamps,
    })
}

/// The YAML files `dir` holds and their revision, read while nothing swapped them.
pub fn read(dir: &Path) -> Result<Snapshot, RevisionError> {
    read_settled(dir, &mut || {})
}

/// [`read`], with `after_probe` run between the first probe and the reading (where a test
/// swaps the directory).
fn read_settled(dir: &Path, after_probe: &mut dyn FnMut()) -> Result<Snapshot, RevisionError> {
    for _ in 0..MAX_READ_ATTEMPTS {
        let before = probe(dir)?;
        after_probe();
        let files = walk::yaml_files(dir, &before.dir);
        // A read error is judged after the probe: git-sync removes the old worktree after a
        // swap, which is a reason to read again, not a broken directory.
        if probe(dir)? != before {
            continue;
        }
        return Ok(snapshot(before, files?));
    }
    Err(RevisionError::Unsettled {
        dir: dir.to_path_buf(),
        attempts: MAX_READ_ATTEMPTS,
    })
}

fn snapshot(probe: Probe, files: Vec<walk::YamlFile>) -> Snapshot {
    let content_digest = digest(&files);
    let revision = match &probe.git {
        Some(head) => Revision {
            id: head.commit.clone(),
            source: RevisionSource::Git,
        },
        None => Revision {
            id: content_digest.clone(),
            source: RevisionSource::Digest,
        },
    };
    Snapshot {
        revision,
        probe,
        files: files.into_iter().map(|f| (f.shown, f.text)).collect(),
        content_digest,
    }
}

/// `sha256:` and the hex digest of the files sorted by relative path, each path and text
/// length-prefixed so no two sets of files give the same input.
fn digest(files: &[walk::YamlFile]) -> String {
    let mut keyed: Vec<(Vec<u8>, &str)> = files
        .iter()
        .map(|f| (relative_key(&f.relative), f.text.as_str()))
        .collect();
    keyed.sort();
    let mut hasher = Sha256::new();
    for (path, text) in keyed {
        hasher.update((path.len() as u64).to_be_bytes());
        hasher.update(&path);
        hasher.update((text.len() as u64).to_be_bytes());
        hasher.update(text.as_bytes());
    }
    let mut id = String::with_capacity(7 + 64);
    id.push_str("sha256:");
    for byte in hasher.finalize() {
        id.push(char::from(HEX[usize::from(byte >> 4)]));
        id.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    id
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A relative path's components joined with `/`, so the digest is the same on every platform.
fn relative_key(relative: &Path) -> Vec<u8> {
    let mut key = Vec::new();
    for (i, part) in relative.iter().enumerate() {
        if i > 0 {
            key.push(b'/');
        }
        key.extend_from_slice(part.as_encoded_bytes());
    }
    key
}

/// The text of `path` (named `named` in errors), refused above `limit` bytes before it is read.
fn read_text(path: &Path, named: &Path, limit: u64) -> Result<String, RevisionError> {
    let bytes = read_bounded(path, limit).map_err(|err| match err {
        BoundedReadError::Io(source) => RevisionError::io(named, source),
        BoundedReadError::TooLarge => RevisionError::TooLarge {
            path: named.to_path_buf(),
            limit,
        },
    })?;
    String::from_utf8(bytes).map_err(|_| RevisionError::NotUtf8 {
        path: named.to_path_buf(),
    })
}

pub(super) enum BoundedReadError {
    Io(std::io::Error),
    TooLarge,
}

/// A file of at most `limit` bytes, refused by its size before it is read; the read is bounded
/// too, since the file may grow after the check (or be a special file of no size).
pub(super) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let file = std::fs::File::open(path).map_err(BoundedReadError::Io)?;
    let size = file.metadata().map_err(BoundedReadError::Io)?.len();
    if size > limit {
        return Err(BoundedReadError::TooLarge);
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(BoundedReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(BoundedReadError::TooLarge);
    }
    Ok(bytes)
}

#[cfg(test)]
mod git_tests;
#[cfg(test)]
mod tests;
