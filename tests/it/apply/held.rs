//! Error findings hold the writes they are about (docs/apply.md, "What apply refuses"): the
//! octoDNS habit `content: 'v=DMARC1\; p=reject'` is refused by apply of the files, of a
//! reviewed plan and of a saved plan, with nothing sent (exit 4); a finding on a record set no
//! change writes holds nothing, and a delete is never held.

use std::path::Path;

use dnscron_api::WriteClient;
use dnscron_core::apply::workflow::{Binding, HeldIn, Refusal, Workflow};
use dnscron_core::config::model::Desired;
use dnscron_core::plan::{FindingCode, Status};
use dnscron_emulator::{BackgroundEmulator, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::support::*;

const ZONE: &str = "held.example";
const BROKEN: &str = "  - { name: _dmarc, type: TXT, content: 'v=DMARC1\\; p=reject' }\n";
const FIXED: &str = "  - { name: _dmarc, type: TXT, content: 'v=DMARC1; p=reject' }\n";
const WWW: &str = "  - { name: www, type: A, content: 192.0.2.1 }\n";
const WWW_MOVED: &str = "  - { name: www, type: A, content: 192.0.2.2 }\n";

/// `dns/held.yaml` under `dir` with `records`.
fn files(dir: &Path, records: &[&str]) {
    let dns = dir.join("dns");
    std::fs::create_dir_all(&dns).unwrap();
    let text = format!("zone: {ZONE}\nrecords:\n{}", records.concat());
    std::fs::write(dns.join("held.yaml"), text).unwrap();
}

fn emulator(records: &[(&str, &str, &str)]) -> BackgroundEmulator {
    let zone = records
        .iter()
        .fold(ZoneSeed::new(ZONE), |zone, (name, rtype, content)| {
            zone.with_record(RecordSeed::new(name, rtype, content))
        });
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(zone);
    emulator_with(seed, gap_settings()[0].clone())
}

/// The live records of the zone, `name type content` each, sorted.
fn live(emu: &BackgroundEmulator) -> Vec<String> {
    let state = emu.state();
    let mut out: Vec<String> = state
        .visible_records(ZONE)
        .iter()
        .map(|r| format!("{} {} {}", r.name, r.rtype, r.content))
        .collect();
    out.sort();
    out
}

fn run(emu: &BackgroundEmulator, dir: &Path, args: &[&str]) -> String {
    dnscron(emu, args).current_dir(dir).snapshot()
}

/// The broken DMARC record in the files, loaded, and an empty zone live: for the library's entries.
struct Library {
    emu: BackgroundEmulator,
    desired: Desired,
    rt: tokio::runtime::Runtime,
    client: WriteClient,
    _dir: tempfile::TempDir,
}

fn library() -> Library {
    let emu = emulator(&[]);
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), &[WWW, BROKEN]);
    let client = client(&emu.base_url(), "demo-token");
    Library {
        desired: load(&[dir.path().join("dns")]),
        rt: runtime(),
        client,
        emu,
        _dir: dir,
    }
}

/// `plan --out FILE dns/` under `dir`, which must succeed.
fn save_plan(emu: &BackgroundEmulator, dir: &Path, file: &str) {
    let planned = run(emu, dir, &["-q", "plan", "--out", file, "dns/"]);
    assert!(planned.starts_with("exit: Some(0)"), "{planned}");
}

#[test]
fn apply_of_the_files_refuses_a_held_dmarc_record_and_sends_nothing() {
    let emu = emulator(&[]);
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), &[WWW, BROKEN]);
    let refused = run(&emu, dir.path(), &["apply", "--yes", "dns/"]);
    assert_eq!(writes(&emu), 0, "a held change sends nothing: {refused}");
    assert!(live(&emu).is_empty(), "{:?}", live(&emu));
    settings().bind(|| insta::assert_snapshot!("held_apply_of_files", refused));

    // Accepted form: the record fixed, the same apply writes both records.
    files(dir.path(), &[WWW, FIXED]);
    let applied = run(&emu, dir.path(), &["-q", "apply", "--yes", "dns/"]);
    assert!(applied.starts_with("exit: Some(0)"), "{applied}");
    assert_eq!(
        live(&emu),
        ["_dmarc TXT v=DMARC1; p=reject", "www A 192.0.2.1"]
    );
}

#[test]
fn the_plan_a_person_would_confirm_is_refused_before_the_question() {
    let lib = library();
    let workflow = Workflow::files(&lib.client, lib.desired.clone(), Binding::Confirmed);
    let prepared = lib.rt.block_on(workflow.prepare());
    let Err(Refusal::HeldByFinding { held, plan }) = prepared else {
        panic!("not refused as held");
    };
    assert_eq!(plan, HeldIn::Now);
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].change.status, Status::HeldByFinding);
    let codes: Vec<FindingCode> = held[0].findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, [FindingCode::DmarcOctodnsEscape]);
    assert_eq!(writes(&lib.emu), 0);
}

#[test]
fn a_reviewed_or_saved_plan_that_holds_a_change_is_refused_with_nothing_sent() {
    let emu = emulator(&[]);
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), &[WWW, BROKEN]);
    save_plan(&emu, dir.path(), "plan.json");

    let reviewed = run(
        &emu,
        dir.path(),
        &["apply", "--reviewed", "plan.json", "dns/"],
    );
    assert_eq!(writes(&emu), 0, "{reviewed}");
    let saved = run(&emu, dir.path(), &["apply", "--plan", "plan.json"]);
    assert_eq!(writes(&emu), 0, "{saved}");
    // Even with the files fixed since, the reviewed plan still holds the change: its reviewer
    // saw it held, so it is never applied.
    files(dir.path(), &[WWW, FIXED]);
    let fixed_since = run(
        &emu,
        dir.path(),
        &["apply", "--reviewed", "plan.json", "dns/"],
    );
    assert_eq!(writes(&emu), 0, "{fixed_since}");
    assert!(live(&emu).is_empty(), "{:?}", live(&emu));
    settings().bind(|| {
        insta::assert_snapshot!(
            "held_reviewed_and_saved",
            format!(
                "### apply --reviewed\n{reviewed}\n### apply --plan\n{saved}\n### apply --reviewed, the files fixed since\n{fixed_since}"
            )
        )
    });
}

/// A plan reviewed while the record was valid, applied with files that now break it: the plan
/// made now holds the change, which is refused as held (not merely as unreviewed). A saved plan
/// whose file says nothing is held is judged again from its own desired state.
#[test]
fn what_the_files_hold_now_is_refused_whatever_the_plan_file_says() {
    let emu = emulator(&[]);
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), &[WWW, FIXED]);
    save_plan(&emu, dir.path(), "fixed.json");
    files(dir.path(), &[WWW, BROKEN]);
    let reviewed = run(
        &emu,
        dir.path(),
        &["apply", "--reviewed", "fixed.json", "dns/"],
    );
    assert_eq!(writes(&emu), 0, "{reviewed}");

    // A plan file edited to say the broken record is ready: its desired state still holds it.
    save_plan(&emu, dir.path(), "broken.json");
    let path = dir.path().join("broken.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for change in doc["changes"].as_array_mut().unwrap() {
        change["status"] = "ready".into();
        change.as_object_mut().unwrap().remove("reason");
    }
    for finding in doc["findings"].as_array_mut().unwrap() {
        finding.as_object_mut().unwrap().remove("change_ids");
    }
    doc["summary"]["held"] = 0.into();
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let saved = run(&emu, dir.path(), &["apply", "--plan", "broken.json"]);
    assert_eq!(writes(&emu), 0, "{saved}");
    assert!(live(&emu).is_empty(), "{:?}", live(&emu));
    settings().bind(|| {
        insta::assert_snapshot!(
            "held_now_whatever_the_plan_file_says",
            format!("### apply --reviewed of the fixed plan\n{reviewed}\n### apply --plan of an edited plan file\n{saved}")
        )
    });
}

#[test]
fn a_finding_on_a_record_set_no_change_writes_holds_nothing() {
    let emu = emulator(&[
        ("www", "A", "192.0.2.1"),
        ("_dmarc", "TXT", "v=DMARC1\\; p=reject"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), &[WWW_MOVED, BROKEN]);
    let applied = run(&emu, dir.path(), &["apply", "--yes", "dns/"]);
    settings().bind(|| insta::assert_snapshot!("held_nothing_elsewhere_in_the_zone", applied));
    assert_eq!(
        live(&emu),
        ["_dmarc TXT v=DMARC1\\; p=reject", "www A 192.0.2.2"]
    );
}

#[test]
fn a_delete_beside_a_finding_is_not_held() {
    let emu = emulator(&[
        ("_dmarc", "TXT", "v=DMARC1\\; p=reject"),
        ("_dmarc", "TXT", "v=DMARC1; p=none"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    files(dir.path(), &[BROKEN]);
    let applied = run(&emu, dir.path(), &["apply", "--yes", "dns/"]);
    settings().bind(|| insta::assert_snapshot!("held_no_delete", applied));
    assert_eq!(live(&emu), ["_dmarc TXT v=DMARC1\\; p=reject"]);
}

/// A caller of `apply::apply` that skips the workflow's refusal still sends nothing: the held
/// change runs first and fails unsent, and every other change is not attempted.
#[test]
fn the_executor_never_sends_a_held_change() {
    let lib = library();
    let plan = make_plan(&lib.rt, &lib.client, &lib.desired);
    assert_eq!(plan.summary.held, 1);
    let report = run_apply(&lib.rt, &lib.client, &plan);
    let dnscron_core::apply::ApplyResult::Failed { change_id, error } = &report.result else {
        panic!("{:?}", report.result);
    };
    assert_eq!(*change_id, plan.changes[0].id);
    assert_eq!(error.kind.as_deref(), Some("held_by_finding"));
    let outcomes: Vec<_> = report.changes.iter().map(|c| (c.id, c.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            (1, dnscron_core::apply::ChangeOutcome::Failed),
            (2, dnscron_core::apply::ChangeOutcome::NotAttempted)
        ]
    );
    assert_eq!(writes(&lib.emu), 0);
}

/// The same broken record with the finding accepted in the zone file: nothing is held, the plan
/// shows the finding as accepted, a reviewed plan of it applies, and the PR check's `held` is 0.
#[test]
fn an_accepted_finding_holds_nothing_and_the_reviewed_plan_applies() {
    let emu = emulator(&[]);
    let dir = tempfile::tempdir().unwrap();
    let accept = "accept:\n  - { finding: dmarc-octodns-escape, name: _dmarc, reason: \"the mail team fixes it this week\" }\n";
    files(dir.path(), &[WWW, BROKEN]);
    let path = dir.path().join("dns/held.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}{accept}")).unwrap();
    save_plan(&emu, dir.path(), "plan.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("plan.json")).unwrap())
            .unwrap();
    assert_eq!(saved["summary"]["held"], 0);
    let statuses: Vec<&str> = saved["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ready", "ready"]);
    let finding = saved["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "dmarc-octodns-escape")
        .unwrap();
    assert_eq!(
        finding["accepted"]["reason"],
        "the mail team fixes it this week"
    );
    let applied = run(
        &emu,
        dir.path(),
        &["-q", "apply", "--reviewed", "plan.json", "dns/"],
    );
    assert!(applied.starts_with("exit: Some(0)"), "{applied}");
    assert_eq!(
        live(&emu),
        ["_dmarc TXT v=DMARC1\\; p=reject", "www A 192.0.2.1"]
    );
}
