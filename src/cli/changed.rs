//! `--changed-since REF`: asks git which files differ from REF and turns them into the scope of a
//! plan (`dnscron_core::config::changed`, docs/plan.md "Planning only what changed").
//!
//! Git is run as a command (`git` on PATH), with the user's own configuration: no library
//! reimplements it as faithfully, and the repository is one the user already works in. What
//! counts as changed is the working tree against REF, so a file edited but not committed, or not
//! yet added, is in scope too: the plan shows what the files say now.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use dnscron_core::config::Diagnostics;
use dnscron_core::config::accounts::{self, Accounts};
use dnscron_core::config::changed::{self, ChangedError, FileChanges, OldFile};
use dnscron_core::config::model::Desired;
use dnscron_core::plan::Scope;

use crate::cli::error::CommandError;

/// The scope of `desired` (loaded from `paths`) changed since `since`.
pub(crate) fn scope(
    paths: &[PathBuf],
    desired: &Desired,
    since: &str,
) -> Result<Scope, CommandError> {
    let changes = file_changes(paths, since)?;
    let targets = changed::targets(desired, &changes)?;
    Ok(Scope::of(&targets))
}

/// Checks once that `since` names a commit of the repository `paths` are in: a command over
/// several accounts asks before each account asks for its scope, so that a mistyped REF is one
/// error, not one per account.
pub(crate) fn check_since(paths: &[PathBuf], since: &str) -> Result<(), CommandError> {
    let top = toplevel(paths)?;
    resolve(&top, since)?;
    Ok(())
}

/// The accounts file as `since` held it: what that revision says about where each account's
/// token goes (`accounts::since`). `Ok(None)`: the revision had no accounts file there (the
/// repository became one of several accounts since); `Err` with the revision's problems when
/// it does not load.
pub(crate) fn accounts_then(
    accounts: &Accounts,
    since: &str,
) -> Result<Result<Option<Accounts>, Diagnostics>, CommandError> {
    let top = toplevel(std::slice::from_ref(&accounts.root))?;
    let commit = resolve(&top, since)?;
    // By its name, not where links lead: a folder on its way that is a link (which a pull
    // request could point elsewhere) would compare the files now with another file of REF's.
    let file = changed::absolute(&accounts.file);
    let Ok(rel) = file.strip_prefix(&top) else {
        return Ok(Ok(None));
    };
    if linked_inside(&top, &lexical_absolute(&accounts.file)) {
        return Ok(Err(through_a_link(&accounts.file, &file)));
    }
    // Git names paths with `/` on every platform.
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let listed = run(&top, &["ls-tree", "-z", "--name-only", &commit, "--", &rel])?;
    if listed.split('\0').all(|p| p != rel) {
        return Ok(Ok(None));
    }
    let text = run(&top, &["show", &format!("{commit}:{rel}")])?;
    let shown_as = format!("{} at {since}", accounts.file.display());
    Ok(accounts::at_revision(text, &accounts.file, &accounts.root, &shown_as).map(Some))
}

/// `path` made absolute without following links: `.` dropped, `..` taking its parent off.
fn lexical_absolute(path: &Path) -> PathBuf {
    let joined = match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => cwd.join(path),
        Ok(_) | Err(_) => path.to_path_buf(),
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => out.push(part),
        }
    }
    out
}

/// Whether `named` or a folder on its way, inside the repository at `top` (not the repository
/// itself, which may be reached through a link), is a symbolic link.
fn linked_inside(top: &Path, named: &Path) -> bool {
    named.ancestors().any(|part| {
        let real = changed::absolute(part);
        real.starts_with(top)
            && real != top
            && std::fs::symlink_metadata(part).is_ok_and(|m| m.file_type().is_symlink())
    })
}

/// The accounts file is reached through a linked folder: REF's file of that name can't be
/// told to be the one the files now come from.
fn through_a_link(named: &Path, real: &Path) -> dnscron_core::config::Diagnostics {
    let mut diags = dnscron_core::config::Diagnostics::default();
    diags.push(
        dnscron_core::config::Diagnostic::general(format!(
            "`{}` is reached through a symbolic link (it is `{}`): under --changed-since its \
             tokens' places are compared with the revision's file of the same name",
            named.display(),
            real.display()
        ))
        .with_hint("plan from the folder itself, not through a link to it"),
    );
    diags
}

fn toplevel(paths: &[PathBuf]) -> Result<PathBuf, ChangedError> {
    let dir = repo_dir(paths);
    let top = git(&dir, &["rev-parse", "--show-toplevel"]).map_err(|e| match e {
        Failure::Spawn(source) => ChangedError::GitMissing { source },
        Failure::Exit(message) => ChangedError::NotARepository {
            dir: dir.clone(),
            message,
        },
    })?;
    Ok(changed::absolute(Path::new(
        top.trim_end_matches(['\n', '\r']),
    )))
}

fn file_changes(paths: &[PathBuf], since: &str) -> Result<FileChanges, ChangedError> {
    let top = toplevel(paths)?;
    let commit = resolve(&top, since)?;
    let diff = run(
        &top,
        &[
            "diff",
            "--name-status",
            "-z",
            "--find-renames",
            "--no-ext-diff",
            &commit,
            "--",
        ],
    )?;
    let untracked = run(&top, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    let roots: Vec<PathBuf> = paths.iter().map(|p| changed::absolute(p)).collect();
    let mut out = FileChanges {
        since: since.to_string(),
        commit: commit.clone(),
        ..FileChanges::default()
    };
    for entry in name_status(&diff) {
        if let Some(new) = entry.new {
            out.now.push(top.join(new));
        }
        if let Some(old) = entry.old {
            let path = top.join(old);
            if loader_reads(&roots, &path) {
                let text = run(&top, &["show", &format!("{commit}:{old}")])?;
                out.before.push(OldFile { path, text });
            }
        }
    }
    out.now.extend(
        untracked
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(|p| top.join(p)),
    );
    Ok(out)
}

/// Where to ask git: the first PATH's directory (the files may live in another repository
/// than the working directory).
fn repo_dir(paths: &[PathBuf]) -> PathBuf {
    let first = paths.first().map_or(Path::new("."), PathBuf::as_path);
    let dir = if first.is_dir() {
        first
    } else {
        first.parent().unwrap_or(Path::new("."))
    };
    if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir.to_path_buf()
    }
}

fn resolve(top: &Path, since: &str) -> Result<String, ChangedError> {
    let unknown = || ChangedError::UnknownRevision {
        since: since.to_string(),
        repo: top.to_path_buf(),
    };
    // A revision starting with `-` would be read as an option.
    if since.is_empty() || since.starts_with('-') {
        return Err(unknown());
    }
    let spec = format!("{since}^{{commit}}");
    match git(top, &["rev-parse", "--verify", "--quiet", &spec]) {
        Ok(sha) => Ok(sha.trim().to_string()),
        Err(Failure::Spawn(source)) => Err(ChangedError::GitMissing { source }),
        Err(Failure::Exit(_)) => Err(unknown()),
    }
}

/// One line of `git diff --name-status -z`: the path before (modified, deleted, renamed from)
/// and after (modified, added, renamed or copied to).
#[derive(Debug, PartialEq, Eq)]
struct Entry<'a> {
    old: Option<&'a str>,
    new: Option<&'a str>,
}

fn name_status(out: &str) -> Vec<Entry<'_>> {
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    let mut entries = Vec::new();
    while let Some(status) = fields.next() {
        let Some(first) = fields.next() else { break };
        let entry = match status.chars().next() {
            Some('R') => Entry {
                old: Some(first),
                new: fields.next(),
            },
            Some('C') => Entry {
                old: None,
                new: fields.next(),
            },
            Some('A') => Entry {
                old: None,
                new: Some(first),
            },
            Some('D') => Entry {
                old: Some(first),
                new: None,
            },
            // M, T (type change), U (unmerged), X: both sides.
            _ => Entry {
                old: Some(first),
                new: Some(first),
            },
        };
        entries.push(entry);
    }
    entries
}

/// Whether `config::load(roots)` would have read `path`: a root itself, or a `.yaml`/`.yml`
/// file under a root directory that is not inside a hidden directory.
fn loader_reads(roots: &[PathBuf], path: &Path) -> bool {
    let yaml = path
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| e == "yaml" || e == "yml");
    roots.iter().any(|root| {
        if root == path {
            return true;
        }
        let Ok(rest) = path.strip_prefix(root) else {
            return false;
        };
        let dirs: Vec<_> = rest.components().collect();
        let hidden = dirs[..dirs.len().saturating_sub(1)].iter().any(
            |c| matches!(c, Component::Normal(n) if n.to_str().is_some_and(|n| n.starts_with('.'))),
        );
        yaml && !hidden
    })
}

enum Failure {
    Spawn(std::io::Error),
    Exit(String),
}

fn git(dir: &Path, args: &[&str]) -> Result<String, Failure> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(Failure::Spawn)?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(Failure::Exit(stderr.trim().to_string()))
    }
}

fn run(top: &Path, args: &[&str]) -> Result<String, ChangedError> {
    git(top, args).map_err(|e| match e {
        Failure::Spawn(source) => ChangedError::GitMissing { source },
        Failure::Exit(message) => ChangedError::Git {
            args: args.join(" "),
            repo: top.to_path_buf(),
            message,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder on the accounts file's way that is a link inside the repository is found; the
    /// repository itself reached through a link is not one.
    #[cfg(unix)]
    #[test]
    fn a_link_on_the_accounts_files_way_is_found() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let top = changed::absolute(&tmp.path().join("repo"));
        let real = tmp.path().join("repo/real");
        std::fs::create_dir_all(&real).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(real.join("dnscron-accounts.yaml"), "accounts: []\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let link = |to: &Path, at: &Path| {
            std::os::unix::fs::symlink(to, at).unwrap_or_else(|e| panic!("{e}"));
        };
        link(&real, &tmp.path().join("repo/dns"));
        link(&tmp.path().join("repo"), &tmp.path().join("elsewhere"));
        let top = changed::absolute(&top);
        let file = |path: &str| lexical_absolute(&tmp.path().join(path));
        assert!(linked_inside(&top, &file("repo/dns/dnscron-accounts.yaml")));
        assert!(!linked_inside(
            &top,
            &file("repo/real/dnscron-accounts.yaml")
        ));
        assert!(!linked_inside(
            &top,
            &file("elsewhere/real/dnscron-accounts.yaml")
        ));
        assert!(!linked_inside(
            &top,
            &file("repo/real/../real/dnscron-accounts.yaml")
        ));
    }

    #[test]
    fn name_status_reads_every_kind() {
        let out = "M\0a.yaml\0R087\0old.yaml\0new.yaml\0D\0gone.yaml\0A\0added.yaml\0C100\0src.yaml\0copy.yaml\0";
        let got = name_status(out);
        let e = |old, new| Entry { old, new };
        assert_eq!(
            got,
            [
                e(Some("a.yaml"), Some("a.yaml")),
                e(Some("old.yaml"), Some("new.yaml")),
                e(Some("gone.yaml"), None),
                e(None, Some("added.yaml")),
                e(None, Some("copy.yaml")),
            ]
        );
    }

    #[test]
    fn the_loader_reads_yaml_under_a_root_outside_hidden_directories() {
        let roots = [PathBuf::from("/r/dns"), PathBuf::from("/r/one.yml")];
        assert!(loader_reads(&roots, Path::new("/r/dns/zones/a.yaml")));
        assert!(loader_reads(&roots, Path::new("/r/dns/.a.yaml")));
        assert!(loader_reads(&roots, Path::new("/r/one.yml")));
        assert!(!loader_reads(&roots, Path::new("/r/dns/.git/a.yaml")));
        assert!(!loader_reads(&roots, Path::new("/r/dns/readme.md")));
        assert!(!loader_reads(&roots, Path::new("/r/other/a.yaml")));
    }
}
