//! The DNS rules dnscron applies to what a file may declare, written once.
//!
//! Validation (config/) refuses a file that breaks them, import (import/) keeps such live records
//! out of the files it writes, and plan (plan/) leaves alone what the service owns. Each caller
//! words a broken rule for its own reader; the rule itself lives only here.

use std::collections::BTreeSet;
use std::ops::RangeInclusive;

use super::RecordType;
use super::name::check_host;

/// TTLs the API accepts (spec, Limits).
pub const TTL_MIN: u32 = 60;
pub const TTL_MAX: u32 = 604_800;
pub const TTL_RANGE: RangeInclusive<u32> = TTL_MIN..=TTL_MAX;
/// The API's TTL when a write doesn't state one.
pub const DEFAULT_TTL: u32 = 3600;

/// How many custom nameservers a registrar update takes (spec, Limits).
pub const NAMESERVER_COUNT: RangeInclusive<usize> = 2..=6;

/// A rule about the name a record of some type may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// Apex NS records belong to the service (hidden from listings); a zone's `nameservers:`
    /// chooses the domain's delegation instead.
    ServiceApexNs,
    /// The apex holds SOA and NS records, so a CNAME (which must be alone) can't be there.
    ApexCname,
    /// SRV records are named `_service._proto` (RFC 2782), optionally under a subdomain.
    SrvOwner,
}

/// The name rule a record of `rtype` at the relative `name` breaks, if any.
pub fn broken_name_rule(rtype: RecordType, name: &str) -> Option<NameRule> {
    match rtype {
        RecordType::NS if name == "@" => Some(NameRule::ServiceApexNs),
        RecordType::CNAME if name == "@" => Some(NameRule::ApexCname),
        RecordType::SRV if !is_srv_owner(name) => Some(NameRule::SrvOwner),
        _ => None,
    }
}

/// Whether the service, not the files, owns this record (plan never touches it).
pub fn is_service_owned(rtype: RecordType, name: &str) -> bool {
    broken_name_rule(rtype, name) == Some(NameRule::ServiceApexNs)
}

fn is_srv_owner(name: &str) -> bool {
    let mut labels = name.split('.');
    let service = labels.next().unwrap_or_default();
    let proto = labels.next().unwrap_or_default();
    service.len() > 1 && service.starts_with('_') && proto.len() > 1 && proto.starts_with('_')
}

/// A record of this type must be the only record at its name (RFC 1034 §3.6.2).
pub fn must_be_alone(rtype: RecordType) -> bool {
    rtype == RecordType::CNAME
}

/// Whether the types present at one name break the alone rule.
pub fn types_clash(types: &BTreeSet<RecordType>) -> bool {
    types.len() > 1 && types.iter().any(|t| must_be_alone(*t))
}

/// Why a custom nameserver host (lower case, no final dot) can't be declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameserverHostProblem {
    /// Not a host name; the reason says why.
    Invalid(String),
    /// A single label: ambiguous, the registry needs a full name.
    NotFull,
}

pub fn check_nameserver_host(name: &str) -> Result<(), NameserverHostProblem> {
    check_host(name).map_err(NameserverHostProblem::Invalid)?;
    if !name.contains('.') {
        return Err(NameserverHostProblem::NotFull);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use NameRule::*;
    use RecordType::*;

    #[test]
    fn name_rules_accept_and_refuse() {
        for (rtype, name, want) in [
            (NS, "@", Some(ServiceApexNs)),
            (NS, "sub", None),
            (CNAME, "@", Some(ApexCname)),
            (CNAME, "www", None),
            (SRV, "_sip._tcp", None),
            (SRV, "_sip._tcp.eu", None),
            (SRV, "sip._tcp", Some(SrvOwner)),
            (SRV, "_sip", Some(SrvOwner)),
            (SRV, "_._tcp", Some(SrvOwner)),
            (SRV, "@", Some(SrvOwner)),
            (A, "@", None),
            (TXT, "_sip", None),
        ] {
            assert_eq!(broken_name_rule(rtype, name), want, "{rtype} {name}");
        }
        assert!(is_service_owned(NS, "@"));
        assert!(!is_service_owned(CNAME, "@"));
    }

    #[test]
    fn a_cname_clashes_with_any_other_type() {
        let set = |types: &[RecordType]| types.iter().copied().collect::<BTreeSet<_>>();
        assert!(types_clash(&set(&[CNAME, TXT])));
        assert!(types_clash(&set(&[A, CNAME])));
        assert!(!types_clash(&set(&[CNAME])));
        assert!(!types_clash(&set(&[A, AAAA, TXT])));
    }

    #[test]
    fn nameserver_hosts() {
        assert_eq!(check_nameserver_host("ns1.other.net"), Ok(()));
        assert_eq!(
            check_nameserver_host("ns1"),
            Err(NameserverHostProblem::NotFull)
        );
        assert!(matches!(
            check_nameserver_host("ns1..net"),
            Err(NameserverHostProblem::Invalid(_))
        ));
        assert!(TTL_RANGE.contains(&60) && TTL_RANGE.contains(&604_800));
        assert!(!TTL_RANGE.contains(&59) && !TTL_RANGE.contains(&604_801));
    }
}
