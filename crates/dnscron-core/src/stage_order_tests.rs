//! Stages only look down: a module of one stage names only stages written before it in
//! [`STAGES`]. The compiler holds the boundaries between crates (the API client, `dnscron-api`,
//! can't use the core); inside this crate, this test
//! holds the order, by reading every source file for the paths that reach another stage:
//! `crate::STAGE`, and `super::` chains that climb to the crate root.

use std::path::{Path, PathBuf};

/// The stages, lowest first: each may use the ones before it, never one after it.
// The API client and `untrusted` (printing server text) are the crate `dnscron-api`, below them all.
const STAGES: &[&str] = &[
    // Leaves: DNS rules, cron rules, what findings are named and measured by.
    "dns",
    "cron",
    "finding",
    // Files → desired state.
    "config",
    // DNS on the wire (the plan's mail findings ask nameservers).
    "dnscheck",
    // Live state + desired state → plan; the plan as a file.
    "plan",
    "plan_file",
    // Live account → files.
    "import",
    // Desired state → another tool's files (through import's writer).
    "export",
    // A plan's drift → edits of the files that declare it (through fmt's writer).
    "adopt",
    // Plan → writes → result; rounds of it.
    "apply",
    "controller",
];

#[test]
fn no_stage_uses_a_later_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut upward = Vec::new();
    for file in rust_files(&root) {
        let rel = file.strip_prefix(&root).unwrap_or(&file);
        let Some((from, depth)) = stage_of(rel) else {
            continue;
        };
        let code = code_of(&std::fs::read_to_string(&file).unwrap_or_default());
        for (offset, to) in stages_named(&code, depth) {
            if rank(to) > rank(from) {
                let line = code[..offset].matches('\n').count() + 1;
                upward.push(format!("{}:{line}: {from} uses {to}", rel.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "a stage uses a later one (order: {STAGES:?}):\n{}",
        upward.join("\n")
    );
}

/// The checker's own refused and accepted forms.
#[test]
fn the_checker_sees_every_path_to_a_stage() {
    let named = |text: &str, depth| -> Vec<&str> {
        stages_named(&code_of(text), depth)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    };
    assert_eq!(
        named("use crate::plan_file::FORMAT_VERSION;", 2),
        ["plan_file"]
    );
    assert_eq!(
        named(
            "use crate::{\n    dns::{Name, RecordType},\n    plan::Plan,\n};",
            2
        ),
        ["dns", "plan"]
    );
    assert_eq!(
        named(r#"#[schemars(with = "crate::finding::FindingCode")]"#, 2),
        ["finding"]
    );
    assert_eq!(named("fn f(p: &crate::apply::X) {}", 2), ["apply"]);
    assert_eq!(named("use super::super::apply::x;", 2), ["apply"]);
    assert!(named("use super::super::apply::x;", 3).is_empty());
    assert!(named("use super::model::Plan;", 2).is_empty());
    assert!(named("let planned = my_crate::plan::x;", 2).is_empty());
    assert!(named("/// See [`crate::apply`].", 2).is_empty());
    assert_eq!(
        stage_of(Path::new("plan/health/mail/mod.rs")),
        Some(("plan", 3))
    );
    assert_eq!(stage_of(Path::new("plan/diff.rs")), Some(("plan", 2)));
    assert_eq!(stage_of(Path::new("plan/mod.rs")), Some(("plan", 1)));
    assert_eq!(stage_of(Path::new("cron/schedule.rs")), Some(("cron", 2)));
    assert_eq!(stage_of(Path::new("cron_schedule.rs")), Some(("cron", 2)));
    assert_eq!(stage_of(Path::new("cron.rs")), Some(("cron", 1)));
    assert_eq!(stage_of(Path::new("lib.rs")), None);
    for stage in STAGES {
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src")
                .join(stage)
                .exists()
                || Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("src")
                    .join(format!("{stage}.rs"))
                    .exists(),
            "{stage} is no module of this crate"
        );
    }
}

fn rank(stage: &str) -> usize {
    STAGES
        .iter()
        .position(|s| *s == stage)
        .unwrap_or(usize::MAX)
}

/// The stage a file belongs to and its module depth (`plan/mod.rs` 1, `plan/diff.rs` 2); `None`
/// for the crate root and files of no stage. A top-level `STAGE_NAME.rs` counts as a child of
/// STAGE (one reached through `#[path]`).
fn stage_of(rel: &Path) -> Option<(&'static str, usize)> {
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let first = parts.first()?;
    let stem = first.strip_suffix(".rs").unwrap_or(first);
    let (stage, depth) = match STAGES.iter().find(|s| **s == stem) {
        Some(stage) if parts.len() == 1 => (*stage, 1),
        Some(stage) => {
            let last_is_mod = parts.last().is_some_and(|p| p == "mod.rs");
            (*stage, parts.len() - usize::from(last_is_mod))
        }
        None => {
            let stage = STAGES
                .iter()
                .filter(|s| stem.starts_with(&format!("{s}_")))
                .max_by_key(|s| s.len())?;
            (*stage, 2)
        }
    };
    Some((stage, depth))
}

/// Every stage a text's paths reach, with its byte offset: `crate::STAGE`, `crate::{STAGE::…, …}`
/// (over lines too), and a chain of `super::` at least `depth` long (from a module `depth` below
/// the root) followed by a stage.
fn stages_named(text: &str, depth: usize) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let word_start = at == 0 || !is_ident(bytes[at - 1]);
        if word_start && rest.starts_with("crate::") {
            let after = &rest["crate::".len()..];
            match after.strip_prefix('{') {
                Some(group) => {
                    let mut item_start = 0;
                    let mut nesting = 0usize;
                    for (i, c) in group.char_indices() {
                        match c {
                            '{' => nesting += 1,
                            '}' if nesting == 0 => {
                                found.extend(stage_named(&group[item_start..i]).map(|s| (at, s)));
                                break;
                            }
                            '}' => nesting -= 1,
                            ',' if nesting == 0 => {
                                found.extend(stage_named(&group[item_start..i]).map(|s| (at, s)));
                                item_start = i + 1;
                            }
                            _ => {}
                        }
                    }
                }
                None => found.extend(stage_named(after).map(|s| (at, s))),
            }
            at += "crate::".len();
            continue;
        }
        if word_start && rest.starts_with("super::") {
            let mut climbs = 0;
            let mut tail = rest;
            while let Some(t) = tail.strip_prefix("super::") {
                climbs += 1;
                tail = t;
            }
            if climbs >= depth {
                found.extend(stage_named(tail).map(|s| (at, s)));
            }
            at += rest.len() - tail.len();
            continue;
        }
        at += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// The stage a path (`plan::Plan`, ` dns::{…}`) starts with, if it names one.
fn stage_named(path: &str) -> Option<&'static str> {
    let path = path.trim_start();
    let ident: String = path
        .bytes()
        .take_while(|b| is_ident(*b))
        .map(char::from)
        .collect();
    STAGES.iter().find(|s| **s == ident).copied()
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The text with comment lines blanked (a doc link is no dependency), so offsets keep their line.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.trim_start().starts_with("//") {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
