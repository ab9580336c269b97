//! A reviewed plan made without `--changed-since` covers everything: applied with
//! `--changed-since`, it is not narrowed to what changed (apply reads the whole account and says
//! so). A reviewed change whose target apply did not read is refused as not read, never blamed
//! on the live account.

use super::{Repo, emulator, route_counts, routes, zone, zone_yaml};
use crate::common::assert_cli_snapshot;

/// The repository after one pull request's commit: `new.z007.example` added.
fn one_pr() -> Repo {
    let repo = Repo::with_zone_files();
    repo.write(
        &format!("dns/{}.yaml", zone(7)),
        &zone_yaml(7, &[("new", "192.0.2.200")]),
    );
    repo.commit("one record");
    repo
}

fn has_record(emu: &dnscron_emulator::BackgroundEmulator, zone_index: usize, name: &str) -> bool {
    emu.state().zones[&zone(zone_index)]
        .iter()
        .any(|r| r.name.starts_with(name))
}

/// Adds `drift.z008.example` in the portal: a full plan deletes it, a plan of what changed in
/// the files does not see it.
fn drift_in_zone_8(emu: &dnscron_emulator::BackgroundEmulator) {
    let api = crate::common::emulator::Api::new(&emu.base_url(), super::TOKEN);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let resp = rt.block_on(api.post(
        &format!("/dns/{}/records", zone(8)),
        serde_json::json!({"name": "drift", "type": "A", "content": "192.0.2.99", "ttl": 300}),
    ));
    assert_eq!(resp.status, 201, "{:?}", resp.body);
}

#[test]
fn an_unscoped_reviewed_plan_applied_with_changed_since_reads_everything_and_applies() {
    let repo = one_pr();
    let emu = emulator();
    drift_in_zone_8(&emu);
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
    let repo = one_pr();
    let emu = emulator();
    repo.dnscron(
        &emu,
        &[
            "plan",
            "dns",
            "--changed-since",
            "HEAD~1",
            "--out",
            "p.json",
        ],
    )
    .run_for_stdout();
    emu.reset_counters();
    let out = repo
        .dnscron(
            &emu,
            &[
                "apply",
                "dns",
                "--reviewed",
                "p.json",
                "--changed-since",
                "HEAD~1",
            ],
        )
        .snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    assert!(!out.contains("whole account"), "{out}");
    assert_eq!(
        routes(&emu.counters()),
        route_counts(&[
            ("GET /dns/{zone}/records", 2),
            ("POST /dns/{zone}/records", 1),
        ])
    );
}

#[test]
fn a_reviewed_change_of_a_file_not_given_is_refused_as_not_read() {
    let repo = one_pr();
    repo.write(
        &format!("dns/{}.yaml", zone(8)),
        &zone_yaml(8, &[("other", "192.0.2.201")]),
    );
    repo.commit("another record");
    let emu = emulator();
    repo.dnscron(
        &emu,
        &[
            "plan",
            "dns",
            "--changed-since",
            "HEAD~2",
            "--out",
            "p.json",
        ],
    )
    .run_for_stdout();
    emu.reset_counters();
    let only_zone_7 = format!("dns/{}.yaml", zone(7));
    assert_cli_snapshot!(
        "reviewed_change_not_read",
        repo.dnscron(&emu, &["apply", &only_zone_7, "--reviewed", "p.json"])
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
