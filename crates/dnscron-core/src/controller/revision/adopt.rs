//! The revision a first start is told to adopt, named as people copy it: a commit id or any
//! unique prefix of it of 7 or more hex digits (the logs print 12), or a folder's `sha256:`
//! digest (or a prefix of it). It must be a revision the folder's history names, and the one
//! the folder holds: anything else is refused before the first round, never taken silently as
//! the base.

use std::path::Path;

use dnscron_api::untrusted::Untrusted as U;

use super::{RevisionError, RevisionSource, git, probe, read};

/// The fewest hex digits a prefix may have (git's own default abbreviation).
pub const MIN_PREFIX: usize = 7;

#[derive(Debug, thiserror::Error)]
pub enum AdoptError {
    #[error(
        "`{}` is not a revision id: give a commit id or a prefix of {MIN_PREFIX} or more of its hex digits (or a `sha256:` digest)",
        U(id)
    )]
    NotAnId { id: String },
    #[error(
        "revision `{}` is not in the folder's history (HEAD, its branches and tags, and their reflogs name no such commit)",
        U(id)
    )]
    NotFound { id: String },
    #[error(
        "revision `{}` is the folder's digest prefix of no revision: the folder holds {current}",
        U(id)
    )]
    NotTheDigest { id: String, current: String },
    #[error("revision `{}` is ambiguous: {} commits start with it ({})", U(id), matches.len(), matches.join(", "))]
    Ambiguous { id: String, matches: Vec<String> },
    /// Found in the history, but the folder holds another revision: adopting it would apply a
    /// revision nobody named.
    #[error("revision `{}` is {found}, but the folder holds {current}", U(id))]
    NotCurrent {
        id: String,
        found: String,
        current: String,
    },
    /// Resolved at the start, but the folder moved to another revision (a sync swapping in a
    /// newer commit) before the first round applied it: that revision's whole difference was
    /// named by nobody, so it is neither applied nor taken as the base.
    #[error(
        "the folder moved from revision {adopted}, the one named to adopt, to {current} before it was applied: nothing is applied or taken as the base"
    )]
    Moved { adopted: String, current: String },
    #[error(transparent)]
    Revision(#[from] RevisionError),
}

/// The full id of the revision `id` names, which `dir` holds now.
pub fn resolve_adopted(dir: &Path, id: &str) -> Result<String, AdoptError> {
    let wanted = id.trim().to_ascii_lowercase();
    let (digest, hex) = match wanted.strip_prefix("sha256:") {
        Some(hex) => (true, hex),
        None => (false, wanted.as_str()),
    };
    if hex.len() < MIN_PREFIX || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(AdoptError::NotAnId { id: id.to_string() });
    }
    let current = probe(dir)?;
    match (&current.git, git::named_commits(&current.dir)?) {
        (Some(head), Some(commits)) if !digest => {
            let matches: Vec<String> = commits.into_iter().filter(|c| c.starts_with(hex)).collect();
            match matches.as_slice() {
                [] => Err(AdoptError::NotFound { id: id.to_string() }),
                [one] if *one == head.commit => Ok(one.clone()),
                [one] => Err(AdoptError::NotCurrent {
                    id: id.to_string(),
                    found: one.clone(),
                    current: head.commit.clone(),
                }),
                [..] => Err(AdoptError::Ambiguous {
                    id: id.to_string(),
                    matches,
                }),
            }
        }
        (Some(_), _) | (None, _) => {
            let snapshot = read(dir)?;
            let revision = snapshot.revision;
            let full = match revision.source {
                RevisionSource::Digest => revision.id.clone(),
                RevisionSource::Git => return Err(AdoptError::NotFound { id: id.to_string() }),
            };
            match full.trim_start_matches("sha256:").starts_with(hex) {
                true => Ok(full),
                false => Err(AdoptError::NotTheDigest {
                    id: id.to_string(),
                    current: full,
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::controller::revision::tests::write;

    const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";
    const OLD: &str = "0123999999999999999999999999999999999999";
    const TAG: &str = "fedcba9876543210fedcba9876543210fedcba98";

    /// `main` at HEAD, whose reflog names OLD before it, and a packed tag.
    fn repo() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        let git = tmp.path().join(".git");
        write(&git.join("HEAD"), "ref: refs/heads/main\n");
        write(&git.join("refs/heads/main"), &format!("{HEAD}\n"));
        let zero = "0".repeat(40);
        write(
            &git.join("logs/refs/heads/main"),
            &format!(
                "{zero} {OLD} A <a@example> 1 +0000\tclone\n{OLD} {HEAD} A <a@example> 2 +0000\tpull\n"
            ),
        );
        write(
            &git.join("packed-refs"),
            &format!("# pack-refs with: peeled\n{TAG} refs/tags/v1\n"),
        );
        write(&tmp.path().join("a.yaml"), "zone: a.example\nrecords: []\n");
        tmp
    }

    #[test]
    fn any_unique_prefix_of_seven_or_more_digits_names_the_folders_commit() {
        let repo = repo();
        for id in [HEAD, &HEAD[..12], &HEAD[..7], &HEAD[..12].to_uppercase()] {
            assert_eq!(resolve_adopted(repo.path(), id).unwrap(), HEAD, "{id}");
        }
    }

    #[test]
    fn a_short_ambiguous_unknown_or_older_id_is_refused_with_what_it_is() {
        let repo = repo();
        let refused = |id: &str| resolve_adopted(repo.path(), id).unwrap_err().to_string();
        assert_eq!(
            refused("012345"),
            "`012345` is not a revision id: give a commit id or a prefix of 7 or more of its hex digits (or a `sha256:` digest)"
        );
        assert_eq!(
            refused("0123abz"),
            "`0123abz` is not a revision id: give a commit id or a prefix of 7 or more of its hex digits (or a `sha256:` digest)"
        );
        assert_eq!(
            refused("abcdef0"),
            "revision `abcdef0` is not in the folder's history (HEAD, its branches and tags, and their reflogs name no such commit)"
        );
        assert_eq!(
            refused("0123"),
            "`0123` is not a revision id: give a commit id or a prefix of 7 or more of its hex digits (or a `sha256:` digest)"
        );
        // The reflog names OLD: found, but the folder holds HEAD.
        assert_eq!(
            refused(&OLD[..9]),
            format!(
                "revision `{}` is {OLD}, but the folder holds {HEAD}",
                &OLD[..9]
            )
        );
        assert_eq!(
            refused(&TAG[..10]),
            format!(
                "revision `{}` is {TAG}, but the folder holds {HEAD}",
                &TAG[..10]
            )
        );
        // Two commits the history names start with `0123`… past 7 digits only one does.
        write(
            &repo.path().join(".git/refs/heads/other"),
            "0123456000000000000000000000000000000000\n",
        );
        assert_eq!(
            refused("0123456"),
            format!(
                "revision `0123456` is ambiguous: 2 commits start with it (0123456000000000000000000000000000000000, {HEAD})"
            )
        );
    }

    #[test]
    fn a_folder_without_git_is_named_by_its_digest_or_a_prefix_of_it() {
        let tmp = tempfile::tempdir().unwrap();
        write(&tmp.path().join("a.yaml"), "zone: a.example\nrecords: []\n");
        let full = read(tmp.path()).unwrap().revision.id;
        let hex = full.trim_start_matches("sha256:");
        assert_eq!(resolve_adopted(tmp.path(), &full).unwrap(), full);
        assert_eq!(resolve_adopted(tmp.path(), &hex[..12]).unwrap(), full);
        let other = if hex.starts_with('0') {
            "1111111"
        } else {
            "0000000"
        };
        assert!(matches!(
            resolve_adopted(tmp.path(), other),
            Err(AdoptError::NotTheDigest { .. })
        ));
    }
}
