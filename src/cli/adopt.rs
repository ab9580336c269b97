//! `dnscron adopt [PATH]...`: the reverse of apply. Plan (over a client that can only read),
//! then write the live values of drifted records into the files that declare them, in place
//! (docs/ci.md, "Ending drift"). What it wrote and what it left are printed; exit 0 when
//! nothing is left, 2 when something is (the drift that stays), 1 on an error, with nothing
//! written.

use std::path::{Path, PathBuf};

use crate::cli::accounts::{self, AccountArgs, Repository};
use crate::cli::api_args::ApiArgs;
use crate::cli::error::{CommandError, CommandResult, ErrorKind, Outcome};
use crate::cli::side_by_side::{Shown, on_threads};
use crate::cli::validate::report_diagnostics;
use crate::cli::{runtime, write_stdout};
use dnscron_api::{ApiConfig, ReadClient, untrusted};
use dnscron_core::adopt::{
    self, AdoptAction, AdoptOptions, Adopted, Adoption, FileWrite, LayoutWhy, Left, LeftReason,
};
use dnscron_core::config;
use dnscron_core::plan::{Counted, Exceeded, MakeOptions, OverLimits, Resource, Value, make_plan};

#[derive(Debug, clap::Args)]
pub struct AdoptArgs {
    /// Desired-state files, or directories searched recursively for *.yaml and *.yml; only
    /// these files are written.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Also add the live records no file declares (those `plan` would delete) to their zone's
    /// file, where `fmt` puts them.
    #[arg(long)]
    pub undeclared: bool,
    /// Adopt even when the files and the live account differ past a zone's safety limits (the
    /// size at which `plan` refuses a mass change), either way: live records the files lack, or
    /// declarations the adoption would remove or rewrite (a zone left with none unless it
    /// allows empty). By default that is refused, nothing written, as a token or URL of
    /// another account looks exactly like that.
    #[arg(long)]
    pub allow_mass_changes: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = AdoptFormat::Text)]
    pub format: AdoptFormat,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub account: AccountArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AdoptFormat {
    /// One line per record adopted or left.
    Text,
    /// `{"written", "adopted", "left"}`, each change with its reason.
    Json,
}

/// One account's adoption: whose (in a repository of several), the paths it may write under.
struct Adopting {
    account: Option<String>,
    paths: Vec<PathBuf>,
    adoption: Adoption,
}

pub(crate) fn run(args: AdoptArgs) -> CommandResult {
    let repository = Repository::discover_for_api(&args.paths, &args.account, &args.api)?;
    let opts = AdoptOptions {
        undeclared: args.undeclared,
    };
    let adopting: Vec<Adopting> = match &repository {
        Repository::One { paths } => {
            let config = args.api.clone().into_config()?;
            vec![Adopting {
                account: None,
                paths: paths.clone(),
                adoption: adopt_one(
                    paths,
                    config,
                    opts,
                    args.allow_mass_changes,
                    Shown::Own("adopt"),
                )?,
            }]
        }
        // Each account read at its own pace, side by side; nothing is written until every
        // account's adoption is made and its files checked.
        Repository::Many { .. } => {
            let chosen = repository.chosen();
            super::trust::one_token_each(&chosen, &args.api)?;
            let names: Vec<&str> = chosen.iter().map(|a| a.name.as_str()).collect();
            on_threads("adopt", &names, |index, reads| {
                let account = chosen[index];
                let paths = vec![account.folder.clone()];
                let config = accounts::api_config(account, &args.api)?;
                let adoption = adopt_one(
                    &paths,
                    config,
                    opts,
                    args.allow_mass_changes,
                    Shown::Account(reads),
                )
                .map_err(|e| accounts::in_account(e, account))?;
                Ok(Adopting {
                    account: Some(account.name.clone()),
                    paths,
                    adoption,
                })
            })?
            .into_iter()
            .collect::<Result<Vec<Adopting>, CommandError>>()?
        }
    };
    for one in &adopting {
        check_writes(&one.paths, &one.adoption.writes)?;
    }
    for write in adopting.iter().flat_map(|one| &one.adoption.writes) {
        write_file(write)?;
    }
    write_stdout(&match args.format {
        AdoptFormat::Text => adopting
            .iter()
            .map(|one| match &one.account {
                Some(name) => format!("account `{name}`:\n{}", text(&one.adoption)),
                None => text(&one.adoption),
            })
            .collect(),
        AdoptFormat::Json => json(&adopting)?,
    })?;
    Ok(if adopting.iter().all(|one| one.adoption.left.is_empty()) {
        Outcome::Success
    } else {
        Outcome::ChangesPresent
    })
}

/// Plans `paths` over a client that can only read, its reads `shown`, and makes the adoption
/// of its drift.
fn adopt_one(
    paths: &[PathBuf],
    mut config: ApiConfig,
    opts: AdoptOptions,
    allow_mass_changes: bool,
    shown: Shown,
) -> Result<Adoption, CommandError> {
    let texts = config::yaml_texts(paths).map_err(|d| report_diagnostics(&d))?;
    let desired = config::load_texts(&texts).map_err(|d| report_diagnostics(&d))?;
    let (own, reads) = shown.start();
    if let Some(reads) = &reads {
        config.on_wait = Some(reads.wait_hook());
    }
    let client = ReadClient::new(config)?;
    if let Some(reads) = &reads {
        reads.set_stats(client.stats());
    }
    let plan_opts = MakeOptions {
        // Drift is whatever the account holds: a portal edit of many records is adopted as
        // one review, not refused by the limits that guard writes to the account.
        allow_mass_changes: true,
        stamp: super::stamp::plan_stamp(),
        health: false,
        progress: reads.as_ref().map(|r| r.hook()),
        ..MakeOptions::default()
    };
    let plan = make_plan(&client, &desired, &plan_opts);
    let planned = runtime::block_on(async {
        match &own {
            Some(progress) => progress.alongside(plan).await,
            None => plan.await,
        }
    })?
    .map_err(CommandError::from)?;
    if !allow_mass_changes && !planned.plan.over_limits.is_empty() {
        return Err(mass_adoption(&planned.plan.over_limits));
    }
    let adoption = adopt::adopt(&texts, &planned.plan, &planned.live, &opts);
    if !allow_mass_changes && !adoption.over_limits.is_empty() {
        return Err(mass_removal(&adoption.over_limits));
    }
    Ok(adoption)
}

const MASS_HINT: &str = "check that the token and API URL are this account's (`dnscron doctor`); \
     if the live account is right, run again with --allow-mass-changes and review the diff";

/// The files and the account differ past a zone's safety limits: the size at which `plan`
/// refuses to change the account is the size at which adopt refuses to change the files
/// unasked, since a token or URL of another account that holds a zone of the same name looks
/// exactly like that (its records "drifted", the files' "deleted live").
fn mass_adoption(over: &[OverLimits]) -> CommandError {
    let zones: Vec<String> = over.iter().map(|o| format!("\n  {o}")).collect();
    CommandError::user(format!(
        "refusing to adopt: the live account differs from the files past the zones' safety \
         limits, as plan would refuse to change it; nothing was written:{}",
        zones.concat()
    ))
    .with_hint(MASS_HINT)
}

/// The other direction: the adoption would remove (or rewrite) more of a zone's declarations
/// than its safety limits allow, or leave it none, as a zone wiped in the portal, or a token
/// for an account where the zone holds nothing, would. Refused, at the same limits `plan`
/// keeps for deletes, counted against the records the zone declares.
fn mass_removal(over: &[OverLimits]) -> CommandError {
    let zones: Vec<String> = over
        .iter()
        .map(|o| {
            let limits: Vec<String> = o.exceeded.iter().map(file_limit).collect();
            format!(
                "\n  zone {} ({}): {}",
                escape(&o.zone),
                shown(Path::new(&o.declared_at)),
                limits.join("; ")
            )
        })
        .collect();
    CommandError::user(format!(
        "refusing to adopt: it would remove or rewrite the files' records past the zones' safety \
         limits, as plan refuses to change the live account past them; nothing was written:{}",
        zones.concat()
    ))
    .with_hint(MASS_HINT)
}

/// One limit an adoption passes, in the files' terms: a removed declaration is a delete.
fn file_limit(exceeded: &Exceeded) -> String {
    exceeded.describe(Counted::Declared)
}

/// Every file to write is one the loader read under the given paths, not a link out of them,
/// and still holds the text it was read with; otherwise nothing is written at all.
fn check_writes(paths: &[PathBuf], writes: &[FileWrite]) -> Result<(), CommandError> {
    let roots: Vec<PathBuf> = paths.iter().filter_map(|p| p.canonicalize().ok()).collect();
    for write in writes {
        let shown = shown(&write.path);
        let is_link = std::fs::symlink_metadata(&write.path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        let inside = write
            .path
            .canonicalize()
            .is_ok_and(|real| roots.iter().any(|root| real.starts_with(root)));
        if is_link || !inside {
            return Err(CommandError::new(
                ErrorKind::User,
                format!("adopt would write {shown}, which is a link or lies outside the paths given; nothing was written"),
            )
            .with_hint("give adopt the folder that holds the file itself, or replace the link with the file"));
        }
        let now = std::fs::read(&write.path);
        if now.as_deref().ok() != Some(write.original.as_bytes()) {
            return Err(CommandError::new(
                ErrorKind::User,
                format!("{shown} changed on disk (or moved) since adopt read it; nothing was written, so no edit is lost"),
            )
            .with_hint("run `dnscron adopt` again once the edit is saved"));
        }
    }
    Ok(())
}

/// Through a temporary file beside it and a rename, keeping the file's permissions, so an
/// interrupted adopt never leaves half a file.
fn write_file(write: &FileWrite) -> Result<(), CommandError> {
    let mut tmp = write.path.as_os_str().to_owned();
    tmp.push(".dnscron-adopt.tmp");
    let tmp = PathBuf::from(tmp);
    let result = std::fs::write(&tmp, &write.text)
        .and_then(|()| {
            let permissions = std::fs::metadata(&write.path)?.permissions();
            std::fs::set_permissions(&tmp, permissions)
        })
        .and_then(|()| std::fs::rename(&tmp, &write.path));
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        CommandError::with_cause(
            ErrorKind::User,
            format!("writing {} failed; it is left as it was", shown(&write.path)),
            e,
        )
        .with_hint("check that the file and its folder are writable, then run `dnscron adopt` again (files reported written above are done)")
    })
}

fn shown(path: &Path) -> String {
    untrusted::escape(&path.display().to_string()).into_owned()
}

fn text(adoption: &Adoption) -> String {
    let mut out = String::new();
    for a in &adoption.adopted {
        out.push_str(&adopted_line(a));
    }
    for l in &adoption.left {
        out.push_str(&left_line(l));
    }
    let files = adoption.writes.len();
    out.push_str(&match (adoption.adopted.len(), adoption.left.len()) {
        (0, 0) => "nothing to adopt: the live account matches the files\n".to_string(),
        (adopted, left) => format!(
            "adopted {adopted} {} into {files} {}{}\n",
            plural(adopted, "change", "changes"),
            plural(files, "file", "files"),
            match left {
                0 => String::new(),
                n => format!("; left {n} (see above): `plan` still shows them"),
            },
        ),
    });
    out
}

fn adopted_line(a: &Adopted) -> String {
    let at = match a.line {
        Some(line) => format!("{}:{line}", shown(&a.file)),
        None => shown(&a.file),
    };
    let what = format!("zone {}, {} {}", a.zone, escape(&a.name), a.rtype);
    match &a.action {
        AdoptAction::Updated { declared, live } => format!(
            "adopted: {what}: {} → {} ({at})\n",
            value(declared),
            value(live)
        ),
        AdoptAction::Removed { declared } => format!(
            "adopted: {what}: {} deleted live, its declaration removed ({at})\n",
            value(declared)
        ),
        AdoptAction::Added { live } => {
            format!("adopted: {what}: {} added ({at})\n", value(live))
        }
    }
}

fn left_line(l: &Left) -> String {
    let subject = match &l.resource {
        Resource::Record { name, rtype, .. } => format!("{} {rtype}", escape(name)),
        Resource::CronJob {
            schedule, command, ..
        } => format!("cron job `{} {}`", escape(schedule), escape(command)),
        Resource::Nameservers => "nameservers".into(),
    };
    let live = match &l.live {
        Some(v) => format!(" (live {})", value(v)),
        None => String::new(),
    };
    format!(
        "left: {} {}, {subject}{live}: {}\n",
        l.target.kind,
        escape(&l.target.name),
        reason(&l.reason)
    )
}

fn reason(reason: &LeftReason) -> String {
    match reason {
        LeftReason::RecordSet { set, zones } => format!(
            "in set `{}`, used by {zones} {}: edit the set or accept the drift",
            escape(set),
            plural(*zones, "zone", "zones")
        ),
        LeftReason::Undeclared => {
            "no file declares it: `dnscron adopt --undeclared` adds it, `apply` deletes it".into()
        }
        LeftReason::LiveValueRefused { problem } => format!(
            "its live value can't be written to a file ({}): fix it in the portal, or let `apply` write the declared one",
            escape(problem)
        ),
        LeftReason::WithItsRrset { problem } => format!(
            "a name and type is adopted whole, and another of its records can't be ({})",
            escape(problem)
        ),
        LeftReason::Layout {
            file,
            line,
            col,
            why,
        } => format!(
            "{}:{line}:{col} is written {}",
            shown(file),
            layout(why)
        ),
        LeftReason::WouldNotLoad { problem } => format!(
            "with the live value the files would not load: {}",
            escape(problem)
        ),
        LeftReason::StillDiffers => "writing it would not end the drift, so it is left as written (a defect of adopt: please report it)".into(),
        LeftReason::CronJob => "cron jobs are not adopted: copy the live job into the site's file, or let `apply` revert it".into(),
        LeftReason::Nameservers => "nameservers are not adopted: edit `nameservers:`, or let `apply` revert them".into(),
    }
}

fn layout(why: &LayoutWhy) -> String {
    match why {
        LayoutWhy::Anchor => {
            "with anchors or aliases, which an edit would part: edit it by hand".into()
        }
        LayoutWhy::Tag => "with an explicit tag (`!!str`): edit it by hand".into(),
        LayoutWhy::FlowDocument => {
            "as one flow mapping (`{zone: …, records: […]}`): write it in block style".into()
        }
        LayoutWhy::FlowList => {
            "as a flow list (`records: [ … ]`): `dnscron fmt` writes it one item a line".into()
        }
        LayoutWhy::ItemLayout => {
            "in a layout adopt can't find the record in: run `dnscron fmt`".into()
        }
        LayoutWhy::Syntax(message) => format!("in YAML the reader refuses ({})", escape(message)),
    }
}

fn value(v: &Value) -> String {
    match v {
        Value::Record { ttl, content } => format!("{} ttl {ttl}", escape(content)),
        Value::CronJob { schedule, command } => {
            format!("{} {}", escape(schedule), escape(command))
        }
        Value::Nameservers { mode, nameservers } => {
            format!("{} {}", escape(mode), escape(&nameservers.join(", ")))
        }
    }
}

fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    untrusted::escape(text)
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `{"written", "adopted", "left"}`; in a repository of several accounts, one such object per
/// account under `accounts`, each with its `account`.
fn json(adopting: &[Adopting]) -> Result<String, CommandError> {
    let one = |a: &Adopting| {
        let written: Vec<String> = a
            .adoption
            .writes
            .iter()
            .map(|w| w.path.display().to_string())
            .collect();
        let mut doc = serde_json::json!({
            "written": written,
            "adopted": a.adoption.adopted,
            "left": a.adoption.left,
        });
        if let Some(name) = &a.account {
            doc["account"] = serde_json::Value::from(name.as_str());
        }
        doc
    };
    let doc = match adopting {
        [single] if single.account.is_none() => one(single),
        _ => serde_json::json!({ "accounts": adopting.iter().map(one).collect::<Vec<_>>() }),
    };
    let text = serde_json::to_string_pretty(&doc)
        .map_err(|e| CommandError::with_cause(ErrorKind::Internal, "rendering adopt's JSON", e))?;
    Ok(untrusted::json_text(text) + "\n")
}
