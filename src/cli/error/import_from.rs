//! `import --from`: a zone file that can't be read, and the records that could not be imported,
//! in words, with their hints and kinds.

use dnscron_core::import::from_files::bind::BindError;
use dnscron_core::import::from_files::dnscontrol::DnscontrolError;
use dnscron_core::import::from_files::octodns::OctodnsError;
use std::path::Path;

use dnscron_api::untrusted::escape;

use super::{CommandError, ErrorKind};

impl From<BindError> for CommandError {
    fn from(err: BindError) -> Self {
        match &err {
            BindError::Read { .. } => CommandError::from_error(ErrorKind::User, err)
                .with_hint("check the file's path and that it is readable"),
            BindError::Syntax { path, errors } => {
                let text = located_problems(path, "a zone file", errors);
                CommandError::worded(ErrorKind::User, text, err).with_hint(
                    "fix the lines named above; `named-checkzone ZONE FILE` reads the file as BIND does",
                )
            }
            BindError::NoOrigin { path } => CommandError::worded(
                ErrorKind::User,
                format!(
                    "{} doesn't say which zone it holds: it has no $ORIGIN and no SOA record; nothing was written",
                    escape(&path.display().to_string())
                ),
                err,
            )
            .with_hint("name the zone with --origin example.com (one file at a time)"),
            BindError::BadZone { .. } => CommandError::from_error(ErrorKind::User, err)
                .with_hint("give the zone's name with --origin example.com"),
        }
    }
}

impl From<OctodnsError> for CommandError {
    fn from(err: OctodnsError) -> Self {
        match &err {
            OctodnsError::Read { .. } => CommandError::from_error(ErrorKind::User, err)
                .with_hint("check the configuration's path and that it is readable"),
            OctodnsError::Invalid { path, problems } => {
                let text = located_problems(path, "an octoDNS configuration", problems);
                CommandError::worded(ErrorKind::User, text, err).with_hint(
                    "fix the lines named above; `octodns-validate --config-file CONFIG` reads the configuration as octoDNS does",
                )
            }
        }
    }
}

/// `PATH can't be read as WHAT (N problems); nothing was written:`, then each located problem
/// on its own line.
fn located_problems(path: &Path, what: &str, problems: &[impl std::fmt::Display]) -> String {
    let mut text = format!(
        "{} can't be read as {what} ({} problem{}); nothing was written:",
        escape(&path.display().to_string()),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    for p in problems {
        text.push_str(&format!("\n  {}", escape(&p.to_string())));
    }
    text
}

impl From<DnscontrolError> for CommandError {
    fn from(err: DnscontrolError) -> Self {
        let hint = match &err {
            DnscontrolError::Read { .. } => "check the file's path and that it is readable",
            DnscontrolError::Json { .. } | DnscontrolError::NoDomains { .. } => {
                "write the file with `dnscontrol print-ir > ir.json` (DNSControl v4)"
            }
            DnscontrolError::BadZone { .. } => {
                "the zone must be a domain name this account can host"
            }
            DnscontrolError::NoRecords { .. } => {
                "an IR without records would have DNSControl delete every record; print the IR of the dnsconfig.js that declares the domain's records"
            }
            DnscontrolError::DeclaredAndIgnored { .. } => {
                "a record is either managed or ignored: remove the record from dnsconfig.js or narrow the IGNORE, then print the IR again"
            }
            DnscontrolError::Pattern { .. } => {
                "an `ignore:` glob has only `*` and `?`: rewrite the IGNORE with them, or add the rules by hand after import"
            }
            DnscontrolError::Target { .. } => {
                "write the target as one label (a name in the domain) or as a name ending with `.`, then print the IR again"
            }
        };
        let text = format!("{}; nothing was written", escape(&err.to_string()));
        CommandError::worded(ErrorKind::User, text, err).with_hint(hint)
    }
}

/// What `import --from` could not import was listed above it; the files hold the rest.
pub fn not_imported(count: usize) -> CommandError {
    CommandError::new(
        ErrorKind::User,
        format!(
            "{count} record{} of the source could not be imported (listed above); the files written hold the rest",
            if count == 1 { "" } else { "s" }
        ),
    )
    .with_hint(
        "this account's zones can't hold what was listed: decide for each record (drop it, or serve it from elsewhere) before the registrar switch",
    )
}
