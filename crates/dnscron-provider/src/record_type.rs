//! The record types the API writes (spec, Resources: DNS record), as one closed enum.
//!
//! The spec gives each type only its wire name; its per-type content rules are not stated (the
//! one content limit, [`crate::limits::CONTENT_MAX_CHARS`], holds for every type). So the
//! client reads content by the RFCs (`dnscron_core::dns::content`) and the emulator applies the
//! sanity a real DNS service would (`dnscron_emulator`'s `validate` and `constraints`): both
//! match on this enum, so a type added here fails to compile until each side handles it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Defines [`RecordType`] from one list: its variants, `ALL` (in this order) and the wire names.
macro_rules! record_types {
    ($(#[$meta:meta])* $($t:ident),+ $(,)?) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
        #[allow(clippy::upper_case_acronyms)]
        pub enum RecordType {
            $($t),+
        }

        impl RecordType {
            /// Every type, in the spec's order.
            pub const ALL: &'static [RecordType] = &[$(RecordType::$t),+];

            /// The name as the API spells it on the wire, upper case.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(RecordType::$t => stringify!($t)),+
                }
            }
        }
    };
}

record_types! {
    /// The record types the API accepts on write (spec, Resources: DNS record).
    A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, PTR
}

impl RecordType {
    /// The type a request, a listing or a file names: any case, surrounding spaces ignored
    /// (servers differ in how they echo the type back). `None`: not a type the API writes.
    pub fn parse(text: &str) -> Option<RecordType> {
        let text = text.trim();
        RecordType::ALL
            .iter()
            .copied()
            .find(|t| t.as_str().eq_ignore_ascii_case(text))
    }

    /// The wire names in the spec's order, for a refusal that lists what is accepted and for a
    /// schema's `enum`.
    pub fn names() -> Vec<&'static str> {
        RecordType::ALL.iter().map(|t| t.as_str()).collect()
    }
}

impl fmt::Display for RecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A type name that is none of [`RecordType::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRecordType(pub String);

impl fmt::Display for UnknownRecordType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown record type `{}`: expected one of {}",
            self.0,
            RecordType::names().join(", ")
        )
    }
}

impl std::error::Error for UnknownRecordType {}

impl FromStr for RecordType {
    type Err = UnknownRecordType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RecordType::parse(s).ok_or_else(|| UnknownRecordType(s.to_string()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_type_reads_back_from_its_name_in_any_case() {
        for t in RecordType::ALL {
            assert_eq!(RecordType::parse(t.as_str()), Some(*t));
            let lower = format!(" {} ", t.as_str().to_ascii_lowercase());
            assert_eq!(RecordType::parse(&lower), Some(*t));
            assert_eq!(lower.parse::<RecordType>(), Ok(*t));
        }
    }

    #[test]
    fn types_the_api_does_not_write_are_refused_with_the_list() {
        for other in ["SOA", "DNSKEY", "", "A A", "HTTPS"] {
            assert_eq!(RecordType::parse(other), None, "{other}");
        }
        assert_eq!(
            "DS".parse::<RecordType>().unwrap_err().to_string(),
            "unknown record type `DS`: expected one of A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, PTR"
        );
    }
}
