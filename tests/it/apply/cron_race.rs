//! A cron delete racing a person in the portal (docs/apply.md, "Cron deletes"). The API deletes
//! by index: apply lists, its DELETE is held at the emulator's write gate, the person removes
//! the first job meanwhile, and where indexes are positions the DELETE then reaches the job
//! listed after the meant one. Apply must see it, put that job back at once, report both and
//! exit 1; a re-run of the same saved plan converges with no job lost or doubled.

use std::path::Path;
use std::time::Duration;

use dnscron_emulator::{
    BackgroundEmulator, CronDeleteAnswer, CronIndexAfterDelete, CronSeed, Gaps, Seed, SiteSeed,
    TokenSeed,
};

use super::support::*;
use crate::common::{Test, filters, stdout_of};

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    for (re, with) in filters() {
        s.add_filter(re, with);
    }
    // Each run of a loop saves its own plan, numbered on by `plan_stamp`.
    s.add_filter(r"\b[0-9a-f]{32}\b", "[PLAN_ID]");
    s.set_snapshot_path("snapshots");
    s
}

const SITE: &str = "blog";

/// The site's jobs in list order. The files keep `one` and `three`, so the plan deletes `two`
/// and then `zero` (deletes run in schedule order): the race is on the first.
const JOBS: [(&str, &str); 4] = [
    ("9 * * * *", "php zero.php"),
    ("2 * * * *", "php one.php"),
    ("1 * * * *", "php two.php"),
    ("3 * * * *", "php three.php"),
];

const FILES: &str = "site: blog\ncron:\n  - { schedule: \"2 * * * *\", command: \"php one.php\" }\n  - { schedule: \"3 * * * *\", command: \"php three.php\" }\n";

fn emulator(base: u8, after: CronIndexAfterDelete, answer: CronDeleteAnswer) -> BackgroundEmulator {
    emulator_of(&JOBS, base, after, answer)
}

fn emulator_of(
    jobs: &[(&str, &str)],
    base: u8,
    after: CronIndexAfterDelete,
    answer: CronDeleteAnswer,
) -> BackgroundEmulator {
    let mut site = SiteSeed::new(SITE);
    for (schedule, command) in jobs.iter().copied() {
        site.cron.push(CronSeed {
            schedule: schedule.into(),
            command: command.into(),
        });
    }
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_site(site);
    let gaps = Gaps {
        cron_index_base: base,
        cron_index_after_delete: after,
        cron_delete_answer: answer,
        ..Gaps::default()
    };
    emulator_with(seed, gaps)
}

/// The files in `dir` and the plan saved from them (`plan --out`), whose path it returns.
fn saved_plan(emu: &BackgroundEmulator, dir: &Path) -> String {
    saved_plan_of(emu, dir, FILES)
}

/// The site's jobs now, from the emulator's own state, as `command` names in list order.
fn jobs(emu: &BackgroundEmulator) -> Vec<String> {
    emu.state()
        .cron(SITE)
        .iter()
        .map(|j| format!("{} {}", j.schedule, j.command))
        .collect()
}

/// Runs `args` while its first write is held; then a person removes the first listed job in
/// the portal, and the held write goes on. Returns the whole run.
fn raced(emu: &BackgroundEmulator, args: &[&str]) -> String {
    raced_by(emu, args, &[0])
}

/// [`raced`], the person removing the jobs at these list positions, one after the other.
fn raced_by(emu: &BackgroundEmulator, args: &[&str], positions: &[usize]) -> String {
    emu.hold_writes();
    let run = dnscron(emu, args);
    let apply = std::thread::spawn(move || run.snapshot());
    let held = runtime().block_on(async {
        tokio::time::timeout(Duration::from_secs(60), emu.wait_for_held_writes(1)).await
    });
    assert!(held.is_ok(), "no write held in time");
    let removed = emu.remove_cron_job_in_portal(SITE, positions[0]).unwrap();
    assert_eq!(removed.command, "php zero.php");
    for position in &positions[1..] {
        emu.remove_cron_job_in_portal(SITE, *position).unwrap();
    }
    emu.release_writes();
    apply.join().unwrap()
}

fn all_answers() -> [CronDeleteAnswer; 3] {
    [
        CronDeleteAnswer::Job,
        CronDeleteAnswer::Result,
        CronDeleteAnswer::Empty,
    ]
}

/// `saved_plan` of other files.
fn saved_plan_of(emu: &BackgroundEmulator, dir: &Path, files: &str) -> String {
    write_files(dir, &[("sites/blog.yaml".into(), files.into())]);
    let file = dir.join("plan.json").display().to_string();
    let sites = dir.join("sites").display().to_string();
    let out = dnscron(emu, &["plan", "--out", &file, &sites]).snapshot();
    assert!(out.starts_with("exit: Some(0)\n"), "{out}");
    file
}

/// The person removes `zero` and `four`: the delete takes `three`, and with an answer that
/// doesn't say which job went, `three` and `four` both vanished after the meant job, so which
/// was the delete's cannot be told. Nothing is re-created (the wrong one would undo the
/// person's delete); both are listed for a human, exit 1.
#[test]
fn when_it_cannot_be_told_which_job_went_none_is_recreated() {
    let five = [
        JOBS[0],
        JOBS[1],
        JOBS[2],
        JOBS[3],
        ("4 * * * *", "php four.php"),
    ];
    let files = "site: blog\ncron:\n  - { schedule: \"2 * * * *\", command: \"php one.php\" }\n  - { schedule: \"3 * * * *\", command: \"php three.php\" }\n  - { schedule: \"4 * * * *\", command: \"php four.php\" }\n";
    for base in [0, 1] {
        for answer in [CronDeleteAnswer::Result, CronDeleteAnswer::Empty] {
            let emu = emulator_of(&five, base, CronIndexAfterDelete::Renumber, answer);
            let dir = tempfile::tempdir().unwrap();
            let file = saved_plan_of(&emu, dir.path(), files);
            // Zero at position 0, then four, last of the four jobs left.
            let out = raced_by(&emu, &["apply", "--plan", &file], &[0, 3]);
            settings().bind(|| insta::assert_snapshot!("cron_race_cannot_tell_which", out));
            assert_eq!(
                jobs(&emu),
                ["2 * * * * php one.php", "1 * * * * php two.php"],
                "base {base}, {answer:?}: nothing re-created"
            );
        }
    }
}

/// The Markdown report (a CI job summary) says the same.
#[test]
fn the_markdown_report_has_the_mixup() {
    let emu = emulator(1, CronIndexAfterDelete::Renumber, CronDeleteAnswer::Empty);
    let dir = tempfile::tempdir().unwrap();
    let file = saved_plan(&emu, dir.path());
    let out = raced(&emu, &["apply", "--plan", &file, "--format", "markdown"]);
    settings().bind(|| insta::assert_snapshot!(out));
}

/// Renumbering indexes, either base, whatever the DELETE answers: the delete reaches `three`;
/// apply re-creates it, reports both, exits 1; the person's delete of `zero` stays, nothing is
/// lost or doubled; the same saved plan run again deletes `two` and converges.
#[test]
fn a_delete_that_reaches_another_job_puts_it_back_and_a_rerun_converges() {
    for base in [0, 1] {
        for answer in all_answers() {
            let label = format!("base {base}, {answer:?}");
            let emu = emulator(base, CronIndexAfterDelete::Renumber, answer);
            let dir = tempfile::tempdir().unwrap();
            let file = saved_plan(&emu, dir.path());
            let out = raced(&emu, &["apply", "--plan", &file]);
            settings().bind(|| insta::assert_snapshot!("cron_delete_reached_another_job", out));
            assert_eq!(
                jobs(&emu),
                [
                    "2 * * * * php one.php",
                    "1 * * * * php two.php",
                    "3 * * * * php three.php"
                ],
                "{label}: zero stays deleted, two is not deleted, three is back once"
            );
            let out = dnscron(&emu, &["apply", "--plan", &file]).snapshot();
            settings().bind(|| insta::assert_snapshot!("cron_race_rerun_converges", out));
            assert_eq!(
                jobs(&emu),
                ["2 * * * * php one.php", "3 * * * * php three.php"],
                "{label}"
            );
        }
    }
}

/// The JSON report names what was meant, what was removed and the re-create, with its key.
#[test]
fn the_json_report_has_the_mixup() {
    let emu = emulator(0, CronIndexAfterDelete::Renumber, CronDeleteAnswer::Job);
    let dir = tempfile::tempdir().unwrap();
    let file = saved_plan(&emu, dir.path());
    let out = raced(&emu, &["apply", "--plan", &file, "--format", "json"]);
    settings().bind(|| insta::assert_snapshot!(out));
    let doc: serde_json::Value = serde_json::from_str(stdout_of(&out)).unwrap();
    assert_eq!(doc["result"], "cron_index_moved");
}

/// A lost answer to the delete and to the re-create: both are retried under their keys and
/// answered from the idempotency store, so the job comes back exactly once.
#[test]
fn lost_answers_replay_and_never_double_the_job() {
    let emu = emulator(1, CronIndexAfterDelete::Renumber, CronDeleteAnswer::Result);
    let dir = tempfile::tempdir().unwrap();
    let file = saved_plan(&emu, dir.path());
    emu.drop_next_writes(2);
    let out = raced(&emu, &["apply", "--plan", &file]);
    settings().bind(|| insta::assert_snapshot!(out));
    assert_eq!(emu.counters().faults.dropped_after_commit, 2);
    assert_eq!(
        jobs(&emu),
        [
            "2 * * * * php one.php",
            "1 * * * * php two.php",
            "3 * * * * php three.php"
        ]
    );
}

/// Stable indexes: the person's delete moves no index, the delete takes `two` as meant, the
/// plan's delete of `zero` finds it already gone: converged, exit 0.
#[test]
fn stable_indexes_never_move_so_the_race_is_harmless() {
    for base in [0, 1] {
        for answer in all_answers() {
            let emu = emulator(base, CronIndexAfterDelete::Stable, answer);
            let dir = tempfile::tempdir().unwrap();
            let file = saved_plan(&emu, dir.path());
            let out = raced(&emu, &["apply", "--plan", &file]);
            settings().bind(|| insta::assert_snapshot!("cron_race_with_stable_indexes", out));
            assert_eq!(
                jobs(&emu),
                ["2 * * * * php one.php", "3 * * * * php three.php"]
            );
        }
    }
}

/// No race: both deletes go as planned in every setting, whatever the answer says.
#[test]
fn without_a_race_cron_deletes_are_done_as_before() {
    for after in [CronIndexAfterDelete::Renumber, CronIndexAfterDelete::Stable] {
        for base in [0, 1] {
            for answer in all_answers() {
                let emu = emulator(base, after, answer);
                let dir = tempfile::tempdir().unwrap();
                let file = saved_plan(&emu, dir.path());
                let out = dnscron(&emu, &["apply", "--plan", &file]).snapshot();
                settings().bind(|| insta::assert_snapshot!("cron_deletes_without_a_race", out));
                assert_eq!(
                    jobs(&emu),
                    ["2 * * * * php one.php", "3 * * * * php three.php"]
                );
            }
        }
    }
}

// ---- a server whose DELETE answer can't be trusted ----

mod hostile {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use serde_json::{Value, json};

    use super::*;
    use crate::client::stub::{Reply, Seen, Stub};

    /// Names a job that never existed, with a terminal escape in it: never to be printed.
    fn ghost_answer() -> Value {
        json!({"index": 2, "schedule": "* * * * *", "command": "php \u{1b}[2J\u{1b}]0;owned\u{7} ghost.php", "result": "removed"})
    }

    fn listing(jobs: &[(&str, &str)]) -> Reply {
        let jobs: Vec<Value> = jobs
            .iter()
            .enumerate()
            .map(|(i, (schedule, command))| json!({"index": i, "schedule": schedule, "command": command}))
            .collect();
        Reply::ok(json!({"cron_jobs": jobs, "meta": {"has_more": false}}))
    }

    /// A site whose jobs are `JOBS` until a DELETE, then `after_delete`; a POST (the re-create)
    /// appends `three` again. Every DELETE is answered `answer`.
    fn server(
        after_delete: &'static [(&'static str, &'static str)],
        answer: Value,
    ) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
        let deleted = Arc::new(AtomicBool::new(false));
        let recreated = Arc::new(AtomicBool::new(false));
        move |seen| match (seen.method.as_str(), seen.path.as_str()) {
            ("GET", "/sites") => Reply::ok(json!({"sites": [{"slug": SITE, "state": "active"}],
                                                 "meta": {"has_more": false}})),
            ("GET", "/sites/blog/cron") if recreated.load(Ordering::SeqCst) => {
                let mut jobs = after_delete.to_vec();
                jobs.push(JOBS[3]);
                listing(&jobs)
            }
            ("GET", "/sites/blog/cron") if deleted.load(Ordering::SeqCst) => listing(after_delete),
            ("GET", "/sites/blog/cron") => listing(&JOBS),
            ("DELETE", "/sites/blog/cron/2") => {
                deleted.store(true, Ordering::SeqCst);
                Reply::ok(answer.clone())
            }
            ("POST", "/sites/blog/cron") => {
                recreated.store(true, Ordering::SeqCst);
                Reply::json(
                    201,
                    json!({"index": 3, "schedule": "3 * * * *", "command": "php three.php"}),
                )
            }
            _ => Reply::error(404, "not_found", "no such thing"),
        }
    }

    const KEEP_ALL_BUT_TWO: &str = "site: blog\ncron:\n  - { schedule: \"9 * * * *\", command: \"php zero.php\" }\n  - { schedule: \"2 * * * *\", command: \"php one.php\" }\n  - { schedule: \"3 * * * *\", command: \"php three.php\" }\n";

    async fn apply(stub: &Stub) -> String {
        let dir = tempfile::tempdir().unwrap();
        write_files(
            dir.path(),
            &[("sites/blog.yaml".into(), KEEP_ALL_BUT_TWO.into())],
        );
        let sites = dir.path().join("sites").display().to_string();
        let test = Test::new()
            .args(["apply", "--yes", &sites])
            .api(&stub.base_url, "demo-token")
            .plan_stamp();
        tokio::task::spawn_blocking(move || test.snapshot())
            .await
            .unwrap()
    }

    fn writes(stub: &Stub) -> Vec<String> {
        stub.requests()
            .iter()
            .filter(|s| s.method != "GET")
            .map(|s| format!("{} {}", s.method, s.path))
            .collect()
    }

    /// The answer names a job that never existed; the listing right after shows the meant job
    /// gone and nothing else: done, converged, and the answer's text shown nowhere.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_ghost_answer_is_not_believed_the_listing_shows_the_delete_done() {
        const AFTER: &[(&str, &str)] = &[JOBS[0], JOBS[1], JOBS[3]];
        let stub = Stub::start(server(AFTER, ghost_answer())).await;
        let out = apply(&stub).await;
        settings().bind(|| insta::assert_snapshot!(out));
        assert!(!out.contains("ghost"), "{out}");
        assert_eq!(writes(&stub), ["DELETE /sites/blog/cron/2"]);
    }

    /// The answer names a job that never existed, but the listing right after shows `three`
    /// gone, not `two`: `three` is put back (never the ghost), exit 1.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_ghost_answer_with_another_job_gone_puts_that_job_back() {
        const AFTER: &[(&str, &str)] = &[JOBS[0], JOBS[1], JOBS[2]];
        let stub = Stub::start(server(AFTER, ghost_answer())).await;
        let out = apply(&stub).await;
        settings().bind(|| insta::assert_snapshot!(out));
        assert!(!out.contains("ghost"), "{out}");
        assert_eq!(
            writes(&stub),
            ["DELETE /sites/blog/cron/2", "POST /sites/blog/cron"]
        );
        let post = stub
            .requests()
            .into_iter()
            .find(|s| s.method == "POST")
            .unwrap();
        let body: Value = serde_json::from_str(&post.body).unwrap();
        assert_eq!(
            body,
            json!({"schedule": "3 * * * *", "command": "php three.php"})
        );
        let key = post.header("idempotency-key").unwrap();
        assert!(key.contains("-re"), "{key}");
    }
}
