//! `dnscron import`: write desired-state files that reproduce the live account (or, with
//! `--probe`, a domain hosted elsewhere), so `plan` on them shows no changes; with `--from`,
//! another tool's files (`import_from`).

use std::path::{Path, PathBuf};

use crate::cli::accounts::{self, AccountArgs, Named, Repository};
use crate::cli::api_args::ApiArgs;
use crate::cli::error::{CommandError, CommandResult, Outcome};
use crate::cli::side_by_side::{Shown, on_threads};
use crate::cli::{import_from, runtime, write_stdout};
use dnscron_api::untrusted::escape;
use dnscron_api::{ReadClient, WriteClient};
use dnscron_core::config::{self, json_schema};
use dnscron_core::dns::ZoneName;
use dnscron_core::import::{
    self, Fetched, NsChoice, OutFile, SCHEMA_FILE, Selection, SetFile, SiteFile, ZoneFile,
};

#[derive(Debug, Clone, clap::Args)]
#[command(group(
    clap::ArgGroup::new("what").required(true).multiple(true).args(["zone", "site", "all", "probe", "from"])
))]
pub struct ImportArgs {
    /// Read another tool's files instead of the account (no API token needed): `bind`, zone
    /// files (RFC 1035 master files, one zone each); `octodns`, a configuration (every zone it
    /// names, from its YAML provider's files); `dnscontrol`, `dnscontrol print-ir`'s JSON.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "files",
          conflicts_with_all = ["zone", "site", "all", "probe"])]
    pub from: Option<Source>,
    /// The files to read with `--from`.
    #[arg(value_name = "FILE", requires = "from")]
    pub files: Vec<PathBuf>,
    /// `--from bind` with one file: the zone's name, when the file has no `$ORIGIN` and no SOA
    /// record (or to override them).
    #[arg(long, value_name = "ZONE", requires = "from")]
    pub origin: Option<String>,
    /// A zone to import (repeatable).
    #[arg(long, value_name = "ZONE", conflicts_with_all = ["all", "probe"])]
    pub zone: Vec<String>,
    /// A site (slug) whose cron jobs to import (repeatable).
    #[arg(long, value_name = "SLUG", conflicts_with_all = ["all", "probe"])]
    pub site: Vec<String>,
    /// Every zone (GET /dns) and every site (GET /sites), with the nameserver mode of each zone
    /// whose domain is registered here.
    #[arg(long, conflicts_with = "probe")]
    pub all: bool,
    /// Write the import plan of a domain not hosted here yet (POST /dns/zones/probe, a dry run
    /// that needs the `dns` scope), with the registrar steps as comments.
    #[arg(long, value_name = "DOMAIN")]
    pub probe: Option<String>,
    /// Directory to write into: zones/<zone>.yaml, sites/<slug>.yaml and the schema.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,
    /// Move records identical in 3 or more of the imported zones (whole name-and-type groups,
    /// the zone's name in a content written `{zone}`) into record sets, sets/<name>.yaml, that
    /// those zones `use:`.
    #[arg(long, conflicts_with = "probe")]
    pub extract_sets: bool,
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub account: AccountArgs,
}

/// The formats `--from` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// BIND zone files.
    Bind,
    /// An octoDNS configuration (its YAML provider's zone files).
    Octodns,
    /// DNSControl's IR, the JSON `dnscontrol print-ir` writes (one zone per domain).
    Dnscontrol,
}

pub fn run(args: ImportArgs) -> CommandResult {
    // A repository of several accounts is found where the command runs, as `plan` finds it in
    // the folder it is given: its accounts say which API each import reads and where it writes.
    let repository = Repository::discover_for_api(&[PathBuf::from(".")], &args.account, &args.api)?;
    let chosen = repository.chosen();
    if chosen.is_empty() {
        if let Some(source) = args.from {
            return import_from::run(source, &args, Named::Folder(&args.out));
        }
        let config = args.api.clone().into_config()?;
        let named = Named::Folder(&args.out);
        let summary = import_one(&args, &args.out, named, config, Shown::Own("import"))?;
        write_stdout(&summary)?;
        return Ok(Outcome::Success);
    }
    let out_given = args.out != Path::new(".");
    let one_account_only = args.from.is_some()
        || args.probe.is_some()
        || !args.zone.is_empty()
        || !args.site.is_empty();
    if (one_account_only || out_given) && chosen.len() > 1 {
        return Err(CommandError::user(format!(
            "this import reads or writes one account, and {} are chosen: {}",
            chosen.len(),
            chosen
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_hint(
            "name the account with --account NAME (--zone, --site, --probe, --from and --out \
             are one account's; --all alone imports every account into its folder)",
        ));
    }
    let mut targets = Vec::new();
    for account in &chosen {
        let out = if out_given {
            let climbs = args
                .out
                .components()
                .any(|c| c == std::path::Component::ParentDir);
            if climbs
                || (!args.out.starts_with(&account.folder)
                    && !Path::new(".").join(&args.out).starts_with(&account.folder))
            {
                return Err(CommandError::user(format!(
                    "--out {} is outside account `{}`'s folder {}",
                    escape(&args.out.display().to_string()),
                    account.name,
                    account.folder.display()
                ))
                .with_hint(
                    "write into the account's folder (the default), or a folder inside it",
                ));
            }
            args.out.clone()
        } else {
            account.folder.clone()
        };
        targets.push((account.name.clone(), out, *account));
    }
    if let Some(source) = args.from {
        let mut one = args.clone();
        one.out = targets[0].1.clone();
        let named = Named::Account {
            root: Path::new("."),
            name: &targets[0].0,
        };
        return import_from::run(source, &one, named);
    }
    // Each account's reads at its own pace, side by side, the progress counting each apart;
    // the summaries in the file's order.
    let chosen: Vec<&dnscron_core::config::accounts::Account> =
        targets.iter().map(|(_, _, account)| *account).collect();
    super::trust::one_token_each(&chosen, &args.api)?;
    let names: Vec<&str> = targets.iter().map(|(name, _, _)| name.as_str()).collect();
    let results = on_threads("import", &names, |index, reads| {
        let (name, out, account) = &targets[index];
        let config = accounts::api_config(account, &args.api)?;
        let named = Named::Account {
            root: Path::new("."),
            name,
        };
        import_one(&args, out, named, config, Shown::Account(reads))
            .map(|summary| format!("account `{name}`:\n{summary}"))
            .map_err(|e| accounts::in_account(e, account))
    })?;
    let mut first_error = None;
    for result in results {
        match result {
            Ok(summary) => write_stdout(&summary)?,
            Err(err) if first_error.is_none() => first_error = Some(err),
            Err(err) => {
                let _ = std::io::Write::write_all(
                    &mut std::io::stderr(),
                    format!("{err}\n").as_bytes(),
                );
            }
        }
    }
    match first_error {
        Some(err) => Err(err),
        None => Ok(Outcome::Success),
    }
}

/// One account's import into `out`: its summary, the files written and checked.
fn import_one(
    args: &ImportArgs,
    out: &Path,
    named: Named<'_>,
    config: dnscron_api::ApiConfig,
    shown: Shown,
) -> Result<String, CommandError> {
    let (fetched, next) = match &args.probe {
        Some(domain) => {
            let domain = parse_zone(domain, "--probe")?;
            let client = WriteClient::new(config)?;
            runtime::block_on(probe(&client, &domain))??
        }
        None => {
            let selection = Selection {
                zones: args
                    .zone
                    .iter()
                    .map(|z| parse_zone(z, "--zone"))
                    .collect::<Result<_, _>>()?,
                sites: args.site.clone(),
                all: args.all,
            };
            let (own, reads) = shown.start();
            let mut config = config;
            if let Some(reads) = &reads {
                config.on_wait = Some(reads.wait_hook());
            }
            let client = ReadClient::new(config)?;
            if let Some(reads) = &reads {
                reads.set_stats(client.stats());
            }
            let hook = reads.as_ref().map(|r| r.hook());
            let fetch = import::fetch(&client, &selection, hook.as_ref());
            let fetched = runtime::block_on(async {
                match &own {
                    Some(progress) => progress.alongside(fetch).await,
                    None => fetch.await,
                }
            })??;
            (fetched, Next::Plan)
        }
    };
    let mut zones = fetched.zones.clone();
    let sets = if args.extract_sets {
        import::extract_sets(&mut zones)
    } else {
        Vec::new()
    };
    let files = out_files(&zones, &sets, &fetched.sites);
    let written = import::write_files(out, &files, args.force)?;
    let summary = summary(out, named, &fetched, &sets, &written, &next);
    self_check(&written, fetched.zones.iter())?;
    Ok(summary)
}

/// Loads what was just written, as `plan` will: a file that doesn't validate, or declares other
/// records than were imported, is a bug here, and saying so beats a confusing plan later.
pub(super) fn self_check<'z>(
    written: &[PathBuf],
    zones: impl Iterator<Item = &'z ZoneFile>,
) -> Result<(), CommandError> {
    let yaml: Vec<PathBuf> = written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .cloned()
        .collect();
    if yaml.is_empty() {
        return Ok(());
    }
    let bug = |what: String| {
        CommandError::internal(format!(
            "the imported files {what}; this is a bug in dnscron import"
        ))
        .with_hint("please report it with the files; `dnscron validate` shows the details")
    };
    let desired = config::load(&yaml).map_err(|d| {
        bug(format!(
            "don't validate ({} problems, e.g. {})",
            d.len(),
            d.items.first().map_or("?", |i| i.message.as_str())
        ))
    })?;
    for zone in zones {
        let loaded = desired.zones.iter().find(|z| z.zone == zone.zone);
        // Sorted: records from a set load after the zone's own.
        let mut got: Vec<(&str, &str)> = loaded
            .map(|z| {
                z.records
                    .iter()
                    .map(|r| (r.name.as_str(), r.canonical.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        got.sort_unstable();
        let mut want: Vec<(&str, &str)> = zone
            .records
            .iter()
            .map(|r| (r.name.as_str(), r.canonical.as_str()))
            .collect();
        want.sort_unstable();
        if got != want {
            return Err(bug(format!(
                "declare other records for {} than were read",
                zone.zone
            )));
        }
    }
    Ok(())
}

pub(super) fn parse_zone(text: &str, flag: &str) -> Result<ZoneName, CommandError> {
    ZoneName::parse(text).map_err(|e| {
        CommandError::user(format!("{flag} {text}: {e}"))
            .with_hint("pass a domain name such as example.com")
    })
}

/// The step to take after the files are written.
enum Next {
    /// The files reproduce the live account: `plan` shows no changes.
    Plan,
    /// A probed zone that isn't in the account: `plan` would answer 404 until it is.
    AddZone(ZoneName),
}

async fn probe(
    client: &WriteClient,
    domain: &ZoneName,
) -> Result<(Fetched, Next), import::ImportError> {
    let answer =
        client
            .probe_zone(domain.as_str())
            .await
            .map_err(|source| import::ImportError::Api {
                what: format!("the probe of {domain} (POST /dns/zones/probe, needs the dns scope)"),
                source: Box::new(source),
            })?;
    let mut zone = import::zone_from_probe(domain, &answer.body)?;
    let hosted = import::probe_found_hosted(&answer.body);
    let what_next = if hosted {
        format!(
            "{domain} is already hosted here: `dnscron import --zone {domain}` reads the zone itself."
        )
    } else {
        format!(
            "The zone is not hosted here yet: `dnscron plan` can read it once {domain} is added to the account."
        )
    };
    // Right under the line that says where the plan came from, before the registrar steps.
    let at = zone.header.len().min(1);
    zone.header.insert(at, what_next);
    let next = if hosted {
        Next::Plan
    } else {
        Next::AddZone(domain.clone())
    };
    let fetched = Fetched {
        zones: vec![zone],
        sites: Vec::new(),
    };
    Ok((fetched, next))
}

pub(super) fn out_files(zones: &[ZoneFile], sets: &[SetFile], sites: &[SiteFile]) -> Vec<OutFile> {
    let mut files: Vec<OutFile> = zones
        .iter()
        .map(|z| OutFile {
            path: Path::new("zones").join(format!("{}.yaml", z.zone)),
            text: import::render_zone(z),
            keep_existing: false,
        })
        // Set names are made here (`shared`, `shared-2`, …), never read from the server.
        .chain(sets.iter().map(|s| OutFile {
            path: Path::new("sets").join(format!("{}.yaml", s.name)),
            text: import::render_set(s),
            keep_existing: false,
        }))
        .chain(sites.iter().map(|s| OutFile {
            path: Path::new("sites").join(format!("{}.yaml", s.slug)),
            text: import::render_site(s),
            keep_existing: false,
        }))
        .collect();
    let schema = serde_json::to_string_pretty(&json_schema()).unwrap_or_default();
    files.push(OutFile {
        path: PathBuf::from(SCHEMA_FILE),
        text: format!("{schema}\n"),
        keep_existing: true,
    });
    files
}

fn summary(
    out: &Path,
    named: Named<'_>,
    fetched: &Fetched,
    sets: &[SetFile],
    written: &[PathBuf],
    next: &Next,
) -> String {
    let mut text = String::new();
    for z in &fetched.zones {
        text.push_str(&format!("zone {}: {}\n", z.zone, zone_line(z)));
        text.push_str(&ephemeral_lines(z));
    }
    for s in sets {
        text.push_str(&format!(
            "record set {}: {}, identical in {} zones\n",
            s.name,
            count(s.records.len(), "record"),
            s.zones.len()
        ));
    }
    for s in &fetched.sites {
        text.push_str(&format!("site {}: {}\n", s.slug, site_line(s)));
    }
    for path in written {
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    text.push_str(&next_step(out, named, next));
    text
}

/// `named` says the folder as the suggested commands take it (`--account NAME` in a
/// repository of several accounts); `out` is where the files are.
fn next_step(out: &Path, named: Named<'_>, next: &Next) -> String {
    let dir = named;
    match next {
        Next::Plan => {
            format!(
                "next: `dnscron validate {dir}` and `dnscron plan {dir}` (it shows no changes);\n  \
                 to start the drift job green, `dnscron baseline {dir}` accepts today's error findings\n  \
                 and lists what no file declares as unmanaged (review it like any change)\n"
            )
        }
        // The zone must hold the records before the domain is delegated to it, or the domain
        // would resolve from an empty zone in between.
        Next::AddZone(zone) => format!(
            "next: {zone} is not in this account yet, so `dnscron plan` can't read it (404):\n  \
             1. add the zone {zone} in the portal (the API can't create zones);\n  \
             2. `dnscron validate {dir}`, `dnscron plan {dir}` and `dnscron apply {dir}`;\n  \
             3. then take the steps listed at the top of {}.\n",
            out.join("zones").join(format!("{zone}.yaml")).display()
        ),
    }
}

fn zone_line(z: &ZoneFile) -> String {
    let mut parts = vec![count(z.records.len(), "record")];
    match &z.nameservers {
        NsChoice::Managed(dnscron_core::config::model::NameserverMode::Hosted) => {
            parts.push("nameservers hosted".into());
        }
        NsChoice::Managed(dnscron_core::config::model::NameserverMode::Custom(h)) => {
            parts.push(format!("nameservers custom ({})", h.join(", ")));
        }
        NsChoice::Unmanaged(Some(_)) => parts.push("nameservers left unmanaged".into()),
        NsChoice::Unmanaged(None) => {}
    }
    if !z.ignore.is_empty() {
        parts.push(format!(
            "{} ignored (can't be declared, see the file)",
            count(z.ignore.len(), "record")
        ));
    }
    if !z.left_out.is_empty() {
        parts.push(format!(
            "{} left out (see the file)",
            count(z.left_out.len(), "record")
        ));
    }
    parts.join(", ")
}

/// Under a zone: each `ignore:` rule written for records automation rewrites, and the live
/// records it covers (names from the server, escaped).
fn ephemeral_lines(z: &ZoneFile) -> String {
    z.ephemeral_kinds()
        .into_iter()
        .map(|kind| {
            let names: Vec<String> = z
                .ephemeral
                .iter()
                .filter(|k| k.kind == kind)
                .map(|k| escape(&k.name).into_owned())
                .collect();
            format!(
                "  ignore {} {}: {} ({}), written by automation and left to it\n",
                kind.name,
                kind.rtype,
                count(names.len(), "live record"),
                names.join(", ")
            )
        })
        .collect()
}

fn site_line(s: &SiteFile) -> String {
    match &s.cron {
        Ok(jobs) => count(jobs.len(), "cron job"),
        Err(_) => "cron left unmanaged (see the file)".into(),
    }
}

pub(super) fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
