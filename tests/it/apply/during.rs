//! Verification repairs only the plan (docs/apply.md, "The contract"): someone edits the
//! account in the portal while apply runs, here at the one moment that makes the race certain
//! (after apply's writes, before it reads again: `Progress::note(Verifying)`), and apply
//! neither reverts nor deletes what they did; it reports it. A change of the plan whose own
//! write did not take (a stale replay) is still sent again.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use dnscron_api::{IdempotencyKey, WaitEvent, WriteClient, WriteResponse, payload};
use dnscron_core::apply::{
    self, ApplyOptions, ApplyReport, ApplyResult, ChangeOutcome, ChangeReport,
};
use dnscron_core::apply::{Moved, Note, Progress};
use dnscron_core::plan::{Change, Plan, Resource, Value};
use dnscron_emulator::{BackgroundEmulator, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::mask_ports;

const ZONE: &str = "pr.example";

/// The files: `www` moves to .11 and `two` is new; `api` stays as it is.
const FILES: &str = "zone: pr.example
records:
  - { name: \"@\", type: A, content: 192.0.2.10, ttl: 300 }
  - { name: www, type: A, content: 192.0.2.11, ttl: 300 }
  - { name: api, type: A, content: 192.0.2.20, ttl: 300 }
  - { name: two, type: A, content: 192.0.2.2, ttl: 300 }
";

const JOB: (&str, &str) = ("*/5 * * * *", "php artisan schedule:run");
const NEW_JOB: (&str, &str) = ("0 3 * * *", "php bin/report.php");
const PERSONS_JOB: (&str, &str) = ("15 4 * * *", "php bin/hotfix.php");

fn seed() -> Seed {
    let a = |name: &str, ip: &str| RecordSeed::new(name, "A", ip).with_ttl(300);
    Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new(ZONE).with_records([
            a("@", "192.0.2.10"),
            a("www", "192.0.2.10"),
            a("api", "192.0.2.20"),
        ]))
        .with_site(SiteSeed::new("blog").with_cron(JOB.0, JOB.1))
}

fn files(dir: &std::path::Path) -> dnscron_core::config::model::Desired {
    let site = format!(
        "site: blog\ncron:\n  - {{ schedule: \"{}\", command: \"{}\" }}\n  - {{ schedule: \"{}\", command: \"{}\" }}\n",
        JOB.0, JOB.1, NEW_JOB.0, NEW_JOB.1
    );
    let files = [
        ("pr.yaml".to_string(), FILES.to_string()),
        ("blog.yaml".to_string(), site),
    ];
    load(&[write_files(dir, &files)])
}

/// Runs `edit` once, when apply starts verifying: after its writes, before it reads again.
struct AtVerify<'a> {
    edit: Mutex<Option<Box<dyn FnOnce() + Send + 'a>>>,
}

impl<'a> AtVerify<'a> {
    fn new(edit: impl FnOnce() + Send + 'a) -> Self {
        AtVerify {
            edit: Mutex::new(Some(Box::new(edit))),
        }
    }
}

impl Progress for AtVerify<'_> {
    fn start(&self, _: u32, _: usize) {}
    fn begin(&self, _: usize, _: &Change) {}
    fn finish(&self, _: &ChangeReport) {}
    fn wait(&self, _: &WaitEvent) {}
    fn note(&self, note: &Note) {
        if *note == Note::Verifying
            && let Some(edit) = self.edit.lock().unwrap().take()
        {
            edit();
        }
    }
    fn close(&self) {}
}

/// Someone in the portal: writes through the API from a thread of their own (apply's runtime
/// is busy running apply).
struct Person<'a> {
    emu: &'a BackgroundEmulator,
    keys: AtomicU32,
}

impl<'a> Person<'a> {
    fn new(emu: &'a BackgroundEmulator) -> Self {
        Person {
            emu,
            keys: AtomicU32::new(0),
        }
    }

    fn key(&self) -> IdempotencyKey {
        let n = self.keys.fetch_add(1, Ordering::Relaxed);
        IdempotencyKey::new(format!("portal-{n}")).unwrap()
    }

    fn on_own_thread<F, E>(&self, write: impl FnOnce(WriteClient) -> F + Send)
    where
        F: Future<Output = Result<WriteResponse, E>>,
        E: std::fmt::Debug,
    {
        let base = self.emu.base_url();
        std::thread::scope(|s| {
            s.spawn(|| {
                let c = client(&base, "demo-token");
                runtime().block_on(write(c)).unwrap();
            })
            .join()
            .unwrap()
        });
    }

    fn record(name: &str, ip: &str) -> payload::RecordWrite {
        payload::RecordWrite {
            name: name.into(),
            rtype: "A".into(),
            ttl: 300,
            content: ip.into(),
        }
    }

    fn create(&self, name: &str, ip: &str) {
        let (body, key) = (Self::record(name, ip), self.key());
        self.on_own_thread(|c| async move { c.create_record(ZONE, &body, &key).await });
    }

    fn set(&self, name: &str, ip: &str) {
        let id = record_id(self.emu, name);
        let (body, key) = (Self::record(name, ip), self.key());
        self.on_own_thread(|c| async move { c.update_record(ZONE, id, &body, &key).await });
    }

    fn delete(&self, name: &str) {
        let (id, key) = (record_id(self.emu, name), self.key());
        self.on_own_thread(|c| async move { c.delete_record(ZONE, id, &key).await });
    }

    fn add_cron(&self, (schedule, command): (&str, &str)) {
        let body = payload::CronJobWrite {
            schedule: schedule.into(),
            command: command.into(),
        };
        let key = self.key();
        self.on_own_thread(|c| async move { c.create_cron("blog", &body, &key).await });
    }
}

fn record_id(emu: &BackgroundEmulator, name: &str) -> i64 {
    let state = emu.state();
    let found = state.visible_records(ZONE).into_iter().find(|r| {
        r.name
            .trim_end_matches('.')
            .trim_end_matches(ZONE)
            .trim_end_matches('.')
            == name
    });
    found.map(|r| r.id).unwrap()
}

fn content_of(emu: &BackgroundEmulator, name: &str) -> Vec<String> {
    let state = emu.state();
    state
        .visible_records(ZONE)
        .into_iter()
        .filter(|r| {
            r.name
                .trim_end_matches('.')
                .trim_end_matches(ZONE)
                .trim_end_matches('.')
                == name
        })
        .map(|r| r.content.clone())
        .collect()
}

struct Case {
    emu: BackgroundEmulator,
    plan: Plan,
    _dir: tempfile::TempDir,
}

/// An account, and the plan of the files against it: `+ two`, `~ www`, `+` a cron job.
fn case() -> Case {
    let emu = emulator_with(seed(), gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let desired = files(dir.path());
    let rt = runtime();
    let plan = make_plan(&rt, &client(&emu.base_url(), "demo-token"), &desired);
    assert_eq!(plan.changes.len(), 3, "{plan:#?}");
    Case {
        emu,
        plan,
        _dir: dir,
    }
}

/// Applies `plan` with `edit` done by someone the moment apply has written everything.
fn apply_while(emu: &BackgroundEmulator, plan: &Plan, edit: impl FnOnce() + Send) -> ApplyReport {
    let progress = AtVerify::new(edit);
    let opts = ApplyOptions::new(plan, &progress);
    let c = client(&emu.base_url(), "demo-token");
    runtime().block_on(apply::apply(&c, plan, &opts))
}

fn a(ip: &str) -> Option<Value> {
    Some(Value::Record {
        ttl: 300,
        content: ip.into(),
    })
}

/// `(name, expected, live)` of each moved record.
fn moved_records(moved: &[Moved]) -> Vec<(String, Option<Value>, Option<Value>)> {
    moved
        .iter()
        .filter_map(|m| match &m.resource {
            Resource::Record { name, .. } => {
                Some((name.clone(), m.expected.clone(), m.live.clone()))
            }
            Resource::CronJob { .. } | Resource::Nameservers => None,
        })
        .collect()
}

/// The text report with the random plan id fixed and the port masked.
fn text(report: &ApplyReport) -> String {
    let mut report = report.clone();
    report.plan_id = "PLAN".into();
    mask_ports(&dnscron::render::apply::text(&report))
}

#[test]
fn a_record_added_and_one_changed_in_the_portal_during_apply_are_left_and_reported() {
    let Case { emu, plan, .. } = case();
    let person = Person::new(&emu);
    let report = apply_while(&emu, &plan, || {
        person.create("hotfix", "192.0.2.50");
        person.set("api", "192.0.2.21");
    });
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
    assert_eq!(report.rounds, 1, "no repair round");
    assert_eq!(
        moved_records(&report.changed_during_apply),
        vec![
            ("api".into(), a("192.0.2.20"), a("192.0.2.21")),
            ("hotfix".into(), None, a("192.0.2.50")),
        ]
    );
    assert_eq!(content_of(&emu, "hotfix"), ["192.0.2.50"]);
    assert_eq!(content_of(&emu, "api"), ["192.0.2.21"]);
    assert_eq!(content_of(&emu, "www"), ["192.0.2.11"]);
    insta::assert_snapshot!(text(&report), @r#"
    Apply of plan PLAN to http://127.0.0.1:[PORT]/api/v1:
      done                zone pr.example: + two A 192.0.2.2 (ttl 300)
      done                zone pr.example: ~ www A 192.0.2.10 → 192.0.2.11 (ttl 300)
      done                site blog: + cron "0 3 * * *" php bin/report.php

    Apply complete: every change of this plan is in effect (3 done); someone else changed the account during the apply (see the warning below).
    2 created, 1 updated, 0 deleted.
    warning: changed during apply, left as it is (2 thing(s) outside this plan; dnscron did not touch them):
      zone pr.example: api A: was 192.0.2.20 (ttl 300), live now 192.0.2.21 (ttl 300)
      zone pr.example: hotfix A: was absent, live now 192.0.2.50 (ttl 300)
    "#);
    let json: serde_json::Value =
        serde_json::from_str(&dnscron::render::apply::json(&report, 0)).unwrap();
    assert_eq!(
        json["changed_during_apply"],
        serde_json::json!([
            {
                "target": {"kind": "zone", "name": "pr.example"},
                "resource": {"kind": "record", "name": "api", "type": "A", "record_id": record_id(&emu, "api")},
                "summary": "~ api A 192.0.2.21 → 192.0.2.20 (ttl 300)",
                "expected": {"ttl": 300, "content": "192.0.2.20"},
                "live": {"ttl": 300, "content": "192.0.2.21"}
            },
            {
                "target": {"kind": "zone", "name": "pr.example"},
                "resource": {"kind": "record", "name": "hotfix", "type": "A", "record_id": record_id(&emu, "hotfix")},
                "summary": "- hotfix A 192.0.2.50 (ttl 300)",
                "expected": null,
                "live": {"ttl": 300, "content": "192.0.2.50"}
            }
        ])
    );
    assert_eq!(json["result"], "converged");
    let mut fixed = report.clone();
    fixed.plan_id = "PLAN".into();
    insta::assert_snapshot!(mask_ports(&dnscron::render::apply::markdown(&fixed)), @r#"
    ### dnscron apply: converged

    Apply of plan `PLAN` to `http://127.0.0.1:[PORT]/api/v1`: 3 done.

    **Warning: changed during apply outside this plan, left as it is:**

    - zone pr.example: api A: was 192.0.2.20 (ttl 300), live now 192.0.2.21 (ttl 300)
    - zone pr.example: hotfix A: was absent, live now 192.0.2.50 (ttl 300)

    | | change | outcome |
    |---|---|---|
    | ✅ | zone pr.example: `+ two A 192.0.2.2 (ttl 300)` | done |
    | ✅ | zone pr.example: `~ www A 192.0.2.10 → 192.0.2.11 (ttl 300)` | done |
    | ✅ | site blog: `+ cron "0 3 * * *" php bin/report.php` | done |
    "#);
}

#[test]
fn seventy_records_added_during_apply_are_not_deleted() {
    let Case { emu, plan, .. } = case();
    let person = Person::new(&emu);
    let report = apply_while(&emu, &plan, || {
        for i in 0..70 {
            person.create(&format!("added-{i}"), "192.0.2.70");
        }
    });
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
    assert_eq!(report.changed_during_apply.len(), 70);
    let counters = emu.counters();
    let deletes: u64 = counters
        .per_route
        .iter()
        .filter(|(route, _)| route.starts_with("DELETE "))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(deletes, 0, "nothing deleted: {:?}", counters.per_route);
    let added = emu
        .state()
        .visible_records(ZONE)
        .iter()
        .filter(|r| r.name.starts_with("added-"))
        .count();
    assert_eq!(added, 70);
}

#[test]
fn a_cron_job_added_during_apply_is_not_deleted() {
    let Case { emu, plan, .. } = case();
    let person = Person::new(&emu);
    let report = apply_while(&emu, &plan, || person.add_cron(PERSONS_JOB));
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
    let jobs: Vec<(String, String)> = emu
        .state()
        .cron("blog")
        .iter()
        .map(|j| (j.schedule.clone(), j.command.clone()))
        .collect();
    let job = |(s, c): (&str, &str)| (s.to_string(), c.to_string());
    assert_eq!(jobs, vec![job(JOB), job(NEW_JOB), job(PERSONS_JOB)]);
    let moved: Vec<(&Resource, &Option<Value>, &Option<Value>)> = report
        .changed_during_apply
        .iter()
        .map(|m| (&m.resource, &m.expected, &m.live))
        .collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!(
        moved[0].2,
        &Some(Value::CronJob {
            schedule: PERSONS_JOB.0.into(),
            command: PERSONS_JOB.1.into()
        })
    );
    assert_eq!(moved[0].1, &None);
}

/// Someone sets `www` again right after apply set it: not reverted, and apply does not call
/// that converged (exit 1 in the binary).
#[test]
fn a_change_of_the_plan_overwritten_during_apply_is_reported_not_reverted() {
    let Case { emu, plan, .. } = case();
    let person = Person::new(&emu);
    let writes_before = writes(&emu);
    let report = apply_while(&emu, &plan, || person.set("www", "192.0.2.99"));
    let ApplyResult::ChangedDuringApply { overwritten } = &report.result else {
        panic!("{report:#?}");
    };
    assert_eq!(
        moved_records(overwritten),
        vec![("www".into(), a("192.0.2.11"), a("192.0.2.99"))]
    );
    assert_eq!(content_of(&emu, "www"), ["192.0.2.99"]);
    assert_eq!(
        writes(&emu),
        writes_before + 4,
        "the plan's 3 writes and the person's"
    );
    insta::assert_snapshot!(text(&report), @r#"
    Apply of plan PLAN to http://127.0.0.1:[PORT]/api/v1:
      done                zone pr.example: + two A 192.0.2.2 (ttl 300)
      done                zone pr.example: ~ www A 192.0.2.10 → 192.0.2.11 (ttl 300)
      done                site blog: + cron "0 3 * * *" php bin/report.php

    Changed during apply: 1 change(s) of this plan were changed again by someone while apply ran; left as they are, not reverted:
      zone pr.example: ~ www A 192.0.2.10 → 192.0.2.11 (ttl 300): apply made it 192.0.2.11 (ttl 300), live now 192.0.2.99 (ttl 300)
    3 done.
    2 created, 1 updated, 0 deleted.
    "#);
}

/// Accepted form of the repair: the plan applied once, `two` deleted since, the same plan run
/// again: its `+ two` is answered by a replay whose effect is gone, so it is sent again
/// (round 1); the replayed `~ www` is in effect and left alone.
#[test]
fn a_stale_replay_of_the_plans_own_change_is_repaired() {
    let Case { emu, plan, .. } = case();
    let first = run_apply(&runtime(), &client(&emu.base_url(), "demo-token"), &plan);
    assert!(matches!(first.result, ApplyResult::Converged), "{first:#?}");
    Person::new(&emu).delete("two");
    let report = run_apply(&runtime(), &client(&emu.base_url(), "demo-token"), &plan);
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
    assert_eq!(report.rounds, 2, "{report:#?}");
    assert_eq!(content_of(&emu, "two"), ["192.0.2.2"]);
    assert!(report.changed_during_apply.is_empty());
}

/// Someone deletes `two` right after apply created it (a fresh 2xx): apply does not create it
/// again (it can't tell that from a stale read, and a second create could duplicate it); it
/// stops with "not visible", exit 1 in the binary.
#[test]
fn a_record_deleted_right_after_apply_created_it_is_not_created_again() {
    let Case { emu, plan, .. } = case();
    let person = Person::new(&emu);
    let progress = AtVerify::new(|| person.delete("two"));
    let mut opts = ApplyOptions::new(&plan, &progress);
    opts.visibility_waits = Vec::new();
    let c = client(&emu.base_url(), "demo-token");
    let report = runtime().block_on(apply::apply(&c, &plan, &opts));
    assert!(
        matches!(report.result, ApplyResult::NotVisible { .. }),
        "{report:#?}"
    );
    assert!(content_of(&emu, "two").is_empty());
    let counters = emu.counters();
    let creates: u64 = counters
        .per_route
        .iter()
        .filter(|(route, _)| route.starts_with("POST /api/v1/dns/"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        creates, 1,
        "one create, never a second: {:?}",
        counters.per_route
    );
}

/// The plan of the files without `api` (pruned): `+ two`, `~ www`, `- api`.
fn plan_deleting_api(emu: &BackgroundEmulator, dir: &std::path::Path) -> Plan {
    let zone = format!(
        "prune: true\n{}",
        FILES.replace(
            "  - { name: api, type: A, content: 192.0.2.20, ttl: 300 }\n",
            ""
        )
    );
    let desired = load(&[write_files(dir, &[("pr.yaml".to_string(), zone)])]);
    let plan = make_plan(&runtime(), &client(&emu.base_url(), "demo-token"), &desired);
    assert_eq!(plan.changes.len(), 3, "{plan:#?}");
    plan
}

/// A delete answered 404 is in effect (docs/apply.md, "Already in effect"): someone deleted
/// `api` between the plan and its delete. Refused form: an update answered 404 is not, and
/// fails.
#[test]
fn a_record_deleted_after_the_plan_is_already_absent_for_its_delete() {
    let emu = emulator_with(seed(), gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let plan = plan_deleting_api(&emu, dir.path());
    let person = Person::new(&emu);
    person.delete("api");
    let report = run_apply(&runtime(), &client(&emu.base_url(), "demo-token"), &plan);
    assert!(
        matches!(report.result, ApplyResult::Converged),
        "{report:#?}"
    );
    let outcomes: Vec<(String, ChangeOutcome)> = report
        .changes
        .iter()
        .map(|c| (c.change.action.as_str().to_string(), c.outcome))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("create".to_string(), ChangeOutcome::Done),
            ("update".to_string(), ChangeOutcome::Done),
            ("delete".to_string(), ChangeOutcome::AlreadyAbsent),
        ]
    );

    let emu = emulator_with(seed(), gap_settings()[0].clone());
    let plan = plan_deleting_api(&emu, dir.path());
    Person::new(&emu).delete("www");
    let report = run_apply(&runtime(), &client(&emu.base_url(), "demo-token"), &plan);
    let ApplyResult::Failed { change_id, error } = &report.result else {
        panic!("{report:#?}");
    };
    let failed = plan.changes.iter().find(|c| c.id == *change_id).unwrap();
    assert_eq!(failed.action.as_str(), "update");
    assert_eq!(error.status, Some(404), "{error:#?}");
}
