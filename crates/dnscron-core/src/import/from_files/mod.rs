//! Another tool's files → the zone files `import` writes, through the same writer
//! (`build_zone`), so a record from a zone file and one from the live account become the same
//! YAML.
//!
//! Each reader (`bind`; octoDNS and DNSControl to come) turns its source into located records;
//! `assemble` decides what the API can hold. What it can't (a type it doesn't list, a class
//! other than IN, content a file can't declare) is listed as `NotImported` with its file and
//! line, never dropped; what dnscron never manages (the SOA, the apex NS of the old provider,
//! a second copy of a record) is a `Note`.

pub mod bind;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::api::payload;
use crate::dns::{self, RecordType, ZoneName};

use super::zone::{NsChoice, ZoneFile, build_zone};

/// Where a record stands in its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    pub file: PathBuf,
    pub line: usize,
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
}

/// A record left out on purpose: dnscron never manages it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub at: SourceLine,
    pub name: String,
    pub rtype: String,
    pub kind: NoteKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
}

impl NoteKind {
    /// Whether the record is missing from the files (rather than imported with a change).
    pub fn left_out(self) -> bool {
        match self {
            NoteKind::Soa | NoteKind::ApexNs | NoteKind::Duplicate | NoteKind::Ephemeral => true,
            NoteKind::RrsetTtl { .. } => false,
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

/// Sorts `records` into what the API holds, what it can't, and what dnscron leaves alone, and
/// builds the zone file from the first.
pub(crate) fn assemble(source: &Path, zone: &ZoneName, mut records: Vec<SourceRecord>) -> FromFile {
    let source_records = records.len();
    let mut adjusted = one_ttl_per_rrset(&mut records);
    let apex = format!("{}.", zone.as_str());
    let mut not_imported = Vec::new();
    let mut notes: Vec<(usize, Note)> = Vec::new();
    let mut held: Vec<(usize, SourceRecord, payload::Record)> = Vec::new();
    let mut seen = BTreeSet::new();
    for (order, record) in records.into_iter().enumerate() {
        let name = dns::live_name_to_relative(&record.owner, zone);
        let skip = |why: Why| {
            (
                order,
                NotImported {
                    at: record.at.clone(),
                    name: name.clone(),
                    rtype: record.rtype.clone(),
                    rdata: record.rdata.clone(),
                    why,
                },
            )
        };
        let note = |kind: NoteKind| {
            (
                order,
                Note {
                    at: record.at.clone(),
                    name: name.clone(),
                    rtype: record.rtype.clone(),
                    kind,
                },
            )
        };
        if record.class != "IN" {
            not_imported.push(skip(Why::Class {
                class: record.class.clone(),
            }));
        } else if record.owner != apex && !record.owner.ends_with(&format!(".{apex}")) {
            not_imported.push(skip(Why::OutsideZone { zone: zone.clone() }));
        } else if record.rtype == "SOA" {
            notes.push(note(NoteKind::Soa));
        } else if record.rtype == "NS" && record.owner == apex {
            notes.push(note(NoteKind::ApexNs));
        } else {
            match &record.content {
                Held::OtherType => not_imported.push(skip(Why::Type)),
                Held::NotText => not_imported.push(skip(Why::NotText)),
                Held::Content(content) => {
                    let Ok(rtype) = RecordType::from_str(&record.rtype) else {
                        not_imported.push(skip(Why::Type));
                        continue;
                    };
                    let key = (
                        name.clone(),
                        rtype,
                        dns::canonical_live_content(rtype, content, zone),
                    );
                    if !seen.insert(key) {
                        notes.push(note(NoteKind::Duplicate));
                        continue;
                    }
                    let live = payload::Record {
                        id: i64::try_from(held.len()).unwrap_or(i64::MAX),
                        name: record.owner.clone(),
                        rtype: record.rtype.clone(),
                        ttl: record.ttl,
                        content: content.clone(),
                    };
                    if let Some(kind) = adjusted.remove(&order) {
                        notes.push(note(kind));
                    }
                    held.push((order, record, live));
                }
            }
        }
    }
    let live: Vec<payload::Record> = held.iter().map(|(_, _, l)| l.clone()).collect();
    let mut built = build_zone(zone, &live, NsChoice::Unmanaged(None));
    for (order, record, live) in &held {
        let name = dns::live_name_to_relative(&record.owner, zone);
        let Ok(rtype) = RecordType::from_str(&live.rtype) else {
            continue;
        };
        if built
            .ephemeral
            .iter()
            .any(|k| k.name == name && k.kind.rtype == rtype)
        {
            notes.push((
                *order,
                Note {
                    at: record.at.clone(),
                    name,
                    rtype: record.rtype.clone(),
                    kind: NoteKind::Ephemeral,
                },
            ));
            continue;
        }
        let canonical = dns::canonical_live_content(rtype, &live.content, zone);
        if let Some(rule) = built
            .ignore
            .iter()
            .find(|u| u.name == name && u.rtype == rtype && u.canonical == canonical)
        {
            not_imported.push((
                *order,
                NotImported {
                    at: record.at.clone(),
                    name,
                    rtype: record.rtype.clone(),
                    rdata: record.rdata.clone(),
                    why: Why::Undeclarable {
                        reason: rule.reason.clone(),
                    },
                },
            ));
        }
    }
    // Reported above with their place; an `ignore:` rule would keep the plan off records the
    // new zone doesn't hold.
    built.ignore.clear();
    built.left_out.clear();
    FromFile {
        source: source.to_path_buf(),
        zone: built,
        source_records,
        not_imported: in_source_order(not_imported),
        notes: in_source_order(notes),
    }
}

/// Gives every record the TTL of the first of its owner, class and type; returns the notes of
/// those whose TTL changed, by their place in `records`.
fn one_ttl_per_rrset(records: &mut [SourceRecord]) -> BTreeMap<usize, NoteKind> {
    let mut first: HashMap<(String, String, String), u32> = HashMap::new();
    let mut adjusted = BTreeMap::new();
    for (order, record) in records.iter_mut().enumerate() {
        let key = (
            record.owner.clone(),
            record.class.clone(),
            record.rtype.clone(),
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
            record.ttl = used;
        }
    }
    adjusted
}

fn in_source_order<T>(mut items: Vec<(usize, T)>) -> Vec<T> {
    items.sort_by_key(|(order, _)| *order);
    items.into_iter().map(|(_, item)| item).collect()
}
