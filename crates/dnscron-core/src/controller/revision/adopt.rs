//! The revision a first start is told to adopt, named as people copy it: a commit id or any
//! unique prefix of it of 7 or more hex digits (the logs print 12), or a folder's `sha256:`
//! digest (or a prefix of it). It must be a revision the folder's history names, and the one
//! the folder holds: anything else is refused before the first round, never taken silently as
//! the base.

use std::path::Path;

use crate::untrusted::Untrusted as U;

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
