//! What a nameserver serves, in words for the report. Server text is escaped here.

use crate::dns::RecordType;
use crate::dnscheck::{Difference, Expected, Outcome};
use crate::untrusted::Untrusted as U;

/// `192.0.2.1 (ttl 300), 192.0.2.2 (ttl 300)`, `nothing (NXDOMAIN)`, `REFUSED`: the answer to
/// a question of `rtype`; records of other types (an alias) carry their type.
pub(super) fn served(outcome: &Outcome, rtype: RecordType) -> String {
    match outcome {
        Outcome::Records { records, .. } => records
            .iter()
            .map(|r| {
                let value = format!("{} (ttl {})", U(&r.value), r.ttl);
                if r.rtype.eq_ignore_ascii_case(rtype.as_str()) {
                    value
                } else {
                    format!("{} {value}", U(&r.rtype))
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
        Outcome::NoData { .. } => "nothing (NODATA)".into(),
        Outcome::NxDomain { .. } => "nothing (NXDOMAIN)".into(),
        other => other.to_string(),
    }
}

/// `192.0.2.2 (ttl 300)`, or `nothing` for an RRset the files don't declare.
pub(super) fn values(expected: &[Expected]) -> String {
    if expected.is_empty() {
        return "nothing".into();
    }
    expected
        .iter()
        .map(|e| format!("{} (ttl {})", e.value, e.ttl))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a server that could not answer a question didn't: `None` when it answered.
pub(super) fn failure(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Rcode(code) => Some(format!("answers {}", U(code))),
        o if o.unreachable() => Some(format!("could not be asked: {o}")),
        _ => None,
    }
}

/// One line for a server's answer to the zone's SOA that shows it does not serve the zone.
pub(super) fn authority(zone: &str, difference: &Difference) -> String {
    match difference {
        Difference::NotAuthoritative => {
            format!("not authoritative for {zone} (no SOA answer with the AA bit)")
        }
        Difference::Refused { rcode } => format!("answers {} for {zone}", U(rcode)),
        Difference::Unreachable { reason } => format!("could not be asked: {}", U(reason)),
        other => format!("{other:?}"),
    }
}
