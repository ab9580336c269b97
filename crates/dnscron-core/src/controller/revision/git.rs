//! The commit a repository has checked out, read from its files as git lays them out.
//!
//! Everything under `.git` is untrusted: a `gitdir:` or `commondir` may point anywhere, so
//! below them only `HEAD`, `commondir`, `refs/…` and `packed-refs` are read, each with a size
//! bound, and a ref name is checked before it becomes a path.

use std::path::{Path, PathBuf};

use super::{GitHead, RevisionError, read_text};

/// HEAD, a loose ref, a `.git` file and `commondir` are one line each.
pub(super) const MAX_GIT_FILE: u64 = 4 * 1024;
/// packed-refs grows with a repository's tags and remote branches.
pub(super) const MAX_PACKED_REFS: u64 = 64 * 1024 * 1024;
/// Symbolic refs git itself follows before giving up (`refs.c`: `SYMREF_MAXDEPTH`).
pub(super) const MAX_SYMREF_DEPTH: usize = 5;

/// Where a repository's files are: its own (a worktree's HEAD) and the shared ones.
struct GitDir {
    own: PathBuf,
    common: PathBuf,
}

/// The HEAD of the repository holding `dir` (already resolved), when one does.
pub(super) fn head(dir: &Path) -> Result<Option<GitHead>, RevisionError> {
    let Some(own) = find_git_dir(dir)? else {
        return Ok(None);
    };
    let git_dir = GitDir {
        common: common_dir(&own)?,
        own,
    };
    let head_path = git_dir.own.join("HEAD");
    let head = read_small(&head_path, MAX_GIT_FILE)?;
    let commit = resolve(&git_dir, &head_path, &head, 0)?;
    Ok(Some(GitHead { head, commit }))
}

/// The git directory of the nearest `.git` from `dir` up to the filesystem's root: a folder, or
/// a file (a worktree's, a submodule's) whose `gitdir:` names it.
fn find_git_dir(dir: &Path) -> Result<Option<PathBuf>, RevisionError> {
    for folder in dir.ancestors() {
        let dot_git = folder.join(".git");
        match std::fs::metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => return Ok(Some(dot_git)),
            Ok(_) => return gitdir_from_file(&dot_git, folder).map(Some),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(RevisionError::io(&dot_git, err)),
        }
    }
    Ok(None)
}

/// `gitdir: PATH`, relative to the folder holding the `.git` file.
fn gitdir_from_file(dot_git: &Path, folder: &Path) -> Result<PathBuf, RevisionError> {
    let text = read_small(dot_git, MAX_GIT_FILE)?;
    let target = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|target| !target.is_empty())
        .ok_or_else(|| RevisionError::NoGitdir {
            path: dot_git.to_path_buf(),
        })?;
    Ok(folder.join(target))
}

/// A worktree's `commondir` names the repository's shared files; without one they are its own.
fn common_dir(own: &Path) -> Result<PathBuf, RevisionError> {
    let file = own.join("commondir");
    match read_small_if_any(&file, MAX_GIT_FILE)? {
        Some(text) => Ok(own.join(text.trim_end_matches(['\n', '\r']))),
        None => Ok(own.to_path_buf()),
    }
}

/// The commit `text` (the content of `file`: HEAD or a loose ref) resolves to.
fn resolve(
    git_dir: &GitDir,
    file: &Path,
    text: &str,
    depth: usize,
) -> Result<String, RevisionError> {
    let line = text.trim_end_matches(['\n', '\r']);
    let Some(name) = line.strip_prefix("ref:") else {
        return commit_id(file, line);
    };
    let name = name.trim_start();
    let reftable = git_dir.common.join("reftable");
    if reftable.is_dir() {
        return Err(RevisionError::Reftable { path: reftable });
    }
    if depth >= MAX_SYMREF_DEPTH {
        return Err(RevisionError::SymrefChain {
            path: file.to_path_buf(),
            limit: MAX_SYMREF_DEPTH,
        });
    }
    check_ref_name(file, name)?;
    let loose = ref_base(git_dir, name).join(name);
    if let Some(target) = read_ref_file(&loose)? {
        return resolve(git_dir, &loose, &target, depth + 1);
    }
    packed_ref(&git_dir.common, name)?.ok_or_else(|| RevisionError::RefNotFound {
        path: file.to_path_buf(),
        name: name.to_string(),
    })
}

/// Refs git keeps per worktree live in the worktree's own git directory; the rest are shared.
fn ref_base<'g>(git_dir: &'g GitDir, name: &str) -> &'g Path {
    let per_worktree = ["refs/bisect/", "refs/worktree/", "refs/rewritten/"]
        .iter()
        .any(|prefix| name.starts_with(prefix));
    if per_worktree {
        &git_dir.own
    } else {
        &git_dir.common
    }
}

/// A loose ref's text; `None` when there is no such file (or a folder of refs stands there).
fn read_ref_file(path: &Path) -> Result<Option<String>, RevisionError> {
    if path.is_dir() {
        return Ok(None);
    }
    read_small_if_any(path, MAX_GIT_FILE)
}

/// The commit `packed-refs` gives `name` (peeled lines `^…` are about the line before).
fn packed_ref(common: &Path, name: &str) -> Result<Option<String>, RevisionError> {
    let path = common.join("packed-refs");
    let Some(text) = read_small_if_any(&path, MAX_PACKED_REFS)? else {
        return Ok(None);
    };
    let found = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with('^'))
        .filter_map(|line| line.split_once(' '))
        .find(|(_, refname)| *refname == name);
    found.map(|(id, _)| commit_id(&path, id)).transpose()
}

/// Git's rules for a ref name (`git check-ref-format`), under `refs/`: nothing that climbs out
/// of the folder, is absolute, or names a lock file.
fn check_ref_name(file: &Path, name: &str) -> Result<(), RevisionError> {
    let forbidden_char = |c: char| c.is_ascii_control() || " ~^:?*[\\".contains(c);
    let bad_component =
        |part: &str| part.is_empty() || part.starts_with('.') || part.ends_with(".lock");
    let valid = name.starts_with("refs/")
        && !name.contains("..")
        && !name.contains("@{")
        && !name.ends_with('.')
        && !name.chars().any(forbidden_char)
        && !name.split('/').any(bad_component);
    if valid {
        Ok(())
    } else {
        Err(RevisionError::BadRefName {
            path: file.to_path_buf(),
            name: name.to_string(),
        })
    }
}

/// A commit id as git writes it: 40 (SHA-1) or 64 (SHA-256) hex digits, given in lowercase.
fn commit_id(file: &Path, text: &str) -> Result<String, RevisionError> {
    let id = text.trim();
    if matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(id.to_ascii_lowercase())
    } else {
        Err(RevisionError::NotHex {
            path: file.to_path_buf(),
        })
    }
}

fn read_small_if_any(path: &Path, limit: u64) -> Result<Option<String>, RevisionError> {
    match read_small(path, limit) {
        Ok(text) => Ok(Some(text)),
        Err(RevisionError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

fn read_small(path: &Path, limit: u64) -> Result<String, RevisionError> {
    read_text(path, path, limit)
}

/// Files and folders [`named_commits`] looks at under `refs/` and `logs/` before it stops.
const MAX_REF_ENTRIES: usize = 100_000;
/// How deep `refs/` and `logs/refs/` nest at most (a loop of symlinks ends here).
const MAX_REF_DEPTH: usize = 16;

/// Every commit the repository holding `dir` names without reading an object: HEAD, each
/// branch and tag (loose and packed) and each entry of the reflogs (where a branch pointed
/// before). Objects themselves (zlib-compressed, or in packfiles) are not read: a commit no
/// ref or reflog names is not found. `None`: `dir` is in no repository.
pub(super) fn named_commits(dir: &Path) -> Result<Option<Vec<String>>, RevisionError> {
    let Some(own) = find_git_dir(dir)? else {
        return Ok(None);
    };
    let git_dir = GitDir {
        common: common_dir(&own)?,
        own,
    };
    let mut out = Vec::new();
    let head_path = git_dir.own.join("HEAD");
    let head = read_small(&head_path, MAX_GIT_FILE)?;
    out.push(resolve(&git_dir, &head_path, &head, 0)?);
    let mut files = Vec::new();
    for base in [&git_dir.own, &git_dir.common] {
        list_files(&base.join("refs"), 0, &mut files)?;
        list_files(&base.join("logs"), 0, &mut files)?;
    }
    files.push(git_dir.common.join("packed-refs"));
    for file in files {
        let Some(text) = read_small_if_any(&file, MAX_PACKED_REFS)? else {
            continue;
        };
        // A ref file, a packed-refs line (`id name`) or a reflog line (`old new who…`).
        for line in text.lines() {
            for word in line.split_whitespace().take(2) {
                let word = word.trim_start_matches('^');
                let hex =
                    matches!(word.len(), 40 | 64) && word.bytes().all(|b| b.is_ascii_hexdigit());
                if hex && word.bytes().any(|b| b != b'0') {
                    out.push(word.to_ascii_lowercase());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(Some(out))
}

/// The files under `folder` (none when it does not exist), within the bounds above.
fn list_files(folder: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), RevisionError> {
    if depth > MAX_REF_DEPTH || out.len() >= MAX_REF_ENTRIES {
        return Ok(());
    }
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(RevisionError::io(folder, err)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| RevisionError::io(folder, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| RevisionError::io(&path, e))?;
        if kind.is_dir() {
            list_files(&path, depth + 1, out)?;
        } else if kind.is_file() && out.len() < MAX_REF_ENTRIES {
            out.push(path);
        }
    }
    Ok(())
}
