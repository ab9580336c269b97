//! `--changed-since` where it can't know what changed: each refused with what to do, nothing
//! sent.

use super::{Repo, emulator};
use crate::common::assert_cli_snapshot;

#[test]
fn an_unknown_revision_is_refused() {
    let repo = Repo::with_zone_files();
    let emu = emulator();
    assert_cli_snapshot!(
        "unknown_revision",
        repo.dnscron(&emu, &["plan", "dns", "--changed-since", "no-such-branch"])
    );
    assert_cli_snapshot!(
        "option_like_revision",
        repo.dnscron(&emu, &["plan", "dns", "--changed-since=--output=x"])
    );
    assert_eq!(emu.counters().requests, 0);
}

#[test]
fn files_outside_a_repository_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dns")).unwrap();
    std::fs::write(dir.path().join("dns/a.yaml"), super::zone_yaml(1, &[])).unwrap();
    let emu = emulator();
    let test = crate::common::Test::new()
        .current_dir(dir.path())
        .args(["plan", "dns", "--changed-since", "HEAD~1"])
        .api(&emu.base_url(), super::TOKEN)
        // No repository above the temporary directory is found either.
        .env("GIT_CEILING_DIRECTORIES", dir.path());
    assert_cli_snapshot!("not_a_repository", test);
    assert_eq!(emu.counters().requests, 0);
}

#[test]
fn without_git_it_is_refused() {
    let repo = Repo::with_zone_files();
    let emu = emulator();
    assert_cli_snapshot!(
        "git_missing",
        repo.dnscron(&emu, &["apply", "dns", "--yes", "--changed-since", "HEAD"])
            .env("PATH", "")
    );
    assert_eq!(emu.counters().requests, 0);
}

#[test]
fn a_file_that_did_not_load_at_the_revision_is_refused() {
    let repo = Repo::with_zone_files();
    repo.write("dns/broken.yaml", "zone: [\n");
    repo.commit("a broken file");
    repo.write(
        "dns/broken.yaml",
        &super::zone_yaml(1, &[]).replace("z001", "z900"),
    );
    let emu = emulator();
    assert_cli_snapshot!(
        "old_file_invalid",
        repo.dnscron(&emu, &["plan", "dns", "--changed-since", "HEAD"])
    );
    assert_eq!(emu.counters().requests, 0);
}
