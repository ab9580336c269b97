//! `dnscron export --to bind|octodns [--out DIR] [PATH]...`: the desired state, read as `plan`
//! reads it, written as another tool's files. Offline: no token, no request.
//!
//! Stdout: the files written and a count (or, with `--json`, one JSON object). Stderr: one
//! `left:` line for each thing the other tool's files can't hold (not DNS records), and one
//! `not exported` line, with its place, for each record it refuses; those fail the command
//! (exit 1) after the rest is written.

use std::path::{Path, PathBuf};

use dnscron_api::untrusted::{escape, json_text};
use dnscron_core::config::model::{IgnoreRule, NameserverMode};
use dnscron_core::export::{self, Export, Format, Left, NotExported, Unholdable};

use crate::cli::accounts::{AccountArgs, Repository, RepositoryError};
use crate::cli::error::{CommandError, CommandResult, Outcome, not_exported};
use crate::cli::{validate, write_stdout};
use dnscron_core::config;

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The tool to write for: `bind`, one RFC 1035 zone file per zone (<zone>.zone);
    /// `octodns`, a configuration (config.yaml) and its YAML provider's zone files
    /// (zones/<zone>.yaml).
    #[arg(long, value_enum, value_name = "TOOL")]
    pub to: ExportTo,
    /// Folder to write into, created when missing; it must be empty unless --force [default:
    /// export-bind or export-octodns].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write into a folder that is not empty, over the files export writes (others are kept).
    #[arg(long)]
    pub force: bool,
    /// Print what was written and left as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Files, or directories searched recursively for *.yaml and *.yml. In a repository of
    /// several accounts (dnscron-accounts.yaml), each account's files go to a folder of its
    /// name inside --out.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub account: AccountArgs,
}

/// The tools `--to` writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportTo {
    /// BIND zone files.
    Bind,
    /// An octoDNS configuration and its YAML provider's zone files.
    Octodns,
}

impl ExportTo {
    fn name(self) -> &'static str {
        match self {
            ExportTo::Bind => "bind",
            ExportTo::Octodns => "octodns",
        }
    }

    fn format(self) -> Format {
        match self {
            ExportTo::Bind => Format::Bind,
            ExportTo::Octodns => Format::Octodns,
        }
    }
}

pub(crate) fn run(args: ExportArgs) -> CommandResult {
    let repository = Repository::discover(&args.paths, &args.account)
        .map_err(RepositoryError::into_command_error)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("export-{}", args.to.name())));
    refuse_yaml_where_read(&args, &out, &repository)?;
    let export = match &repository {
        Repository::One { paths } => {
            let desired = validate::load_printing_warnings(paths)
                .map_err(|d| validate::report_diagnostics(&d))?;
            export::export(&desired, args.to.format())
        }
        Repository::Many { .. } => {
            let loaded = load_accounts(&repository)?;
            let accounts: Vec<(&str, &_)> = loaded.iter().map(|(n, d)| (*n, d)).collect();
            export::export_accounts(&accounts, args.to.format())
        }
    };
    let written = export::write_export(&out, &export.files, args.force)?;
    let mut stderr = String::new();
    for left in &export.left {
        stderr.push_str(&format!("left: {}\n", left_words(left, args.to)));
    }
    for item in &export.not_exported {
        stderr.push_str(&format!("not exported {}\n", not_exported_line(item)));
    }
    eprint!("{stderr}");
    write_stdout(&if args.json {
        json(&args, &out, &export, &written)
    } else {
        text(&args, &out, &export, &written)
    })?;
    match export.not_exported.len() {
        0 => Ok(Outcome::Success),
        n => Err(not_exported(n)),
    }
}

/// octoDNS's files are YAML: written inside a folder this export reads (a repository of
/// several accounts' root, or a PATH folder), the next `validate` or `plan` would read them as
/// dnscron's files and refuse every command ("lies in no account's folder"). Refused before
/// anything is written; BIND zone files (`*.zone`) are no YAML and may go anywhere.
fn refuse_yaml_where_read(
    args: &ExportArgs,
    out: &Path,
    repository: &Repository,
) -> Result<(), CommandError> {
    if args.to == ExportTo::Bind {
        return Ok(());
    }
    let read: Vec<PathBuf> = match repository {
        Repository::One { paths } => paths.iter().filter(|p| p.is_dir()).cloned().collect(),
        Repository::Many { accounts, .. } => vec![accounts.root.clone()],
    };
    let target = absolute(out);
    let Some(inside) = read.iter().find(|dir| target.starts_with(absolute(dir))) else {
        return Ok(());
    };
    let given = match &args.out {
        Some(_) => "--out",
        None => "the default --out",
    };
    Err(CommandError::user(format!(
        "{given} {} is inside {}, which this export reads: the octoDNS YAML files written there \
         would be read as dnscron's own files by the next validate or plan, which would refuse \
         them; nothing was written",
        escape(&out.display().to_string()),
        escape(&inside.display().to_string()),
    ))
    .with_hint(format!(
        "pass --out with a folder outside {}, e.g. --out ../dns-octodns",
        escape(&inside.display().to_string())
    )))
}

/// `path` made absolute, `.` and `..` applied, links resolved as far as it exists, so that two
/// spellings of one folder compare equal.
fn absolute(path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_path_buf());
    let mut lexical = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other @ (Component::Prefix(_) | Component::RootDir | Component::Normal(_)) => {
                lexical.push(other.as_os_str());
            }
        }
    }
    let mut existing = lexical;
    let mut rest = Vec::new();
    while !existing.exists() {
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_os_string());
                existing.pop();
            }
            None => break,
        }
    }
    let mut resolved = existing.canonicalize().unwrap_or(existing);
    for name in rest.into_iter().rev() {
        resolved.push(name);
    }
    resolved
}

/// An `ignore:` rule as the files write it: `_acme-challenge* TXT`, `mail* (any type)`, with
/// its content glob when it has one.
fn rule_words(rule: &IgnoreRule) -> String {
    let rtype = match rule.rtype {
        Some(rtype) => rtype.as_str().to_string(),
        None => "(any type)".into(),
    };
    let content = match &rule.content {
        Some(content) => format!(" content {}", escape(content)),
        None => String::new(),
    };
    format!("{} {rtype}{content}", escape(&rule.name))
}

/// Every chosen account's files, as `plan` reads each; every problem of every account in one
/// report, and nothing written.
fn load_accounts(
    repository: &Repository,
) -> Result<Vec<(&str, config::model::Desired)>, CommandError> {
    let mut loaded = Vec::new();
    let mut problems = config::Diagnostics::default();
    for account in repository.chosen() {
        match validate::load_printing_warnings(std::slice::from_ref(&account.folder)) {
            Ok(desired) => loaded.push((account.name.as_str(), desired)),
            Err(diags) => problems.items.extend(diags.items),
        }
    }
    if problems.is_empty() {
        Ok(loaded)
    } else {
        Err(validate::report_diagnostics(&problems))
    }
}

fn text(args: &ExportArgs, out: &Path, export: &Export, written: &[PathBuf]) -> String {
    let mut text = String::new();
    for path in written {
        text.push_str(&format!("wrote {}\n", escape(&path.display().to_string())));
    }
    text.push_str(&format!(
        "exported {} zone{}, {} record{} to {} for {}\n",
        export.zones,
        plural(export.zones),
        export.records,
        plural(export.records),
        escape(&out.display().to_string()),
        args.to.name()
    ));
    text
}

fn json(args: &ExportArgs, out: &Path, export: &Export, written: &[PathBuf]) -> String {
    let not_exported: Vec<serde_json::Value> = export
        .not_exported
        .iter()
        .map(|item| {
            serde_json::json!({
                "at": item.record.location.to_string(),
                "zone": item.zone.as_str(),
                "name": item.name,
                "type": item.record.rtype.as_str(),
                "content": item.record.content,
                "why": unholdable_words(item.why),
            })
        })
        .collect();
    let value = serde_json::json!({
        "to": args.to.name(),
        "out": out.display().to_string(),
        "zones": export.zones,
        "records": export.records,
        "files": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "left": export.left.iter().map(|l| format!("left: {}", left_words(l, args.to))).collect::<Vec<_>>(),
        "not_exported": not_exported,
    });
    json_text(serde_json::to_string_pretty(&value).unwrap_or_default()) + "\n"
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn left_words(left: &Left, to: ExportTo) -> String {
    match left {
        Left::Cron {
            site,
            jobs,
            location,
        } => format!(
            "site {} at {}: {jobs} cron job{} (not DNS records)",
            escape(site),
            at(&location.to_string()),
            plural(*jobs)
        ),
        Left::Nameservers {
            zone,
            mode,
            as_apex_ns,
            location,
        } => {
            let mode = match mode {
                NameserverMode::Hosted => "hosted".to_string(),
                NameserverMode::Custom(hosts) => format!("custom: {}", escape(&hosts.join(", "))),
            };
            let then = match (mode_custom(left), *as_apex_ns) {
                (_, true) => "its hosts are written as the zone's apex NS records (and an SOA)",
                (true, false) => "the registrar keeps the domain on these hosts",
                (false, false) => {
                    "point the domain at the new provider's nameservers at the registrar when the zone moves"
                }
            };
            format!(
                "zone {zone} at {}: the registrar nameserver mode ({mode}) is not a DNS record; {then}",
                at(&location.to_string())
            )
        }
        Left::NoSoa { zone, location } => format!(
            "zone {zone} at {}: no SOA or apex NS records (the files name no nameservers for the zone); add those of the server that will serve the zone before named loads it",
            at(&location.to_string())
        ),
        Left::Ignore {
            zone,
            rules,
            location,
        } => {
            let (rules_keep, those) = match rules.len() {
                1 => (
                    "1 `ignore:` rule".to_string() + " (RULES) keeps",
                    "that rule keeps",
                ),
                n => (
                    format!("{n} `ignore:` rules (RULES) keep"),
                    "those rules keep",
                ),
            };
            let rules_keep = rules_keep.replace(
                "RULES",
                &rules.iter().map(rule_words).collect::<Vec<_>>().join("; "),
            );
            // BIND's files carry the rules as comments `import --from bind` reads back; no
            // other tool reads them.
            let hold = match to {
                ExportTo::Bind => {
                    "the exported files hold the rules only as `; dnscron-ignore:` comments (which `dnscron import --from bind` reads back), not the records"
                }
                ExportTo::Octodns => "the exported files hold neither the records nor the rules",
            };
            format!(
                "zone {zone} at {}: {rules_keep} live records that no file declares, and {hold}: a tool that applies these files as the whole zone (an octoDNS sync, a BIND primary loading them) would delete the records {those}; copy them in, or have that tool leave them alone, before it serves or syncs the zone",
                at(&location.to_string()),
            )
        }
        Left::NoPrune { zone, location } => format!(
            "zone {zone} at {}: `prune: false`: live records no file declares are kept by dnscron and are not in the files",
            at(&location.to_string())
        ),
        Left::Registrar { zone, location } => format!(
            "zone {zone} at {}: `registrar:` expectations are checks of the registration, not DNS records",
            at(&location.to_string())
        ),
    }
}

fn mode_custom(left: &Left) -> bool {
    matches!(
        left,
        Left::Nameservers {
            mode: NameserverMode::Custom(_),
            ..
        }
    )
}

fn at(location: &str) -> String {
    escape(location).into_owned()
}

fn not_exported_line(item: &NotExported) -> String {
    format!(
        "{} {} {} {}: {}",
        at(&item.record.location.to_string()),
        escape(&item.name),
        item.record.rtype.as_str(),
        escape(&item.record.content),
        unholdable_words(item.why)
    )
}

fn unholdable_words(why: Unholdable) -> &'static str {
    match why {
        Unholdable::NonAscii => "octoDNS refuses a TXT value with characters outside ASCII",
        Unholdable::BackslashSemicolon => {
            "octoDNS reads `\\;` as an escaped `;` and refuses `\\\\;`, so a backslash before a semicolon can't be written"
        }
        Unholdable::QuoteSpaceQuote => {
            "octoDNS removes `\" \"` from every TXT value (its joint of quoted strings)"
        }
    }
}
