//! A reviewed plan made without `--changed-since` covers everything: applied with
//! `--changed-since`, it is not narrowed to what changed (apply reads the whole account and says
//! so). A reviewed change whose target apply did not read is refused as not read, never blamed
//! on the live account.

use serde_json::{Value, json};

use super::{
    Change, changes, each, emulator, json_of, one_record_added, outcomes, ready, routes,
    save_plan_since, zone, zone_yaml,
};
use crate::common::assert_cli_snapshot;

/// What the pull request adds.
fn new_record() -> Change {
    Change::create(&zone(7), "new A", 3600, "192.0.2.200")
}

/// The delete of the record added in the portal.
fn drift() -> Change {
    Change::delete(&zone(8), "drift A", 300, "192.0.2.99")
}

/// An apply report's reviewed changes it did not read, as `kind name name type`.
fn not_read(report: &Value) -> Vec<String> {
    report["not_read"]
        .as_array()
        .unwrap_or_else(|| panic!("no not_read: {report:#}"))
        .iter()
        .map(|c| {
            let r = &c["resource"];
            format!(
                "{} {} {}",
                super::target(&c["target"]),
                r["name"].as_str().unwrap(),
                r["type"].as_str().unwrap()
            )
        })
        .collect()
}

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
    // The one snapshot of the apply view that says it read the whole account.
    assert_cli_snapshot!("unscoped_review_applied", repo.dnscron(&emu, &with_base));
    let saved = super::saved_plan(&repo, "full.json");
    assert_eq!(changes(&saved), ready(&[new_record(), drift()]));
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
    // The report says so (here of the run again: already applied).
    let report = json_of(&repo, &emu, &with_base, 0);
    assert_eq!(
        (&report["result"], &report["read_whole_account"]),
        (&json!("already_applied"), &json!(true))
    );
    assert_eq!(
        outcomes(&report),
        each(&[new_record(), drift()], "already_live")
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
    let report = json_of(&repo, &emu, &apply, 0);
    assert_eq!(
        (&report["result"], &report["read_whole_account"]),
        // Absent: it read the scope alone.
        (&json!("converged"), &Value::Null)
    );
    assert_eq!(outcomes(&report), each(&[new_record()], "done"));
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
    // The one snapshot of the apply view of reviewed changes it did not read.
    assert_cli_snapshot!(
        "reviewed_change_not_read",
        repo.dnscron(&emu, &["apply", &only_zone_7, "--reviewed", "p.json"])
    );
    let apply = ["apply", &only_zone_7, "--reviewed", "p.json"];
    let (report, hint) = super::json_and_stderr(&repo, &emu, &apply, 1);
    assert!(hint.starts_with("hint: apply reads only what the files given as PATH declare"));
    assert_eq!(report["result"], "changed_since_review");
    let other = Change::create(&zone(8), "other A", 3600, "192.0.2.201");
    assert_eq!(
        not_read(&report),
        [format!("{} {}", other.target, other.record)]
    );
    assert!(
        routes(&emu.counters()).keys().all(|r| r.starts_with("GET")),
        "nothing was sent"
    );
    // The accepted form: with the files the plan was made of, both changes apply.
    let report = json_of(&repo, &emu, &["apply", "dns", "--reviewed", "p.json"], 0);
    assert_eq!(outcomes(&report), each(&[new_record(), other], "done"));
    assert!(has_record(&emu, 7, "new") && has_record(&emu, 8, "other"));
}
