//! Interrupted applies: the process killed with SIGKILL (or stopped by Ctrl-C) mid-apply, then
//! run again, converges with no duplicate record or cron job.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use dnscron::emulator::{BackgroundEmulator, CronSeed, Seed, SiteSeed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::{Test, command};

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

/// Waits until the emulator has counted `n` writes: woken by each counted request, no
/// polling. The timeout only turns a hang (or an apply that ended early) into a failure.
fn wait_for_writes(emu: &BackgroundEmulator, child: &mut Child, n: u64) {
    let counted = runtime().block_on(async {
        tokio::time::timeout(
            Duration::from_secs(60),
            emu.wait_for_counters(|c| writes_in(c) >= n),
        )
        .await
    });
    assert!(counted.is_ok(), "no {n} writes in time");
    assert!(
        child.try_wait().unwrap().is_none(),
        "apply ended right after {n} writes"
    );
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
        let mut child = spawn_apply(&emu, &root);
        wait_for_writes(&emu, &mut child, 40);
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "killed mid-apply: {status:?}");
        let written = writes(&emu);
        assert!(written < RECORDS as u64, "{written} writes before the kill");
        rerun_converges(&emu, &root);
    }
}

#[test]
fn ctrl_c_stops_after_the_change_in_flight_and_a_rerun_converges() {
    let dir = tempfile::tempdir().unwrap();
    let (seed, root) = bulk_case(dir.path());
    let emu = emulator_with(seed, gap_settings()[2].clone());
    let mut child = command()
        // -q: the progress lines differ with where the kill landed; the JSON report is checked.
        .args(["-q", "apply", "--yes", "--format", "json"])
        .arg(&root)
        .env("DNSCRON_TOKEN", "demo-token")
        .env("DNSCRON_API_URL", emu.base_url())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_writes(&emu, &mut child, 20);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "SIGINT: 128 + 2; {out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["result"], "interrupted");
    assert!(
        doc["counts"]["not_attempted"].as_u64().unwrap() > 0,
        "{doc}"
    );
    rerun_converges(&emu, &root);
}
