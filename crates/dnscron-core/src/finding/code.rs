//! The stable code of every finding (docs/health.md#finding-codes, one line each with the RFC it
//! comes from). A code is what a file's `accept:` names and what scripts match on, so a code is
//! never renamed or reused: a finding whose meaning changes gets a new code.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// The plan file writes the variants without descriptions: their notes are comments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    NeedsPortalStep,
    Blocked,
    // Worth a look, not an outage: a delegation still propagating, a transfer under way.
    Warning,
    // An outage now or soon (a DS mismatch, a domain about to expire), or live differing from
    // an expectation the files state: `plan --detailed-exitcode` exits 2 for it.
    Error,
}

macro_rules! finding_codes {
    ($($variant:ident = $code:literal, $severity:ident, $basis:ident;)*) => {
        /// What a finding is about, as a stable kebab-case code (docs/health.md#finding-codes).
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            JsonSchema,
        )]
        pub enum FindingCode {
            $(#[serde(rename = $code)] $variant,)*
        }

        impl FindingCode {
            /// Every code, in the order docs/health.md lists them.
            pub const ALL: &'static [FindingCode] = &[$(FindingCode::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(FindingCode::$variant => $code,)*
                }
            }

            /// How much the finding matters; every finding of a code has the same.
            pub fn severity(self) -> Severity {
                match self {
                    $(FindingCode::$variant => Severity::$severity,)*
                }
            }

            /// What the finding is judged from.
            pub fn basis(self) -> Basis {
                match self {
                    $(FindingCode::$variant => Basis::$basis,)*
                }
            }
        }
    };
}

/// What a finding is judged from, which decides whether it may stop a write: only a finding the
/// files alone prove is about the record a change writes (docs/apply.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// The desired state alone: the same files give the same finding anywhere, any day.
    Files,
    /// What DNS answered (an SPF include outside the account).
    Dns,
    /// What the account says (registrar state, a site's state, the live records).
    Account,
}

finding_codes! {
    // The records of a zone, as the diff sees them.
    ApexNsNotPlanned = "apex-ns-not-planned", Info, Files;
    IgnoredRecordsKept = "ignored-records-kept", Info, Account;
    UnprunedRecordsKept = "unpruned-records-kept", Info, Account;
    ServiceRecordsLeftAlone = "service-records-left-alone", Info, Account;
    UnmanagedTypesLeftAlone = "unmanaged-types-left-alone", Info, Account;
    ServiceNameserversUnlisted = "service-nameservers-unlisted", Info, Account;
    // The account as a whole.
    ZoneUndeclared = "zone-undeclared", Warning, Account;
    DomainUndeclared = "domain-undeclared", Warning, Account;
    SiteUndeclared = "site-undeclared", Warning, Account;
    UnmanagedStale = "unmanaged-stale", Warning, Account;
    DeclarationRemoved = "declaration-removed", Info, Account;
    // Changes that are not ready.
    ChangeBlocked = "change-blocked", Blocked, Account;
    ChangeNeedsPortalStep = "change-needs-portal-step", NeedsPortalStep, Account;
    // Acceptances.
    AcceptanceExpired = "acceptance-expired", Warning, Files;
    AcceptanceOutgrown = "acceptance-outgrown", Warning, Files;
    AcceptanceUnused = "acceptance-unused", Warning, Account;
    // Cron schedules.
    CronNeverRuns = "cron-never-runs", Error, Files;
    CronEveryMinute = "cron-every-minute", Warning, Files;
    // The registration.
    RegistrarNotHere = "registrar-not-here", Error, Account;
    DnssecStateUnknown = "dnssec-state-unknown", Info, Account;
    DnssecDsLeftBehind = "dnssec-ds-left-behind", Error, Account;
    DnssecDsMismatch = "dnssec-ds-mismatch", Error, Account;
    DnssecDsMissing = "dnssec-ds-missing", Warning, Account;
    DnssecDsRollover = "dnssec-ds-rollover", Warning, Account;
    DelegationChanging = "delegation-changing", Warning, Account;
    NameserversUnsettled = "nameservers-unsettled", Warning, Account;
    NameserverStateUnknown = "nameserver-state-unknown", Info, Account;
    TransferUnderWay = "transfer-under-way", Warning, Account;
    TransferStateUnknown = "transfer-state-unknown", Info, Account;
    AutoRenewUnknown = "auto-renew-unknown", Info, Account;
    ExpiryUnreadable = "expiry-unreadable", Info, Account;
    DomainExpired = "domain-expired", Error, Account;
    DomainExpiring = "domain-expiring", Error, Account;
    RegistrarSettingDiffers = "registrar-setting-differs", Error, Account;
    RegistrarSettingUnknown = "registrar-setting-unknown", Info, Account;
    RegistrarSettingMissing = "registrar-setting-missing", Info, Account;
    // SPF (RFC 7208).
    SpfMultiple = "spf-multiple", Error, Files;
    SpfInvalid = "spf-invalid", Error, Files;
    SpfOctodnsEscape = "spf-octodns-escape", Error, Files;
    SpfTermsAfterAll = "spf-terms-after-all", Warning, Files;
    SpfTooManyLookups = "spf-too-many-lookups", Error, Files;
    SpfTooManyLookupsFromDns = "spf-too-many-lookups-from-dns", Error, Dns;
    SpfLookupsNearLimit = "spf-lookups-near-limit", Warning, Files;
    SpfLookupsNearLimitFromDns = "spf-lookups-near-limit-from-dns", Warning, Dns;
    SpfLookupsUncounted = "spf-lookups-uncounted", Info, Files;
    SpfNotFollowed = "spf-not-followed", Info, Files;
    SpfTooManyVoidLookups = "spf-too-many-void-lookups", Error, Files;
    SpfTooManyVoidLookupsFromDns = "spf-too-many-void-lookups-from-dns", Error, Dns;
    SpfMxTooManyHosts = "spf-mx-too-many-hosts", Error, Files;
    SpfMxTooManyHostsFromDns = "spf-mx-too-many-hosts-from-dns", Error, Dns;
    SpfIncludeBroken = "spf-include-broken", Error, Files;
    SpfIncludeBrokenFromDns = "spf-include-broken-from-dns", Error, Dns;
    // DMARC (RFC 7489).
    DmarcMultiple = "dmarc-multiple", Error, Files;
    DmarcInvalid = "dmarc-invalid", Error, Files;
    DmarcOctodnsEscape = "dmarc-octodns-escape", Error, Files;
    DmarcDuplicateTag = "dmarc-duplicate-tag", Error, Files;
    DmarcOtherTxtIgnored = "dmarc-other-txt-ignored", Info, Files;
    DmarcPolicyInvalid = "dmarc-policy-invalid", Error, Files;
    DmarcSubdomainPolicyInvalid = "dmarc-subdomain-policy-invalid", Error, Files;
    DmarcReportUriNotMailto = "dmarc-report-uri-not-mailto", Warning, Files;
    DmarcReportUnauthorized = "dmarc-report-unauthorized", Warning, Files;
    DmarcReportAuthorizationUnseen = "dmarc-report-authorization-unseen", Info, Files;
    // DKIM (RFC 6376, 8301, 8463).
    DkimKeyRevoked = "dkim-key-revoked", Info, Files;
    DkimKeyTooShort = "dkim-key-too-short", Error, Files;
    DkimKeyWeak = "dkim-key-weak", Warning, Files;
    DkimKeyUnusable = "dkim-key-unusable", Error, Files;
    // MX (RFC 7505, RFC 2181).
    MxNullBesideOthers = "mx-null-beside-others", Error, Files;
    MxTargetIsCname = "mx-target-is-cname", Error, Files;
}

impl FindingCode {
    /// Whether the finding is something the account holds that no file declares: drift the
    /// files can't show, so the drift job alerts on it although it is a warning.
    pub fn is_undeclared(self) -> bool {
        matches!(
            self,
            FindingCode::ZoneUndeclared
                | FindingCode::DomainUndeclared
                | FindingCode::SiteUndeclared
        )
    }
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for FindingCode {
    type Err = ();

    fn from_str(s: &str) -> Result<FindingCode, ()> {
        FindingCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::FindingCode;

    #[test]
    fn codes_are_unique_kebab_case_and_serialize_as_written() {
        let mut seen = std::collections::BTreeSet::new();
        for code in FindingCode::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert!(
                s.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{s}"
            );
            assert_eq!(serde_json::to_value(code).unwrap(), s);
            assert_eq!(s.parse::<FindingCode>(), Ok(*code));
        }
        assert_eq!("dmarc-nope".parse::<FindingCode>(), Err(()));
    }
}
