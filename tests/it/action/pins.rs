//! What GitHub can't be asked here but a reader can get wrong: every action pinned by commit,
//! the action's default version and the release's targets in step with the crate.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::VERSION;
use crate::common::repo_root;

/// action.yml and every workflow under .github/workflows.
fn github_files() -> Vec<PathBuf> {
    let mut files = vec![repo_root().join("action.yml")];
    let workflows = repo_root().join(".github/workflows");
    for entry in std::fs::read_dir(workflows).unwrap() {
        files.push(entry.unwrap().path());
    }
    files.sort();
    files
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn uses_values(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner) {
                    ("uses", Value::String(uses)) => out.push(uses.clone()),
                    _ => uses_values(inner, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| uses_values(item, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// `owner/repo@<40 hex>` followed on its line by `# v<major>…`: a tag can be moved, a commit
/// can't, and the comment says which release the commit is.
fn pinned(line: &str) -> bool {
    let Some((_, rest)) = line.split_once("uses: ") else {
        return false;
    };
    let Some((action, rest)) = rest.split_once('@') else {
        return false;
    };
    let Some((sha, comment)) = rest.split_once(" # v") else {
        return false;
    };
    action.split('/').count() >= 2
        && sha.len() == 40
        && sha
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && comment.starts_with(|c: char| c.is_ascii_digit())
}

#[test]
fn every_action_is_pinned_by_commit_with_its_tag_in_a_comment() {
    let mut unpinned = Vec::new();
    let mut count = 0;
    for file in github_files() {
        let mut parsed = Vec::new();
        uses_values(&yaml(&file), &mut parsed);
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.trim_start()
                    .trim_start_matches("- ")
                    .starts_with("uses: ")
            })
            .collect();
        // Every `uses:` the YAML holds is on a line checked here (none hides in flow style).
        assert_eq!(lines.len(), parsed.len(), "{}", file.display());
        count += lines.len();
        let name = file
            .strip_prefix(repo_root())
            .unwrap()
            .display()
            .to_string();
        unpinned.extend(
            lines
                .iter()
                .filter(|l| !pinned(l))
                .map(|l| format!("{name}: {}", l.trim())),
        );
    }
    assert_eq!(unpinned, Vec::<String>::new());
    assert!(count >= 7, "found only {count} uses: lines");
}

#[test]
fn the_pin_rule_accepts_a_commit_and_refuses_a_tag() {
    let sha = "0123456789abcdef0123456789abcdef01234567";
    assert!(pinned(&format!(
        "      - uses: actions/cache@{sha} # v5.0.3"
    )));
    assert!(!pinned("      - uses: actions/cache@v5 # v5"));
    assert!(!pinned(&format!("      - uses: actions/cache@{sha}")));
    assert!(!pinned(&format!(
        "      - uses: actions/cache@{} # v5",
        sha.to_uppercase()
    )));
}

#[test]
fn the_actions_default_version_is_this_crates_version() {
    let action = yaml(&repo_root().join("action.yml"));
    assert_eq!(action["inputs"]["version"]["default"], VERSION);
}

/// The Rust targets install.sh maps runners to, in order.
fn installer_targets() -> Vec<String> {
    let script = std::fs::read_to_string(repo_root().join(".github/action/install.sh")).unwrap();
    script
        .lines()
        .filter_map(|l| {
            l.split_once(") echo ")
                .map(|(_, t)| t.trim_end_matches(" ;;"))
        })
        .map(str::to_string)
        .collect()
}

/// `(action, "commit # comment")` of every `uses:` line in action.yml, the release workflow and
/// the recipes.
fn pins() -> Vec<(String, String)> {
    let recipes = repo_root().join("examples/ci/github");
    let mut files = github_files();
    for entry in std::fs::read_dir(recipes).unwrap() {
        files.push(entry.unwrap().path());
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
            let Some((_, uses)) = line.split_once("uses: ") else {
                continue;
            };
            if let Some((action, pin)) = uses.split_once('@') {
                out.push((action.to_string(), pin.trim().to_string()));
            }
        }
    }
    out
}

/// Each action pinned at more than one `commit # comment`, with those pins.
fn pinned_differently(pins: Vec<(String, String)>) -> BTreeMap<String, Vec<String>> {
    let mut by_action = BTreeMap::<String, Vec<String>>::new();
    for (action, pin) in pins {
        let pinned = by_action.entry(action).or_default();
        if !pinned.contains(&pin) {
            pinned.push(pin);
        }
    }
    by_action.retain(|_, pins| pins.len() > 1);
    by_action
}

/// One commit per action everywhere, so moving an action is one decision (docs/ci.md); the
/// dnscron action keeps the documented placeholder until the first release exists.
#[test]
fn each_action_is_pinned_at_one_commit_everywhere() {
    let pins = pins();
    let placeholder = "0000000000000000000000000000000000000000 # v0.1.0 (placeholder: the commit of the release tag)";
    let dnscron: Vec<&str> = pins
        .iter()
        .filter(|(action, _)| action == "dnscron/dnscron")
        .map(|(_, pin)| pin.as_str())
        .collect();
    assert_eq!(dnscron, [placeholder; 4], "one per recipe");
    assert_eq!(pinned_differently(pins), BTreeMap::new());
    // Refused: the same action at two commits.
    let two = |sha: &str| ("actions/cache".to_string(), format!("{sha} # v6.1.0"));
    assert_eq!(
        pinned_differently(vec![two("a"), two("a"), two("b")]),
        BTreeMap::from([(
            "actions/cache".to_string(),
            vec!["a # v6.1.0".to_string(), "b # v6.1.0".to_string()]
        )])
    );
}

#[test]
fn the_release_builds_exactly_the_archives_the_installer_asks_for() {
    let release = yaml(&repo_root().join(".github/workflows/release.yml"));
    let built: Vec<String> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["target"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(installer_targets(), built);
}
