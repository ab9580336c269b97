use crate::common::Run;

#[test]
fn completions_name_every_subcommand() {
    let out = Run::new(["completions", "bash"]).output();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("completions"), "{}", out.stdout);
    assert!(out.stdout.contains("man"));
}

#[test]
fn completions_reject_an_unknown_shell() {
    let out = Run::new(["completions", "cmd.exe"]).output();
    assert_eq!(out.code, Some(2), "clap usage errors exit 2");
    assert!(
        out.stderr.contains("invalid value 'cmd.exe'"),
        "{}",
        out.stderr
    );
}

/// One page: the subcommands listed on it (no `dnscron-plan(1)` pages that nothing generates),
/// then EXIT STATUS and ENVIRONMENT.
#[test]
fn man_page_lists_subcommands_exit_status_and_environment() {
    let out = Run::new(["man"]).output();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert!(
        out.stdout
            .starts_with(".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n.TH dnscron 1 ")
    );
    let headings: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with(".SH"))
        .collect();
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
    let from = out.stdout.find(".SH SUBCOMMANDS").unwrap();
    assert_eq!(
        &out.stdout[from..],
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
\fBdnscron apply\fR
Make the live account match the files (or execute a saved plan), then verify
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
An error; stderr says what, where and what to do.
.TP
\fB2\fR
Changes present (plan \-\-detailed\-exitcode), or the command line itself was wrong.
.TP
\fB3\fR
apply stopped at a step a human must take in the portal; the continue_url is printed.
.SH ENVIRONMENT
.TP
\fBDNSCRON_TOKEN\fR
The API token, unless \-\-token\-file is given. It is never printed.
.TP
\fBDNSCRON_API_URL\fR
The API base URL including /api/v1, when \-\-api\-url is not given.
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
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::common::dnscron_bin())
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
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
}
