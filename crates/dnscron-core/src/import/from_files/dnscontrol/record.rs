//! One record of the IR as the API would hold it.

use std::str::FromStr;

use serde::Deserialize;

use crate::dns::txt::txt_wire;
use crate::dns::{RecordType, ZoneName};

use crate::import::from_files::{Held, SourceLine, SourceRecord};

/// DNSControl's default TTL (`models.DefaultTTL`), which its normalization gives a record whose
/// TTL is 0 or absent (`ttl` is `omitempty` in the IR).
const DEFAULT_TTL: u32 = 300;

#[derive(Deserialize)]
pub(super) struct IrRecord {
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
    /// Older IRs kept a TXT record's strings apart (v4 writes the text in `target`): the text
    /// is their concatenation.
    txtstrings: Option<Vec<String>>,
}

impl IrRecord {
    pub(super) fn rtype(&self) -> &str {
        &self.rtype
    }

    /// A host target DNSControl refuses: a dot inside, none at the end (`bar.baz`).
    pub(super) fn dotted_relative_target(&self) -> Option<&str> {
        let host = matches!(
            RecordType::from_str(&self.rtype.to_ascii_uppercase()),
            Ok(RecordType::CNAME
                | RecordType::NS
                | RecordType::PTR
                | RecordType::MX
                | RecordType::SRV)
        );
        let t = self.target.as_str();
        (host && t.contains('.') && !t.ends_with('.')).then_some(t)
    }
}

pub(super) fn source_record(record: &IrRecord, zone: &ZoneName, at: SourceLine) -> SourceRecord {
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
        ttl: record.ttl.filter(|t| *t != 0).unwrap_or(DEFAULT_TTL),
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

/// DNSControl writes hosts in the zone short (`www`, `@`) and others with a final dot; a single
/// label is relative to the domain (CNAME.md: "If it is a single label we will assume it is a
/// relative name on the current domain").
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
