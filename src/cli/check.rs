//! `dnscron check [PATH]...`: ask each zone's nameservers what they serve and compare it with
//! the files, without the API (no token, no request to it). Drift detection from the outside.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::cli::accounts::{AccountArgs, Repository, RepositoryError};
use crate::cli::dns_args::DnsArgs;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::{runtime, validate, write_stdout};
use crate::render::check;
use dnscron_api::untrusted::Untrusted;
use dnscron_core::config;
use dnscron_core::dnscheck::{self, CheckSettings, Status, parse_resolver};
use dnscron_core::plan::{Finding, Looked, MailDns, judge_acceptances, mail_findings};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Desired-state files, or directories searched recursively for *.yaml and *.yml.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    #[command(flatten)]
    pub dns: DnsArgs,
    /// Ask this resolver for a zone's nameservers (the NS RRset), instead of the ones in
    /// /etc/resolv.conf. Used for zones whose file does not list custom nameservers. Not an
    /// apply option: apply asks the nameservers the API names and discovers none.
    #[arg(long, value_name = "IP[:PORT]", value_parser = parse_resolver)]
    pub resolver: Option<SocketAddr>,
    #[command(flatten)]
    pub account: AccountArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// For people: per zone and nameserver, in sync or each difference.
    Text,
    /// For drift jobs: zones, nameservers, differences and the summary (docs/health.md).
    Json,
    /// GitHub Actions annotations on the file lines that declare each differing RRset, and
    /// the summary as a notice.
    Github,
}

/// Exit 0 when every nameserver serves what the files say, 2 on differences or an error-level
/// mail finding the files do not accept (judged from the files, as plan does:
/// docs/health.md#mail-findings), 1 when a
/// nameserver (or a zone's nameserver list) could not be reached: the check did not run there.
pub(crate) fn run(args: CheckArgs) -> CommandResult {
    let repository = Repository::discover(&args.paths, &args.account)
        .map_err(RepositoryError::into_command_error)?;
    let mut loaded = Vec::new();
    let mut problems = config::Diagnostics::default();
    for paths in repository.folder_groups() {
        match config::load(&paths) {
            Ok(desired) => loaded.push(desired),
            Err(diags) => problems.items.extend(diags.items),
        }
    }
    if !problems.is_empty() {
        return Err(validate::report_diagnostics(&problems));
    }
    let settings = CheckSettings::new(
        args.dns.address_book(),
        args.resolver,
        args.dns.query_options(),
    );
    let mail_dns = mail_resolver(&args).map(|r| MailDns::new(r, args.dns.query_options()));
    // Every account's zones are asked at once: the nameservers, not the API, set the pace.
    let checked = runtime::block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for (index, desired) in loaded.into_iter().enumerate() {
            let settings = settings.clone();
            let mail_dns = mail_dns.clone();
            tasks.spawn(async move {
                let (report, findings) = tokio::join!(
                    dnscheck::check_zones(&desired, &settings),
                    mail_findings(&desired, mail_dns.as_ref())
                );
                (index, desired, report, findings)
            });
        }
        let mut done = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            done.push(joined);
        }
        done
    })?;
    let mut accounts = Vec::new();
    for joined in checked {
        let (index, desired, report, mut findings) = joined.map_err(|e| {
            CommandError::quoting(ErrorKind::Internal, "checking an account's zones", e)
        })?;
        // Check judges the mail findings only: an entry for anything else is not unused here.
        judge_acceptances(
            &mut findings,
            &desired,
            super::stamp::today(),
            Looked::Partly,
        );
        accounts.push((index, report, findings));
    }
    accounts.sort_by_key(|(index, ..)| *index);
    let names: Vec<Option<&str>> = match &repository {
        Repository::One { .. } => vec![None],
        Repository::Many { .. } => repository
            .chosen()
            .into_iter()
            .map(|a| Some(a.name.as_str()))
            .collect(),
    };
    let named: Vec<(Option<&str>, &dnscheck::CheckReport, &[Finding])> = names
        .iter()
        .zip(&accounts)
        .map(|(name, (_, report, findings))| (*name, report, findings.as_slice()))
        .collect();
    write_stdout(&render_all(&named, args.format)?)?;
    let failures: Vec<String> = named
        .iter()
        .filter(|(_, report, _)| report.totals().failures > 0)
        .map(|(name, report, _)| match name {
            Some(name) => format!("{} (account `{name}`)", failed(report)),
            None => failed(report),
        })
        .collect();
    if !failures.is_empty() {
        return Err(CommandError::new(
            ErrorKind::DnsUnreachable,
            format!("the check did not run for {}", failures.join(", ")),
        )
        .with_hint(
            "check the address (--nameserver-address HOST=IP[:PORT]), the resolver \
             (--resolver) and the network; --dns-timeout gives slow servers longer",
        ));
    }
    let attention = named.iter().any(|(_, report, findings)| {
        report.totals().differences > 0 || findings.iter().any(|f| f.needs_attention())
    });
    Ok(if attention {
        Outcome::DnsDiffers
    } else {
        Outcome::Success
    })
}

/// One account's report as before; several accounts each under a line naming it (text,
/// annotations) or in an `accounts` list (JSON).
fn render_all(
    named: &[(Option<&str>, &dnscheck::CheckReport, &[Finding])],
    format: CheckFormat,
) -> Result<String, CommandError> {
    let json_error = |e| CommandError::quoting(ErrorKind::Internal, "writing the JSON", e);
    if let [(None, report, findings)] = named {
        return match format {
            CheckFormat::Text => Ok(check::text(report, findings)),
            CheckFormat::Json => check::json(report, findings).map_err(json_error),
            CheckFormat::Github => Ok(check::github(report, findings)),
        };
    }
    match format {
        CheckFormat::Json => {
            let accounts: Vec<(&str, &dnscheck::CheckReport, &[Finding])> = named
                .iter()
                .map(|(name, report, findings)| (name.unwrap_or_default(), *report, *findings))
                .collect();
            check::json_accounts(&accounts).map_err(json_error)
        }
        CheckFormat::Text | CheckFormat::Github => {
            let mut out = String::new();
            for (name, report, findings) in named {
                if format == CheckFormat::Text {
                    out.push_str(&format!("account `{}`\n", name.unwrap_or_default()));
                    out.push_str(&check::text(report, findings));
                } else {
                    out.push_str(&check::github(report, findings));
                }
            }
            Ok(out)
        }
    }
}

/// The resolver SPF includes outside the account are read from: `--resolver`, else the
/// system's first (as NS discovery), unless the system resolver is off.
fn mail_resolver(args: &CheckArgs) -> Option<SocketAddr> {
    if args.resolver.is_some() || args.dns.no_system_resolver {
        return args.resolver;
    }
    let conf = std::fs::read_to_string(dnscheck::RESOLV_CONF).ok()?;
    dnscheck::parse_resolv_conf(&conf).into_iter().next()
}

/// `ns2.example.net 127.0.0.1:53 (example.com), example.org's nameservers`.
fn failed(report: &dnscheck::CheckReport) -> String {
    let mut names = Vec::new();
    for zone in &report.zones {
        if zone.error.is_some() {
            names.push(format!("{}'s nameservers (not found)", zone.zone));
        }
        for server in zone
            .nameservers
            .iter()
            .filter(|s| s.status == Status::Failed)
        {
            let at = server.address.map(|a| format!(" {a}")).unwrap_or_default();
            names.push(format!("{}{at} ({})", Untrusted(&server.host), zone.zone));
        }
    }
    names.join(", ")
}
