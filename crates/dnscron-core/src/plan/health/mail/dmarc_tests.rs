//! DMARC (RFC 7489) as receivers discover and read it, accepted and refused: the records at a
//! `_dmarc` name (§6.6.3 steps 4–6), the tag list (§6.3, RFC 6376 §3.2), the policies, and the
//! report addresses with their consent records (§7.1), the wildcard one included.

use super::tests::{borrowed, findings, one, txt};
use crate::finding::FindingCode;

#[test]
fn dmarc_accepted() {
    let got = findings(&[
        (
            "a.example",
            &[
                &txt(
                    "_dmarc",
                    "v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc@a.example,mailto:agg@reports.b.example!10m; ruf=mailto:f@sub.a.example",
                ),
                &txt("_dmarc.shop", "v=DMARC1;p=none;sp=REJECT"),
                &txt("_dmarc.wild", "v=DMARC1; p=none; rua=mailto:d@c.example"),
            ],
        ),
        (
            "b.example",
            &[&txt("a.example._report._dmarc.reports", "v=DMARC1")],
        ),
        // §7.1: a domain that takes anyone's reports publishes a wildcard.
        ("c.example", &[&txt("*._report._dmarc", "v=DMARC1")]),
    ]);
    assert_eq!(got, vec![]);
}

#[test]
fn dmarc_refused() {
    let got = one(
        "a.example",
        &[
            txt("_dmarc", "v=DMARC1; p=reject"),
            txt("_dmarc", "v=DMARC1; p=none"),
            txt("_dmarc.one", "p=reject; v=DMARC1"),
            txt("_dmarc.two", "v=DMARC1; rua=mailto:d@a.example"),
            txt("_dmarc.three", "v=DMARC1; p=block"),
            txt(
                "_dmarc.four",
                "v=DMARC1; p=quarantine; rua=https://r.example/dmarc, mailto:d@other.example",
            ),
            txt("_dmarc.five", "v=DMARC1x; p=reject"),
            txt("_dmarc.six", "v=DMARC1; p=reject; sp=rejct"),
            txt("_dmarc.seven", "v=DMARC1; p=none; p=reject"),
        ],
    );
    assert_eq!(
        borrowed(&got),
        vec![
            (
                FindingCode::DmarcMultiple,
                "a.example.yaml:4",
                "_dmarc.a.example has 2 DMARC records: receivers ignore DMARC for a.example as if it published none, so the policy is not applied (RFC 7489 §6.6.3); keep one `v=DMARC1` record"
            ),
            (
                FindingCode::DmarcInvalid,
                "a.example.yaml:5",
                "the DMARC record at _dmarc.one.a.example is not one receivers read: it does not start with `v=DMARC1` (exactly, in capitals); they discard it, so no policy applies and no reports are sent; start it with `v=DMARC1;` and write `tag=value` pairs separated by `;`"
            ),
            (
                FindingCode::DmarcPolicyInvalid,
                "a.example.yaml:6",
                "the DMARC record at _dmarc.two.a.example has no `p=`: receivers ignore the record (with `rua=`, some treat it as `p=none`), so spoofed mail is not quarantined or rejected (RFC 7489 §6.6.3); set `p=none`, `p=quarantine` or `p=reject`"
            ),
            (
                FindingCode::DmarcPolicyInvalid,
                "a.example.yaml:7",
                "the DMARC record at _dmarc.three.a.example has `p=block`, not none, quarantine or reject: receivers ignore the record, so spoofed mail is not quarantined or rejected (RFC 7489 §6.6.3); set `p=none`, `p=quarantine` or `p=reject`"
            ),
            (
                FindingCode::DmarcReportUriNotMailto,
                "a.example.yaml:8",
                "`rua=https://r.example/dmarc` in the DMARC record of four.a.example is not a `mailto:` address: receivers send no reports there; write it as `mailto:user@domain`"
            ),
            (
                FindingCode::DmarcReportAuthorizationUnseen,
                "a.example.yaml:8",
                "`rua` sends four.a.example's DMARC reports to other.example, outside the account: receivers send them only if other.example publishes a `four.a.example._report._dmarc.other.example` TXT record `v=DMARC1` (RFC 7489 §7.1), which the files can't show; make sure it does"
            ),
            (
                FindingCode::DmarcInvalid,
                "a.example.yaml:9",
                "the DMARC record at _dmarc.five.a.example is not one receivers read: it does not start with `v=DMARC1` (exactly, in capitals); they discard it, so no policy applies and no reports are sent; start it with `v=DMARC1;` and write `tag=value` pairs separated by `;`"
            ),
            (
                FindingCode::DmarcSubdomainPolicyInvalid,
                "a.example.yaml:10",
                "the DMARC record at _dmarc.six.a.example has `sp=rejct`, not none, quarantine or reject: receivers ignore the whole record, not only for subdomains, so spoofed mail is not quarantined or rejected (RFC 7489 §6.3, §6.6.3); set `sp=` to none, quarantine or reject, or remove it to apply `p=` to subdomains"
            ),
            (
                FindingCode::DmarcDuplicateTag,
                "a.example.yaml:11",
                "the DMARC record at _dmarc.seven.a.example has `p=` more than once: a tag list with a tag twice is invalid as a whole (RFC 7489 §6.3, RFC 6376 §3.2), so receivers ignore the record, so no policy applies and no reports are sent; keep each tag once"
            ),
        ]
    );
}

/// §6.6.3 step 4: receivers discard the TXT records that don't start with `v=DMARC1`, so one
/// beside a DMARC record is harmless; alone, no policy applies.
#[test]
fn another_txt_beside_the_dmarc_record_is_information_alone_an_error() {
    let beside = one(
        "a.example",
        &[
            txt("_dmarc", "google-site-verification=abc"),
            txt("_dmarc", "v=DMARC1; p=reject"),
        ],
    );
    assert_eq!(
        beside,
        vec![(FindingCode::DmarcOtherTxtIgnored, "a.example.yaml:3".into(), "a TXT record at _dmarc.a.example does not start with `v=DMARC1`: receivers discard it and apply the DMARC record beside it (RFC 7489 §6.6.3); remove it unless something else reads it".into())]
    );
    let alone = one(
        "a.example",
        &[txt("_dmarc", "google-site-verification=abc")],
    );
    assert_eq!(
        alone,
        vec![(FindingCode::DmarcInvalid, "a.example.yaml:3".into(), "the DMARC record at _dmarc.a.example is not one receivers read: it does not start with `v=DMARC1` (exactly, in capitals); they discard it, so no policy applies and no reports are sent; start it with `v=DMARC1;` and write `tag=value` pairs separated by `;`".into())]
    );
}

/// octoDNS escapes `;` as `\;`; copied into a dnscron file, it is part of the tag values.
#[test]
fn an_octodns_escape_has_its_own_words() {
    let got = one(
        "a.example",
        &[
            txt("_dmarc", "v=DMARC1\\\\; p=reject"),
            txt(
                "_dmarc.shop",
                "v=DMARC1; p=reject\\\\; rua=mailto:d@a.example",
            ),
            txt("_dmarc.news", "v=DMARC1\\\\; p=reject"),
            txt("_dmarc.news", "v=DMARC1; p=none"),
        ],
    );
    assert_eq!(
        borrowed(&got),
        vec![
            (
                FindingCode::DmarcOctodnsEscape,
                "a.example.yaml:3",
                "the DMARC record at _dmarc.a.example separates its tags with `\\;`: `\\;` is octoDNS's escape for `;`; in dnscron files write `;`. Receivers read the `\\` as part of the value before it, so the record does not start with `v=DMARC1` and they discard it, so no policy applies and no reports are sent (RFC 7489 §6.6.3)"
            ),
            (
                FindingCode::DmarcOctodnsEscape,
                "a.example.yaml:4",
                "the DMARC record at _dmarc.shop.a.example separates its tags with `\\;`: `\\;` is octoDNS's escape for `;`; in dnscron files write `;`. Receivers read the `\\` as part of the value before it, so the tags after the first are not what they seem and the record is ignored, so no policy applies and no reports are sent (RFC 7489 §6.6.3)"
            ),
            (
                FindingCode::DmarcOtherTxtIgnored,
                "a.example.yaml:5",
                "a TXT record at _dmarc.news.a.example does not start with `v=DMARC1` (`\\;` is octoDNS's escape for `;`; in dnscron files write `;`): receivers discard it and apply the DMARC record beside it (RFC 7489 §6.6.3); remove it unless something else reads it"
            ),
        ]
    );
}

#[test]
fn dmarc_reports_to_an_account_domain_without_its_consent_are_a_warning() {
    // a.example sends its reports to b.example, whose files hold `b`.
    let reports_to = |b: &[&str]| {
        findings(&[
            (
                "a.example",
                &[&txt("_dmarc", "v=DMARC1; p=none; rua=mailto:d@b.example")],
            ),
            ("b.example", b),
        ])
    };
    let got = reports_to(&[
        // The name has a TXT record, so DNS answers it and the wildcard does not apply.
        &txt("a.example._report._dmarc", "v=spf1 -all"),
        &txt("*._report._dmarc", "v=DMARC1"),
    ]);
    assert_eq!(
        got,
        vec![(FindingCode::DmarcReportUnauthorized, "a.example.yaml:3".into(), "`rua` sends a.example's DMARC reports to b.example, whose files have no `a.example._report._dmarc.b.example` (or `*._report._dmarc.b.example`) TXT record `v=DMARC1` (RFC 7489 §7.1): receivers send no reports there; add that record to b.example's zone".into())]
    );
    let look_alike = reports_to(&[
        &txt("b-only.example._report._dmarc", "v=DMARC1"),
        // A look-alike is another version, not consent.
        &txt("*._report._dmarc", "v=DMARC1x"),
    ]);
    assert_eq!(
        look_alike.iter().map(|f| f.0).collect::<Vec<_>>(),
        vec![FindingCode::DmarcReportUnauthorized]
    );
}
