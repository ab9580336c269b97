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
            "adopt",
            "apply",
            "baseline",
            "check",
            "completions",
            "controller",
            "demo",
            "doctor",
            "emulator",
            "export",
            "fmt",
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
\fBdnscron fmt\fR
Rewrite the desired\-state files in canonical form (\-\-check: write nothing, show the diff, exit 1)
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
\fBdnscron adopt\fR
Write the live values of drifted records into the files that declare them, in place (the reverse of apply; read\-only on the API; exit 2 when some drift is left)
.TP
\fBdnscron check\fR
Ask each zone\*(Aqs nameservers over DNS whether they serve what the files say (no API token; exit 0 in sync, 2 differences, 1 a nameserver could not be asked)
.TP
\fBdnscron import\fR
Write desired\-state files that reproduce the live account (plan then shows no changes), or another tool\*(Aqs files (`\-\-from bind`: zone files; `\-\-from octodns`: a configuration; `\-\-from dnscontrol`: `dnscontrol print\-ir`\*(Aqs JSON)
.TP
\fBdnscron export\fR
Write the files as another tool\*(Aqs, offline: `\-\-to bind`, a zone file per zone; `\-\-to octodns`, an octoDNS configuration and its zone files. Says what they can\*(Aqt hold
.TP
\fBdnscron baseline\fR
Take the account as it is today: accept its error findings and list what no file declares as unmanaged, so the drift job starts green
.TP
\fBdnscron doctor\fR
Check the API URL, the token, the rate\-limit headroom and what the server expects
.TP
\fBdnscron controller\fR
Keep the account in step with a folder, round after round: apply what merged, report (or, under \-\-policy heal, revert) drift; metrics and probes with \-\-listen
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
Print the man page (roff); read it with: dnscron man | man \-l \-
.PP
The options of each subcommand: \fBdnscron help\fR \fICOMMAND\fR or \fBdnscron\fR \fICOMMAND\fR \fB\-\-help\fR.
.SH "EXIT STATUS"
.TP
\fB0\fR
success (also \fB\-\-help\fR, \fB\-\-version\fR); \fBcontroller\fR stopped by SIGTERM or SIGINT (a graceful stop, as Kubernetes expects: the write in flight finished), or \fBcontroller \-\-once\fR converged
.TP
\fB1\fR
error: a usage error (unknown flag or value), invalid files, a file not in canonical form (\fBfmt \-\-check\fR), an API error, a failed change, a change nobody reviewed or a reviewed one changed since review (\fBapply \-\-reviewed\fR/\fB\-\-plan\fR; nothing sent), a change of the plan changed again by someone during the apply, not converged, a switch to custom nameservers not done because they don\*(Aqt serve the zone yet, records \fBimport \-\-from\fR could not import (listed; the rest written), a \fBcontroller \-\-once\fR round that failed
.TP
\fB2\fR
changes present, a zone, domain or site of the account no file of the planned folder declares, or an error\-level finding the files do not accept (\fBaccept:\fR) such as a DS mismatch, a domain about to expire or an SPF record over 10 DNS lookups (\fBplan \-\-detailed\-exitcode\fR; docs/health.md); a nameserver serving other data than the files, or such a mail finding (\fBcheck\fR); drift, a revision not applied or such a finding left after \fBcontroller \-\-once\fR (docs/controller.md); drift \fBadopt\fR left in the account and out of the files (a record of a record set, an undeclared one without \fB\-\-undeclared\fR, a live value the files can\*(Aqt hold, a cron job; listed, the rest written; docs/ci.md); nothing else ever exits 2
.TP
\fB3\fR
apply stopped at a step a human must take in the portal (the \fBcontinue_url\fR is printed)
.TP
\fB4\fR
apply refused a plan that holds a change: an error finding judged from the files (a DMARC record receivers discard, a cron job that never runs) or, in a plan made with \fB\-\-resolver\fR, from DNS, not accepted with \fBaccept:\fR, is about what it writes; nothing sent (\fBapply\fR, \fB\-\-reviewed\fR, \fB\-\-plan\fR; docs/apply.md)
.TP
\fB130, 143\fR
stopped by SIGINT or SIGTERM: apply after the change in flight, with its report (before its first write, at once, saying nothing was sent); \fBplan\fR at once, saying no plan was shown or saved (\fBcontroller\fR exits 0 on them: its stop is the expected one)
.SH ENVIRONMENT
.TP
\fBDNSCRON_API_URL\fR
the API base URL including \fB/api/v1\fR, when \fB\-\-api\-url\fR is not given
.TP
\fBDNSCRON_TOKEN\fR
the API token, unless \fB\-\-token\-file\fR is given; never printed or logged
.TP
\fBDNSCRON_TIMEOUT\fR
the deadline of each HTTP attempt, as \fB\-\-timeout\fR (default \fB30s\fR; a request gives up within 4 × this)
.TP
\fBDNSCRON_DNS_WAIT\fR
\fBapply\fR: how long to ask the zones\*(Aq nameservers until they serve the writes, as \fB\-\-dns\-wait\fR (default \fB10s\fR, \fB0\fR off)
.TP
\fBDNSCRON_ALLOW_UNREADY_NAMESERVERS\fR
\fBapply\fR: when true (\fB1\fR, \fByes\fR), switch a domain to custom nameservers without first asking them whether they serve the zone, as \fB\-\-allow\-unready\-nameservers\fR
.TP
\fBDNSCRON_NO_SYSTEM_RESOLVER\fR
when true (\fB1\fR, \fByes\fR), DNS checks never ask the system\*(Aqs resolver, as \fB\-\-no\-system\-resolver\fR
.TP
\fBNO_COLOR\fR
when set, no colour on stdout or stderr (colour is only ever used on a terminal)
.TP
\fBTERM\fR
\fBdumb\fR: no colour, and \fBapply\fR\*(Aqs progress as plain lines instead of a redrawn bar
.TP
\fBRUST_LOG\fR
a log filter (e.g. \fBdnscron=debug\fR) that replaces the level chosen by \fB\-v\fR and \fB\-q\fR
.TP
\fBDNSCRON_PLAN_ID\fR
tests only: the id a new plan gets instead of a random one
.TP
\fBDNSCRON_TIMESTAMP\fR
tests only: the \fBcreated_at\fR (RFC 3339) a new plan gets instead of the clock
.TP
\fBDNSCRON_SYSTEM_RESOLVER\fR
tests only: the resolver (IP[:PORT]) \fB\-\-resolver system\fR asks instead of /etc/resolv.conf\*(Aqs first
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
        .args([
            "validate",
            "examples/dns/sites",
            "examples/dns/zones/example.org.yaml",
        ])
        .expect_status(1)
        .expect_stdout("valid: 1 zone, 3 records, 2 sites, 4 cron jobs\n")
        .run();
}

#[test]
fn the_harness_accepts_exactly_the_expected_run() {
    // Files without findings: the summary line alone.
    Test::new()
        .args([
            "validate",
            "examples/dns/sites",
            "examples/dns/zones/example.org.yaml",
        ])
        .expect_stdout("valid: 1 zone, 3 records, 2 sites, 4 cron jobs\n")
        .run();
}

/// Help that sends the reader on names every way there: `plan --out`'s file is applied with
/// `apply --reviewed` (the recipes' way) or `apply --plan`; a saved plan is also what
/// `plan --format json` prints.
#[test]
fn help_names_every_way_to_use_a_saved_plan() {
    let plan = Test::new().args(["plan", "--help"]).run_for_stdout();
    let out = plan
        .split("--out <FILE>")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap();
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        out,
        "Also write the plan as JSON to FILE, the plan a reviewer approves: `dnscron apply \
         --reviewed FILE PATH...` then applies only changes it holds (the CI recipes' way), \
         `dnscron apply --plan FILE` executes it as saved"
    );
    let show = Test::new().args(["show", "--help"]).run_for_stdout();
    assert!(
        show.contains(
            "A plan file written by `dnscron plan --out FILE` (or `dnscron plan --format json`)"
        ),
        "{show}"
    );
}

/// `import -h` (the short help) names every source `--from` reads, in the command's summary, as
/// `--from NAME`: a new source the summary leaves out fails here.
#[test]
fn import_short_help_names_every_from() {
    use clap::ValueEnum;
    let help = Test::new().args(["import", "-h"]).run_for_stdout();
    let summary = help.split("\n\n").next().unwrap().replace('\n', " ");
    let sources = dnscron::cli::import::Source::value_variants();
    assert_eq!(sources.len(), 3);
    for source in sources {
        let name = source.to_possible_value().unwrap();
        let named = format!("`--from {}`", name.get_name());
        assert!(summary.contains(&named), "{named} missing from: {summary}");
    }
}

/// Every value of every command's `--format` says what it is for.
#[test]
fn every_format_value_is_described() {
    use clap::CommandFactory;
    let cli = dnscron::cli::Cli::command();
    let mut undescribed = Vec::new();
    let mut formats = 0;
    for sub in cli.get_subcommands() {
        for arg in sub.get_arguments().filter(|a| a.get_id() == "format") {
            for value in arg.get_possible_values() {
                formats += 1;
                if value.get_help().is_none() {
                    undescribed.push(format!("{} --format {}", sub.get_name(), value.get_name()));
                }
            }
        }
    }
    assert_eq!(undescribed, Vec::<String>::new());
    assert!(formats >= 14, "{formats} values");
}

/// `--allow-mass-changes` says what it lifts: the limits on deletes, content updates and TTL-only
/// updates (a `defaults.ttl` change is the usual one), in `plan` and `apply` alike; and `apply`
/// names the per-plan approval beside it.
#[test]
fn allow_mass_changes_names_updates_and_ttl_only_changes() {
    for command in ["plan", "apply"] {
        let help = Test::new().args([command, "--help"]).run_for_stdout();
        let flag = help
            .split("--allow-mass-changes\n")
            .nth(1)
            .and_then(|rest| rest.split("\n      --").next())
            .unwrap_or_else(|| panic!("{command} --help: {help}"));
        let flag = flag.split_whitespace().collect::<Vec<_>>().join(" ");
        for words in [
            "deletes",
            "content updates",
            "TTL-only updates",
            "defaults.ttl",
        ] {
            assert!(flag.contains(words), "{command}: {flag}");
        }
    }
    let apply = Test::new().args(["apply", "--help"]).run_for_stdout();
    assert!(
        apply.contains("--allow-mass-changes-in <PLAN_FILE>"),
        "{apply}"
    );
}
