//! The `apply`, `plan --out` and `demo` commands, run as processes against the emulator.

use std::path::{Path, PathBuf};

use dnscron_api::{IdempotencyKey, payload};
use dnscron_emulator::{BackgroundEmulator, Seed};

use super::support::*;
use crate::common::{Test, repo_root};

fn example_emulator() -> BackgroundEmulator {
    emulator_with(Seed::example(), gap_settings()[0].clone())
}

/// The whole run (status, stdout, stderr) for a snapshot under `settings()`.
fn snapshot(test: Test) -> String {
    test.snapshot()
}

/// The stdout part of a `snapshot()`.
fn stdout_of(snapshot: &str) -> &str {
    crate::common::stdout_of(snapshot)
}

/// Relative to the repository root, where `Run` starts the binary (stable in snapshots).
fn example_paths() -> [String; 2] {
    ["examples/dns/zones".into(), "examples/dns/sites".into()]
}

/// The example zone files copied to `dir`, `edit` applied to each (name, text).
fn edited_examples(dir: &Path, edit: impl Fn(&str, String) -> String) -> PathBuf {
    let zones = repo_root().join("examples/dns/zones");
    for entry in std::fs::read_dir(&zones).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(dir.join(&name), edit(&name, text)).unwrap();
    }
    dir.to_path_buf()
}

#[test]
fn without_a_terminal_apply_needs_yes_and_sends_nothing() {
    let emu = example_emulator();
    let [zones, sites] = example_paths();
    let out = snapshot(dnscron(&emu, &["apply", &zones, &sites]));
    settings().bind(|| insta::assert_snapshot!(out));
    assert_eq!(emu.counters().requests, 0);
    // Accepted form: with --yes it runs.
    let out = snapshot(dnscron(&emu, &["apply", "--yes", &zones, &sites]));
    settings().bind(|| insta::assert_snapshot!(out));
}

#[test]
fn apply_text_output() {
    let emu = example_emulator();
    let [zones, sites] = example_paths();
    let out = snapshot(dnscron(&emu, &["apply", "--yes", &zones, &sites]));
    settings().bind(|| insta::assert_snapshot!("apply_text", out));
}

#[test]
fn apply_json_output() {
    let emu = example_emulator();
    let [zones, sites] = example_paths();
    let out = snapshot(dnscron(
        &emu,
        &["apply", "--yes", "--format", "json", &zones, &sites],
    ));
    let doc: serde_json::Value = serde_json::from_str(stdout_of(&out)).unwrap();
    assert_eq!(doc["result"], "converged");
    assert_eq!(doc["exit_code"], 0);
    assert_eq!(doc["changes"].as_array().unwrap().len(), 10);
    assert!(
        doc["changes"][0]["request_id"]
            .as_str()
            .unwrap()
            .starts_with("req_")
    );
    // The JSON report on stdout, the progress on stderr.
    settings().bind(|| insta::assert_snapshot!("apply_json", out));
}

/// example.com and example.net both have DNSSEC active; the files move both to custom
/// nameservers. The first nameserver change stops the apply; the second is not attempted.
#[test]
fn nameserver_change_under_dnssec_stops_with_exit_3() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let custom = "nameservers:\n  mode: custom\n  hosts: [ns1.other-dns.net, ns2.other-dns.net]\n";
    let root = edited_examples(dir.path(), |name, text| {
        if name == "example.com.yaml" {
            text.replace("nameservers:\n  mode: hosted\n", custom)
        } else {
            text
        }
    });
    std::fs::write(
        root.join("example.net.yaml"),
        format!(
            "zone: example.net\n{custom}records:\n  - {{ name: \"@\", type: A, content: 203.0.113.50 }}\n  - {{ name: www, type: CNAME, content: example.net. }}\n  - {{ name: api, type: A, content: 203.0.113.51 }}\n"
        ),
    )
    .unwrap();
    let root = root.display().to_string();
    let out = snapshot(dnscron(&emu, &["apply", "--yes", &root]));
    // example.org's change (DNSSEC off) went through; example.com's was refused with 409;
    // example.net's, after it, was never sent.
    let counters = emu.counters();
    assert_eq!(
        counters.route("PUT /api/v1/domains/{domain}/nameservers"),
        2,
        "{counters}"
    );
    assert_eq!(counters.per_status.get(&409), Some(&1), "{counters}");
    let state = emu.state();
    assert_eq!(
        state.registry_nameservers("example.net"),
        ["ns1.veldhost.net", "ns2.veldhost.net"]
    );
    assert_eq!(
        state.registry_nameservers("example.org"),
        ["ns1.other-dns.net", "ns2.other-dns.net"]
    );
    // The ready changes before it were done.
    assert!(
        emu.state()
            .visible_records("example.net")
            .iter()
            .any(|r| r.name == "api")
    );
    settings().bind(|| insta::assert_snapshot!("apply_portal_step", out));

    let out = snapshot(dnscron(
        &emu,
        &["apply", "--yes", "--format", "json", &root],
    ));
    settings().bind(|| insta::assert_snapshot!(out));
    let doc: serde_json::Value = serde_json::from_str(stdout_of(&out)).unwrap();
    assert_eq!(doc["result"], "needs_portal_step");
    let outcomes: Vec<&str> = doc["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["needs_portal_step", "not_attempted"], "{out}");
    assert!(
        doc["continue_url"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    assert!(doc["changes"][0]["continue_url"].is_string());
}

/// Saves a plan of `paths`; returns the file and the run (for the caller's snapshot: insta
/// names a snapshot after the test function, which must not be this shared helper).
fn save_plan(emu: &BackgroundEmulator, dir: &Path, paths: &[&str]) -> (String, String) {
    let file = dir.join("plan.json").display().to_string();
    let mut args = vec!["plan", "--out", &file];
    args.extend_from_slice(paths);
    let out = snapshot(dnscron(emu, &args));
    (file, out)
}

#[test]
fn the_same_saved_plan_applied_twice_writes_nothing_the_second_time() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let [zones, sites] = example_paths();
    let (file, saved) = save_plan(&emu, dir.path(), &[&zones, &sites]);
    settings().bind(|| insta::assert_snapshot!("plan_of_the_examples_saved", saved));
    assert_eq!(writes(&emu), 0, "plan writes nothing");
    let out = snapshot(dnscron(&emu, &["apply", "--plan", &file]));
    settings().bind(|| insta::assert_snapshot!(out));
    let after_first = writes(&emu);
    assert_eq!(after_first, 10);
    let out = snapshot(dnscron(&emu, &["apply", "--plan", &file]));
    settings().bind(|| insta::assert_snapshot!(out));
    assert_eq!(writes(&emu), after_first);
}

#[test]
fn a_stale_saved_plan_is_refused() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let [zones, sites] = example_paths();
    let (file, saved) = save_plan(&emu, dir.path(), &[&zones, &sites]);
    settings().bind(|| insta::assert_snapshot!("plan_of_the_examples_saved", saved));
    // Someone adds a record to example.org after the plan was made.
    let rt = runtime();
    let c = client(&emu.base_url(), "demo-token");
    let record = payload::RecordWrite {
        name: "new".into(),
        rtype: "A".into(),
        ttl: 300,
        content: "192.0.2.77".into(),
    };
    let key = IdempotencyKey::new("someone-else-1").unwrap();
    rt.block_on(c.create_record("example.org", &record, &key))
        .unwrap();
    let before = writes(&emu);
    let out = snapshot(dnscron(&emu, &["apply", "--plan", &file]));
    settings().bind(|| insta::assert_snapshot!(out));
    assert_eq!(writes(&emu), before, "a stale plan writes nothing");
    // A plan without the desired state (another tool's, or hand-edited) is refused with a hint.
    let json = dir.path().join("bare.json");
    let mut bare: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    bare.as_object_mut().unwrap().remove("desired");
    std::fs::write(&json, bare.to_string()).unwrap();
    let out = snapshot(dnscron(
        &emu,
        &["apply", "--plan", &json.display().to_string()],
    ));
    settings().bind(|| insta::assert_snapshot!(out));
}

/// A saved plan is applied; someone reverts its changes exactly (same record ids, same
/// contents), so the fingerprints match again and the plan is accepted; its keys replay the
/// stored successes, which are not in effect now. Verification catches it and round 1 repairs.
#[test]
fn a_stale_replay_is_repaired_in_the_same_run() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo_root().join("examples/dns/zones/example.org.yaml"),
        files.path().join("example.org.yaml"),
    )
    .unwrap();
    let files = files.path().display().to_string();
    let (file, saved) = save_plan(&emu, dir.path(), &[&files]);
    settings().bind(|| insta::assert_snapshot!(saved));
    let txt_before = emu
        .state()
        .visible_records("example.org")
        .iter()
        .find(|r| r.rtype == "TXT")
        .map(|r| (*r).clone())
        .unwrap();
    let out = snapshot(dnscron(&emu, &["apply", "--plan", &file]));
    settings().bind(|| insta::assert_snapshot!(out));

    // Revert both changes by hand.
    let rt = runtime();
    let c = client(&emu.base_url(), "demo-token");
    let old = payload::RecordWrite {
        name: txt_before.name.clone(),
        rtype: "TXT".into(),
        ttl: txt_before.ttl,
        content: txt_before.content.clone(),
    };
    rt.block_on(c.update_record(
        "example.org",
        txt_before.id,
        &old,
        &IdempotencyKey::new("revert-1").unwrap(),
    ))
    .unwrap();
    let hosted = payload::NameserversWrite {
        mode: "veldhost".into(),
        nameservers: vec![],
    };
    rt.block_on(c.put_nameservers(
        "example.org",
        &hosted,
        &IdempotencyKey::new("revert-2").unwrap(),
    ))
    .unwrap();

    let out = snapshot(dnscron(
        &emu,
        &["apply", "--plan", &file, "--format", "json"],
    ));
    let doc: serde_json::Value = serde_json::from_str(stdout_of(&out)).unwrap();
    assert_eq!(doc["result"], "converged", "{out}");
    assert_eq!(doc["rounds"], 2, "{out}");
    let changes = doc["changes"].as_array().unwrap();
    let first: Vec<&serde_json::Value> = changes.iter().filter(|c| c["round"] == 0).collect();
    let repair: Vec<&serde_json::Value> = changes.iter().filter(|c| c["round"] == 1).collect();
    assert!(
        first
            .iter()
            .all(|c| c["outcome"] == "replayed" && c["replayed"] == true)
    );
    assert_eq!(repair.len(), 2, "{out}");
    assert!(repair.iter().all(|c| c["outcome"] == "done"));
    // Round 1's keys (`-r1-`) are in the snapshot below.
    // The repair is announced, and the whole run is as expected.
    settings().bind(|| insta::assert_snapshot!(out));
    let desired = load(&[PathBuf::from(&files)]);
    assert_state_matches(&emu.state(), &desired, &[]);
}

#[test]
fn plan_detailed_exitcode_and_saved_file() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let [zones, sites] = example_paths();
    let out = snapshot(dnscron(
        &emu,
        &["plan", "--detailed-exitcode", &zones, &sites],
    ));
    settings().bind(|| insta::assert_snapshot!(out));
    let (file, saved) = save_plan(&emu, dir.path(), &[&zones, &sites]);
    settings().bind(|| insta::assert_snapshot!("plan_of_the_examples_saved", saved));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["format_version"], 5);
    assert_eq!(saved["desired"]["zones"].as_array().unwrap().len(), 3);
    let out = snapshot(dnscron(&emu, &["apply", "--plan", &file]));
    settings().bind(|| insta::assert_snapshot!(out));
    // The whole folder, with its `unmanaged:` list: nothing left to report.
    let out = snapshot(dnscron(
        &emu,
        &["plan", "--detailed-exitcode", "--stats", "examples/dns"],
    ));
    settings().bind(|| insta::assert_snapshot!(out));
}

#[test]
fn demo_plans_applies_and_finds_nothing_left() {
    // From an empty folder: the example files are compiled in.
    let elsewhere = tempfile::tempdir().unwrap();
    // The snapshot ends with the last plan's "No changes.".
    let out = Test::new()
        .arg("demo")
        .plan_stamp()
        .current_dir(elsewhere.path())
        .snapshot();
    settings().bind(|| insta::assert_snapshot!("demo", out));
}
