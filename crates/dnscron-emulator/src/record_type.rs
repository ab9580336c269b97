//! The record types the API accepts on write (spec, Resources: DNS record), as the emulator's
//! own closed enum: validation, the listings' rendering and the DNS answers each match every
//! type, so a type added to the list fails to compile until each of them handles it. The
//! client keeps its own list; tests/it/capability.rs holds the two equal.

/// Defines [`RecordType`] from one list: its variants, `ALL` (in this order) and the names.
macro_rules! api_record_types {
    ($($t:ident),+ $(,)?) => {
        /// A record type the API writes; seeds may still store others (SOA, DNSKEY, …), which
        /// stay strings in the state.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(clippy::upper_case_acronyms)]
        pub enum RecordType {
            $($t),+
        }

        impl RecordType {
            pub const ALL: &'static [RecordType] = &[$(RecordType::$t),+];

            /// The name as the API spells it, upper case.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(RecordType::$t => stringify!($t)),+
                }
            }
        }
    };
}

api_record_types!(A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, PTR);

impl RecordType {
    /// The type a request or a stored record names; any case and surrounding spaces, as the
    /// API accepts a `type` on write. `None`: not a type the API writes.
    pub fn parse(text: &str) -> Option<RecordType> {
        let text = text.trim();
        RecordType::ALL
            .iter()
            .copied()
            .find(|t| t.as_str().eq_ignore_ascii_case(text))
    }

    /// `A, AAAA, …`, for a refusal that lists what is accepted.
    pub fn names() -> Vec<&'static str> {
        RecordType::ALL.iter().map(|t| t.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_parses_back_from_its_name_in_any_case() {
        for t in RecordType::ALL {
            assert_eq!(RecordType::parse(t.as_str()), Some(*t));
            let lower = format!(" {} ", t.as_str().to_ascii_lowercase());
            assert_eq!(RecordType::parse(&lower), Some(*t));
        }
    }

    #[test]
    fn types_the_api_does_not_write_are_refused() {
        assert_eq!(RecordType::parse("SOA"), None);
        assert_eq!(RecordType::parse("DNSKEY"), None);
        assert_eq!(RecordType::parse(""), None);
        assert_eq!(RecordType::parse("A A"), None);
    }
}
