//! Records that automation writes and removes on its own: imported as `ignore:` rules, not as
//! records, so the next certificate renewal is not drift and an apply never reverts it
//! (docs/ci.md#adopting-an-existing-account lists them, with why). The list is short on purpose:
//! a record belongs here only when well-known tooling rewrites it by itself.

use crate::config::glob_match;
use crate::dns::RecordType;

/// A kind of record automation keeps up to date by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ephemeral {
    /// The `ignore:` rule's name glob: it matches the label at the apex and below it
    /// (`_acme-challenge`, `_acme-challenge.www`).
    pub name: &'static str,
    pub rtype: RecordType,
    /// Who writes it, for the comment above the rule.
    pub why: &'static str,
}

pub(crate) const EPHEMERAL: &[Ephemeral] = &[
    Ephemeral {
        name: "_acme-challenge*",
        rtype: RecordType::TXT,
        why: "ACME DNS-01 challenges (RFC 8555 §8.4): certificate clients (certbot, cert-manager, Caddy, Traefik, acme.sh) write and remove them at every issuance and renewal",
    },
    Ephemeral {
        name: "_dnsauth*",
        rtype: RecordType::TXT,
        why: "domain-validation tokens of managed certificates (DigiCert DNS TXT validation, Azure Front Door and Static Web Apps), replaced by the provider at each renewal",
    },
];

/// The kind of ephemeral record a live record (relative name, type) is, if it is one. The
/// match is the rule's own glob, so the written rule covers exactly what was kept out.
pub(crate) fn ephemeral(name: &str, rtype: RecordType) -> Option<&'static Ephemeral> {
    EPHEMERAL
        .iter()
        .find(|e| e.rtype == rtype && glob_match(e.name, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acme_challenges_at_any_depth_are_ephemeral_other_names_and_types_are_not() {
        for name in [
            "_acme-challenge",
            "_acme-challenge.www",
            "_acme-challenge.a.b",
        ] {
            assert_eq!(
                ephemeral(name, RecordType::TXT).map(|e| e.name),
                Some("_acme-challenge*"),
                "{name}"
            );
        }
        assert_eq!(
            ephemeral("_dnsauth.shop", RecordType::TXT).map(|e| e.name),
            Some("_dnsauth*")
        );
        // A delegated DNS-01 CNAME is set once by a person: managed like any record.
        assert_eq!(ephemeral("_acme-challenge", RecordType::CNAME), None);
        for name in ["www._acme-challenge", "acme-challenge", "@", "_dmarc"] {
            assert_eq!(ephemeral(name, RecordType::TXT), None, "{name}");
        }
    }
}
