//! What a finding measures, which an `accept:` entry records (docs/health.md#accepting-a-finding):
//! an acceptance covers the finding as it was accepted, not whatever comes later under the same
//! code. A finding that got worse than its entry's figure is not covered.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::code::FindingCode;

/// The figure or value a finding measures.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// The DNS lookups an SPF record needs (more is worse).
    Lookups(u32),
    /// The `p=` policy of the DMARC record (a weaker one is worse).
    DmarcPolicy(DmarcPolicy),
    /// The bits of a DKIM RSA key (fewer is worse).
    KeyBits(u32),
    /// The day the domain expires (`YYYY-MM-DD`); an acceptance ends on it.
    Expires(#[schemars(with = "String")] NaiveDate),
}

/// A DMARC policy (RFC 7489 §6.3), weakest first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DmarcPolicy {
    None,
    Quarantine,
    Reject,
}

impl DmarcPolicy {
    /// The policy a `p=` value names, in any case.
    pub fn parse(text: &str) -> Option<DmarcPolicy> {
        match text.trim().to_ascii_lowercase().as_str() {
            "none" => Some(DmarcPolicy::None),
            "quarantine" => Some(DmarcPolicy::Quarantine),
            "reject" => Some(DmarcPolicy::Reject),
            _ => Option::None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DmarcPolicy::None => "none",
            DmarcPolicy::Quarantine => "quarantine",
            DmarcPolicy::Reject => "reject",
        }
    }
}

/// What kind of figure the findings of a code measure, and so what an `accept:` entry's `value`
/// of that code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FigureKind {
    Lookups,
    DmarcPolicy,
    KeyBits,
    Expires,
}

impl FigureKind {
    /// The kind the findings of `code` measure; `None`: they measure nothing (an acceptance of
    /// the code covers the finding whatever it says).
    pub(crate) fn of(code: FindingCode) -> Option<FigureKind> {
        use FindingCode as C;
        match code {
            C::SpfTooManyLookups
            | C::SpfTooManyLookupsFromDns
            | C::SpfLookupsNearLimit
            | C::SpfLookupsNearLimitFromDns => Some(FigureKind::Lookups),
            C::DmarcReportUriNotMailto
            | C::DmarcReportUnauthorized
            | C::DmarcReportAuthorizationUnseen
            | C::DmarcSubdomainPolicyInvalid
            | C::DmarcOtherTxtIgnored => Some(FigureKind::DmarcPolicy),
            C::DkimKeyTooShort | C::DkimKeyWeak => Some(FigureKind::KeyBits),
            C::DomainExpiring => Some(FigureKind::Expires),
            C::ApexNsNotPlanned
            | C::IgnoredRecordsKept
            | C::UnprunedRecordsKept
            | C::ServiceRecordsLeftAlone
            | C::UnmanagedTypesLeftAlone
            | C::ServiceNameserversUnlisted
            | C::ZoneUndeclared
            | C::DomainUndeclared
            | C::SiteUndeclared
            | C::UnmanagedStale
            | C::DeclarationRemoved
            | C::ChangeBlocked
            | C::ChangeNeedsPortalStep
            | C::AcceptanceExpired
            | C::AcceptanceOutgrown
            | C::AcceptanceUnused
            | C::CronNeverRuns
            | C::CronEveryMinute
            | C::RegistrarNotHere
            | C::DnssecStateUnknown
            | C::DnssecDsLeftBehind
            | C::DnssecDsMismatch
            | C::DnssecDsMissing
            | C::DnssecDsRollover
            | C::DelegationChanging
            | C::NameserversUnsettled
            | C::NameserverStateUnknown
            | C::TransferUnderWay
            | C::TransferStateUnknown
            | C::AutoRenewUnknown
            | C::ExpiryUnreadable
            | C::DomainExpired
            | C::RegistrarSettingDiffers
            | C::RegistrarSettingUnknown
            | C::RegistrarSettingMissing
            | C::SpfMultiple
            | C::SpfInvalid
            | C::SpfOctodnsEscape
            | C::SpfTermsAfterAll
            | C::SpfLookupsUncounted
            | C::SpfNotFollowed
            | C::SpfTooManyVoidLookups
            | C::SpfTooManyVoidLookupsFromDns
            | C::SpfMxTooManyHosts
            | C::SpfMxTooManyHostsFromDns
            | C::SpfIncludeBroken
            | C::SpfIncludeBrokenFromDns
            | C::DmarcMultiple
            | C::DmarcInvalid
            | C::DmarcOctodnsEscape
            | C::DmarcDuplicateTag
            | C::DmarcPolicyInvalid
            | C::DkimKeyRevoked
            | C::DkimKeyUnusable
            | C::MxNullBesideOthers
            | C::MxTargetIsCname => Option::None,
        }
    }

    /// What an `accept:` entry's `value` of this kind is, in words.
    pub(crate) fn expected(self) -> &'static str {
        match self {
            FigureKind::Lookups => "the number of DNS lookups the finding names, e.g. `11`",
            FigureKind::DmarcPolicy => {
                "the DMARC policy accepted: `none`, `quarantine` or `reject`"
            }
            FigureKind::KeyBits => "the key size in bits the finding names, e.g. `1024`",
            FigureKind::Expires => "the expiry day the finding names, written YYYY-MM-DD",
        }
    }
}

impl Figure {
    #[cfg(test)]
    pub(crate) fn kind(self) -> FigureKind {
        match self {
            Figure::Lookups(_) => FigureKind::Lookups,
            Figure::DmarcPolicy(_) => FigureKind::DmarcPolicy,
            Figure::KeyBits(_) => FigureKind::KeyBits,
            Figure::Expires(_) => FigureKind::Expires,
        }
    }

    /// Whether `now` is worse than `self`, the figure accepted, so the acceptance does not
    /// cover it. Figures of two kinds never compare (a code measures one kind).
    pub fn worse(self, now: Figure) -> bool {
        match (self, now) {
            (Figure::Lookups(accepted), Figure::Lookups(now)) => now > accepted,
            (Figure::DmarcPolicy(accepted), Figure::DmarcPolicy(now)) => now < accepted,
            (Figure::KeyBits(accepted), Figure::KeyBits(now)) => now < accepted,
            // An acceptance of an expiry is of that expiry: one on another day (the domain
            // renewed and expiring again, or moved) is another event, not covered.
            (Figure::Expires(accepted), Figure::Expires(now)) => now != accepted,
            (
                Figure::Lookups(_)
                | Figure::DmarcPolicy(_)
                | Figure::KeyBits(_)
                | Figure::Expires(_),
                _,
            ) => false,
        }
    }

    /// The figure as an `accept:` entry's `value` writes it.
    pub fn value(self) -> String {
        match self {
            Figure::Lookups(n) | Figure::KeyBits(n) => n.to_string(),
            Figure::DmarcPolicy(p) => p.as_str().to_string(),
            Figure::Expires(day) => day.format("%Y-%m-%d").to_string(),
        }
    }

    /// Reads an `accept:` entry's `value` as a figure of `kind`; `None` when it is not one.
    pub(crate) fn parse(kind: FigureKind, text: &str) -> Option<Figure> {
        let text = text.trim();
        let count = || {
            (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                .then(|| text.parse::<u32>().ok())
                .flatten()
        };
        match kind {
            FigureKind::Lookups => count().filter(|n| *n <= 10_000).map(Figure::Lookups),
            FigureKind::KeyBits => count().filter(|n| *n <= 65_536).map(Figure::KeyBits),
            FigureKind::DmarcPolicy => DmarcPolicy::parse(text).map(Figure::DmarcPolicy),
            FigureKind::Expires => {
                let shaped = text.len() == 10;
                NaiveDate::parse_from_str(text, "%Y-%m-%d")
                    .ok()
                    .filter(|_| shaped)
                    .map(Figure::Expires)
            }
        }
    }
}

impl std::fmt::Display for Figure {
    /// The figure in words: `11 lookups`, `p=quarantine`, `1024 bits`, `expiry 2026-02-01`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::Lookups(n) => write!(f, "{n} lookups"),
            Figure::DmarcPolicy(p) => write!(f, "p={}", p.as_str()),
            Figure::KeyBits(n) => write!(f, "{n} bits"),
            Figure::Expires(day) => write!(f, "expiry {}", day.format("%Y-%m-%d")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worse_is_more_lookups_a_weaker_policy_fewer_bits_another_expiry() {
        let day = |d: &str| Figure::Expires(NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap());
        let policy = Figure::DmarcPolicy;
        // The refused form: worse than accepted.
        assert!(Figure::Lookups(11).worse(Figure::Lookups(14)));
        assert!(policy(DmarcPolicy::Quarantine).worse(policy(DmarcPolicy::None)));
        assert!(Figure::KeyBits(1024).worse(Figure::KeyBits(768)));
        assert!(day("2026-03-01").worse(day("2026-02-01")));
        assert!(day("2026-03-01").worse(day("2027-03-01")), "another expiry");
        // The accepted form: the same or better.
        assert!(!Figure::Lookups(11).worse(Figure::Lookups(11)));
        assert!(!Figure::Lookups(11).worse(Figure::Lookups(10)));
        assert!(!policy(DmarcPolicy::Quarantine).worse(policy(DmarcPolicy::Reject)));
        assert!(!Figure::KeyBits(1024).worse(Figure::KeyBits(1024)));
        assert!(!day("2026-03-01").worse(day("2026-03-01")));
    }

    #[test]
    fn values_read_back_as_written() {
        for figure in [
            Figure::Lookups(14),
            Figure::DmarcPolicy(DmarcPolicy::Quarantine),
            Figure::KeyBits(1024),
            Figure::Expires(NaiveDate::from_ymd_opt(2026, 2, 1).unwrap()),
        ] {
            assert_eq!(Figure::parse(figure.kind(), &figure.value()), Some(figure));
        }
        assert_eq!(Figure::parse(FigureKind::Lookups, "-1"), None);
        assert_eq!(Figure::parse(FigureKind::Lookups, "eleven"), None);
        assert_eq!(Figure::parse(FigureKind::DmarcPolicy, "p=none"), None);
        assert_eq!(Figure::parse(FigureKind::Expires, "2026-2-1"), None);
    }
}
