//! Every `dnscron …` command in the CI recipes (examples/ci/) must parse with the real clap
//! definition, so renaming or removing a flag breaks this test instead of a user's pipeline.

use std::path::{Path, PathBuf};

use clap::Parser;
use dnscron::cli::Cli;
use serde_json::Value;

use crate::common::repo_root;

/// A `dnscron` command found in a recipe, as argv, and where it came from.
#[derive(Debug)]
struct Found {
    file: String,
    argv: Vec<String>,
}

fn recipes() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![repo_root().join("examples/ci")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.ends_with("kubernetes/controller") {
                // The controller's kit (a Deployment among other objects, alert rules) has its
                // own test, tests/it/controller_manifests/, which reads its command line.
                continue;
            }
            if path.is_dir() {
                dirs.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yml" | "yaml")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn parse_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Shell words of one command segment: quotes removed, `${{ … }}` kept as one word.
fn words(segment: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// The `dnscron` commands of a `run:` script: lines joined at `\`, split at `&&`, `||`, `;`,
/// `|`, `$(`; shell keywords before the command and redirections after it dropped.
fn commands_in_script(script: &str) -> Vec<Vec<String>> {
    let joined = script.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = line.split(" #").next().unwrap_or_default();
        let mut segment_starts = line
            .replace("$(", ";")
            .replace("||", ";")
            .replace("&&", ";");
        segment_starts = segment_starts.replace('|', ";");
        for segment in segment_starts.split(';') {
            let mut argv = words(segment);
            while argv.first().is_some_and(|w| {
                matches!(
                    w.as_str(),
                    "if" | "then" | "else" | "elif" | "do" | "!" | "time" | "exec"
                )
            }) {
                argv.remove(0);
            }
            if argv.first().map(String::as_str) != Some("dnscron") {
                continue;
            }
            if let Some(end) = argv.iter().position(|w| {
                w.starts_with('>') || w.starts_with('<') || w.starts_with("2>") || w == ")"
            }) {
                argv.truncate(end);
            }
            out.push(argv);
        }
    }
    out
}

fn github_commands(file: &str, doc: &Value, out: &mut Vec<Found>) {
    let jobs = doc["jobs"]
        .as_object()
        .unwrap_or_else(|| panic!("{file}: no jobs"));
    for job in jobs.values() {
        for step in job["steps"].as_array().into_iter().flatten() {
            if let Some(script) = step["run"].as_str() {
                for argv in commands_in_script(script) {
                    out.push(Found {
                        file: file.to_string(),
                        argv,
                    });
                }
            }
        }
    }
}

fn kubernetes_commands(file: &str, doc: &Value, out: &mut Vec<Found>) {
    let containers = doc
        .pointer("/spec/jobTemplate/spec/template/spec/containers")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{file}: no containers"));
    for c in containers {
        let strings = |key: &str| -> Vec<String> {
            c[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        let command = strings("command");
        // Without `command`, the image's entrypoint is dnscron and `args` are its arguments.
        let mut argv = if command.is_empty() {
            vec!["dnscron".to_string()]
        } else {
            command
        };
        argv.extend(strings("args"));
        if argv[0].ends_with("dnscron") {
            argv[0] = "dnscron".into();
            out.push(Found {
                file: file.to_string(),
                argv,
            });
        }
    }
}

fn all_commands() -> Vec<Found> {
    let mut found = Vec::new();
    for path in recipes() {
        let file = path
            .strip_prefix(repo_root())
            .unwrap()
            .display()
            .to_string();
        let doc = parse_yaml(&path);
        let before = found.len();
        if doc.get("jobs").is_some() {
            github_commands(&file, &doc, &mut found);
        } else if doc.get("kind").and_then(Value::as_str) == Some("CronJob") {
            kubernetes_commands(&file, &doc, &mut found);
        } else {
            panic!("{file}: neither a GitHub workflow nor a CronJob");
        }
        assert!(found.len() > before, "{file} runs no dnscron command");
    }
    found
}

#[test]
fn every_recipe_command_parses_with_the_real_cli() {
    let found = all_commands();
    assert!(found.len() >= 6, "{found:#?}");
    let failures: Vec<String> = found
        .iter()
        .filter_map(|f| {
            Cli::try_parse_from(&f.argv)
                .err()
                .map(|e| format!("{}: `{}`: {}", f.file, f.argv.join(" "), e.kind()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "recipe commands the CLI refuses:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_extraction_sees_what_the_recipes_run() {
    let found = all_commands();
    let shown: Vec<String> = found
        .iter()
        .map(|f| format!("{}: {}", f.file, f.argv.join(" ")))
        .collect();
    insta::assert_snapshot!("ci_recipe_commands", shown.join("\n"));
}

#[test]
fn a_renamed_flag_would_be_caught() {
    let script = "set +e\nif dnscron plan dns/ --detailed-exit-code > out.md; then echo ok; fi\n";
    let cmds = commands_in_script(script);
    assert_eq!(cmds, [["dnscron", "plan", "dns/", "--detailed-exit-code"]]);
    assert!(Cli::try_parse_from(&cmds[0]).is_err());
    let ok = commands_in_script("dnscron plan dns/ --format markdown --out plan.json | tee x");
    assert!(Cli::try_parse_from(&ok[0]).is_ok(), "{ok:?}");
    assert!(commands_in_script("cargo install dnscron --locked").is_empty());
}
