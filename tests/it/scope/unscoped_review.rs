//! A reviewed plan made without `--changed-since` covers everything: applied with
//! `--changed-since`, it is not narrowed to what changed (apply reads the whole account and says
//! so). A reviewed change whose target apply did not read is refused as not read, never blamed
//! on the live account.

use super::{emulator, one_record_added, routes, save_plan_since, zone, zone_yaml};
use crate::common::assert_cli_snapshot;

fn has_record(emu: &dnscron_emulator::BackgroundEmulator, zone_index: usize, name: &str) -> bool {
    emu.state().zones[&zone(zone_index)]
        .iter()
        .any(|r| r.name.starts_with(name))
}

#[test]
fn an_unscoped_reviewed_plan_applied_with_changed_since_reads_everything_and_applies() {
    let repo = one_record_added();
    let emu = emulator();
    super::drift_added_in_portal(&emu, &zone(8));
    // Made without --changed-since, the reviewed plan also holds the drift's delete.
    repo.dnscron(&emu, &["plan", "dns", "--out", "full.json"])
        .run_for_stdout();
    emu.reset_counters();
    let apply = ["apply", "dns", "--reviewed", "full.json"];
    let with_base = [&apply[..], &["--changed-since", "HEAD~1"]].concat();
    assert_cli_snapshot!("unscoped_review_applied", repo.dnscron(&emu, &with_base));
    assert!(
        has_record(&emu, 7, "new"),
        "the pull request's change is applied"
    );
    assert!(
        !has_record(&emu, 8, "drift"),
        "and so is the drift's delete"
    );
    let reads = routes(&emu.counters());
    assert_eq!(
        reads.get("GET /dns/{zone}/records"),
        Some(&302),
        "every zone is read, and the two changed ones again to verify: {reads:?}"
    );
    // The report says so in every format (here of the run again: already applied).
    let json = [&with_base[..], &["--format", "json"]].concat();
    assert_cli_snapshot!("unscoped_review_again_json", repo.dnscron(&emu, &json));
    let markdown = [&with_base[..], &["--format", "markdown"]].concat();
    assert_cli_snapshot!(
        "unscoped_review_again_markdown",
        repo.dnscron(&emu, &markdown)
    );
}

#[test]
fn a_scoped_reviewed_plan_with_changed_since_reads_only_the_scopes_and_says_nothing_more() {
    let repo = one_record_added();
    let emu = emulator();
    save_plan_since(&repo, &emu, "HEAD~1");
    emu.reset_counters();
    let apply = [
        "apply",
        "dns",
        "--reviewed",
        "p.json",
        "--changed-since",
        "HEAD~1",
    ];
    let out = repo.dnscron(&emu, &apply).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    assert!(!out.contains("whole account"), "{out}");
    assert_eq!(routes(&emu.counters()), super::one_record_applied());
}

#[test]
fn a_reviewed_change_of_a_file_not_given_is_refused_as_not_read() {
    let repo = one_record_added();
    repo.write(
        &format!("dns/{}.yaml", zone(8)),
        &zone_yaml(8, &[("other", "192.0.2.201")]),
    );
    repo.commit("another record");
    let emu = emulator();
    save_plan_since(&repo, &emu, "HEAD~2");
    emu.reset_counters();
    let only_zone_7 = format!("dns/{}.yaml", zone(7));
    assert_cli_snapshot!(
        "reviewed_change_not_read",
        repo.dnscron(&emu, &["apply", &only_zone_7, "--reviewed", "p.json"])
    );
    assert_cli_snapshot!(
        "reviewed_change_not_read_markdown",
        repo.dnscron(
            &emu,
            &[
                "apply",
                &only_zone_7,
                "--reviewed",
                "p.json",
                "--format",
                "markdown"
            ]
        )
    );
    assert!(
        routes(&emu.counters()).keys().all(|r| r.starts_with("GET")),
        "nothing was sent"
    );
    // The accepted form: with the files the plan was made of, both changes apply.
    let out = repo
        .dnscron(&emu, &["apply", "dns", "--reviewed", "p.json"])
        .snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    assert!(has_record(&emu, 7, "new") && has_record(&emu, 8, "other"));
}
