//! The "done when": one record added in one of 300 zone files.

use super::{
    Change, Repo, changes, each, emulator, json_of, one_record_added, outcomes, ready,
    route_counts, routes, saved_plan, scope, zone, zone_yaml,
};
use crate::common::assert_cli_snapshot;
use dnscron_emulator::BackgroundEmulator;

/// What the pull request adds.
fn new_record() -> Change {
    Change::create(&zone(7), "new A", 3600, "192.0.2.200")
}

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
    // The one snapshot of a scoped plan's text: its header says what was read and what not.
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
    let saved = saved_plan(&repo, "p.json");
    assert_eq!(
        scope(&saved),
        (
            "HEAD~1".into(),
            "c7d2c326eb2a".into(),
            vec![format!("zone {}", zone(7))]
        )
    );
    assert_eq!(changes(&saved), ready(&[new_record()]));
    assert_eq!(saved["desired"]["zones"].as_array().map(Vec::len), Some(1));

    emu.reset_counters();
    let report = json_of(&repo, &emu, &["apply", "dns", "--reviewed", "p.json"], 0);
    assert_eq!(report["result"], "converged");
    assert_eq!(outcomes(&report), each(&[new_record()], "done"));
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
    let plan = json_of(&repo, &emu, &["plan", "dns"], 0);
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
    assert_eq!(changes(&plan), ready(&[new_record()]));
    assert!(plan["scope"].is_null(), "{plan:#}");
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
    let report = json_of(&repo, &emu, &["apply", "dns", "--reviewed", "p.json"], 0);
    assert_eq!(report["result"], "converged");
    assert_eq!(outcomes(&report), each(&[new_record()], "done"));
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
    let drift = json_of(&repo, &emu, &["plan", "dns", "--detailed-exitcode"], 2);
    assert_eq!(
        changes(&drift),
        ready(&[Change::delete(&drifted, "drift A", 300, "192.0.2.99")])
    );
}

#[test]
fn apply_of_a_saved_scoped_plan_reads_only_its_scope() {
    let repo = one_record_added();
    let emu = emulator();
    save_scoped_plan(&repo, &emu);
    emu.reset_counters();
    let report = json_of(&repo, &emu, &["apply", "--plan", "p.json"], 0);
    assert_eq!(report["result"], "converged");
    assert_eq!(outcomes(&report), each(&[new_record()], "done"));
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
    let apply = [
        "apply",
        "dns",
        "--reviewed",
        "p.json",
        "--changed-since",
        "HEAD~2",
    ];
    let refused = super::refusal(&repo, &emu, &apply, 1);
    assert!(
        refused.contains(&format!("zone {}: + other A 192.0.2.201", zone(8))),
        "the unreviewed change is named: {refused}"
    );
    assert!(
        routes(&emu.counters()).keys().all(|r| r.starts_with("GET")),
        "nothing was sent"
    );
    // Without the flag the reviewed scope alone is read: zone 8 is not seen.
    emu.reset_counters();
    let report = json_of(&repo, &emu, &["apply", "dns", "--reviewed", "p.json"], 0);
    assert_eq!(outcomes(&report), each(&[new_record()], "done"));
    assert_eq!(routes(&emu.counters()), super::one_record_applied());
}

/// `plan dns --changed-since HEAD~1 --out p.json`, as the PR check saves it.
fn save_scoped_plan(repo: &Repo, emu: &BackgroundEmulator) {
    super::save_plan_since(repo, emu, "HEAD~1");
}
