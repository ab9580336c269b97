//! DNSControl's IR (`dnscontrol print-ir`, v4) → located records, one zone per domain.
//!
//! `dnsconfig.js` is a program; its IR is its meaning, with macros, `D_EXTEND` and `require`
//! already expanded, so the IR is read rather than the script. Each record keeps the line of
//! the IR where its object starts (serde_json's raw values borrow from the text, so their
//! place in it is known), and every JSON problem is located by line and column. `IGNORE_*`
//! (the domain's `unmanaged` list) becomes `ignore:` rules, `NO_PURGE` (`keepunknown`)
//! `prune: false`. Pseudo-records (CF_REDIRECT, ALIAS, R53_ALIAS, URL, …) are types the API
//! doesn't list: `assemble` lists them with their line.

mod ignore;
mod record;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dns::ZoneName;

use super::{SourceLine, SourceZone};
use ignore::IrUnmanaged;
use record::{IrRecord, source_record};

#[derive(Debug, thiserror::Error)]
pub enum DnscontrolError {
    #[error("reading {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not JSON, or a field of the wrong type (serde_json's words).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{} holds no domains", path.display())]
    NoDomains { path: PathBuf },
    #[error("{}:{line}: `{name}` is not a domain name that can be imported: {reason}", path.display())]
    BadZone {
        path: PathBuf,
        line: usize,
        name: String,
        reason: String,
    },
    /// A domain whose IR has no records: DNSControl would delete every record of the zone.
    #[error("{}:{line}: the domain {domain} has no records", path.display())]
    NoRecords {
        path: PathBuf,
        line: usize,
        domain: String,
    },
    /// A record of the IR that one of its `IGNORE`s covers.
    #[error("{}:{line}: {name} {rtype} is both declared and ignored (by the IGNORE at line {rule_line})", path.display())]
    DeclaredAndIgnored {
        path: PathBuf,
        line: usize,
        rule_line: usize,
        name: String,
        rtype: String,
    },
    /// A host target with a dot and no final dot: DNSControl's docs (CNAME.md) take a single
    /// label as relative and want any name with a dot fully qualified, and its validation
    /// refuses it.
    #[error("{}:{line}: the {rtype} target `{target}` has a dot but does not end with one: it is neither a label in the domain nor a full name", path.display())]
    Target {
        path: PathBuf,
        line: usize,
        rtype: String,
        target: String,
    },
    /// A glob of an `IGNORE` that an `ignore:` rule can't say (only `*` and `?` carry over).
    #[error("{}:{line}: the pattern `{pattern}` uses glob syntax beyond `*` and `?`", path.display())]
    Pattern {
        path: PathBuf,
        line: usize,
        pattern: String,
    },
}

#[derive(Deserialize)]
struct Ir<'a> {
    #[serde(borrow, default)]
    domains: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct IrDomain<'a> {
    name: String,
    #[serde(borrow, default)]
    records: Vec<&'a RawValue>,
    #[serde(borrow, default)]
    unmanaged: Vec<&'a RawValue>,
    #[serde(default)]
    keepunknown: bool,
}

/// DNSControl's reader: an IR file, one zone per domain, in the file's order.
pub struct Dnscontrol;

impl super::Reader for Dnscontrol {
    type Error = DnscontrolError;

    fn zones(&self, file: &Path) -> Result<Vec<SourceZone>, DnscontrolError> {
        read_ir(file)
    }
}

fn read_ir(path: &Path) -> Result<Vec<SourceZone>, DnscontrolError> {
    let text = std::fs::read_to_string(path).map_err(|source| DnscontrolError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let line_starts = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let file = IrFile {
        path,
        text: &text,
        line_starts,
    };
    let ir: Ir = file.parse(&text)?;
    if ir.domains.is_empty() {
        return Err(DnscontrolError::NoDomains {
            path: path.to_path_buf(),
        });
    }
    ir.domains.iter().map(|raw| file.domain(raw)).collect()
}

struct IrFile<'a> {
    path: &'a Path,
    text: &'a str,
    /// The byte offset where each line starts.
    line_starts: Vec<usize>,
}

impl<'a> IrFile<'a> {
    /// `part` (the whole text or a slice of it) as `T`, a problem located in the whole text.
    fn parse<T: Deserialize<'a>>(&self, part: &'a str) -> Result<T, DnscontrolError> {
        serde_json::from_str(part).map_err(|e| {
            let (base_line, base_column) = self.position(part);
            let column = if e.line() <= 1 {
                base_column + e.column().saturating_sub(1)
            } else {
                e.column()
            };
            DnscontrolError::Json {
                path: self.path.to_path_buf(),
                line: base_line + e.line().saturating_sub(1),
                column,
                message: without_position(&e.to_string()),
            }
        })
    }

    /// Line and column (from 1) where `part`, a slice of the text, starts: a binary search of
    /// the line starts, since every record asks.
    fn position(&self, part: &str) -> (usize, usize) {
        let offset = (part.as_ptr() as usize)
            .saturating_sub(self.text.as_ptr() as usize)
            .min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self
            .line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        (line, offset - start + 1)
    }

    fn line_of(&self, raw: &RawValue) -> usize {
        self.position(raw.get()).0
    }

    fn domain(&self, raw: &'a RawValue) -> Result<SourceZone, DnscontrolError> {
        let domain: IrDomain = self.parse(raw.get())?;
        let line = self.line_of(raw);
        let zone = ZoneName::parse(&domain.name).map_err(|e| DnscontrolError::BadZone {
            path: self.path.to_path_buf(),
            line,
            name: domain.name.clone(),
            reason: e.to_string(),
        })?;
        if domain.records.is_empty() {
            return Err(DnscontrolError::NoRecords {
                path: self.path.to_path_buf(),
                line,
                domain: zone.as_str().to_string(),
            });
        }
        let mut records = Vec::new();
        for raw in &domain.records {
            let record: IrRecord = self.parse(raw.get())?;
            let at = self.at(raw);
            if let Some(target) = record.dotted_relative_target() {
                return Err(DnscontrolError::Target {
                    path: self.path.to_path_buf(),
                    line: at.line,
                    rtype: record.rtype().to_string(),
                    target: target.to_string(),
                });
            }
            records.push(source_record(&record, &zone, at));
        }
        let mut rules = Vec::new();
        for raw in &domain.unmanaged {
            let unmanaged: IrUnmanaged = self.parse(raw.get())?;
            let line = self.line_of(raw);
            for rule in self.ignore_rules(&unmanaged, line)? {
                rules.push((line, rule));
            }
        }
        self.refuse_ignored(&zone, &records, &rules)?;
        let mut source_zone = SourceZone::new(self.path, zone, records);
        source_zone.rules = rules.into_iter().map(|(_, rule)| rule).collect();
        source_zone.keeps_undeclared = domain.keepunknown.then(|| SourceLine {
            file: self.path.to_path_buf(),
            line: keepunknown_line(raw.get()).map_or(line, |l| line + l),
        });
        Ok(source_zone)
    }

    fn at(&self, raw: &RawValue) -> SourceLine {
        SourceLine {
            file: self.path.to_path_buf(),
            line: self.line_of(raw),
        }
    }
}

/// The line of `"keepunknown"` within a domain's JSON, counted from its first line (0).
fn keepunknown_line(domain: &str) -> Option<usize> {
    let at = domain.find("\"keepunknown\"")?;
    Some(domain[..at].matches('\n').count())
}

/// serde_json's message without its own ` at line L column C`: the error names the place in
/// the whole file instead.
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dns::RecordType;
    use crate::import::from_files::FromFile;

    fn read(text: &str) -> Result<Vec<FromFile>, DnscontrolError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ir.json");
        std::fs::write(&path, text).unwrap();
        crate::import::from_files::read(&Dnscontrol, &path)
    }

    #[test]
    fn a_wrong_type_is_located_in_the_whole_file() {
        let text = "{\"domains\": [\n  {\"name\": \"foo.com\", \"records\": [\n    {\"type\": \"A\", \"name\": \"@\", \"target\": \"192.0.2.1\", \"ttl\": \"300\"}\n  ]}\n]}\n";
        match read(text) {
            Err(DnscontrolError::Json { line, column, .. }) => {
                assert_eq!((line, column), (3, 66));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rtype_lists_become_one_rule_per_type_and_unknown_types_none() {
        let text = r#"{"domains": [{"name": "foo.com", "records": [{"type": "A", "name": "@", "target": "192.0.2.1"}],
          "unmanaged": [{"label_pattern": "two", "rType_pattern": "A, CNAME, ALIAS", "target_pattern": "*"},
                        {"target_pattern": "mytarget"}]}]}"#;
        let zones = read(text).unwrap();
        let rules: Vec<(&str, Option<RecordType>, Option<&str>)> = zones[0]
            .zone
            .rules
            .iter()
            .map(|r| (r.name.as_str(), r.rtype, r.content.as_deref()))
            .collect();
        assert_eq!(
            rules[..2],
            [
                ("two", Some(RecordType::A), None),
                ("two", Some(RecordType::CNAME), None),
            ]
        );
        // A target glob over every type: one rule per type, the target in its place.
        let mx = rules.iter().find(|r| r.1 == Some(RecordType::MX)).unwrap();
        assert_eq!(mx, &("*", Some(RecordType::MX), Some("* mytarget")));
        assert_eq!(rules.len(), 2 + RecordType::ALL.len());
        assert!(zones[0].zone.prune);
    }

    #[test]
    fn a_bracket_glob_is_refused_a_star_accepted() {
        let refused = r#"{"domains": [{"name": "foo.com", "records": [{"type": "A", "name": "@", "target": "192.0.2.1"}],
          "unmanaged": [{"label_pattern": "host[12]"}]}]}"#;
        assert!(matches!(
            read(refused),
            Err(DnscontrolError::Pattern { line: 2, .. })
        ));
        let accepted = refused.replace("host[12]", "host*");
        assert_eq!(read(&accepted).unwrap()[0].zone.rules[0].name, "host*");
    }

    #[test]
    fn no_domains_is_refused() {
        assert!(matches!(
            read(r#"{"domains": []}"#),
            Err(DnscontrolError::NoDomains { .. })
        ));
    }
}
