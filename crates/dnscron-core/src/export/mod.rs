//! `dnscron export`: the desired state → another tool's files, so that leaving dnscron is one
//! command. `bind` writes one RFC 1035 master file per zone, `octodns` an octoDNS
//! configuration and one YAML provider file per zone; each tool reads them back to the records
//! the files declare (tests/it/export/ holds `named-compilezone` and octoDNS's YamlProvider to
//! that).
//!
//! Data → text only: [`export`] builds every file in memory from a loaded [`Desired`] (record
//! sets already expanded per zone, defaults applied), and [`write_export`] is the one function
//! that touches the disk. What the other tool has no form for is never dropped silently: it is
//! [`Left`] (not DNS records: cron jobs, the registrar's nameserver mode, dnscron's own rules)
//! or [`NotExported`] (a record value the tool refuses), each with where it is declared.

mod bind;
mod natsort;
mod octodns;
mod write;

use std::path::PathBuf;

use crate::config::fmt::order::{RecordKey, record_order};
use crate::config::model::{Desired, IgnoreRule, Location, NameserverMode, RecordSpec, ZoneSpec};
use crate::dns::ZoneName;
use crate::import::OutFile;

pub use write::{ExportError, write_export};

/// The tools `export` writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RFC 1035 master files, one per zone (`<zone>.zone`).
    Bind,
    /// An octoDNS configuration (`config.yaml`) and its YAML provider's zone files
    /// (`zones/<zone>.yaml`).
    Octodns,
}

/// What an export writes and what it could not carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// Relative to the output folder.
    pub files: Vec<OutFile>,
    pub zones: usize,
    /// Records written (each value of an RRset counts once).
    pub records: usize,
    pub left: Vec<Left>,
    pub not_exported: Vec<NotExported>,
}

/// Something the files declare that is not a DNS record, so the other tool's files can't hold
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Left {
    /// A site's cron jobs.
    Cron {
        site: String,
        jobs: usize,
        location: Location,
    },
    /// The registrar nameserver mode of the zone's domain. `as_apex_ns`: its custom hosts were
    /// written as the zone's apex NS records (and an SOA), which a BIND server needs.
    Nameservers {
        zone: ZoneName,
        mode: NameserverMode,
        as_apex_ns: bool,
        location: Location,
    },
    /// A BIND file without SOA and apex NS: the files name no nameservers of their own (the
    /// service's are its own), and named loads a zone only with both.
    NoSoa { zone: ZoneName, location: Location },
    /// `ignore:` rules: live records dnscron leaves alone, which no file declares; a tool that
    /// applies the exported files as the whole zone would delete them.
    Ignore {
        zone: ZoneName,
        rules: Vec<IgnoreRule>,
        location: Location,
    },
    /// `prune: false`: live records beyond the files are kept, and are not in them.
    NoPrune { zone: ZoneName, location: Location },
    /// `registrar:` expectations: checks of the registration, not DNS.
    Registrar { zone: ZoneName, location: Location },
}

/// A record the other tool can't hold as its value: left out of the file, listed with its
/// place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotExported {
    pub zone: ZoneName,
    pub name: String,
    pub record: RecordSpec,
    pub why: Unholdable,
}

/// Why octoDNS can't hold a TXT value (BIND holds every record the files can declare).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unholdable {
    /// octoDNS refuses a TXT value with a character outside ASCII ("non ASCII character").
    NonAscii,
    /// `\;` in the text: octoDNS reads `\;` as an escaped `;`, and refuses `\\;` ("double
    /// escaped ;"), so a backslash before a semicolon has no spelling.
    BackslashSemicolon,
    /// `" "` in the text: octoDNS removes it from every value (the joint of quoted chunks).
    QuoteSpaceQuote,
}

/// Every file of `desired` in `format`, and what they leave out.
pub fn export(desired: &Desired, format: Format) -> Export {
    let mut export = Export {
        files: Vec::new(),
        zones: desired.zones.len(),
        records: 0,
        left: Vec::new(),
        not_exported: Vec::new(),
    };
    for zone in &desired.zones {
        export.left.extend(zone_left(zone, format));
    }
    for site in &desired.sites {
        if let Some(jobs) = site.cron.as_ref().filter(|jobs| !jobs.is_empty()) {
            export.left.push(Left::Cron {
                site: site.slug.clone(),
                jobs: jobs.len(),
                location: site.location.clone(),
            });
        }
    }
    match format {
        Format::Bind => {
            for zone in &desired.zones {
                export.records += zone.records.len();
                export.files.push(bind::zone_file(zone));
            }
        }
        Format::Octodns => octodns::files(desired, &mut export),
    }
    // In the order the files declare them, as `validate` lists problems.
    export
        .not_exported
        .sort_by(|a, b| a.record.location.cmp(&b.record.location));
    export
}

/// The exports of several accounts (each account's name and desired state) as one: each
/// account's files in a folder of its name (a validated account name: lower-case letters,
/// digits and `-`), since two accounts may hold a zone of the same name (production and
/// staging).
pub fn export_accounts(accounts: &[(&str, &Desired)], format: Format) -> Export {
    let mut all = Export {
        files: Vec::new(),
        zones: 0,
        records: 0,
        left: Vec::new(),
        not_exported: Vec::new(),
    };
    for (name, desired) in accounts {
        let one = export(desired, format);
        all.files.extend(one.files.into_iter().map(|file| OutFile {
            path: PathBuf::from(name).join(&file.path),
            ..file
        }));
        all.zones += one.zones;
        all.records += one.records;
        all.left.extend(one.left);
        all.not_exported.extend(one.not_exported);
    }
    all
}

/// What one zone declares beyond its records, in the order the zone's keys are documented.
fn zone_left(zone: &ZoneSpec, format: Format) -> Vec<Left> {
    let mut left = Vec::new();
    let custom = bind::apex_hosts(zone);
    if let Some(ns) = &zone.nameservers {
        left.push(Left::Nameservers {
            zone: zone.zone.clone(),
            mode: ns.mode.clone(),
            as_apex_ns: format == Format::Bind && custom.is_some(),
            location: ns.location.clone(),
        });
    }
    if format == Format::Bind && custom.is_none() {
        left.push(Left::NoSoa {
            zone: zone.zone.clone(),
            location: zone.location.clone(),
        });
    }
    if !zone.prune {
        left.push(Left::NoPrune {
            zone: zone.zone.clone(),
            location: zone.location.clone(),
        });
    }
    if let Some(first) = zone.ignore.first() {
        left.push(Left::Ignore {
            zone: zone.zone.clone(),
            rules: zone.ignore.clone(),
            location: first.location.clone(),
        });
    }
    if let Some(registrar) = &zone.registrar {
        left.push(Left::Registrar {
            zone: zone.zone.clone(),
            location: registrar.location.clone(),
        });
    }
    left
}

/// A zone's records in the order `import` and `fmt` write them.
fn sorted(zone: &ZoneSpec) -> Vec<&RecordSpec> {
    let mut records: Vec<&RecordSpec> = zone.records.iter().collect();
    fn key(r: &RecordSpec) -> RecordKey<'_> {
        RecordKey {
            name: &r.name,
            rtype: r.rtype,
            content: &r.canonical,
            ttl: Some(r.ttl),
        }
    }
    records.sort_by(|a, b| record_order(&key(a), &key(b)));
    records
}

/// A zone's file name: its validated name (letters, digits, `-`, `_`, dots between labels);
/// `write_export` still refuses any path that is not plainly inside the output folder.
fn file_name(zone: &ZoneName, extension: &str) -> PathBuf {
    PathBuf::from(format!("{}{extension}", zone.as_str()))
}

#[cfg(test)]
mod tests;
