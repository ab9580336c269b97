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
            "check",
            "completions",
            "demo",
            "doctor",
            "emulator",
            "help",
            "import",
            "man",
            "plan",
            "schema",
            "show",
            "validate"
        ],
        "{script}"
    );
}

#[test]
fn completions_reject_an_unknown_shell() {
    // clap usage errors exit 1 (2 means "changes present").
    assert_cli_snapshot!(Test::new().args(["completions", "cmd.exe"]));
}

/// One page: the subcommands listed on it (no `dnscron-plan(1)` pages that nothing generates),
/// then EXIT STATUS and ENVIRONMENT.
#[test]
fn man_page_lists_subcommands_exit_status_and_environment() {
    let page = Test::new().arg("man").run_for_stdout();
    let title = page.lines().find(|l| l.starts_with(".TH "));
    assert_eq!(title, Some(".TH dnscron 1  \"dnscron 0.1.0\" "), "{page}");
    let headings: Vec<&str> = page.lines().filter(|l| l.starts_with(".SH")).collect();
    assert_eq!(
        headings,
        [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH SUBCOMMANDS",
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH VERSION",
        ]
    );
    // The roff preamble once, at the top, though each section is rendered on its own.
    assert_eq!(page.matches(".ds Aq").count(), 2, "{page}");
    let from = page.find(".SH SUBCOMMANDS").unwrap();
    assert_eq!(
        &page[from..],
        MAN_TAIL.replace("{version}", env!("CARGO_PKG_VERSION"))
    );
}

const MAN_TAIL: &str = r#".SH SUBCOMMANDS
.TP
\fBdnscron validate\fR
Check the desired\-state files offline; report every problem at once
.TP
\fBdnscron plan\fR
Read the live account, diff it against the files, show what would change (never writes)
.TP
\fBdnscron show\fR
Render a saved plan file in any plan format (no API access)
.TP
\fBdnscron apply\fR
Make the live account match the files (or execute a saved plan), then verify
.TP
\fBdnscron check\fR
Ask each zone\*(Aqs nameservers over DNS whether they serve what the files say (no API token; exit 0 in line, 2 differences, 1 a nameserver could not be asked)
.TP
\fBdnscron import\fR
Write desired\-state files that reproduce the live account (plan then shows no changes)
.TP
\fBdnscron doctor\fR
Check the API URL, the token, the rate\-limit headroom and what the server expects
.TP
\fBdnscron emulator\fR
Serve the Hosting Customer API locally from a seed file (for tests and demos)
.TP
\fBdnscron demo\fR
Plan, apply and re\-plan the example files against an in\-process emulator
.TP
\fBdnscron schema\fR
Print the JSON Schema of the desired\-state files
.TP
\fBdnscron completions\fR
Print a shell completion script
.TP
\fBdnscron man\fR
Print the man page (roff)
.PP
The options of each subcommand: \fBdnscron help\fR \fICOMMAND\fR or \fBdnscron\fR \fICOMMAND\fR \fB\-\-help\fR.
.SH "EXIT STATUS"
.TP
\fB0\fR
Success.
.TP
\fB1\fR
An error, a usage error included; stderr says what, where and what to do.
.TP
\fB2\fR
Changes present, an error\-level finding or a zone, domain or site of the account no file of the planned folder declares (plan \-\-detailed\-exitcode), or a nameserver serving other data than the files (check); nothing else exits 2.
.TP
\fB3\fR
apply stopped at a step a human must take in the portal; the continue_url is printed.
.TP
\fB130, 143\fR
apply stopped by SIGINT or SIGTERM after the change in flight, with its report.
.SH ENVIRONMENT
.TP
\fBDNSCRON_TOKEN\fR
The API token, unless \-\-token\-file is given. It is never printed.
.TP
\fBDNSCRON_API_URL\fR
The API base URL including /api/v1, when \-\-api\-url is not given.
.TP
\fBDNSCRON_NO_SYSTEM_RESOLVER\fR
When true (1, yes), DNS checks never ask the system resolver (as \-\-no\-system\-resolver).
.TP
\fBNO_COLOR\fR
When set, no colour on stdout or stderr (colour is only ever used on a terminal).
.TP
\fBRUST_LOG\fR
A log filter (e.g. dnscron=debug) that replaces the level chosen by \-v and \-q.
.SH VERSION
v{version}
"#;

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
        .expect_stdout("valid: 3 zones, 26 records, 2 sites, 4 cron jobs\n")
        .run();
}

#[test]
fn the_harness_accepts_exactly_the_expected_run() {
    Test::new()
        .args(["validate", "examples/dns"])
        .expect_stdout("valid: 3 zones, 26 records, 2 sites, 4 cron jobs\n")
        .run();
}
