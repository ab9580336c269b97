//! `IGNORE` (the domain's `unmanaged` list) → `ignore:` rules, with the meaning DNSControl's
//! code gives them (pkg/diff2/handsoff.go): the label glob over the record's label (`@` at the
//! apex), compiled without a separator, so `*` and `?` cross dots (the docs' `*.foo` example
//! says otherwise; the code decides what DNSControl does), as an `ignore:` glob does; the
//! types a comma-separated list; the target glob over the record's target field only (an MX's
//! or SRV's host, a CAA's value, a TXT's text), so it becomes a content glob that leaves the
//! other fields of the content free, one rule per type.

use std::str::FromStr;

use serde::Deserialize;

use crate::config::glob::glob_match;
use crate::dns::{self, RecordType, ZoneName};
use crate::import::zone::SourceIgnore;

use super::{DnscontrolError, IrFile};
use crate::import::from_files::{Held, SourceRecord};

#[derive(Deserialize)]
pub(super) struct IrUnmanaged {
    label_pattern: Option<String>,
    #[serde(rename = "rType_pattern")]
    rtype_pattern: Option<String>,
    target_pattern: Option<String>,
}

impl IrFile<'_> {
    /// A file can't both declare and ignore a record, and DNSControl refuses it too unless its
    /// safety check is turned off: which one the IR meant is for its author to say.
    pub(super) fn refuse_ignored(
        &self,
        zone: &ZoneName,
        records: &[SourceRecord],
        rules: &[(usize, SourceIgnore)],
    ) -> Result<(), DnscontrolError> {
        for record in records {
            let (Held::Content(content), Ok(rtype)) =
                (&record.content, RecordType::from_str(&record.rtype))
            else {
                continue;
            };
            let name = dns::live_name_to_relative(&record.owner, zone);
            let canonical = dns::canonical_live_content(rtype, content, zone);
            let covering = rules.iter().find(|(_, rule)| {
                glob_match(&rule.name, &name)
                    && rule.rtype.is_none_or(|t| t == rtype)
                    && rule
                        .content
                        .as_deref()
                        .is_none_or(|c| glob_match(c, &canonical))
            });
            if let Some((rule_line, _)) = covering {
                return Err(DnscontrolError::DeclaredAndIgnored {
                    path: self.path.to_path_buf(),
                    line: record.at.line,
                    rule_line: *rule_line,
                    name,
                    rtype: record.rtype.clone(),
                });
            }
        }
        Ok(())
    }

    /// One rule per type of `rType_pattern` (`"A, CNAME"`); a type the API doesn't list matches
    /// nothing this account can hold, so it gives no rule.
    pub(super) fn ignore_rules(
        &self,
        unmanaged: &IrUnmanaged,
        line: usize,
    ) -> Result<Vec<SourceIgnore>, DnscontrolError> {
        let name = self
            .glob(unmanaged.label_pattern.as_deref(), line)?
            .map(|n| n.to_ascii_lowercase());
        let content = self.glob(unmanaged.target_pattern.as_deref(), line)?;
        let origin = format!(
            "IGNORE({}, {}, {}) at {}:{line}",
            pattern_words(unmanaged.label_pattern.as_deref()),
            pattern_words(unmanaged.rtype_pattern.as_deref()),
            pattern_words(unmanaged.target_pattern.as_deref()),
            self.path.display()
        );
        let rule = |rtype: Option<RecordType>| SourceIgnore {
            name: name.clone().unwrap_or_else(|| "*".into()),
            rtype,
            content: content.as_deref().map(|target| match rtype {
                Some(t) => content_glob(t, target),
                None => target.to_string(),
            }),
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
            // A target glob means a field that sits differently in each type's content.
            return Ok(match content {
                None => vec![rule(None)],
                Some(_) => RecordType::ALL.iter().map(|t| rule(Some(*t))).collect(),
            });
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

/// DNSControl's target glob (`GetTargetField`: the host of an MX or SRV, the value of a CAA, the
/// text of a TXT, the address or name otherwise) as a glob over the canonical content, whose
/// other fields (numbers, a tag: no spaces) each a `*`.
fn content_glob(rtype: RecordType, target: &str) -> String {
    match rtype {
        RecordType::MX => format!("* {target}"),
        RecordType::SRV => format!("* * * {target}"),
        RecordType::CAA => format!("* * \"{target}\""),
        RecordType::A
        | RecordType::AAAA
        | RecordType::CNAME
        | RecordType::NS
        | RecordType::PTR
        | RecordType::TXT => target.to_string(),
    }
}

fn pattern_words(pattern: Option<&str>) -> String {
    format!("\"{}\"", pattern.unwrap_or("*"))
}
