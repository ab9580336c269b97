//! Another tool's files → the zone files `import` writes, through the same writer
//! (`build_zone`), so a record from a zone file and one from the live account become the same
//! YAML.
//!
//! Each reader (`bind`, `octodns`, `dnscontrol`) is a [`Reader`]: it turns its source into
//! zones of located records ([`SourceZone`]), and [`read`] has [`assemble`] decide what the API
//! can hold. A new importer is a folder with a type implementing [`Reader`], registered by its
//! `pub mod` line below (and, for the command line, a `--from` value); everything it needs is
//! public, so it can live outside this crate too. What it can't (a type it doesn't list, a class
//! other than IN, content a file can't declare) is listed as `NotImported` with its file and
//! line, never dropped; what dnscron never manages (the SOA, the apex NS of the old provider,
//! a second copy of a record) is a `Note`.

pub mod bind;
pub mod dnscontrol;
pub mod octodns;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::dns::{self, RecordType, ZoneName};
use dnscron_api::payload;

use super::zone::{NsChoice, SourceIgnore, ZoneFile, build_zone};

/// A reader of another tool's files.
pub trait Reader {
    /// What refuses a file, located.
    type Error;
    /// The zones `file` declares, in its order; a problem anywhere refuses the whole file.
    fn zones(&self, file: &Path) -> Result<Vec<SourceZone>, Self::Error>;
}

/// The zones of `file` as `reader` finds them, each sorted by [`assemble`].
pub fn read<R: Reader>(reader: &R, file: &Path) -> Result<Vec<FromFile>, R::Error> {
    Ok(reader.zones(file)?.into_iter().map(assemble).collect())
}

/// One zone as another tool's files declare it: what a [`Reader`] gives [`assemble`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceZone {
    /// The file the report names the zone after (its first file).
    pub source: PathBuf,
    pub zone: ZoneName,
    /// In the source's order.
    pub records: Vec<SourceRecord>,
    /// `ignore:` rules the source states itself (DNSControl's `IGNORE_*`), written after
    /// those of the names it leaves alone.
    pub rules: Vec<SourceIgnore>,
    /// Where the source says it keeps the live records it doesn't declare (DNSControl's
    /// `NO_PURGE`): the zone is written `prune: false`, with a note at this line.
    pub keeps_undeclared: Option<SourceLine>,
}

impl SourceZone {
    /// `records` of `zone`, read from `source`, with no rules of the source's own.
    pub fn new(source: &Path, zone: ZoneName, records: Vec<SourceRecord>) -> SourceZone {
        SourceZone {
            source: source.to_path_buf(),
            zone,
            records,
            rules: Vec::new(),
            keeps_undeclared: None,
        }
    }
}

/// Where a record stands in its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    pub file: PathBuf,
    pub line: usize,
}

/// A problem of a source file at a line and column, as each reader names its kinds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{col}: {kind}", file.display())]
pub struct Located<K: std::fmt::Display> {
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
    pub kind: K,
}

/// A record as its source wrote it, its owner absolute (`www.example.com.`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceRecord {
    pub at: SourceLine,
    pub owner: String,
    /// Upper case (`IN`).
    pub class: String,
    /// Upper case (`A`, `HINFO`).
    pub rtype: String,
    pub ttl: u32,
    /// The data as written, for a report.
    pub rdata: String,
    pub content: Held,
}

/// What the API would hold for a record's data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Held {
    /// The content to send (names absolute).
    Content(String),
    /// A type the API doesn't list.
    OtherType,
    /// TXT or CAA octets that are not UTF-8 text.
    NotText,
    /// An answer that differs by resolver (octoDNS's `dynamic:` and `geo:`).
    Dynamic,
    /// The source tool never touches the live records of this name and type on the provider
    /// dnscron replaces, whatever they hold: an `ignore:` rule by name and type keeps the plan
    /// off them too.
    LeftAlone(LeftAlone),
}

/// Why the source tool leaves a name and type alone on the provider dnscron replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeftAlone {
    /// `octodns: {ignored: true}`: octoDNS's planner skips it on every target.
    Ignored,
    /// `octodns: {excluded: [...]}` names the target.
    Excluded { target: String },
    /// `octodns: {included: [...]}` names other targets only.
    NotIncluded {
        target: String,
        included: Vec<String>,
    },
}

/// A record of the source that is not in the files written, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotImported {
    pub at: SourceLine,
    /// Relative to the zone (`www`, `@`), or absolute when outside it.
    pub name: String,
    pub rtype: String,
    pub rdata: String,
    pub why: Why,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// The API lists no such type.
    Type,
    /// A class other than IN.
    Class { class: String },
    /// The owner is not in the zone.
    OutsideZone { zone: ZoneName },
    /// TXT or CAA data that is not UTF-8 text.
    NotText,
    /// The type is the API's, but a file can't declare this record (the validator's reason).
    Undeclarable { reason: String },
    /// The source answers differently by resolver; the API serves one answer to all.
    Dynamic,
}

/// A record left out on purpose: dnscron never manages it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub at: SourceLine,
    pub name: String,
    pub rtype: String,
    pub kind: NoteKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteKind {
    /// Imported with the TTL of the first record of its name and type: an RRset has one TTL
    /// (RFC 2181 §5.2), and BIND loads it so.
    RrsetTtl { written: u32, used: u32 },
    /// The SOA belongs to the service hosting the zone.
    Soa,
    /// The apex NS records name the old provider's nameservers; `nameservers:` decides.
    ApexNs,
    /// The same name, type and content again: DNS holds a record once.
    Duplicate,
    /// A record automation rewrites (`import::EPHEMERAL`): written as an `ignore:` rule.
    Ephemeral,
    /// The source leaves its name and type alone: written as an `ignore:` rule by name and
    /// type (none when the API holds no such type: no live record can be there).
    LeftAlone(LeftAlone),
    /// DNSControl's `NO_PURGE`, written `prune: false`: both keep live records of a name and
    /// type the source doesn't declare, but DNSControl also deletes the live records of a
    /// declared name and type that the source doesn't list, which `prune: false` keeps.
    NoPurge,
}

impl NoteKind {
    /// Whether the record is missing from the files (rather than imported with a change).
    pub fn left_out(&self) -> bool {
        match self {
            NoteKind::Soa
            | NoteKind::ApexNs
            | NoteKind::Duplicate
            | NoteKind::Ephemeral
            | NoteKind::LeftAlone(_) => true,
            NoteKind::RrsetTtl { .. } | NoteKind::NoPurge => false,
        }
    }
}

/// One source file's zone, ready for the writer.
#[derive(Clone, Debug, PartialEq)]
pub struct FromFile {
    pub source: PathBuf,
    pub zone: ZoneFile,
    /// Records the source holds (its includes and generated ones counted).
    pub source_records: usize,
    pub not_imported: Vec<NotImported>,
    pub notes: Vec<Note>,
}

impl FromFile {
    /// Records of the source left out on purpose (not those imported with a note).
    pub fn left_out(&self) -> usize {
        self.notes.iter().filter(|n| n.kind.left_out()).count()
    }
}

/// Sorts a zone's records into what the API holds, what it can't, and what dnscron leaves
/// alone, and builds the zone file from the first.
pub fn assemble(source_zone: SourceZone) -> FromFile {
    let SourceZone {
        source,
        zone,
        mut records,
        rules,
        keeps_undeclared,
    } = source_zone;
    let zone = &zone;
    let source_records = records.len();
    let mut adjusted = one_ttl_per_rrset(&mut records);
    let apex = format!("{}.", zone.as_str());
    let mut not_imported: Vec<(usize, NotImported)> = Vec::new();
    let mut notes: Vec<(usize, Note)> = Vec::new();
    let mut held: Vec<(usize, SourceRecord)> = Vec::new();
    let mut live: Vec<payload::Record> = Vec::new();
    let mut seen = HashSet::with_capacity(records.len());
    let mut left_alone = Vec::new();
    for (order, record) in records.into_iter().enumerate() {
        let name = dns::live_name_to_relative(&record.owner, zone);
        match fate(&record, zone, &apex) {
            Fate::Listed(why) => not_imported.push((order, not_imported_as(&record, name, why))),
            Fate::LeftOut(kind) => notes.push((order, note_as(&record, name, kind))),
            Fate::LeftAlone(Some(_), _) if name.contains(['*', '?']) => {
                not_imported.push((order, not_imported_as(&record, name, wildcard_left_alone())));
            }
            Fate::LeftAlone(rtype, why) => {
                if let Some(rtype) = rtype {
                    leave_alone(&mut left_alone, &record, &name, rtype, &why);
                }
                notes.push((order, note_as(&record, name, NoteKind::LeftAlone(why))));
            }
            Fate::Held(rtype, content) => {
                let canonical = dns::canonical_live_content(rtype, &content, zone);
                if !seen.insert((name.clone(), rtype, canonical)) {
                    notes.push((order, note_as(&record, name, NoteKind::Duplicate)));
                    continue;
                }
                if let Some(kind) = adjusted.remove(&order) {
                    notes.push((order, note_as(&record, name, kind)));
                }
                let payload = payload::Record {
                    id: i64::try_from(held.len()).unwrap_or(i64::MAX),
                    name: record.owner.clone(),
                    rtype: record.rtype.clone(),
                    ttl: record.ttl,
                    content,
                };
                live.push(payload);
                held.push((order, record));
            }
        }
    }
    let mut built = build_zone(zone, &live, NsChoice::Unmanaged(None));
    locate_kept_out(&built, zone, &held, &live, &mut notes, &mut not_imported);
    // Reported above with their place; an `ignore:` rule would keep the plan off records the
    // new zone doesn't hold.
    built.ignore.clear();
    built.left_out.clear();
    built.rules = left_alone;
    built.rules.extend(rules);
    built.prune = keeps_undeclared.is_none();
    let mut notes = in_source_order(notes);
    if let Some(at) = keeps_undeclared {
        notes.push(Note {
            at,
            name: "*".into(),
            rtype: "*".into(),
            kind: NoteKind::NoPurge,
        });
    }
    FromFile {
        source,
        zone: built,
        source_records,
        not_imported: in_source_order(not_imported),
        notes,
    }
}

/// Where one source record goes.
enum Fate {
    Listed(Why),
    LeftOut(NoteKind),
    Held(RecordType, String),
    /// Not written; an `ignore:` rule by name and type when the API holds the type.
    LeftAlone(Option<RecordType>, LeftAlone),
}

fn fate(record: &SourceRecord, zone: &ZoneName, apex: &str) -> Fate {
    if record.class != "IN" {
        return Fate::Listed(Why::Class {
            class: record.class.clone(),
        });
    }
    let in_zone = record
        .owner
        .strip_suffix(apex)
        .is_some_and(|prefix| prefix.is_empty() || prefix.ends_with('.'));
    if !in_zone {
        return Fate::Listed(Why::OutsideZone { zone: zone.clone() });
    }
    if record.rtype == "SOA" {
        return Fate::LeftOut(NoteKind::Soa);
    }
    if record.rtype == "NS" && record.owner == apex {
        return Fate::LeftOut(NoteKind::ApexNs);
    }
    match (&record.content, RecordType::from_str(&record.rtype)) {
        (Held::Content(content), Ok(rtype)) => Fate::Held(rtype, content.clone()),
        (Held::LeftAlone(why), rtype) => Fate::LeftAlone(rtype.ok(), why.clone()),
        (Held::NotText, _) => Fate::Listed(Why::NotText),
        (Held::Dynamic, _) => Fate::Listed(Why::Dynamic),
        (Held::OtherType | Held::Content(_), _) => Fate::Listed(Why::Type),
    }
}

/// One `ignore:` rule per name and type the source leaves alone, whatever the live records
/// hold (octoDNS's planner matches a live record to the file's by name and type only).
fn leave_alone(
    rules: &mut Vec<SourceIgnore>,
    record: &SourceRecord,
    name: &str,
    rtype: RecordType,
    why: &LeftAlone,
) {
    let glob = super::render::glob_literal(name);
    if rules
        .iter()
        .any(|r| r.name == glob && r.rtype == Some(rtype))
    {
        return;
    }
    let said = match why {
        LeftAlone::Ignored => "`octodns: {ignored: true}`".to_string(),
        LeftAlone::Excluded { target } => format!("`octodns: {{excluded: [{target}]}}`"),
        LeftAlone::NotIncluded { target, included } => format!(
            "`octodns: {{included: [{}]}}`, without {target}",
            included.join(", ")
        ),
    };
    rules.push(SourceIgnore {
        name: glob,
        rtype: Some(rtype),
        content: None,
        origin: format!(
            "{said} at {}:{}: octoDNS never touches this name and type there, whatever it holds",
            record.at.file.display(),
            record.at.line
        ),
    });
}

fn not_imported_as(record: &SourceRecord, name: String, why: Why) -> NotImported {
    NotImported {
        at: record.at.clone(),
        name,
        rtype: record.rtype.clone(),
        rdata: record.rdata.clone(),
        why,
    }
}

fn note_as(record: &SourceRecord, name: String, kind: NoteKind) -> Note {
    Note {
        at: record.at.clone(),
        name,
        rtype: record.rtype.clone(),
        kind,
    }
}

/// Gives every record the TTL of the first of its owner, class and type; returns the notes of
/// those whose TTL changed, by their place in `records`.
fn one_ttl_per_rrset(records: &mut [SourceRecord]) -> BTreeMap<usize, NoteKind> {
    let mut first: HashMap<(&str, &str, &str), u32> = HashMap::with_capacity(records.len());
    let mut adjusted = BTreeMap::new();
    for (order, record) in records.iter().enumerate() {
        let key = (
            record.owner.as_str(),
            record.class.as_str(),
            record.rtype.as_str(),
        );
        let used = *first.entry(key).or_insert(record.ttl);
        if used != record.ttl {
            adjusted.insert(
                order,
                NoteKind::RrsetTtl {
                    written: record.ttl,
                    used,
                },
            );
        }
    }
    for (order, kind) in &adjusted {
        if let (Some(record), NoteKind::RrsetTtl { used, .. }) = (records.get_mut(*order), kind) {
            record.ttl = *used;
        }
    }
    adjusted
}

/// A name the source leaves alone can only be kept off the plan by an `ignore:` rule, whose
/// name is a glob: `*` would be written `?`, which also keeps every live record of a
/// one-character name (`a`) that the source deletes. So the record is listed, not ruled.
fn wildcard_left_alone() -> Why {
    Why::Undeclarable {
        reason: "the source leaves this wildcard name alone, and the `ignore:` rule that would keep it (`?`: rules are globs) would also keep the live records of every one-character name, which the source deletes; declare the live record, or write that rule yourself if no one-character name is live".into(),
    }
}

/// The records `build_zone` kept out of the file (automation's, written as an `ignore:` rule;
/// or undeclarable, listed), each found back at its place in the source.
fn locate_kept_out(
    built: &ZoneFile,
    zone: &ZoneName,
    held: &[(usize, SourceRecord)],
    live: &[payload::Record],
    notes: &mut Vec<(usize, Note)>,
    not_imported: &mut Vec<(usize, NotImported)>,
) {
    if built.ephemeral.is_empty() && built.ignore.is_empty() {
        return;
    }
    let ephemeral: HashSet<(&str, RecordType)> = built
        .ephemeral
        .iter()
        .map(|k| (k.name.as_str(), k.kind.rtype))
        .collect();
    let ignored: HashMap<(&str, RecordType, &str), &str> = built
        .ignore
        .iter()
        .map(|u| {
            (
                (u.name.as_str(), u.rtype, u.canonical.as_str()),
                u.reason.as_str(),
            )
        })
        .collect();
    for ((order, record), live) in held.iter().zip(live) {
        let name = dns::live_name_to_relative(&record.owner, zone);
        let Ok(rtype) = RecordType::from_str(&live.rtype) else {
            continue;
        };
        if ephemeral.contains(&(name.as_str(), rtype)) {
            notes.push((*order, note_as(record, name, NoteKind::Ephemeral)));
            continue;
        }
        let canonical = dns::canonical_live_content(rtype, &live.content, zone);
        if let Some(reason) = ignored.get(&(name.as_str(), rtype, canonical.as_str())) {
            let why = Why::Undeclarable {
                reason: (*reason).to_string(),
            };
            not_imported.push((*order, not_imported_as(record, name.clone(), why)));
        }
    }
}

fn in_source_order<T>(mut items: Vec<(usize, T)>) -> Vec<T> {
    items.sort_by_key(|(order, _)| *order);
    items.into_iter().map(|(_, item)| item).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn record(line: usize, owner: &str, rtype: &str, ttl: u32, content: Held) -> SourceRecord {
        SourceRecord {
            at: SourceLine {
                file: PathBuf::from("z.db"),
                line,
            },
            owner: owner.into(),
            class: "IN".into(),
            rtype: rtype.into(),
            ttl,
            rdata: String::new(),
            content,
        }
    }

    fn content(text: &str) -> Held {
        Held::Content(text.into())
    }

    #[test]
    fn each_record_is_written_noted_or_listed_at_its_line() {
        let zone = ZoneName::parse("example.com").unwrap();
        let mut ch = record(7, "version.example.com.", "TXT", 300, content("x"));
        ch.class = "CH".into();
        let records = vec![
            record(1, "example.com.", "SOA", 300, content("ns. h. 1 2 3 4 5")),
            record(2, "example.com.", "NS", 300, content("ns1.other.net.")),
            record(3, "www.example.com.", "A", 300, content("192.0.2.1")),
            record(4, "www.example.com.", "A", 600, content("192.0.2.2")),
            record(5, "www.example.com.", "A", 300, content("192.0.2.1")),
            record(6, "xexample.com.", "A", 300, content("192.0.2.3")),
            ch,
            record(8, "h.example.com.", "HINFO", 300, Held::OtherType),
            record(9, "t.example.com.", "TXT", 300, Held::NotText),
            record(10, "low.example.com.", "A", 30, content("192.0.2.4")),
            record(
                11,
                "_acme-challenge.example.com.",
                "TXT",
                300,
                content("token"),
            ),
        ];
        let from = assemble(SourceZone::new(Path::new("z.db"), zone.clone(), records));
        let written: Vec<(&str, u32, &str)> = from
            .zone
            .records
            .iter()
            .map(|r| (r.name.as_str(), r.ttl, r.canonical.as_str()))
            .collect();
        assert_eq!(
            written,
            [("www", 300, "192.0.2.1"), ("www", 300, "192.0.2.2")]
        );
        let notes: Vec<(usize, NoteKind)> = from
            .notes
            .iter()
            .map(|n| (n.at.line, n.kind.clone()))
            .collect();
        assert_eq!(
            notes,
            [
                (1, NoteKind::Soa),
                (2, NoteKind::ApexNs),
                (
                    4,
                    NoteKind::RrsetTtl {
                        written: 600,
                        used: 300
                    }
                ),
                (5, NoteKind::Duplicate),
                (11, NoteKind::Ephemeral),
            ]
        );
        let listed: Vec<(usize, &Why)> = from
            .not_imported
            .iter()
            .map(|n| (n.at.line, &n.why))
            .collect();
        assert_eq!(
            listed,
            [
                (6, &Why::OutsideZone { zone: zone.clone() }),
                (7, &Why::Class { class: "CH".into() }),
                (8, &Why::Type),
                (9, &Why::NotText),
                (
                    10,
                    &Why::Undeclarable {
                        reason: "its ttl 30 is outside 60–604800".into()
                    }
                ),
            ]
        );
        assert_eq!((from.source_records, from.left_out()), (11, 4));
        assert!(from.zone.ignore.is_empty() && from.zone.left_out.is_empty());
    }

    #[test]
    fn a_name_left_alone_is_a_rule_and_a_wildcard_one_is_listed() {
        let zone = ZoneName::parse("example.com").unwrap();
        let alone = || Held::LeftAlone(LeftAlone::Ignored);
        let from = assemble(SourceZone::new(
            Path::new("z.db"),
            zone.clone(),
            vec![
                record(1, "*.example.com.", "A", 300, alone()),
                record(2, "*.dev.example.com.", "TXT", 300, alone()),
                record(3, "legacy.example.com.", "TXT", 300, alone()),
                record(4, "a.example.com.", "A", 300, content("192.0.2.1")),
            ],
        ));
        let rules: Vec<(&str, Option<RecordType>)> = from
            .zone
            .rules
            .iter()
            .map(|r| (r.name.as_str(), r.rtype))
            .collect();
        assert_eq!(rules, [("legacy", Some(RecordType::TXT))]);
        let listed: Vec<(usize, &str, bool)> = from
            .not_imported
            .iter()
            .map(|n| {
                let wildcard = matches!(&n.why, Why::Undeclarable { reason } if reason.contains("one-character"));
                (n.at.line, n.name.as_str(), wildcard)
            })
            .collect();
        assert_eq!(listed, [(1, "*", true), (2, "*.dev", true)]);
        assert_eq!(from.notes.len(), 1);
    }
}
