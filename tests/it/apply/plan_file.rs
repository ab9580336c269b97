//! What a saved plan carries to `apply --plan` / `--reviewed`: the lifted safety limits only
//! when the plan records them, TXT text exactly as the files hold it, and nothing from a
//! hostile file (docs/plan.md, "Loading a plan file").

use std::path::Path;

use dnscron_core::dns::{RecordType, ZoneName, canonical_content};
use dnscron_emulator::{BackgroundEmulator, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::Test;

fn emulator_of(zone: ZoneSeed) -> BackgroundEmulator {
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(zone);
    emulator_with(seed, gap_settings()[0].clone())
}

/// mass.example with 66 A records; the files keep 6, so a plan deletes 60 (past
/// `max_deletes: 50` and the 30 % rule).
fn mass_emulator() -> BackgroundEmulator {
    let records = (1..=66).map(|i| RecordSeed::new(&format!("r{i}"), "A", &format!("192.0.2.{i}")));
    emulator_of(ZoneSeed::new("mass.example").with_records(records))
}

fn mass_files(dir: &Path) -> String {
    let records: String = (1..=6)
        .map(|i| format!("  - {{ name: r{i}, type: A, content: 192.0.2.{i} }}\n"))
        .collect();
    let zones = dir.join("zones");
    write_files(
        &zones,
        &[(
            "mass.example.yaml".into(),
            format!("zone: mass.example\nrecords:\n{records}"),
        )],
    );
    zones.display().to_string()
}

fn records_left(emu: &BackgroundEmulator, zone: &str) -> usize {
    emu.state().visible_records(zone).len()
}

#[test]
fn a_plan_made_with_allow_mass_changes_says_so_and_only_such_a_plan_lifts_the_limits() {
    let emu = mass_emulator();
    let dir = tempfile::tempdir().unwrap();
    let zones = mass_files(dir.path());
    let file = dir.path().join("plan.json").display().to_string();
    // Refused form: without the flag there is no plan.
    let out = dnscron(&emu, &["plan", "--out", &file, &zones]).snapshot();
    settings().bind(|| insta::assert_snapshot!("mass_plan_refused", out));
    // Accepted form: with it, every view tells the reviewer.
    let out = dnscron(
        &emu,
        &["plan", "--allow-mass-changes", "--out", &file, &zones],
    )
    .snapshot();
    settings().bind(|| insta::assert_snapshot!("mass_plan_allowed_text", out));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["options"]["allow_mass_changes"], true);
    for format in ["markdown", "github"] {
        let out = Test::new()
            .args(["show", "--format", format, &file])
            .snapshot();
        settings().bind(|| insta::assert_snapshot!(format!("mass_plan_allowed_{format}"), out));
    }
    // The same plan without the record: the limits hold, nothing is sent.
    let unrecorded = edited(&file, "unrecorded.json", |doc| {
        doc["options"]["allow_mass_changes"] = false.into();
    });
    let out = dnscron(&emu, &["apply", "--plan", &unrecorded]).snapshot();
    settings().bind(|| insta::assert_snapshot!("mass_apply_plan_unrecorded", out));
    let out = dnscron(&emu, &["apply", "--reviewed", &unrecorded, &zones]).snapshot();
    settings().bind(|| insta::assert_snapshot!("mass_apply_reviewed_unrecorded", out));
    assert_eq!(writes(&emu), 0);
    assert_eq!(records_left(&emu, "mass.example"), 66);
    // The plan as made: applied, as its reviewer saw it.
    let out = dnscron(&emu, &["apply", "--plan", &file]).snapshot();
    assert!(out.starts_with("exit: Some(0)\n"), "{out}");
    assert_eq!(writes(&emu), 60);
    assert_eq!(records_left(&emu, "mass.example"), 6);
}

/// A reviewed plan's record of `--allow-mass-changes` approves nothing by itself (whoever made
/// the file wrote it: in CI, a pull request's run); the approval is given when applying.
#[test]
fn apply_reviewed_takes_the_approval_from_its_caller_never_from_the_plan_file() {
    let emu = mass_emulator();
    let dir = tempfile::tempdir().unwrap();
    let zones = mass_files(dir.path());
    let file = dir.path().join("plan.json").display().to_string();
    dnscron(
        &emu,
        &["plan", "--allow-mass-changes", "--out", &file, &zones],
    )
    .run_for_stdout();
    // Refused: the file records the approval, nobody gave it now; nothing sent.
    let out = dnscron(&emu, &["apply", "--reviewed", &file, &zones]).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(out.contains("--allow-mass-changes-in PLAN_FILE"), "{out}");
    assert_eq!(writes(&emu), 0);
    // Refused: an approval of a file that is not one of the reviewed plans.
    let other = dir.path().join("other.json").display().to_string();
    let out = dnscron(
        &emu,
        &[
            "apply",
            "--reviewed",
            &file,
            "--allow-mass-changes-in",
            &other,
            &zones,
        ],
    )
    .snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(out.contains("names no --reviewed plan"), "{out}");
    assert_eq!(writes(&emu), 0);
    // Accepted: approved now, for that plan.
    let out = dnscron(
        &emu,
        &[
            "apply",
            "--reviewed",
            &file,
            "--allow-mass-changes-in",
            &file,
            &zones,
        ],
    )
    .snapshot();
    assert!(out.starts_with("exit: Some(0)\n"), "{out}");
    assert_eq!(records_left(&emu, "mass.example"), 6);
}

/// The TXT text stored in the emulator, read back as the planner reads it.
fn txt_text(emu: &BackgroundEmulator, name: &str) -> String {
    let zone = ZoneName::parse("txt.example").unwrap();
    let state = emu.state();
    let record = state
        .visible_records("txt.example")
        .into_iter()
        .find(|r| r.name.trim_end_matches('.').split('.').next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} in {state:?}"));
    canonical_content(RecordType::TXT, &record.content, &zone).unwrap()
}

#[test]
fn txt_with_surrounding_spaces_or_a_control_character_is_written_through_a_saved_plan() {
    let emu = emulator_of(
        ZoneSeed::new("txt.example")
            .with_record(RecordSeed::new("t1", "TXT", "old"))
            .with_record(RecordSeed::new("t2", "TXT", "old")),
    );
    let dir = tempfile::tempdir().unwrap();
    let zones = dir.path().join("zones");
    write_files(
        &zones,
        &[(
            "txt.example.yaml".into(),
            "zone: txt.example\nrecords:\n  - { name: t1, type: TXT, content: '\" hello \"' }\n  - { name: t2, type: TXT, content: \"a\\x7fb\" }\n".into(),
        )],
    );
    let zones = zones.display().to_string();
    let file = dir.path().join("plan.json").display().to_string();
    dnscron(&emu, &["plan", "--out", &file, &zones]).run_for_stdout();
    let out = dnscron(&emu, &["apply", "--plan", &file]).snapshot();
    settings().bind(|| insta::assert_snapshot!("txt_apply_plan", out));
    assert_eq!(txt_text(&emu, "t1"), " hello ");
    assert_eq!(txt_text(&emu, "t2"), "a\u{7f}b");
    // The files and the account agree now: nothing left to plan.
    dnscron(&emu, &["plan", "--detailed-exitcode", &zones])
        .expect_stdout("Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n")
        .run();
}

#[test]
fn a_hostile_plan_file_is_refused_with_its_place_and_nothing_is_sent() {
    let emu = mass_emulator();
    let dir = tempfile::tempdir().unwrap();
    let zones = dir.path().join("zones");
    write_files(
        &zones,
        &[(
            "mass.example.yaml".into(),
            "zone: mass.example\nprune: false\nrecords:\n  - { name: new, type: A, content: 192.0.2.200 }\n".into(),
        )],
    );
    let file = dir.path().join("plan.json").display().to_string();
    dnscron(
        &emu,
        &["plan", "--out", &file, &zones.display().to_string()],
    )
    .run_for_stdout();
    let requests = emu.counters().requests;
    let long_id = "a".repeat(10_000);
    let cases: [(&str, &str, &str); 4] = [
        ("api_url", "", "empty_api_url.json"),
        ("plan_id", "../../etc/x", "dotted_plan_id.json"),
        (
            "plan_id",
            "id\u{1b}[2J\u{1b}]0;owned\u{7}",
            "escape_plan_id.json",
        ),
        ("plan_id", &long_id, "long_plan_id.json"),
    ];
    let mut outs = String::new();
    for (key, value, name) in cases {
        let hostile = edited(&file, name, |doc| doc[key] = value.into());
        outs.push_str(&dnscron(&emu, &["apply", "--plan", &hostile]).snapshot());
    }
    // Too large: refused from its size, unread (a sparse file costs no disk).
    let big = dir.path().join("big.json");
    let handle = std::fs::File::create(&big).unwrap();
    handle
        .set_len(dnscron_core::plan_file::MAX_BYTES as u64 + 1)
        .unwrap();
    outs.push_str(&dnscron(&emu, &["apply", "--plan", &big.display().to_string()]).snapshot());
    settings().bind(|| insta::assert_snapshot!("hostile_plan_files", outs));
    assert_eq!(emu.counters().requests, requests, "nothing was sent");
}
