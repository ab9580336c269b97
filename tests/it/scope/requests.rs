//! The "done when": one record added in one of 300 zone files.

use super::{Repo, emulator, one_record_added, route_counts, routes, zone, zone_yaml};
use crate::common::{assert_cli_snapshot, filters};
use dnscron_emulator::BackgroundEmulator;

#[test]
fn a_one_record_change_plans_in_3_requests_and_applies_in_3() {
    let repo = one_record_added();
    let emu = emulator();
    let plan = repo.dnscron(
        &emu,
        &[
            "plan",
            "dns",
            "--changed-since",
            "HEAD~1",
            "--out",
            "p.json",
        ],
    );
    assert_cli_snapshot!("one_record_plan", plan);
    assert_eq!(
        routes(&emu.counters()),
        route_counts(&[
            ("GET /dns/{zone}/records", 1),
            ("GET /domains/{domain}", 1),
            ("GET /domains/{domain}/registrar", 1),
        ]),
        "the plan reads the changed zone, its domain and its registrar state: no more"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo.file("p.json")).unwrap()).unwrap();
    insta::assert_json_snapshot!("one_record_plan_file_scope", saved["scope"]);
    assert_eq!(saved["desired"]["zones"].as_array().map(Vec::len), Some(1));

    emu.reset_counters();
    let apply = repo.dnscron(&emu, &["apply", "dns", "--reviewed", "p.json"]);
    assert_cli_snapshot!("one_record_apply", apply);
    assert_eq!(
        routes(&emu.counters()),
        super::one_record_applied(),
        "apply reads the zone, writes once and re-reads the zone: no registrar, no domain list"
    );
    let live = emu.state();
    assert!(
        live.zones[&zone(7)]
            .iter()
            .any(|r| r.name.starts_with("new"))
    );
}

#[test]
fn a_one_record_change_plans_as_the_full_plan_does() {
    let repo = one_record_added();
    super::assert_scoped_is_full_restricted(&repo, &emulator(), "HEAD~1");
}

#[test]
fn a_full_plan_still_reads_everything() {
    let repo = one_record_added();
    let emu = emulator();
    let out = repo.dnscron(&emu, &["plan", "dns"]).run_for_stdout();
    assert_eq!(
        routes(&emu.counters()),
        // With the account's zone list (3 pages) and site list (no site is declared) that a
        // folder's plan compares with the files.
        route_counts(&[
            ("GET /dns", 3),
            ("GET /dns/{zone}/records", 300),
            ("GET /domains", 3),
            ("GET /domains/{domain}/registrar", 300),
            ("GET /sites", 1),
        ])
    );
    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!("full_plan_one_record", out);
    });
}

#[test]
fn drift_in_another_zone_neither_blocks_nor_is_touched_by_the_apply() {
    let repo = one_record_added();
    let emu = emulator();
    save_scoped_plan(&repo, &emu);
    // Someone adds a record to zone 8 in the portal after the review.
    let drifted = zone(8);
    super::drift_added_in_portal(&emu, &drifted);
    let before = emu.state();
    emu.reset_counters();
    assert_cli_snapshot!(
        "drift_elsewhere_apply",
        repo.dnscron(&emu, &["apply", "dns", "--reviewed", "p.json"])
    );
    let after = emu.state();
    assert_eq!(
        after.zones[&drifted], before.zones[&drifted],
        "zone 8 is not touched"
    );
    assert!(
        routes(&emu.counters())
            .keys()
            .all(|r| !r.starts_with("DELETE")),
        "nothing deleted"
    );
    // A full plan (the nightly drift job) is what finds it.
    let drift = repo
        .dnscron(&emu, &["plan", "dns", "--detailed-exitcode"])
        .expect_status(2)
        .run_for_stdout();
    assert!(drift.contains(&format!("zone {drifted}")), "{drift}");
}

#[test]
fn apply_of_a_saved_scoped_plan_reads_only_its_scope() {
    let repo = one_record_added();
    let emu = emulator();
    save_scoped_plan(&repo, &emu);
    emu.reset_counters();
    assert_cli_snapshot!(
        "saved_scoped_plan_apply",
        repo.dnscron(&emu, &["apply", "--plan", "p.json"])
    );
    assert_eq!(routes(&emu.counters()), super::one_record_applied());
}

#[test]
fn apply_changed_since_refuses_a_change_of_another_changed_file_nobody_reviewed() {
    let repo = one_record_added();
    let emu = emulator();
    save_scoped_plan(&repo, &emu);
    // Another pull request, merged without its plan being applied, changed zone 8.
    repo.write(
        &format!("dns/{}.yaml", zone(8)),
        &zone_yaml(8, &[("other", "192.0.2.201")]),
    );
    repo.commit("another change");
    emu.reset_counters();
    assert_cli_snapshot!(
        "changed_since_unreviewed",
        repo.dnscron(
            &emu,
            &[
                "apply",
                "dns",
                "--reviewed",
                "p.json",
                "--changed-since",
                "HEAD~2"
            ]
        )
    );
    assert!(
        routes(&emu.counters()).keys().all(|r| r.starts_with("GET")),
        "nothing was sent"
    );
    // Without the flag the reviewed scope alone is read: zone 8 is not seen.
    emu.reset_counters();
    assert_cli_snapshot!(
        "reviewed_scope_alone",
        repo.dnscron(&emu, &["apply", "dns", "--reviewed", "p.json"])
    );
    assert_eq!(routes(&emu.counters()), super::one_record_applied());
}

/// `plan dns --changed-since HEAD~1 --out p.json`, as the PR check saves it.
fn save_scoped_plan(repo: &Repo, emu: &BackgroundEmulator) {
    super::save_plan_since(repo, emu, "HEAD~1");
}
