use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The record types the API accepts on write (spec, Resources: DNS record).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[allow(clippy::upper_case_acronyms)]
pub enum RecordType {
    A,
    AAAA,
    CNAME,
    MX,
    TXT,
    NS,
    SRV,
    CAA,
    PTR,
}

impl RecordType {
    pub const ALL: [RecordType; 9] = [
        RecordType::A,
        RecordType::AAAA,
        RecordType::CNAME,
        RecordType::MX,
        RecordType::TXT,
        RecordType::NS,
        RecordType::SRV,
        RecordType::CAA,
        RecordType::PTR,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RecordType::A => "A",
            RecordType::AAAA => "AAAA",
            RecordType::CNAME => "CNAME",
            RecordType::MX => "MX",
            RecordType::TXT => "TXT",
            RecordType::NS => "NS",
            RecordType::SRV => "SRV",
            RecordType::CAA => "CAA",
            RecordType::PTR => "PTR",
        }
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown record type `{0}`: expected one of A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, PTR")]
pub struct UnknownRecordType(pub String);

impl FromStr for RecordType {
    type Err = UnknownRecordType;

    /// Case-insensitive: servers differ in how they echo the type back.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RecordType::ALL
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownRecordType(s.to_string()))
    }
}
