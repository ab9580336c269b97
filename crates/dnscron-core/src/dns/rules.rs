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
pub(crate) const TTL_MIN: u32 = dnscron_provider::limits::TTL_MIN;
pub(crate) const TTL_MAX: u32 = dnscron_provider::limits::TTL_MAX;
pub(crate) const TTL_RANGE: RangeInclusive<u32> = dnscron_provider::limits::TTL_RANGE;
/// The API's TTL when a write doesn't state one.
pub(crate) const DEFAULT_TTL: u32 = 3600;

/// How many custom nameservers a registrar update takes (spec, Limits).
pub(crate) const NAMESERVER_COUNT: RangeInclusive<usize> = 2..=6;

/// A rule about the name a record of some type may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRule {
    /// Apex NS records belong to the service (hidden from listings); a zone's `nameservers:`
    /// chooses the domain's delegation instead.
    ServiceApexNs,
    /// The apex holds SOA and NS records, so a CNAME (which must be alone) can't be there.
    ApexCname,
    /// SRV records are named `_service._proto` (RFC 2782), optionally under a subdomain.
    SrvOwner,
}

/// The name rule a record of `rtype` at the relative `name` breaks, if any.
pub(crate) fn broken_name_rule(rtype: RecordType, name: &str) -> Option<NameRule> {
    match rtype {
        RecordType::NS if name == "@" => Some(NameRule::ServiceApexNs),
        RecordType::CNAME if name == "@" => Some(NameRule::ApexCname),
        RecordType::SRV if !is_srv_owner(name) => Some(NameRule::SrvOwner),
        RecordType::NS | RecordType::CNAME | RecordType::SRV => None,
        RecordType::A
        | RecordType::AAAA
        | RecordType::MX
        | RecordType::TXT
        | RecordType::CAA
        | RecordType::PTR => None,
    }
}

/// Whether the service, not the files, owns this record (plan never touches it).
pub(crate) fn is_service_owned(rtype: RecordType, name: &str) -> bool {
    broken_name_rule(rtype, name) == Some(NameRule::ServiceApexNs)
}

fn is_srv_owner(name: &str) -> bool {
    let mut labels = name.split('.');
    let service = labels.next().unwrap_or_default();
    let proto = labels.next().unwrap_or_default();
    service.len() > 1 && service.starts_with('_') && proto.len() > 1 && proto.starts_with('_')
}

/// A record of this type must be the only record at its name (RFC 1034 §3.6.2).
pub(crate) fn must_be_alone(rtype: RecordType) -> bool {
    rtype == RecordType::CNAME
}

/// Whether the types present at one name break the alone rule.
pub(crate) fn types_clash(types: &BTreeSet<RecordType>) -> bool {
    types.len() > 1 && types.iter().any(|t| must_be_alone(*t))
}

/// Why a custom nameserver host (lower case, no final dot) can't be declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NameserverHostProblem {
    /// Not a host name; the reason says why.
    Invalid(String),
    /// A single label: ambiguous, the registry needs a full name.
    NotFull,
}

pub(crate) fn check_nameserver_host(name: &str) -> Result<(), NameserverHostProblem> {
    check_host(name).map_err(NameserverHostProblem::Invalid)?;
    if !name.contains('.') {
        return Err(NameserverHostProblem::NotFull);
    }
    Ok(())
}

/// Whether a target host (MX exchange, SRV target, NS, CNAME or PTR) is written as an IP
/// address. These records name a host, never an address (RFC 1035 §3.3.9), and a host name
/// never has the dotted-decimal form (RFC 1123 §2.1): resolvers would look up a name
/// `192.0.2.1.` that doesn't exist and mail would go nowhere.
pub(crate) fn is_ip_address(target: &str) -> bool {
    let text = target.trim();
    let text = text.strip_suffix('.').unwrap_or(text);
    text.parse::<std::net::IpAddr>().is_ok()
}

/// Why a label breaks the IDNA rules, if it does: a label with `--` in positions 3–4 is an
/// A-label (`xn--`), which must be valid Punycode decoding to code points IDNA allows
/// (RFC 5890 §2.3.2.1, RFC 5891 §5.4, checked by UTS-46 processing), or else a reserved label
/// no registry accepts (UTS-46 CheckHyphens, RFC 5890 §2.3.1).
pub(crate) fn idna_label_problem(label: &str) -> Option<String> {
    // `-` has no case: the common label is passed without lower-casing a copy of it.
    if label.as_bytes().get(2..4) != Some(b"--") {
        return None;
    }
    let lower = label.to_ascii_lowercase();
    let Some(encoded) = lower.strip_prefix("xn--") else {
        return Some(format!(
            "the label `{label}` has `--` in positions 3 and 4, which only `xn--` labels may have"
        ));
    };
    let Some(decoded) = idna::punycode::decode_to_string(encoded) else {
        return Some(format!("the label `{label}` is not valid Punycode"));
    };
    let (_, checked) = idna::uts46::Uts46::new().to_unicode(
        lower.as_bytes(),
        idna::uts46::AsciiDenyList::STD3,
        idna::uts46::Hyphens::Check,
    );
    checked.is_err().then(|| {
        format!(
            "the label `{label}` decodes to `{}`, which IDNA does not allow in a domain name",
            dnscron_api::untrusted::escape(&decoded)
        )
    })
}

/// Records of one RRset (name and type) with different TTLs: one TTL per RRset (RFC 2181 §5.2).
/// For each record after the first of its RRset whose TTL differs from the first's, the index
/// of that record and of the first one (indexes into `records`: name, type, TTL).
pub(crate) fn rrset_ttl_conflicts<'a>(
    records: impl IntoIterator<Item = (&'a str, RecordType, u32)>,
) -> Vec<(usize, usize)> {
    let records = records.into_iter();
    let mut first: foldhash::HashMap<(&str, RecordType), (usize, u32)> =
        foldhash::HashMapExt::with_capacity(records.size_hint().0);
    let mut out = Vec::new();
    for (i, (name, rtype, ttl)) in records.enumerate() {
        let (at, first_ttl) = *first.entry((name, rtype)).or_insert((i, ttl));
        if first_ttl != ttl {
            out.push((i, at));
        }
    }
    out
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
    fn targets_that_are_ip_addresses() {
        for ip in [
            "192.0.2.1",
            "192.0.2.1.",
            " 10.0.0.1 ",
            "2001:db8::1",
            "::1",
        ] {
            assert!(is_ip_address(ip), "{ip}");
        }
        for host in [
            "mail.example.com.",
            "192.0.2.1.example.com.",
            "1.2.3",
            "mx1",
            ".",
        ] {
            assert!(!is_ip_address(host), "{host}");
        }
    }

    #[test]
    fn idna_labels_accept_and_refuse() {
        for ok in [
            "www",
            "xn--bcher-kva",
            "XN--BCHER-KVA",
            "xn--mnchen-3ya",
            "a-b",
            "ab-c--d",
            "_dmarc",
        ] {
            assert_eq!(idna_label_problem(ok), None, "{ok}");
        }
        for (bad, why) in [
            ("ab--cd", "has `--` in positions 3 and 4"),
            ("r3--sn", "has `--` in positions 3 and 4"),
            ("xn--", "decodes to"),
            ("xn--bcher-kv!", "not valid Punycode"),
            ("xn--99999999", "not valid Punycode"),
            // Decodes to C1 controls.
            ("xn--abc", "decodes to `\\u{82}\\u{81}\\u{80}`"),
            ("xn--a", "decodes to `\\u{80}`"),
        ] {
            let problem = idna_label_problem(bad).unwrap_or_default();
            assert!(problem.contains(why), "{bad}: {problem}");
        }
    }

    #[test]
    fn one_rrset_one_ttl() {
        let records = [
            ("@", MX, 300),
            ("www", A, 60),
            ("@", MX, 300),
            ("@", MX, 3600),
            ("www", AAAA, 3600),
            ("www", A, 120),
        ];
        assert_eq!(rrset_ttl_conflicts(records), [(3, 0), (5, 1)]);
        assert_eq!(rrset_ttl_conflicts([("@", A, 1), ("@", TXT, 2)]), []);
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
