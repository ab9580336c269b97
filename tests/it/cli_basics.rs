use crate::common::{Test, assert_cli_snapshot};

#[test]
fn completions_name_every_subcommand() {
    let script = Test::new().args(["completions", "bash"]).run_for_stdout();
    // The subcommand list bash completes from (one `case` per command).
    let commands: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("dnscron,"))
        .filter_map(|l| l.strip_suffix(')'))
        .collect();
    assert_eq!(
        commands,
        [
            "apply",
            "completions",
            "demo",
            "doctor",
            "emulator",
            "help",
            "import",
            "man",
            "plan",
            "schema",
            "validate"
        ],
        "{script}"
    );
}

#[test]
fn completions_reject_an_unknown_shell() {
    // clap usage errors exit 2.
    assert_cli_snapshot!(Test::new().args(["completions", "cmd.exe"]));
}

#[test]
fn man_page_is_roff() {
    let page = Test::new().arg("man").run_for_stdout();
    let title = page.lines().find(|l| l.starts_with(".TH "));
    assert_eq!(title, Some(".TH dnscron 1  \"dnscron 0.1.0\" "), "{page}");
}

#[test]
fn broken_pipe_is_not_an_error() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = crate::common::command()
        .args(["man"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end at once: dnscron must exit quietly, not panic.
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!((status.code(), stderr.as_str()), (Some(0), ""));
}

/// The harness checks what a test did not ask about: an unexpected stderr line fails.
#[test]
#[should_panic(expected = "dnscron output differs")]
fn the_harness_refuses_output_nobody_expected() {
    // `validate` of the examples prints its summary on stdout; expecting nothing must fail.
    Test::new().args(["validate", "examples/dns"]).run();
}

/// …and an unexpected exit status fails even when the output is as expected.
#[test]
#[should_panic(expected = "dnscron output differs")]
fn the_harness_refuses_an_unexpected_status() {
    Test::new()
        .args(["validate", "examples/dns"])
        .expect_status(1)
        .expect_stdout("valid: 2 zones, 17 records, 2 sites, 4 cron jobs\n")
        .run();
}

#[test]
fn the_harness_accepts_exactly_the_expected_run() {
    Test::new()
        .args(["validate", "examples/dns"])
        .expect_stdout("valid: 2 zones, 17 records, 2 sites, 4 cron jobs\n")
        .run();
}
