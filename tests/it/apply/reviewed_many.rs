//! `apply --reviewed A --reviewed B PATH`: the union of several reviewed plans is what may be
//! applied (docs/apply.md, "Several reviewed plans"). Two pull requests merged before either
//! was applied go through in one apply, under an id derived from both plans (the same for a
//! re-run, in any order); a change in neither plan, and plans made against different API URLs,
//! are refused with nothing sent.

use std::path::Path;

use dnscron_emulator::{BackgroundEmulator, Seed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::Test;

fn dnscron(emu: &BackgroundEmulator, args: &[&str]) -> String {
    Test::new()
        .args(args)
        .api(&emu.base_url(), "demo-token")
        .plan_stamp()
        .snapshot()
}

const MAIN: &str =
    "zone: pr.example\nrecords:\n  - { name: \"@\", type: A, content: 192.0.2.10 }\n";
const ONE: &str = "  - { name: one, type: A, content: 192.0.2.1 }\n";
const TWO: &str = "  - { name: two, type: TXT, content: \"second pr\" }\n";
const THREE: &str = "  - { name: three, type: A, content: 192.0.2.3 }\n";

/// main's zone file plus `extra`, in a folder of its own.
fn branch(dir: &Path, name: &str, extra: &[&str]) -> String {
    let root = dir.join(name);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("pr.yaml"), format!("{MAIN}{}", extra.concat())).unwrap();
    root.display().to_string()
}

/// An account that is main, and the plans of PR 1 (`+ one`) and PR 2 (`+ two`), both made
/// against it: as when both merge before the apply of the first runs.
struct Merged {
    dir: tempfile::TempDir,
    emu: BackgroundEmulator,
    pr1: String,
    pr2: String,
}

fn two_prs() -> Merged {
    let dir = tempfile::tempdir().unwrap();
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("pr.example"));
    let emu = emulator_with(seed, gap_settings()[0].clone());
    let main = branch(dir.path(), "main", &[]);
    let out = dnscron(&emu, &["-q", "apply", "--yes", &main]);
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let pr1 = dir.path().join("pr1.json").display().to_string();
    let pr2 = dir.path().join("pr2.json").display().to_string();
    for (file, extra) in [(&pr1, ONE), (&pr2, TWO)] {
        let files = branch(dir.path(), &format!("head-{extra:.10}"), &[extra]);
        let out = dnscron(&emu, &["-q", "plan", "--out", file, &files]);
        assert!(out.starts_with("exit: Some(0)"), "{out}");
    }
    Merged { dir, emu, pr1, pr2 }
}

#[test]
fn two_reviewed_plans_apply_their_union_under_one_id_of_the_pair() {
    let m = two_prs();
    let both = branch(m.dir.path(), "main-after-both", &[ONE, TWO]);
    let applied = dnscron(
        &m.emu,
        &["apply", "--reviewed", &m.pr1, "--reviewed", &m.pr2, &both],
    );
    assert!(applied.starts_with("exit: Some(0)"), "{applied}");
    assert_state_matches(&m.emu.state(), &load(&[both.clone().into()]), &[]);
    // A re-run with the same plans, named in the other order: nothing to send.
    let writes_before = writes(&m.emu);
    let rerun = dnscron(
        &m.emu,
        &["apply", "--reviewed", &m.pr2, "--reviewed", &m.pr1, &both],
    );
    assert_eq!(writes(&m.emu), writes_before, "{rerun}");
    settings().bind(|| {
        insta::assert_snapshot!("reviewed_many_applied", applied);
        insta::assert_snapshot!("reviewed_many_rerun", rerun);
    });
}

#[test]
fn a_change_in_neither_reviewed_plan_is_refused() {
    let m = two_prs();
    let three = branch(m.dir.path(), "main-with-three", &[ONE, TWO, THREE]);
    let writes_before = writes(&m.emu);
    let refused = dnscron(
        &m.emu,
        &["apply", "--reviewed", &m.pr1, "--reviewed", &m.pr2, &three],
    );
    assert_eq!(writes(&m.emu), writes_before, "nothing is sent");
    settings().bind(|| insta::assert_snapshot!("reviewed_many_change_in_neither", refused));
}

#[test]
fn plans_made_against_different_apis_are_refused() {
    let m = two_prs();
    let other = m.dir.path().join("other-account.json");
    let mut plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&m.pr2).unwrap()).unwrap();
    plan["api_url"] = "https://api.other-host.example/api/v1".into();
    std::fs::write(&other, plan.to_string()).unwrap();
    let other = other.display().to_string();
    let both = branch(m.dir.path(), "main-after-both", &[ONE, TWO]);
    let writes_before = writes(&m.emu);
    let refused = dnscron(
        &m.emu,
        &["apply", "--reviewed", &m.pr1, "--reviewed", &other, &both],
    );
    assert_eq!(writes(&m.emu), writes_before, "nothing is sent");
    settings().bind(|| insta::assert_snapshot!("reviewed_many_mixed_api_urls", refused));
}
