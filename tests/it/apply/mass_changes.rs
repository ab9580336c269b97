//! A deliberate mass change through review (docs/ci.md, "A deliberate mass change"): a changed
//! `defaults.ttl` is refused by the TTL limit, planned with the approval, which the plan file
//! records, and applied by `apply --reviewed` with the approval given again when applying
//! (`--allow-mass-changes-in`: the file's record approves nothing by itself); the approval
//! covers that plan's changes only, so a reviewed plan without it, and the next plan, keep the
//! limits.

use std::path::Path;

use dnscron_emulator::{BackgroundEmulator, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::support::*;

/// `zone` with `count` A records `rN` at TTL 3600.
fn zone_seed(zone: &str, count: usize) -> ZoneSeed {
    let records = (1..=count)
        .map(|i| RecordSeed::new(&format!("r{i}"), "A", &format!("192.0.2.{i}")).with_ttl(3600));
    ZoneSeed::new(zone).with_records(records)
}

fn emulator(zones: Vec<ZoneSeed>) -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    for zone in zones {
        seed = seed.with_zone(zone);
    }
    emulator_with(seed, gap_settings()[0].clone())
}

/// ttl.example's file: 26 records, the last two with their own `ttl: 3600`, the rest taking
/// `defaults.ttl`.
fn ttl_zone(default_ttl: u32) -> String {
    let records: String = (1..=26)
        .map(|i| match i {
            25 | 26 => format!("  - {{ name: r{i}, type: A, content: 192.0.2.{i}, ttl: 3600 }}\n"),
            _ => format!("  - {{ name: r{i}, type: A, content: 192.0.2.{i} }}\n"),
        })
        .collect();
    format!("zone: ttl.example\ndefaults: {{ ttl: {default_ttl} }}\nrecords:\n{records}")
}

/// bulk.example's file: 30 records, those in `changed` with new content.
fn bulk_zone(changed: std::ops::Range<usize>) -> String {
    let records: String = (1..=30)
        .map(|i| match changed.contains(&i) {
            true => format!("  - {{ name: r{i}, type: A, content: 198.51.100.{i} }}\n"),
            false => format!("  - {{ name: r{i}, type: A, content: 192.0.2.{i} }}\n"),
        })
        .collect();
    format!("zone: bulk.example\nrecords:\n{records}")
}

/// A folder of zone files, as its path.
fn folder(dir: &Path, name: &str, files: &[(&str, String)]) -> String {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(f, text)| (f.to_string(), text.clone()))
        .collect();
    write_files(&dir.join(name), &files).display().to_string()
}

fn ttls(emu: &BackgroundEmulator, zone: &str) -> Vec<u32> {
    let mut ttls: Vec<u32> = emu
        .state()
        .visible_records(zone)
        .iter()
        .map(|r| r.ttl)
        .collect();
    ttls.sort_unstable();
    ttls.dedup();
    ttls
}

#[test]
fn a_changed_default_ttl_is_approved_in_its_plan_and_applied_with_nothing_to_revert() {
    let emu = emulator(vec![zone_seed("ttl.example", 26)]);
    let dir = tempfile::tempdir().unwrap();
    let zones = folder(dir.path(), "pr", &[("ttl.example.yaml", ttl_zone(300))]);
    let approved = dir.path().join("approved.json").display().to_string();
    let mut out = String::new();
    // Refused without the approval: the TTL limit, with its figures.
    out += &dnscron(&emu, &["plan", "--out", &approved, &zones]).snapshot();
    assert!(!Path::new(&approved).exists());
    // Planned with it: every view says what it covers, and the file records it.
    out += &dnscron(
        &emu,
        &["plan", "--allow-mass-changes", "--out", &approved, &zones],
    )
    .snapshot();
    for format in ["markdown", "github"] {
        out += &crate::common::Test::new()
            .args(["show", "--format", format, &approved])
            .snapshot();
    }
    settings().bind(|| insta::assert_snapshot!("mass_ttl_plans", out));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&approved).unwrap()).unwrap();
    assert_eq!(saved["options"]["allow_mass_changes"], true);
    assert_eq!(
        saved["over_limits"],
        serde_json::json!([{
            "zone": "ttl.example",
            "declared_at": format!("{zones}/ttl.example.yaml:1:7"),
            "exceeded": [{"limit": "ttl_update_percent", "ttl_updates": 24, "live": 26, "floor": 10, "max_percent": 50}],
        }])
    );
    assert_eq!(saved["summary"]["update"], 24);
    assert_eq!(saved["summary"]["update_ttl_only"], 24);

    // The plan, applied without the approval given now: refused as reviewed, nothing sent (the
    // file's own record approves nothing).
    let out = dnscron(&emu, &["apply", "--reviewed", &approved, &zones]).snapshot();
    settings().bind(|| insta::assert_snapshot!("mass_ttl_reviewed_unapproved", out));
    assert_eq!(writes(&emu), 0);
    assert_eq!(ttls(&emu, "ttl.example"), [3600]);

    // The approved plan, applied with the approval given now (in CI: the label, read by the
    // apply job): 24 writes.
    let out = dnscron(
        &emu,
        &[
            "apply",
            "--reviewed",
            &approved,
            "--allow-mass-changes-in",
            &approved,
            &zones,
        ],
    )
    .snapshot();
    assert!(out.starts_with("exit: Some(0)\n"), "{out}");
    assert_eq!(writes(&emu), 24);
    assert_eq!(ttls(&emu, "ttl.example"), [300, 3600]);
    // Nothing to revert: the files hold no `safety:` edit and match the account.
    assert!(!ttl_zone(300).contains("safety"));
    dnscron(&emu, &["plan", "--detailed-exitcode", &zones])
        .expect_stdout("Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n")
        .run();
    // The approval was that plan's: the next plan (the default put back) is limited again.
    let back = folder(dir.path(), "back", &[("ttl.example.yaml", ttl_zone(3600))]);
    let out = dnscron(&emu, &["plan", &back]).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(
        out.contains("would change the TTL of 24 of 26 live records"),
        "{out}"
    );
}

#[test]
fn an_approval_covers_its_own_plan_only_when_reviewed_plans_are_applied_together() {
    let emu = emulator(vec![
        zone_seed("ttl.example", 26),
        zone_seed("bulk.example", 30),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let plan = |name: &str, files: &[(&str, String)], approve: bool| {
        let zones = folder(dir.path(), name, files);
        let file = dir
            .path()
            .join(format!("{name}.json"))
            .display()
            .to_string();
        let mut args = vec!["plan", "--out", &file, &zones];
        if approve {
            args.insert(1, "--allow-mass-changes");
        }
        dnscron(&emu, &args).run_for_stdout();
        file
    };
    // Three pull requests opened on the same main: A (approved) changes the default TTL, B and
    // C (each within the limits, so not approved) change the content of 8 bulk records each.
    let a = plan(
        "a",
        &[
            ("ttl.example.yaml", ttl_zone(300)),
            ("bulk.example.yaml", bulk_zone(0..0)),
        ],
        true,
    );
    let b = plan(
        "b",
        &[
            ("ttl.example.yaml", ttl_zone(3600)),
            ("bulk.example.yaml", bulk_zone(1..9)),
        ],
        false,
    );
    let c = plan(
        "c",
        &[
            ("ttl.example.yaml", ttl_zone(3600)),
            ("bulk.example.yaml", bulk_zone(9..17)),
        ],
        false,
    );
    let all_merged = folder(
        dir.path(),
        "abc",
        &[
            ("ttl.example.yaml", ttl_zone(300)),
            ("bulk.example.yaml", bulk_zone(1..17)),
        ],
    );
    // Refused: B's and C's 16 content updates of 30 go past the limit, and no approval covers
    // them (A's covers A's TTL changes, which are not counted); nothing sent.
    let out = dnscron(
        &emu,
        &[
            "apply",
            "--reviewed",
            &a,
            "--reviewed",
            &b,
            "--reviewed",
            &c,
            "--allow-mass-changes-in",
            &a,
            &all_merged,
        ],
    )
    .snapshot();
    settings().bind(|| insta::assert_snapshot!("mass_union_unapproved_part", out));
    assert_eq!(writes(&emu), 0);
    // Accepted: A and B merged: A's 24 TTL changes under A's approval, B's 8 within the limits.
    let ab_merged = folder(
        dir.path(),
        "ab",
        &[
            ("ttl.example.yaml", ttl_zone(300)),
            ("bulk.example.yaml", bulk_zone(1..9)),
        ],
    );
    let out = dnscron(
        &emu,
        &[
            "apply",
            "--reviewed",
            &a,
            "--reviewed",
            &b,
            "--allow-mass-changes-in",
            &a,
            &ab_merged,
        ],
    )
    .snapshot();
    assert!(out.starts_with("exit: Some(0)\n"), "{out}");
    assert_eq!(writes(&emu), 32);
    assert_eq!(ttls(&emu, "ttl.example"), [300, 3600]);
}
