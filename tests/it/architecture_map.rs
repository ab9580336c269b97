//! docs/architecture.md is the map: it stays true as files move. Every path it names exists, and
//! every source folder of the four crates is on it (named, or something in it named), so a
//! moved, renamed or new folder fails here until its row is written. What the map says of a
//! module is read, not tested.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::repo_root;

/// Where a path in the map may be written from: the repository, a crate's source folder.
const BASES: &[&str] = &[
    "",
    "crates/dnscron-api/src",
    "crates/dnscron-core/src",
    "src",
    "crates/dnscron-emulator/src",
];

/// The source folders whose every folder the map must name.
const ROOTS: &[&str] = &[
    "crates/dnscron-api/src",
    "crates/dnscron-core/src",
    "src",
    "crates/dnscron-emulator/src",
];

/// A backticked word that names a file or folder: no spaces, no placeholder, no glob.
fn path_like(word: &str) -> bool {
    let named = word.ends_with('/')
        || [".rs", ".md", ".sh", ".yml", ".json"]
            .iter()
            .any(|ext| word.ends_with(ext));
    named && !word.contains([' ', '<', '*', '{', ':'])
}

/// The backticked words of one line.
fn backticked(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// The path `word` names, resolved against the bases, then against the folder of the first path
/// its row names (`config/raw.rs`, `model.rs`; `config/fmt/` | `order.rs`), or `None`.
fn resolve(root: &Path, word: &str, row: Option<&Path>) -> Option<PathBuf> {
    BASES
        .iter()
        .map(|base| root.join(base).join(word))
        .chain(row.map(|folder| folder.join(word)))
        .find(|candidate| candidate.exists())
}

/// Every path the map names, resolved; the words that name nothing.
fn named_paths(root: &Path, map: &str) -> (BTreeSet<PathBuf>, Vec<String>) {
    let mut named = BTreeSet::new();
    let mut missing = Vec::new();
    for line in map.lines() {
        let mut row: Option<PathBuf> = None;
        for word in backticked(line).filter(|w| path_like(w)) {
            match resolve(root, word, row.as_deref()) {
                Some(path) => {
                    if row.is_none() {
                        row = Some(if path.is_dir() {
                            path.clone()
                        } else {
                            path.parent().unwrap_or(root).to_path_buf()
                        });
                    }
                    named.insert(path);
                }
                None => missing.push(format!("`{word}` in: {}", line.trim())),
            }
        }
    }
    (named, missing)
}

/// Every folder under `dir` that holds Rust source, snapshot folders aside.
fn source_folders(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "snapshots"))
        .collect();
    entries.sort();
    for folder in entries {
        out.push(folder.clone());
        source_folders(&folder, out);
    }
}

fn map() -> String {
    std::fs::read_to_string(repo_root().join("docs/architecture.md")).unwrap()
}

#[test]
fn every_path_the_map_names_exists() {
    let (_, missing) = named_paths(&repo_root(), &map());
    assert!(
        missing.is_empty(),
        "docs/architecture.md names paths that don't exist; update its rows:\n{}",
        missing.join("\n")
    );
}

/// The folders neither named nor holding a named path.
fn unnamed<'a>(folders: &'a [PathBuf], named: &BTreeSet<PathBuf>) -> Vec<&'a PathBuf> {
    folders
        .iter()
        .filter(|f| !named.iter().any(|path| path.starts_with(f)))
        .collect()
}

#[test]
fn every_source_folder_is_on_the_map() {
    let root = repo_root();
    let (named, _) = named_paths(&root, &map());
    let mut folders = Vec::new();
    for source in ROOTS {
        source_folders(&root.join(source), &mut folders);
    }
    let unnamed: Vec<String> = unnamed(&folders, &named)
        .into_iter()
        .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(
        unnamed.is_empty(),
        "source folders docs/architecture.md doesn't name; give each a row (or name it in its \
         parent's row):\n{}",
        unnamed.join("\n")
    );
}

/// The refused forms: a path that names nothing is reported, a relative one resolves against
/// its row's first path and nowhere else.
#[test]
fn a_stale_path_is_named_and_a_relative_one_needs_its_row() {
    let root = repo_root();
    let (named, missing) = named_paths(
        &root,
        "| `config/raw.rs`, `model.rs` | x |\n| `model.rs` | `config/gone.rs` |\n",
    );
    assert!(named.contains(&root.join("crates/dnscron-core/src/config/model.rs")));
    assert_eq!(
        missing,
        [
            "`model.rs` in: | `model.rs` | `config/gone.rs` |",
            "`config/gone.rs` in: | `model.rs` | `config/gone.rs` |",
        ]
    );
}

/// A folder counts as on the map when it or a path inside it is named; a sibling with a
/// similar name does not cover it.
#[test]
fn a_folder_with_nothing_named_in_it_is_reported() {
    let named: BTreeSet<PathBuf> = ["/r/plan/diff.rs", "/r/apply/"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let folders: Vec<PathBuf> = ["/r/plan", "/r/apply", "/r/plan_file", "/r/dns"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(
        unnamed(&folders, &named),
        [&PathBuf::from("/r/plan_file"), &PathBuf::from("/r/dns")]
    );
}
