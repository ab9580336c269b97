use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::common::emulator::Api;
use crate::common::{Test, assert_cli_snapshot, filters, send_signal};

#[test]
fn refuses_a_non_loopback_address() {
    assert_cli_snapshot!(Test::new().args(["emulator", "--listen", "0.0.0.0:0"]));
}

#[test]
fn reports_a_bad_seed_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("seed.yaml"),
        "tokens:\n  - token: t\n    usr: typo\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["emulator", "--listen", "127.0.0.1:0", "--seed", "seed.yaml"])
            .current_dir(dir.path())
    );
}

#[tokio::test]
async fn serves_the_example_seed_and_prints_counters_on_ctrl_c() {
    let mut child = crate::common::command()
        .args([
            "emulator",
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "examples/emulator-seed.yaml",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut base_url = None;
    let mut banner = String::new();
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "emulator exited: {banner}"
        );
        banner.push_str(&line);
        if let Some(url) = line.strip_prefix("base URL: ") {
            base_url = Some(url.trim().to_string());
        }
        if line.starts_with("press Ctrl-C") {
            break;
        }
    }
    let base_url = base_url.unwrap();
    let resp = Api::new(&base_url, "demo-token").get("/sites").await;
    assert_eq!(resp.status, 200);
    send_signal(child.id(), "INT");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    // The banner (base URL, the seed's tokens) and the counters printed on Ctrl-C, in full.
    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!(format!("{banner}--- after Ctrl-C\n{rest}"));
    });
}
