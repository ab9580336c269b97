//! Which targets a change puts in scope: files added, deleted, renamed, uncommitted or
//! untracked, and a zone moved from one file to another.

use super::{Repo, emulator, zone, zone_yaml};

/// The scope `plan --changed-since REF --format json` records, as `kind name` lines, once the
/// scoped plan is checked against the full plan restricted to it.
fn scope_of(repo: &Repo, since: &str) -> Vec<String> {
    let emu = emulator();
    super::assert_scoped_is_full_restricted(repo, &emu, since);
    super::targets_in_scope(repo, &emu, since)
}

#[test]
fn nothing_changed_is_an_empty_scope_that_reads_nothing() {
    let repo = Repo::with_zone_files();
    let emu = emulator();
    let plan = super::scoped_plan(&repo, &emu, "HEAD");
    assert_eq!(emu.counters().requests, 0);
    assert_eq!(
        super::scope(&plan),
        ("HEAD".into(), "c7d2c326eb2a".into(), Vec::new())
    );
    assert_eq!(
        (&plan["changes"], &plan["findings"]),
        (&serde_json::json!([]), &serde_json::json!([]))
    );
}

#[test]
fn a_deleted_file_puts_its_zone_in_scope() {
    let repo = Repo::with_zone_files();
    repo.git(&["rm", "-q", &format!("dns/{}.yaml", zone(3))]);
    repo.commit("stop managing zone 3");
    // The planner leaves a zone no file declares alone, in scope or not (`removals.rs`).
    assert_eq!(scope_of(&repo, "HEAD~1"), [format!("zone {}", zone(3))]);
}

#[test]
fn a_renamed_file_puts_its_zone_in_scope() {
    let repo = Repo::with_zone_files();
    repo.git(&["mv", &format!("dns/{}.yaml", zone(4)), "dns/renamed.yaml"]);
    repo.commit("rename");
    assert_eq!(scope_of(&repo, "HEAD~1"), [format!("zone {}", zone(4))]);
}

#[test]
fn a_zone_moved_between_files_is_in_scope_with_both_files_zones() {
    let repo = Repo::with_zone_files();
    // Zone 5 moves into zone 6's file: both files changed, so both zones are in scope.
    repo.write(
        &format!("dns/{}.yaml", zone(6)),
        &format!("{}---\n{}", zone_yaml(6, &[]), zone_yaml(5, &[])),
    );
    repo.git(&["rm", "-q", &format!("dns/{}.yaml", zone(5))]);
    repo.commit("move");
    assert_eq!(
        scope_of(&repo, "HEAD~1"),
        [format!("zone {}", zone(5)), format!("zone {}", zone(6))]
    );
}

#[test]
fn uncommitted_and_untracked_files_count_as_changed() {
    let repo = Repo::with_zone_files();
    repo.write(
        &format!("dns/{}.yaml", zone(9)),
        &zone_yaml(9, &[("edited", "192.0.2.9")]),
    );
    repo.write(
        "dns/new.yaml",
        &zone_yaml(10, &[]).replacen("records:", "nameservers: { mode: hosted }\nrecords:", 1),
    );
    repo.git(&["rm", "-q", "--cached", &format!("dns/{}.yaml", zone(10))]);
    std::fs::remove_file(repo.file(&format!("dns/{}.yaml", zone(10)))).unwrap();
    assert_eq!(
        scope_of(&repo, "HEAD"),
        [
            format!("zone {}", zone(9)),
            format!("zone {}", zone(10)),
            format!("domain {}", zone(10)),
        ]
    );
}
