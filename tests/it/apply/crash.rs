//! Interrupted applies: the process killed with SIGKILL (or stopped by Ctrl-C) mid-apply, then
//! run again, converges with no duplicate record or cron job.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use dnscron_emulator::{BackgroundEmulator, CronSeed, Seed, SiteSeed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::{Test, command, send_signal};

const RECORDS: usize = 150;

/// A zone that needs many creates, and a site whose cron list is replaced.
pub(super) fn bulk_case(dir: &Path) -> (Seed, std::path::PathBuf) {
    let mut site = SiteSeed::new("bulk");
    for (schedule, command) in [
        ("0 * * * *", "wp cache flush"),
        ("0 * * * *", "wp cache flush"),
        ("5 4 * * *", "php old.php"),
    ] {
        site.cron.push(CronSeed {
            schedule: schedule.into(),
            command: command.into(),
        });
    }
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("bulk.example"))
        .with_site(site);
    let mut zone = String::from("zone: bulk.example\nrecords:\n");
    for i in 0..RECORDS {
        zone.push_str(&format!(
            "  - {{ name: h{i}, type: A, content: 192.0.2.{} }}\n",
            i % 250 + 1
        ));
    }
    let site = "site: bulk\ncron:\n  - { schedule: \"0 * * * *\", command: \"wp cache flush\" }\n  - { schedule: \"*/10 * * * *\", command: \"php new.php\" }\n";
    let files = vec![
        ("zones/bulk.yaml".to_string(), zone),
        ("sites/bulk.yaml".to_string(), site.to_string()),
    ];
    (seed, write_files(dir, &files))
}

fn spawn_apply(emu: &BackgroundEmulator, root: &Path) -> Child {
    command()
        .args(["apply", "--yes"])
        .arg(root)
        .env("DNSCRON_TOKEN", "demo-token")
        .env("DNSCRON_API_URL", emu.base_url())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until a write is held at the emulator (`hold_writes…`): the apply is certainly mid-way,
/// a write on the wire. The timeout only turns a hang (or an apply that ended early) into a
/// failure.
fn wait_for_a_held_write(emu: &BackgroundEmulator) {
    let held = runtime().block_on(async {
        tokio::time::timeout(Duration::from_secs(60), emu.wait_for_held_writes(1)).await
    });
    assert!(held.is_ok(), "no write held in time");
}

fn rerun_converges(emu: &BackgroundEmulator, root: &Path) {
    let stdout = Test::new()
        // -q: the progress lines differ with where the kill landed; the JSON report is checked.
        .args(["-q", "apply", "--yes", "--format", "json"])
        .arg(root)
        .api(&emu.base_url(), "demo-token")
        .run_for_stdout();
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["result"], "converged", "{stdout}");
    let desired = load(&[root.to_path_buf()]);
    assert_state_matches(&emu.state(), &desired, &[]);
}

#[test]
fn killed_with_sigkill_mid_apply_then_rerun_converges_without_duplicates() {
    for gaps in gap_settings().into_iter().take(2) {
        let dir = tempfile::tempdir().unwrap();
        let (seed, root) = bulk_case(dir.path());
        let emu = emulator_with(seed, gaps);
        // Killed while the 41st write is on the payload, however fast the apply runs.
        emu.hold_writes_after(40);
        let mut child = spawn_apply(&emu, &root);
        wait_for_a_held_write(&emu);
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "killed mid-apply: {status:?}");
        assert_eq!(writes(&emu), 41, "40 writes done, the 41st in flight");
        // The 41st now commits with nobody waiting for its answer, as after a real crash.
        emu.release_writes();
        rerun_converges(&emu, &root);
    }
}

/// Every write is held at the emulator, so Ctrl-C always lands while the first one is on the
/// wire (under heavy load the apply once finished all its writes before the signal arrived);
/// released once apply has taken the signal, that write completes and nothing more is sent.
#[test]
fn ctrl_c_stops_after_the_change_in_flight_and_a_rerun_converges() {
    let dir = tempfile::tempdir().unwrap();
    let (seed, root) = bulk_case(dir.path());
    let emu = emulator_with(seed, gap_settings()[2].clone());
    emu.hold_writes();
    let mut child = command()
        .args(["apply", "--yes", "--format", "json"])
        .arg(&root)
        .env("DNSCRON_TOKEN", "demo-token")
        .env("DNSCRON_API_URL", emu.base_url())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    wait_for_a_held_write(&emu);
    send_signal(child.id(), "INT");
    // Released only once apply has taken the signal, so the write in flight is its last.
    let taken = stderr.by_ref().map(Result::unwrap).find(|line| {
        line == "interrupted: finishing the change in flight, then stopping (send it again to stop at once)"
    });
    assert!(taken.is_some(), "apply ended without taking the signal");
    emu.release_writes();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "SIGINT: 128 + 2; {out:?}");
    assert_eq!(writes(&emu), 1, "only the write in flight was sent");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&doc["result"], &doc["exit_code"], &doc["counts"]),
        (
            &serde_json::json!("interrupted"),
            &serde_json::json!(130),
            &serde_json::json!({
                "done": 1, "replayed": 0, "already_absent": 0, "failed": 0,
                "needs_portal_step": 0, "not_attempted": RECORDS + 2,
            })
        ),
        "{doc}"
    );
    rerun_converges(&emu, &root);
}
