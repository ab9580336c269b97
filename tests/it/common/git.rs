//! `git` for tests that build repositories: no configuration but the test's own (no system or
//! user file, no signing), fixed names and dates, so that commit ids (shown in plans and
//! transcripts) are the same on every run and every machine.

use std::path::Path;
use std::process::Command;

/// `git -C dir ARGS`, its stdout; panics with git's stderr when it fails. HOME is `dir`, so no
/// user configuration is read.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
        .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
        .args([
            "-c",
            "user.name=dnscron tests",
            "-c",
            "user.email=tests@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "advice.detachedHead=false",
        ])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
