//! `dnscron import --from FORMAT FILE…`: another tool's files → desired-state files, through
//! the writer the account import uses. Reads files only: no API token.
//!
//! Stdout: one line per zone, what was left out on purpose and what could not be imported (with
//! its file:line), the files written, then the `plan` that proves the import. Anything not
//! imported makes the command fail (exit 1) after the files are written, so a migration step
//! in CI can't miss it.

use std::path::PathBuf;

use dnscron_api::untrusted::escape;
use dnscron_core::dns::RecordType;
use dnscron_core::import::from_files::bind::Bind;
use dnscron_core::import::from_files::dnscontrol::Dnscontrol;
use dnscron_core::import::from_files::octodns::Octodns;
use dnscron_core::import::from_files::{
    FromFile, LeftAlone, NotImported, NoteKind, SourceLine, Why, read,
};
use dnscron_core::import::{self, NsChoice};

use crate::cli::accounts::Named;
use crate::cli::error::{CommandError, CommandResult, Outcome, not_imported};
use crate::cli::import::{ImportArgs, Source, count, out_files, parse_zone, self_check};
use crate::cli::write_stdout;

pub(crate) fn run(source: Source, args: &ImportArgs, named: Named<'_>) -> CommandResult {
    if args.origin.is_some() && source != Source::Bind {
        return Err(CommandError::user(format!(
            "--origin names the zone of a BIND file; `--from {}` names its zones itself",
            source_name(source)
        ))
        .with_hint("drop --origin"));
    }
    let origin = match (&args.origin, args.files.len()) {
        (Some(_), n) if n > 1 => {
            return Err(CommandError::user(format!(
                "--origin names the zone of one file, and {n} files were given"
            ))
            .with_hint(
                "import the file that needs --origin on its own, or give it an $ORIGIN line",
            ));
        }
        (Some(origin), _) => Some(parse_zone(origin, "--origin")?),
        (None, _) => None,
    };
    let bind = Bind { origin };
    let mut zones = Vec::new();
    for file in &args.files {
        let froms = match source {
            Source::Bind => read(&bind, file)?,
            Source::Octodns => read(&Octodns, file)?,
            Source::Dnscontrol => read(&Dnscontrol, file)?,
        };
        for from in froms {
            add(&mut zones, from, source)?;
        }
    }
    finish(args, zones, named)
}

/// One zone read, with the header and nameserver choice every `--from` zone gets.
fn add(read: &mut Vec<FromFile>, mut from: FromFile, source: Source) -> Result<(), CommandError> {
    refuse_second_copy(source, read, &from)?;
    from.zone.header = vec![format!(
        "Imported from {} by `dnscron import --from {}`.",
        from.source.display(),
        source_name(source)
    )];
    from.zone.nameservers = NsChoice::Unmanaged(Some(NAMESERVERS_UNSAID.into()));
    read.push(from);
    Ok(())
}

fn finish(args: &ImportArgs, read: Vec<FromFile>, named: Named<'_>) -> CommandResult {
    let mut zones: Vec<_> = read.iter().map(|f| f.zone.clone()).collect();
    let sets = if args.extract_sets {
        import::extract_sets(&mut zones)
    } else {
        Vec::new()
    };
    let files = out_files(&zones, &sets, &[]);
    let written = import::write_files(&args.out, &files, args.force)?;
    write_stdout(&summary(named, &read, &written))?;
    // Against the zones as read: records `--extract-sets` moved into a set load back into them.
    self_check(&written, read.iter().map(|f| &f.zone))?;
    let listed: usize = read.iter().map(|f| f.not_imported.len()).sum();
    if listed > 0 {
        return Err(not_imported(listed));
    }
    Ok(Outcome::Success)
}

const NAMESERVERS_UNSAID: &str = "nameservers left unmanaged: a zone file doesn't say which nameservers the domain should use; declare `nameservers:` when the registrar is switched (docs/ci.md, adopting an existing account)";

fn source_name(source: Source) -> &'static str {
    match source {
        Source::Bind => "bind",
        Source::Octodns => "octodns",
        Source::Dnscontrol => "dnscontrol",
    }
}

fn refuse_second_copy(
    source: Source,
    read: &[FromFile],
    from: &FromFile,
) -> Result<(), CommandError> {
    match read.iter().find(|f| f.zone.zone == from.zone.zone) {
        Some(first) => Err(CommandError::user(format!(
            "{} and {} both hold the zone {}; nothing was written",
            escape(&first.source.display().to_string()),
            escape(&from.source.display().to_string()),
            from.zone.zone
        ))
        .with_hint(match source {
            Source::Bind => "import one file per zone (an $INCLUDE joins files into one zone)",
            Source::Octodns => "list each zone once in the configuration's `zones:`",
            Source::Dnscontrol => {
                "import each domain from one IR: the IR of one dnsconfig.js holds every domain once"
            }
        })),
        None => Ok(()),
    }
}

fn summary(named: Named<'_>, read: &[FromFile], written: &[PathBuf]) -> String {
    let mut text = String::new();
    for from in read {
        text.push_str(&format!(
            "zone {} from {}: {} of {}{}\n",
            from.zone.zone,
            escape(&from.source.display().to_string()),
            count(from.zone.records.len(), "record"),
            from.source_records,
            left_counts(from)
        ));
        for note in &from.notes {
            text.push_str(&format!(
                "  {} {} {} {}: {}\n",
                if note.kind.left_out() {
                    "left out"
                } else {
                    "note"
                },
                at(&note.at),
                escape(&note.name),
                escape(&note.rtype),
                note_words(&note.kind, &note.rtype)
            ));
        }
        for item in &from.not_imported {
            text.push_str(&format!("  not imported {}\n", not_imported_line(item)));
        }
    }
    for path in written {
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    text.push_str(&next_step(named, read));
    text
}

fn left_counts(from: &FromFile) -> String {
    let mut parts = Vec::new();
    if from.left_out() > 0 {
        parts.push(format!("{} left out", from.left_out()));
    }
    if !from.not_imported.is_empty() {
        parts.push(format!("{} not imported", from.not_imported.len()));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

fn at(line: &SourceLine) -> String {
    format!("{}:{}", escape(&line.file.display().to_string()), line.line)
}

fn note_words(kind: &NoteKind, rtype: &str) -> String {
    let words = match kind {
        NoteKind::Soa => "the SOA record belongs to the service that hosts the zone",
        NoteKind::ApexNs => {
            "the apex NS records name the old provider's nameservers; `nameservers:` chooses the domain's delegation"
        }
        NoteKind::Duplicate => "a second copy of a record above; DNS holds it once",
        NoteKind::Ephemeral => "written by automation: an `ignore:` rule leaves it to it",
        NoteKind::LeftAlone(why) => return left_alone_words(why, rtype),
        NoteKind::NoPurge => {
            "NO_PURGE, written `prune: false`: live records of a name and type the IR declares but doesn't list are kept, where DNSControl deletes them (the plan counts them)"
        }
        NoteKind::RrsetTtl { written, used } => {
            return format!(
                "imported with TTL {used}, not {written}: the first record of its name and type gives the TTL of all of them (RFC 2181 §5.2), as BIND loads it"
            );
        }
    };
    words.to_string()
}

/// Which rule of octoDNS leaves the record alone, and what the import made of it.
fn left_alone_words(why: &LeftAlone, rtype: &str) -> String {
    let because = match why {
        LeftAlone::Ignored => "octodns ignored: octoDNS never touches it".to_string(),
        LeftAlone::Excluded { target } => format!(
            "octodns excluded names {}, the zone's target: octoDNS never touches it there",
            escape(target)
        ),
        LeftAlone::NotIncluded { target, included } => format!(
            "octodns included names {} and not {}, the zone's target: octoDNS never touches it there",
            escape(&included.join(", ")),
            escape(target)
        ),
    };
    if rtype.parse::<RecordType>().is_ok() {
        format!(
            "{because}; an `ignore:` rule by name and type leaves the live records alone, whatever they hold"
        )
    } else {
        format!(
            "{because}; the API holds no {} records, so none can be live",
            escape(rtype)
        )
    }
}

fn not_imported_line(item: &NotImported) -> String {
    let why = match &item.why {
        Why::Type => format!("the API holds no {} records", escape(&item.rtype)),
        Why::Class { class } => format!("class {}: the API holds IN records only", escape(class)),
        Why::OutsideZone { zone } => format!("the name is outside the zone {zone}"),
        Why::NotText => "its text is not UTF-8, which the API can't carry".into(),
        Why::Undeclarable { reason } => escape(reason).into_owned(),
        Why::Dynamic => {
            "a dynamic (geo, weighted) record: the API serves one answer to every resolver".into()
        }
    };
    format!(
        "{} {} {} {}: {why}",
        at(&item.at),
        escape(&item.name),
        escape(&item.rtype),
        escape(&item.rdata)
    )
}

/// The cutover's first steps: the zone must exist here before `plan` can read it.
fn next_step(named: Named<'_>, read: &[FromFile]) -> String {
    let dir = named;
    let names: Vec<&str> = read.iter().map(|f| f.zone.zone.as_str()).collect();
    let zones_word = if names.len() == 1 { "zone" } else { "zones" };
    format!(
        "next: with the {zones_word} {} in the account (added in the portal if new), `dnscron validate {dir}` and `dnscron plan {dir}`: against a zone holding these records it shows no changes, against an empty one every record as a create\n",
        names.join(", ")
    )
}
