//! The record types dnscron manages and their typed content.
//!
//! The type list is written once, in the API's description (`dnscron_provider::RecordType`);
//! everything here that depends on it is an exhaustive `match` (`RecordData::parse`,
//! `RecordData::rtype`, `Display`), so adding a type to the list fails to compile until its
//! content is parsed and written back. The field parsers it uses (addresses, host names, CAA
//! values) live in `content`, TXT in `txt`.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::ZoneName;
use super::content::{self, ContentError, Host};

/// The API's record types, from its description: the one place a type is added.
pub use dnscron_provider::{RecordType, UnknownRecordType};

/// Types the service keeps for itself (zone apex and DNSSEC signing) and hides from listings
/// (spec, DNS record): one leaked into a listing is the service's, not a type dnscron lacks.
/// Every other type outside [`RecordType::ALL`] (HTTPS, SSHFP, ALIAS, …) is one dnscron does
/// not manage.
pub(crate) const SERVICE_TYPES: &[&str] = &[
    "SOA",
    "DNSKEY",
    "RRSIG",
    "NSEC",
    "NSEC3",
    "NSEC3PARAM",
    "DS",
    "CDS",
    "CDNSKEY",
];

/// Whether `rtype` (as a server spells it) is one of [`SERVICE_TYPES`].
pub(crate) fn is_service_type(rtype: &str) -> bool {
    SERVICE_TYPES
        .iter()
        .any(|t| t.eq_ignore_ascii_case(rtype.trim()))
}

/// The CAA property tags the API accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaaTag {
    Issue,
    IssueWild,
    Iodef,
}

impl CaaTag {
    pub const ALL: [CaaTag; 3] = [CaaTag::Issue, CaaTag::IssueWild, CaaTag::Iodef];

    pub fn as_str(self) -> &'static str {
        match self {
            CaaTag::Issue => "issue",
            CaaTag::IssueWild => "issuewild",
            CaaTag::Iodef => "iodef",
        }
    }
}

/// Record content read into its parts. Two contents are equal exactly when their `Display`
/// forms (the canonical forms, see `content`) are equal; that string is what plan compares.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::upper_case_acronyms)]
pub enum RecordData {
    A(Ipv4Addr),
    AAAA(Ipv6Addr),
    CNAME(Host),
    MX {
        priority: u16,
        exchange: Host,
    },
    /// The logical text: quotes removed, chunks joined, escapes resolved; case kept.
    TXT(String),
    NS(Host),
    SRV {
        priority: u16,
        weight: u16,
        port: u16,
        target: Host,
    },
    /// `value` as given (case kept), unescaped.
    CAA {
        flags: u8,
        tag: CaaTag,
        value: String,
    },
    PTR(Host),
}

impl RecordData {
    /// Reads content of `rtype` as a user wrote it or a server returned it; relative host names
    /// are refused with a hint naming `zone`.
    pub fn parse(rtype: RecordType, text: &str, zone: &ZoneName) -> Result<Self, ContentError> {
        content::check_length(rtype, text)?;
        Ok(match rtype {
            RecordType::A => RecordData::A(content::ipv4(text)?),
            RecordType::AAAA => RecordData::AAAA(content::ipv6(text)?),
            RecordType::CNAME => RecordData::CNAME(content::target(text, zone)?),
            RecordType::NS => RecordData::NS(content::target(text, zone)?),
            RecordType::PTR => RecordData::PTR(content::target(text, zone)?),
            RecordType::MX => {
                let (priority, exchange) = content::mx(text, zone)?;
                RecordData::MX { priority, exchange }
            }
            RecordType::SRV => {
                let (priority, weight, port, target) = content::srv(text, zone)?;
                RecordData::SRV {
                    priority,
                    weight,
                    port,
                    target,
                }
            }
            RecordType::CAA => {
                let (flags, tag, value) = content::caa(text)?;
                RecordData::CAA { flags, tag, value }
            }
            RecordType::TXT => RecordData::TXT(content::txt(text)?),
        })
    }

    pub fn rtype(&self) -> RecordType {
        match self {
            RecordData::A(_) => RecordType::A,
            RecordData::AAAA(_) => RecordType::AAAA,
            RecordData::CNAME(_) => RecordType::CNAME,
            RecordData::MX { .. } => RecordType::MX,
            RecordData::TXT(_) => RecordType::TXT,
            RecordData::NS(_) => RecordType::NS,
            RecordData::SRV { .. } => RecordType::SRV,
            RecordData::CAA { .. } => RecordType::CAA,
            RecordData::PTR(_) => RecordType::PTR,
        }
    }
}

/// The canonical form (see the CONTRACT in `content`).
impl fmt::Display for RecordData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordData::A(ip) => write!(f, "{ip}"),
            RecordData::AAAA(ip) => write!(f, "{ip}"),
            RecordData::CNAME(host) | RecordData::NS(host) | RecordData::PTR(host) => {
                write!(f, "{host}")
            }
            RecordData::MX { priority, exchange } => write!(f, "{priority} {exchange}"),
            RecordData::TXT(text) => f.write_str(text),
            RecordData::SRV {
                priority,
                weight,
                port,
                target,
            } => write!(f, "{priority} {weight} {port} {target}"),
            RecordData::CAA { flags, tag, value } => {
                let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
                write!(f, "{flags} {} \"{quoted}\"", tag.as_str())
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parsed_data_keeps_its_type_and_parts() {
        let zone = ZoneName::parse("example.com").unwrap();
        let srv = RecordData::parse(RecordType::SRV, " 10 60 5060 SIP.example.com ", &zone);
        let srv = srv.unwrap();
        assert_eq!(srv.rtype(), RecordType::SRV);
        assert_eq!(srv.to_string(), "10 60 5060 sip.example.com.");
        let caa = RecordData::parse(RecordType::CAA, "0 ISSUE LetsEncrypt.org", &zone).unwrap();
        assert_eq!(
            caa,
            RecordData::CAA {
                flags: 0,
                tag: CaaTag::Issue,
                value: "LetsEncrypt.org".into()
            }
        );
        assert_eq!(caa.to_string(), "0 issue \"LetsEncrypt.org\"");
    }
}
