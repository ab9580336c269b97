//! `config::load` rules: each one accepted and rejected, located at the right line:col.

use std::path::PathBuf;

use dnscron_core::config::{self, Diagnostics, model::Desired};

mod nameservers;
mod records;
mod rfc_rules;
mod sets;
mod sites;
mod structure;
mod unmanaged;
mod yaml_line_breaks;

/// A temporary directory holding the given files.
pub struct Files {
    pub dir: tempfile::TempDir,
}

impl Files {
    pub fn new(files: &[(&str, &str)]) -> Files {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Files { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn load(&self) -> Result<Desired, Diagnostics> {
        config::load(&[self.dir.path().to_path_buf()])
    }
}

/// Loads one file's text; panics with the diagnostics when it is invalid.
pub fn ok(yaml: &str) -> Desired {
    let files = Files::new(&[("f.yaml", yaml)]);
    match files.load() {
        Ok(desired) => desired,
        Err(diags) => panic!("expected valid, got:\n{diags}\n--- file\n{yaml}"),
    }
}

/// Loads one file's text that must be invalid; returns `line:col message` per problem.
pub fn errors(yaml: &str) -> Vec<String> {
    let files = Files::new(&[("f.yaml", yaml)]);
    match files.load() {
        Ok(desired) => panic!("expected errors, got {desired:#?}\n--- file\n{yaml}"),
        Err(diags) => texts(&files, &diags),
    }
}

/// `line:col message [hint: …]` per problem, paths relative to the files' directory.
pub fn texts(files: &Files, diags: &Diagnostics) -> Vec<String> {
    let dir = files.dir.path().display().to_string();
    diags
        .items
        .iter()
        .map(|d| {
            let at = d
                .location
                .as_ref()
                .map(|l| format!("{}:{}", l.line, l.col))
                .unwrap_or_default();
            let hint = d
                .hint
                .as_deref()
                .map(|h| format!(" [hint: {h}]"))
                .unwrap_or_default();
            format!("{at} {}{hint}", d.message)
                .replace(&format!("{dir}/"), "")
                .replace(&dir, ".")
        })
        .collect()
}

/// Exactly one problem, at `at` (`line:col`), and its whole text (message and hint).
#[track_caller]
pub fn one_error(yaml: &str, at: &str, text: &str) {
    assert_eq!(errors(yaml), [format!("{at} {text}")]);
}

/// A zone document with the given record lines (flow mappings) under `records:`.
pub fn zone_with(records: &[&str]) -> String {
    let mut yaml = String::from("zone: example.com\nrecords:\n");
    for r in records {
        yaml.push_str(&format!("  - {r}\n"));
    }
    yaml
}
