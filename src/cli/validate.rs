//! `dnscron validate [PATH]...`: check the desired-state files offline, and show every finding
//! the files alone prove (mail records, cron schedules), with the files' acceptances.

use std::path::PathBuf;

use crate::cli::accounts::{AccountArgs, Repository, RepositoryError};
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::{logging, runtime, stamp, write_stdout};
use crate::render::check_findings;
use crate::render::diagnostics::{self, Style};
use crate::render::github::{Annotation, Level, render_capped};
use dnscron_core::config;
use dnscron_core::config::Diagnostic;
use dnscron_core::config::accounts::Account;
use dnscron_core::config::model::Desired;
use dnscron_core::plan::{Finding, Looked, judge_acceptances, mail_findings, schedule_findings_of};

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// How problems are reported: `text` (with source snippets, on stderr) or `github`
    /// (also workflow-command annotations on stdout, at most 10 then a count).
    #[arg(long, value_enum, default_value_t = ValidateFormat::Text)]
    pub format: ValidateFormat,
    #[command(flatten)]
    pub account: AccountArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ValidateFormat {
    /// For people: each problem with the lines around it, on stderr.
    Text,
    /// GitHub Actions annotations on the problems' lines (the first 10), and the text on stderr.
    Github,
}

/// Exit 0 for valid files, whatever their findings: a finding on a record no change writes must
/// not fail a pull request, and the plan check decides what blocks a change.
pub(crate) fn run(args: ValidateArgs) -> CommandResult {
    let repository = match Repository::discover(&args.paths, &args.account) {
        Ok(repository) => repository,
        Err(RepositoryError::Invalid(diags)) => return Err(report(&diags, args.format)),
        Err(err) => return Err(err.into_command_error()),
    };
    match &repository {
        Repository::One { paths } => match config::load_with_warnings(paths) {
            Ok(loaded) => valid(loaded, args.format, None),
            Err(diags) => Err(report(&diags, args.format)),
        },
        Repository::Many { .. } => {
            // Every account's problems in one report, as one folder's are.
            let mut loaded = Vec::new();
            let mut problems = config::Diagnostics::default();
            for account in repository.chosen() {
                match config::load_with_warnings(std::slice::from_ref(&account.folder)) {
                    Ok(one) => loaded.push((account.name.as_str(), one)),
                    Err(diags) => problems.items.extend(diags.items),
                }
            }
            if !problems.is_empty() {
                return Err(report(&problems, args.format));
            }
            print_warnings(&insecure_urls(&repository.chosen()));
            for (name, one) in loaded {
                valid(one, args.format, Some(name))?;
            }
            Ok(Outcome::Success)
        }
    }
}

/// An account's `api_url` that plan, apply and doctor refuse (plain http to a host other than
/// loopback) is a warning here, at its line: the files are valid, the command would not run.
fn insecure_urls(accounts: &[&Account]) -> config::Diagnostics {
    let mut warnings = config::Diagnostics::default();
    for account in accounts {
        // An unparsable URL is the accounts file's own error, reported before this.
        let Ok(url) = dnscron_api::parse_base_url(&account.api_url) else {
            continue;
        };
        if let Err(err) = dnscron_api::check_url_policy(&url, false) {
            warnings.push(Diagnostic {
                message: format!(
                    "account `{}`'s `api_url` is valid, but plan, apply, adopt and doctor \
                     refuse it: {err}",
                    account.name
                ),
                location: Some(account.api_url_location.clone()),
                label: None,
                hint: Some(
                    "use https://, or pass --allow-insecure-http to those commands if this \
                     network is trusted"
                        .into(),
                ),
                span: None,
                source: None,
            });
        }
    }
    warnings
}

fn report(diags: &config::Diagnostics, format: ValidateFormat) -> CommandError {
    match format {
        ValidateFormat::Github => report_diagnostics_github(diags),
        ValidateFormat::Text => report_diagnostics(diags),
    }
}

/// Prints what valid files hold; `account` names whose, in a repository of several.
fn valid(loaded: config::Loaded, format: ValidateFormat, account: Option<&str>) -> CommandResult {
    let config::Loaded { desired, warnings } = loaded;
    print_warnings(&warnings);
    if format == ValidateFormat::Github && !warnings.is_empty() {
        write_stdout(&annotations(
            &warnings,
            Level::Warning,
            "validation warnings (run `dnscron validate` to see all)",
        ))?;
    }
    let findings = offline_findings(&desired)?;
    write_stdout(&match format {
        ValidateFormat::Text => check_findings::text(&findings),
        ValidateFormat::Github => render_capped(
            &check_findings::github(&findings, "validate"),
            "findings (run `dnscron validate` to see all)",
        ),
    })?;
    let (zones, records, sites, jobs) = desired.counts();
    let findings = check_findings::summary_part(&findings)
        .map(|part| format!("; {part}"))
        .unwrap_or_default();
    let whose = account
        .map(|a| format!("account `{a}`: "))
        .unwrap_or_default();
    write_stdout(&format!(
        "{whose}valid: {zones} {}, {records} {}, {sites} {}, {jobs} cron {}{findings}\n",
        plural(zones, "zone", "zones"),
        plural(records, "record", "records"),
        plural(sites, "site", "sites"),
        plural(jobs, "job", "jobs"),
    ))?;
    Ok(Outcome::Success)
}

/// What a plan would find from the files alone, judged now: mail findings (SPF includes outside
/// the files are not followed) and cron schedules, with the acceptances applied. An entry that
/// matches nothing is not called unused here: its finding may need the account or DNS.
fn offline_findings(desired: &Desired) -> Result<Vec<Finding>, CommandError> {
    let mut findings = runtime::block_on(mail_findings(desired, None))?;
    if let Some(now) = stamp::now() {
        findings.extend(schedule_findings_of(desired, now));
    }
    judge_acceptances(&mut findings, desired, stamp::today(), Looked::Partly);
    Ok(findings)
}

/// Annotations on stdout for GitHub, and the full report on stderr for the log.
pub(crate) fn report_diagnostics_github(diags: &config::Diagnostics) -> CommandError {
    if let Err(err) = write_stdout(&github_annotations(diags)) {
        return err;
    }
    report_diagnostics(diags)
}

pub(crate) fn github_annotations(diags: &config::Diagnostics) -> String {
    annotations(
        diags,
        Level::Error,
        "validation errors (run `dnscron validate` to see all)",
    )
}

/// One annotation per diagnostic at its place, at most 10, then `rest` counted.
fn annotations(diags: &config::Diagnostics, level: Level, rest: &str) -> String {
    let annotations: Vec<Annotation> = diags
        .items
        .iter()
        .map(|d| {
            let message = diagnostics::cut(&d.message, diagnostics::TEXT_CHARS);
            let message = match &d.hint {
                Some(hint) => format!("{message}\nhint: {hint}"),
                None => message.into_owned(),
            };
            let a = Annotation::new(level, message).title("dnscron validate");
            match &d.location {
                Some(l) => a.at(&l.to_string()),
                None => a,
            }
        })
        .collect();
    render_capped(&annotations, rest)
}

/// Prints the warnings about valid files to stderr (nothing when there are none).
pub(crate) fn print_warnings(warnings: &config::Diagnostics) {
    use std::io::Write;
    if !warnings.is_empty() {
        let text = diagnostics::render_warnings(warnings);
        let _ = std::io::stderr().write_all(text.as_bytes());
    }
}

/// Loads the files like `config::load`, printing the warnings about valid ones to stderr.
pub(crate) fn load_printing_warnings(
    paths: &[PathBuf],
) -> Result<dnscron_core::config::model::Desired, config::Diagnostics> {
    config::load_with_warnings(paths).map(|loaded| {
        print_warnings(&loaded.warnings);
        loaded.desired
    })
}

/// Prints every diagnostic to stderr; the returned error prints nothing more. Other commands
/// (plan, apply) call this after `config::load` fails.
pub(crate) fn report_diagnostics(diags: &config::Diagnostics) -> CommandError {
    use std::io::Write;
    let text = diagnostics::render(diags, Style::colored(logging::use_color_on_stderr()));
    let _ = std::io::stderr().write_all(text.as_bytes());
    CommandError::new(ErrorKind::AlreadyReported, "invalid desired-state files")
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
