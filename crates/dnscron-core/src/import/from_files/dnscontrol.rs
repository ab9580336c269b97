//! DNSControl's IR (`dnscontrol print-ir`, v4) → located records, one zone per domain.
//!
//! `dnsconfig.js` is a program; its IR is its meaning, with macros, `D_EXTEND` and `require`
//! already expanded, so the IR is read rather than the script. Each record keeps the line of
//! the IR where its object starts (serde_json's raw values borrow from the text, so their
//! place in it is known), and every JSON problem is located by line and column. `IGNORE_*`
//! (the domain's `unmanaged` list) becomes `ignore:` rules, `NO_PURGE` (`keepunknown`)
//! `prune: false`. Pseudo-records (CF_REDIRECT, ALIAS, R53_ALIAS, URL, …) are types the API
//! doesn't list: `assemble` lists them with their line.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dns::txt::txt_wire;
use crate::dns::{RecordType, ZoneName};
use crate::import::zone::SourceIgnore;

use super::{FromFile, Held, SourceLine, SourceRecord, assemble};

/// DNSControl's default TTL, which a record without `ttl` has.
const DEFAULT_TTL: u32 = 300;

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

#[derive(Deserialize)]
struct IrRecord {
    #[serde(rename = "type")]
    rtype: String,
    name: String,
    #[serde(default)]
    target: String,
    ttl: Option<u32>,
    mxpreference: Option<u16>,
    srvpriority: Option<u16>,
    srvweight: Option<u16>,
    srvport: Option<u16>,
    caaflag: Option<u8>,
    caatag: Option<String>,
    /// Before v4.?, TXT kept its strings apart; the text is their concatenation.
    txtstrings: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct IrUnmanaged {
    label_pattern: Option<String>,
    #[serde(rename = "rType_pattern")]
    rtype_pattern: Option<String>,
    target_pattern: Option<String>,
}

/// Reads the IR file `path`: one zone per domain, in the file's order.
pub fn read_dnscontrol(path: &Path) -> Result<Vec<FromFile>, DnscontrolError> {
    let text = std::fs::read_to_string(path).map_err(|source| DnscontrolError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let file = IrFile { path, text: &text };
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

    /// Line and column (from 1) where `part`, a slice of the text, starts.
    fn position(&self, part: &str) -> (usize, usize) {
        let offset = (part.as_ptr() as usize)
            .saturating_sub(self.text.as_ptr() as usize)
            .min(self.text.len());
        let before = self.text.get(..offset).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        (line, column)
    }

    fn line_of(&self, raw: &RawValue) -> usize {
        self.position(raw.get()).0
    }

    fn domain(&self, raw: &'a RawValue) -> Result<FromFile, DnscontrolError> {
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
            records.push(source_record(&record, &zone, self.at(raw)));
        }
        let mut rules = Vec::new();
        for raw in &domain.unmanaged {
            let unmanaged: IrUnmanaged = self.parse(raw.get())?;
            rules.extend(self.ignore_rules(&unmanaged, self.line_of(raw))?);
        }
        let mut from = assemble(self.path, &zone, records);
        from.zone.rules = rules;
        from.zone.prune = !domain.keepunknown;
        Ok(from)
    }

    fn at(&self, raw: &RawValue) -> SourceLine {
        SourceLine {
            file: self.path.to_path_buf(),
            line: self.line_of(raw),
        }
    }

    /// One rule per type of `rType_pattern` (`"A, CNAME"`); a type the API doesn't list matches
    /// nothing this account can hold, so it gives no rule.
    fn ignore_rules(
        &self,
        unmanaged: &IrUnmanaged,
        line: usize,
    ) -> Result<Vec<SourceIgnore>, DnscontrolError> {
        let name = self.glob(unmanaged.label_pattern.as_deref(), line)?;
        let content = self.glob(unmanaged.target_pattern.as_deref(), line)?;
        let origin = format!(
            "IGNORE({}, {}, {}) at {}:{line}",
            pattern_words(unmanaged.label_pattern.as_deref()),
            pattern_words(unmanaged.rtype_pattern.as_deref()),
            pattern_words(unmanaged.target_pattern.as_deref()),
            self.path.display()
        );
        let rule = |rtype| SourceIgnore {
            name: name.clone().unwrap_or_else(|| "*".into()),
            rtype,
            content: content.clone(),
            origin: origin.clone(),
        };
        let types: Vec<&str> = unmanaged
            .rtype_pattern
            .as_deref()
            .unwrap_or("*")
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if types.is_empty() || types.contains(&"*") {
            return Ok(vec![rule(None)]);
        }
        Ok(types
            .iter()
            .filter_map(|t| RecordType::from_str(&t.to_ascii_uppercase()).ok())
            .map(|t| rule(Some(t)))
            .collect())
    }

    /// A DNSControl glob as an `ignore:` glob; `None` for "anything".
    fn glob(&self, pattern: Option<&str>, line: usize) -> Result<Option<String>, DnscontrolError> {
        match pattern.map(str::trim) {
            None | Some("" | "*") => Ok(None),
            Some(p) if p.contains(['[', ']', '{', '}', '\\']) => Err(DnscontrolError::Pattern {
                path: self.path.to_path_buf(),
                line,
                pattern: p.to_string(),
            }),
            Some(p) => Ok(Some(p.to_string())),
        }
    }
}

fn pattern_words(pattern: Option<&str>) -> String {
    format!("\"{}\"", pattern.unwrap_or("*"))
}

/// serde_json's message without its own ` at line L column C`: the error names the place in
/// the whole file instead.
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn source_record(record: &IrRecord, zone: &ZoneName, at: SourceLine) -> SourceRecord {
    let rtype = record.rtype.to_ascii_uppercase();
    let (rdata, content) = match RecordType::from_str(&rtype) {
        Ok(known) => {
            let data = data(known, record, zone);
            let content = match known {
                RecordType::TXT => txt_wire(&data),
                RecordType::A
                | RecordType::AAAA
                | RecordType::CNAME
                | RecordType::NS
                | RecordType::PTR
                | RecordType::MX
                | RecordType::SRV
                | RecordType::CAA => data.clone(),
            };
            (data, Held::Content(content))
        }
        Err(_) => (record.target.clone(), Held::OtherType),
    };
    SourceRecord {
        at,
        owner: owner(&record.name, zone),
        class: "IN".into(),
        rtype,
        ttl: record.ttl.unwrap_or(DEFAULT_TTL),
        rdata,
        content,
    }
}

/// The record's data as the API holds it (a TXT record's text before quoting).
fn data(rtype: RecordType, record: &IrRecord, zone: &ZoneName) -> String {
    let host = || absolute(&record.target, zone);
    match rtype {
        RecordType::A | RecordType::AAAA => record.target.clone(),
        RecordType::CNAME | RecordType::NS | RecordType::PTR => host(),
        RecordType::MX => format!("{} {}", record.mxpreference.unwrap_or(0), host()),
        RecordType::SRV => format!(
            "{} {} {} {}",
            record.srvpriority.unwrap_or(0),
            record.srvweight.unwrap_or(0),
            record.srvport.unwrap_or(0),
            host()
        ),
        RecordType::CAA => format!(
            "{} {} \"{}\"",
            record.caaflag.unwrap_or(0),
            record.caatag.as_deref().unwrap_or_default(),
            record.target.replace('\\', "\\\\").replace('"', "\\\"")
        ),
        RecordType::TXT => match &record.txtstrings {
            Some(strings) if !strings.is_empty() => strings.concat(),
            Some(_) | None => record.target.clone(),
        },
    }
}

/// A record's label (`@`, `www`) as an absolute owner.
fn owner(label: &str, zone: &ZoneName) -> String {
    absolute(label, zone)
}

/// DNSControl writes hosts in the zone short (`www`, `@`) and others with a final dot.
fn absolute(name: &str, zone: &ZoneName) -> String {
    let name = name.to_ascii_lowercase();
    if name == "@" || name.is_empty() {
        format!("{}.", zone.as_str())
    } else if name.ends_with('.') {
        name
    } else {
        format!("{name}.{}.", zone.as_str())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<FromFile>, DnscontrolError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ir.json");
        std::fs::write(&path, text).unwrap();
        read_dnscontrol(&path)
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
            rules,
            [
                ("two", Some(RecordType::A), None),
                ("two", Some(RecordType::CNAME), None),
                ("*", None, Some("mytarget")),
            ]
        );
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
