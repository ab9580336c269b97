//! Which declarations the files changed since a git commit touch: the targets a plan limited to
//! a change covers (docs/plan.md, "Planning only what changed").
//!
//! Git itself is run by the binary (it is a command-line tool with its own flags, and this
//! crate names none); what it found comes here as [`FileChanges`]. A target is in scope when a
//! changed file declares it now, or declared it at the commit: so a deleted file's zones, a
//! renamed file's and a zone moved from one file to another are all in scope. A changed file
//! puts every target it declares in scope whole, and a changed file's record sets (now or at
//! the commit) put the zones whose `use:` lists them in scope whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::diagnostics::Diagnostics;
use super::load::load_declarations;
use super::model::Desired;

/// What git says changed between a commit and the working tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileChanges {
    /// The revision as the user gave it (`origin/main`, `HEAD~1`).
    pub since: String,
    /// The commit it names (40 hex digits).
    pub commit: String,
    /// Absolute paths of files that differ now: modified, added, renamed or copied to, or
    /// untracked.
    pub now: Vec<PathBuf>,
    /// Files as they were at the commit, for each modified, deleted or renamed file the
    /// loader would read: their absolute path then and their text.
    pub before: Vec<OldFile>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OldFile {
    pub path: PathBuf,
    pub text: String,
}

/// The names a change touches: zones (with whether a version of their document sets
/// `nameservers`, i.e. the domain's registrar side is managed too) and sites.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangedTargets {
    pub since: String,
    pub commit: String,
    pub zones: BTreeMap<String, bool>,
    pub sites: BTreeSet<String>,
    /// What the files declared at the commit and no file declares now: the declaration is
    /// removed, and the target leaves management.
    pub removed: Removed,
}

/// Declarations a change removes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// Zones no file declares any more.
    pub zones: BTreeSet<String>,
    /// Zones still declared whose document no longer sets `nameservers` (it did at the
    /// commit): the domain's nameserver mode leaves management.
    pub nameservers: BTreeSet<String>,
    /// Sites no file declares any more.
    pub sites: BTreeSet<String>,
}

/// What the changed files declared at the commit.
#[derive(Default)]
struct Then {
    /// Zones, with whether a version of their document set `nameservers`.
    zones: BTreeMap<String, bool>,
    sites: BTreeSet<String>,
    /// The record sets they declared (a set moved to another file, or deleted with its file).
    sets: BTreeSet<Arc<str>>,
}

#[derive(Debug, thiserror::Error)]
pub enum ChangedError {
    #[error("git could not be run: {source}")]
    GitMissing {
        #[source]
        source: std::io::Error,
    },
    #[error("`{}` is not inside a git repository: {message}", dir.display())]
    NotARepository { dir: PathBuf, message: String },
    #[error("`{since}` does not name a commit of the repository at `{}`", repo.display())]
    UnknownRevision { since: String, repo: PathBuf },
    #[error("`git {args}` failed in `{}`: {message}", repo.display())]
    Git {
        args: String,
        repo: PathBuf,
        message: String,
    },
    #[error("`{}` as it was at commit {commit} does not load, so the targets it declared are unknown: {problems}", path.display())]
    OldFileInvalid {
        path: PathBuf,
        commit: String,
        problems: Diagnostics,
    },
}

/// The targets `desired` (the files now) and `changes.before` (the files then) declare in a
/// changed file, and the zones whose `use:` lists a record set a changed file declares now or
/// declared then.
pub fn targets(desired: &Desired, changes: &FileChanges) -> Result<ChangedTargets, ChangedError> {
    let mut out = ChangedTargets {
        since: changes.since.clone(),
        commit: changes.commit.clone(),
        ..ChangedTargets::default()
    };
    let then = old_files(changes)?;
    for (zone, nameservers) in &then.zones {
        add_zone(&mut out, zone, *nameservers);
    }
    out.sites.extend(then.sites.iter().cloned());
    out.removed = removed(desired, &then);
    let sets_then = then.sets;
    let now: BTreeSet<&Path> = changes.now.iter().map(PathBuf::as_path).collect();
    let mut canonical = BTreeMap::new();
    let mut changed_now = |file: &Path| -> bool {
        let path = canonical
            .entry(file.to_path_buf())
            .or_insert_with(|| absolute(file));
        now.contains(path.as_path())
    };
    for zone in &desired.zones {
        // A set reaches its zones through `use:`, not through the records it holds: a set
        // emptied, or one that lost its last record, still changes every zone that uses it.
        // A zone's own `use:` then is its file's then: a zone that stopped using a set has a
        // changed file.
        let changed = changed_now(&zone.location.file)
            || zone
                .uses
                .iter()
                .any(|set| sets_then.contains(&set.name) || changed_now(&set.file));
        if changed {
            add_zone(&mut out, zone.zone.as_str(), zone.nameservers.is_some());
        }
    }
    for site in &desired.sites {
        if changed_now(&site.location.file) {
            out.sites.insert(site.slug.clone());
        }
    }
    Ok(out)
}

/// What the changed files declared at the commit.
fn old_files(changes: &FileChanges) -> Result<Then, ChangedError> {
    let mut out = Then::default();
    for old in &changes.before {
        let then = load_declarations(&old.path, &old.text).map_err(|problems| {
            ChangedError::OldFileInvalid {
                path: old.path.clone(),
                commit: changes.commit.clone(),
                problems,
            }
        })?;
        for zone in &then.desired.zones {
            *out.zones.entry(zone.zone.to_string()).or_default() |= zone.nameservers.is_some();
        }
        out.sites
            .extend(then.desired.sites.iter().map(|s| s.slug.clone()));
        out.sets.extend(then.sets);
    }
    Ok(out)
}

/// The declarations of `then` that `desired` (every file now) no longer makes.
fn removed(desired: &Desired, then: &Then) -> Removed {
    let mut out = Removed::default();
    for (zone, nameservers) in &then.zones {
        match desired.zones.iter().find(|z| z.zone.as_str() == zone) {
            None => {
                out.zones.insert(zone.clone());
            }
            Some(now) if *nameservers && now.nameservers.is_none() => {
                out.nameservers.insert(zone.clone());
            }
            Some(_) => {}
        }
    }
    for site in &then.sites {
        if !desired.sites.iter().any(|s| &s.slug == site) {
            out.sites.insert(site.clone());
        }
    }
    out
}

fn add_zone(out: &mut ChangedTargets, zone: &str, nameservers: bool) {
    *out.zones.entry(zone.to_string()).or_default() |= nameservers;
}

/// The path git would name: symlinks resolved, so that `./dns/a.yaml` and the repository's
/// absolute `<repository>/dns/a.yaml` compare equal.
pub fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| match std::env::current_dir() {
        Ok(cwd) => cwd.join(path),
        Err(_) => path.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone_file(dir: &Path, name: &str, zone: &str) -> PathBuf {
        let path = dir.join(name);
        let text =
            format!("zone: {zone}\nrecords:\n  - {{name: www, type: A, content: 192.0.2.1}}\n");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write: {e}"));
        path
    }

    #[test]
    fn now_and_then_both_count() {
        let dir = std::env::temp_dir().join(format!("dnscron-changed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        let a = zone_file(&dir, "a.yaml", "a.example");
        let b = zone_file(&dir, "b.yaml", "b.example");
        let desired = crate::config::load(&[a.clone(), b]).unwrap_or_else(|d| panic!("{d}"));
        let changes = FileChanges {
            since: "HEAD~1".into(),
            commit: "c".repeat(40),
            now: vec![absolute(&a)],
            before: vec![OldFile {
                path: dir.join("gone.yaml"),
                text: "zone: gone.example\nnameservers: {mode: hosted}\nrecords: []\n".into(),
            }],
        };
        let got = targets(&desired, &changes).unwrap_or_else(|e| panic!("{e}"));
        let zones: Vec<_> = got.zones.iter().map(|(z, ns)| (z.as_str(), *ns)).collect();
        assert_eq!(zones, [("a.example", false), ("gone.example", true)]);
        assert_eq!(
            got.removed.zones.iter().collect::<Vec<_>>(),
            ["gone.example"],
            "no file declares it now"
        );
        let bad = FileChanges {
            before: vec![OldFile {
                path: dir.join("bad.yaml"),
                text: "zone: [\n".into(),
            }],
            ..changes
        };
        assert!(matches!(
            targets(&desired, &bad),
            Err(ChangedError::OldFileInvalid { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A changed set file puts the zones using it in scope; a file of the commit that uses a set
    /// or holds only sets is read for its declarations alone.
    #[test]
    fn record_sets_count_for_the_zones_that_use_them() {
        let dir = std::env::temp_dir().join(format!("dnscron-changed-sets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        let set = dir.join("set.yaml");
        let set_text =
            "record_set: mail\nrecords:\n  - {name: \"@\", type: MX, content: \"10 mx.{zone}.\"}\n";
        std::fs::write(&set, set_text).unwrap_or_else(|e| panic!("write: {e}"));
        let a = dir.join("a.yaml");
        std::fs::write(&a, "zone: a.example\nuse: [mail]\n").unwrap_or_else(|e| panic!("{e}"));
        let b = zone_file(&dir, "b.yaml", "b.example");
        let desired = crate::config::load(&[set.clone(), a, b]).unwrap_or_else(|d| panic!("{d}"));
        let changes = FileChanges {
            since: "HEAD~1".into(),
            commit: "c".repeat(40),
            now: vec![absolute(&set)],
            before: vec![
                OldFile {
                    path: set.clone(),
                    text: set_text.into(),
                },
                OldFile {
                    path: dir.join("old.yaml"),
                    text: "zone: old.example\nuse: [gone]\n".into(),
                },
            ],
        };
        let got = targets(&desired, &changes).unwrap_or_else(|e| panic!("{e}"));
        let zones: Vec<_> = got.zones.keys().map(String::as_str).collect();
        assert_eq!(zones, ["a.example", "old.example"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A zone reaches a set through `use:`: an emptied set file, or a set the commit's files
    /// declared (read from git), puts its zones in scope though they hold none of its records.
    #[test]
    fn a_set_reaches_its_zones_through_use_even_when_empty() {
        let dir = std::env::temp_dir().join(format!("dnscron-changed-use-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        let set = dir.join("set.yaml");
        std::fs::write(
            &set,
            "record_set: mail\nrecords: []\n---\nrecord_set: web\nrecords: []\n",
        )
        .unwrap_or_else(|e| panic!("write: {e}"));
        let a = dir.join("a.yaml");
        std::fs::write(&a, "zone: a.example\nuse: [mail]\n").unwrap_or_else(|e| panic!("{e}"));
        let b = dir.join("b.yaml");
        std::fs::write(&b, "zone: b.example\nuse: [web]\n").unwrap_or_else(|e| panic!("{e}"));
        let c = zone_file(&dir, "c.yaml", "c.example");
        let desired =
            crate::config::load(&[set.clone(), a, b, c]).unwrap_or_else(|d| panic!("{d}"));
        let zones = |changes: &FileChanges| -> Vec<String> {
            let got = targets(&desired, changes).unwrap_or_else(|e| panic!("{e}"));
            got.zones.into_keys().collect()
        };
        let none = FileChanges {
            since: "HEAD~1".into(),
            commit: "c".repeat(40),
            ..FileChanges::default()
        };
        assert!(zones(&none).is_empty());
        let set_changed = FileChanges {
            now: vec![absolute(&set)],
            ..none.clone()
        };
        assert_eq!(zones(&set_changed), ["a.example", "b.example"]);
        // `web` was declared then in a file that changed since; `mail` nowhere that changed.
        let declared_then = FileChanges {
            before: vec![OldFile {
                path: dir.join("old-sets.yaml"),
                text: "record_set: web\nrecords: []\n".into(),
            }],
            ..none
        };
        assert_eq!(zones(&declared_then), ["b.example"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
