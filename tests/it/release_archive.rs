//! The release archive as .github/release/archive.sh makes it in the release workflow, made here
//! with the binary cargo built: the man page, completions and examples ship beside the binary,
//! and README's "Try it by hand" runs in the unpacked archive, no clone needed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{dnscron_bin, repo_root};

fn archive_sh(args: &[&Path]) {
    let out = Command::new(repo_root().join(".github/release/archive.sh"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "archive.sh {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                out.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn stdout_of(args: &[&str]) -> Vec<u8> {
    let out = Command::new(dnscron_bin()).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    out.stdout
}

/// The archive made, unpacked, and its folder.
fn unpacked(work: &Path) -> PathBuf {
    let (extras, dist) = (work.join("extras"), work.join("dist"));
    archive_sh(&[Path::new("extras"), Path::new(dnscron_bin()), &extras]);
    let stem = Path::new("dnscron-test");
    archive_sh(&[
        Path::new("pack"),
        Path::new(dnscron_bin()),
        &extras,
        stem,
        &dist,
    ]);
    let archive = dist.join("dnscron-test.tar.gz");
    let sums = std::fs::read_to_string(dist.join("dnscron-test.tar.gz.sha256")).unwrap();
    assert!(sums.ends_with("  dnscron-test.tar.gz\n"), "{sums}");
    let into = work.join("unpacked");
    std::fs::create_dir(&into).unwrap();
    let tar = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(&into)
        .status()
        .unwrap();
    assert!(tar.success());
    // Only the archive and its sum are left in DIST, ready for the release job.
    let mut left = files(&dist);
    left.sort();
    assert_eq!(left, ["dnscron-test.tar.gz", "dnscron-test.tar.gz.sha256"]);
    into.join("dnscron-test")
}

#[test]
fn the_archive_ships_the_man_page_completions_and_examples() {
    let work = tempfile::tempdir().unwrap();
    let folder = unpacked(work.path());
    let examples: Vec<String> = files(&repo_root().join("examples"))
        .into_iter()
        .map(|f| format!("examples/{f}"))
        .collect();
    let mut want = vec![
        "README.md".to_string(),
        "completions/_dnscron".to_string(),
        "completions/_dnscron.ps1".to_string(),
        "completions/dnscron.bash".to_string(),
        "completions/dnscron.elv".to_string(),
        "completions/dnscron.fish".to_string(),
        "dnscron".to_string(),
        "man/dnscron.1".to_string(),
    ];
    want.extend(examples.iter().cloned());
    want.sort();
    assert_eq!(files(&folder), want);
    let read = |name: &str| std::fs::read(folder.join(name)).unwrap();
    assert_eq!(read("man/dnscron.1"), stdout_of(&["man"]));
    for (shell, file) in [
        ("bash", "dnscron.bash"),
        ("zsh", "_dnscron"),
        ("fish", "dnscron.fish"),
        ("powershell", "_dnscron.ps1"),
        ("elvish", "dnscron.elv"),
    ] {
        assert_eq!(
            read(&format!("completions/{file}")),
            stdout_of(&["completions", shell]),
            "{shell}"
        );
    }
    for file in &examples {
        assert_eq!(read(file), std::fs::read(repo_root().join(file)).unwrap());
    }
    assert_eq!(read("dnscron"), std::fs::read(dnscron_bin()).unwrap());
}

/// "Try it by hand" from the unpacked archive, with its binary: the same transcript as in the
/// clone.
#[test]
fn the_by_hand_session_runs_in_the_unpacked_archive() {
    let work = tempfile::tempdir().unwrap();
    let folder = unpacked(work.path());
    let from_archive = crate::by_hand::session_in(&folder.join("dnscron"), &folder);
    let from_clone = crate::by_hand::session_in(Path::new(dnscron_bin()), &repo_root());
    assert_eq!(loopback_ports(&from_archive), loopback_ports(&from_clone));
}

/// `127.0.0.1:PORT` as `127.0.0.1:[PORT]`: each session has its own emulator.
fn loopback_ports(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut parts = text.split("127.0.0.1:");
    out.push_str(parts.next().unwrap_or_default());
    for part in parts {
        out.push_str("127.0.0.1:[PORT]");
        out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
    }
    out
}

#[test]
fn archive_sh_refuses_a_wrong_call() {
    let out = Command::new(repo_root().join(".github/release/archive.sh"))
        .args(["pack", "only-one"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).split(':').next(),
        Some("usage")
    );
}
