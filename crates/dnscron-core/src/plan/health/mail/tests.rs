//! Accepted and refused forms of every mail rule, on records as the files declare them. The
//! SPF lookups over DNS are tested end to end in tests/it/plan/mail.rs.

use std::path::PathBuf;

use super::dkim::{self, Key};
use super::spf::{self, is_spf};
use super::{key, mail_findings};
use crate::config::load_texts;
use crate::plan::model::Severity;

const RSA_512: &str = "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAO/R9lsJ3bgTPEfEKtfSEBX4CQpevF8qHJepMLfTZCg6G2GuC5VXDEM7Qwr7V4KfRD553ZXuy4zpqY+Bjc4LTKkCAwEAAQ==";
const RSA_1024: &str = "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDg6X7OxouPBpAqPpDz6DXYuNmyvgMhG0yQBXU0u6HNvzf3TF8CtVH/rUvg0adm/XqoYlDLFaq7AkwXyutnwC/whc9Z4vSwnyDffzCu/jMgGuz414YJPYdHAEoYZMiI9I6FSOqBGfOStCfLQLK1lIxumXisytlZRf2AlD32PnzmDwIDAQAB";
const RSA_2048: &str = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArfj1/bsNl91o3k/EssP9Fg3CTj0fg1aF/W7tlPbnwBvmI1dkVdtr6gqHxhS3BD+ax5CLvNUDqKmF6cUXsX1hJbq7YvLya9XoWNSKtYlHDhH2cMTEwUajX0UTJk87KQlpT3wFTaW+ySm+EAShv8dfqubF4qrKTqGCM2KN4trM9UJg3OiqUAaOe0CXCzFEA3SGI05afo1lIYOwjpiI023+6c/2VsqXCUGkxgtgClm4WYa30WbdTUscAN5Koo16d/BbUZTIcD9VAjkbyeR6eESysWNvQH/bd3h8EHocvkf6KXU5ehsuEZVScP+3OOxLKG61AlYo1u/Sh4OpXaOVdhw7HQIDAQAB";
const PKCS1_1024: &str = "MIGJAoGBAOcTVSIhy8vxqYAGRIuARk73Zc88jFVKs7fz/JQHvXf93khnN+E6I6t0Hi+Awsk++7zl1gqpGDJszZkyy3el52vp8h1k086/6+Bhsqyv8svcLoWJWYeWzIoGp+Ojn8+RUItHqaCFSfwBv2U2qYqSwBR2ZbNPVHJu3lnDm1wOTt3hAgMBAAE=";
const ED25519: &str = "EZBOdr+PYqgaicmTZBvwsyKQmd4i4PZObaJSRRJhQlI=";

/// The findings of zone files given as (zone, records in flow style), `file:line` and message.
fn findings(zones: &[(&str, &[&str])]) -> Vec<(Severity, String, String)> {
    let files: Vec<(PathBuf, String)> = zones
        .iter()
        .map(|(zone, records)| {
            let mut text = format!("zone: {zone}\nrecords:\n");
            for r in *records {
                text.push_str(&format!("  - {r}\n"));
            }
            (PathBuf::from(format!("{zone}.yaml")), text)
        })
        .collect();
    let desired = load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"));
    without_a_resolver(&desired)
        .into_iter()
        .map(|f| {
            let at = f.declared_at.unwrap_or_default();
            let record = f
                .record
                .unwrap_or_else(|| panic!("{} names no record", f.message));
            assert!(!record.name.is_empty(), "{}", f.message);
            let message = f.message;
            let line = at
                .rsplit_once(':')
                .map(|(l, _)| l.to_string())
                .unwrap_or(at);
            (f.severity, line, message)
        })
        .collect()
}

fn txt(name: &str, text: &str) -> String {
    format!("{{ name: \"{name}\", type: TXT, content: \"{text}\" }}")
}

fn one(zone: &str, records: &[String]) -> Vec<(Severity, String, String)> {
    let records: Vec<&str> = records.iter().map(String::as_str).collect();
    findings(&[(zone, &records)])
}

#[test]
fn spf_is_recognised_by_its_version_alone() {
    assert!(is_spf("v=spf1 -all"));
    assert!(is_spf("V=SPF1"));
    assert!(!is_spf("v=spf10 -all"));
    assert!(!is_spf("spf1 -all"));
}

#[test]
fn spf_syntax_accepted() {
    for text in [
        "v=spf1 -all",
        "v=spf1 +a mx/24 a:mail.example.com/24//64 ~mx:example.net//64 ptr ?ptr:example.org ip4:192.0.2.0/24 ip6:2001:db8::/32 exists:%{i}._spf.%{d} include:_spf.example.net -all",
        "v=spf1 redirect=_spf.example.net",
        "v=spf1 include:example.net exp=explain.%{d} unknown-mod=anything -all",
    ] {
        assert!(spf::parse(text).is_ok(), "{text}");
    }
    let parsed = spf::parse("v=spf1 a mx include:a.example include:b.example redirect=c.example")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.lookups, 5);
    // §6.1: with `all`, `redirect=` is never reached, so it costs nothing.
    let parsed = spf::parse("v=spf1 include:a.example -all redirect=c.example")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((parsed.lookups, parsed.redirect), (1, None));
}

#[test]
fn spf_syntax_refused() {
    let cases = [
        (
            "v=spf1 include",
            "`include` needs a domain (`include:domain`)",
        ),
        (
            "v=spf1 include:localhost",
            "`include:localhost`: `localhost` is not a domain name",
        ),
        (
            "v=spf1 ip4:192.0.2.300",
            "`ip4:192.0.2.300` needs an address (`ip4:address` or `ip4:address/bits`)",
        ),
        (
            "v=spf1 ip4:192.0.2.0/33",
            "`ip4:192.0.2.0/33` needs an address (`ip4:address` or `ip4:address/bits`)",
        ),
        (
            "v=spf1 ip6:2001:db8::/129",
            "`ip6:2001:db8::/129` needs an address (`ip6:address` or `ip6:address/bits`)",
        ),
        ("v=spf1 a/33", "`a/33` has an invalid prefix length"),
        ("v=spf1 ptr/24", "`ptr/24`: `ptr` takes no prefix length"),
        (
            "v=spf1 all:example.com",
            "`all:example.com` is not an SPF mechanism or modifier",
        ),
        (
            "v=spf1 include:_spf.example.com -all redirect=a.example redirect=b.example",
            "`redirect=` appears twice",
        ),
        (
            "v=spf1 exists:%{z}.example",
            "`exists:%{z}.example`: `%{z}.` is not a macro",
        ),
        (
            "v=spf1 -all exp=a.example exp=b.example",
            "`exp=` appears twice",
        ),
    ];
    for (text, why) in cases {
        assert_eq!(spf::parse(text), Err(why.to_string()), "{text}");
    }
}

#[test]
fn two_spf_records_on_one_name_are_an_error_the_other_names_are_quiet() {
    let got = one(
        "a.example",
        &[
            txt("@", "v=spf1 mx -all"),
            txt("@", "v=spf1 include:b.a.example -all"),
            txt("www", "v=spf1 -all"),
            txt("b", "v=spf1 ip4:192.0.2.1 -all"),
        ],
    );
    assert_eq!(
        got,
        vec![(
            Severity::Error,
            "a.example.yaml:4".into(),
            "a.example has 2 SPF records (a.example.yaml:3:5, a.example.yaml:4:5): receivers return permerror for every message and treat the mail as unauthenticated, so it is often rejected or junked; merge them into one `v=spf1` record".into()
        )]
    );
}

/// A chain of `n` includes inside the account, each costing one lookup (plus `a`s on the root).
fn chain(extra_on_root: usize, links: usize) -> Vec<String> {
    let mut root = "v=spf1".to_string();
    for _ in 0..extra_on_root {
        root.push_str(" a");
    }
    root.push_str(" include:s1.a.example -all");
    let mut records = vec![
        txt("@", &root),
        "{ name: \"@\", type: A, content: 192.0.2.1 }".to_string(),
    ];
    for i in 1..=links {
        let next = if i < links {
            format!("v=spf1 include:s{}.a.example -all", i + 1)
        } else {
            "v=spf1 ip4:192.0.2.1 -all".to_string()
        };
        records.push(txt(&format!("s{i}"), &next));
    }
    records
}

#[test]
fn eight_lookups_are_quiet_nine_a_warning_eleven_an_error() {
    let eight = one("a.example", &chain(5, 3));
    assert_eq!(eight, vec![]);
    let nine = one("a.example", &chain(6, 3));
    assert_eq!(nine.len(), 1, "{nine:?}");
    assert_eq!(
        nine[0].2,
        "the SPF record of a.example needs 9 DNS lookups of the 10 receivers allow: one more include (or a provider adding one to theirs) makes it a permerror, and the mail unauthenticated; lookups per record: a.example: 7 (include:s1.a.example: 1 (include:s2.a.example: 1 (include:s3.a.example: 0))); replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used"
    );
    assert_eq!(nine[0].0, Severity::Warning);
    let eleven = one("a.example", &chain(8, 3));
    assert_eq!(
        eleven,
        vec![(Severity::Error, "a.example.yaml:3".into(), "the SPF record of a.example needs 11 DNS lookups, more than the 10 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated, so it is often rejected or junked; lookups per record: a.example: 9 (include:s1.a.example: 1 (include:s2.a.example: 1 (include:s3.a.example: 0))); replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used".into())]
    );
}

#[test]
fn include_loops_missing_and_void_includes_are_errors_naming_the_chain() {
    let got = one(
        "a.example",
        &[
            txt(
                "@",
                "v=spf1 include:l1.a.example include:n1.a.example include:n2.a.example include:n3.a.example include:t.a.example -all",
            ),
            txt("l1", "v=spf1 include:a.example -all"),
            txt("t", "not spf"),
        ],
    );
    let messages: Vec<&str> = got.iter().map(|f| f.2.as_str()).collect();
    let tree = "lookups per record: a.example: 5 (include:l1.a.example: 1 (include:a.example: loop), include:n1.a.example: no such name or no TXT (void), include:n2.a.example: no such name or no TXT (void), include:n3.a.example: no such name or no TXT (void), include:t.a.example: no SPF record)";
    let fix = "receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; fix or remove that include";
    assert_eq!(
        messages,
        vec![
            format!(
                "the SPF record of a.example makes 3 void lookups (names without records), more than the 2 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; {tree}; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone)"
            ),
            format!(
                "the SPF record of a.example includes a record already being evaluated (a loop): a.example → include:l1.a.example → include:a.example; {fix}"
            ),
            format!(
                "the SPF record of a.example finds no SPF record there: a.example → include:n1.a.example; {fix}"
            ),
            format!(
                "the SPF record of a.example finds no SPF record there: a.example → include:n2.a.example; {fix}"
            ),
            format!(
                "the SPF record of a.example finds no SPF record there: a.example → include:n3.a.example; {fix}"
            ),
            format!(
                "the SPF record of a.example finds no SPF record there: a.example → include:t.a.example; {fix}"
            ),
            format!(
                "the SPF record of l1.a.example makes 3 void lookups (names without records), more than the 2 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; lookups per record: l1.a.example: 1 (include:a.example: 5 (include:l1.a.example: loop, include:n1.a.example: no such name or no TXT (void), include:n2.a.example: no such name or no TXT (void), include:n3.a.example: no such name or no TXT (void), include:t.a.example: no SPF record)); remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone)"
            ),
            format!(
                "the SPF record of l1.a.example includes a record already being evaluated (a loop): l1.a.example → include:a.example → include:l1.a.example; {fix}"
            ),
            format!(
                "the SPF record of l1.a.example finds no SPF record there: l1.a.example → include:a.example → include:n1.a.example; {fix}"
            ),
            format!(
                "the SPF record of l1.a.example finds no SPF record there: l1.a.example → include:a.example → include:n2.a.example; {fix}"
            ),
            format!(
                "the SPF record of l1.a.example finds no SPF record there: l1.a.example → include:a.example → include:n3.a.example; {fix}"
            ),
            format!(
                "the SPF record of l1.a.example finds no SPF record there: l1.a.example → include:a.example → include:t.a.example; {fix}"
            ),
        ]
    );
}

#[test]
fn includes_outside_the_account_without_a_resolver_are_named_as_not_followed() {
    let got = one(
        "a.example",
        &[txt(
            "@",
            "v=spf1 include:_spf.mailhost.example include:%{d}.x.example -all",
        )],
    );
    assert_eq!(
        got,
        vec![(Severity::Info, "a.example.yaml:3".into(), "the SPF record of a.example needs at least 2 DNS lookups of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask), include:%{d}.x.example (a macro only a receiver can expand); lookups per record: a.example: 2 (include:_spf.mailhost.example: not followed (outside the account, no resolver to ask), include:%{d}.x.example: not followed (a macro only a receiver can expand)); a resolver would count them".into())]
    );
}

#[test]
fn an_invalid_spf_record_is_an_error() {
    let got = one(
        "a.example",
        &[txt("@", "v=spf1 include:b.example ip4:10.0.0.1/40 -all")],
    );
    assert_eq!(
        got,
        vec![(Severity::Error, "a.example.yaml:3".into(), "the SPF record of a.example is invalid: `ip4:10.0.0.1/40` needs an address (`ip4:address` or `ip4:address/bits`); receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; correct the term (RFC 7208 §5, §6)".into())]
    );
}

#[test]
fn dmarc_accepted() {
    let got = findings(&[
        (
            "a.example",
            &[
                &txt(
                    "_dmarc",
                    "v=DMARC1; p=reject; rua=mailto:dmarc@a.example,mailto:agg@reports.b.example!10m; ruf=mailto:f@sub.a.example",
                ),
                &txt("_dmarc.shop", "v=DMARC1;p=none"),
            ],
        ),
        (
            "b.example",
            &[&txt("a.example._report._dmarc.reports", "v=DMARC1")],
        ),
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
        ],
    );
    let lines: Vec<(Severity, &str, &str)> = got
        .iter()
        .map(|f| (f.0, f.1.as_str(), f.2.as_str()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (
                Severity::Error,
                "a.example.yaml:4",
                "_dmarc.a.example has 2 DMARC records: receivers ignore DMARC for a.example as if it published none, so the policy is not applied; keep one `v=DMARC1` record"
            ),
            (
                Severity::Error,
                "a.example.yaml:5",
                "the DMARC record at _dmarc.one.a.example is not one receivers read: it does not start with `v=DMARC1` (exactly, in capitals); they discard it, so no policy applies and no reports are sent; start it with `v=DMARC1;` and write `tag=value` pairs separated by `;`"
            ),
            (
                Severity::Error,
                "a.example.yaml:6",
                "the DMARC record at _dmarc.two.a.example has no `p=`: receivers ignore the record (with `rua=`, some treat it as `p=none`), so spoofed mail is not quarantined or rejected; set `p=none`, `p=quarantine` or `p=reject`"
            ),
            (
                Severity::Error,
                "a.example.yaml:7",
                "the DMARC record at _dmarc.three.a.example has `p=block`, not none, quarantine or reject: receivers ignore the record, so spoofed mail is not quarantined or rejected; set `p=none`, `p=quarantine` or `p=reject`"
            ),
            (
                Severity::Warning,
                "a.example.yaml:8",
                "`rua=https://r.example/dmarc` in the DMARC record of four.a.example is not a `mailto:` address: receivers send no reports there; write it as `mailto:user@domain`"
            ),
            (
                Severity::Info,
                "a.example.yaml:8",
                "`rua` sends four.a.example's DMARC reports to other.example, outside the account: receivers send them only if other.example publishes a `four.a.example._report._dmarc.other.example` TXT record `v=DMARC1` (RFC 7489 §7.1), which the files can't show; make sure it does"
            ),
        ]
    );
}

#[test]
fn dmarc_reports_to_an_account_domain_without_its_consent_are_a_warning() {
    let got = findings(&[
        (
            "a.example",
            &[&txt("_dmarc", "v=DMARC1; p=none; rua=mailto:d@b.example")],
        ),
        (
            "b.example",
            &[&txt("a.example._report._dmarc", "v=spf1 -all")],
        ),
    ]);
    assert_eq!(
        got,
        vec![(Severity::Warning, "a.example.yaml:3".into(), "`rua` sends a.example's DMARC reports to b.example, whose files have no `a.example._report._dmarc.b.example` TXT record `v=DMARC1` (RFC 7489 §7.1): receivers send no reports there; add that record to b.example's zone".into())]
    );
}

#[test]
fn dkim_keys_read() {
    assert_eq!(
        dkim::read(&format!("v=DKIM1; k=rsa; p={RSA_2048}")),
        Ok(Key::Rsa { bits: 2048 })
    );
    assert_eq!(
        dkim::read(&format!("p={RSA_1024}")),
        Ok(Key::Rsa { bits: 1024 })
    );
    assert_eq!(
        dkim::read(&format!("v=DKIM1; p={PKCS1_1024}")),
        Ok(Key::Rsa { bits: 1024 })
    );
    assert_eq!(
        dkim::read(&format!("v=DKIM1; k=ed25519; p={ED25519}")),
        Ok(Key::Ed25519)
    );
    assert_eq!(dkim::read("v=DKIM1; p="), Ok(Key::Revoked));
    let split = format!("v=DKIM1; p={} {}", &RSA_2048[..100], &RSA_2048[100..]);
    assert_eq!(dkim::read(&split), Ok(Key::Rsa { bits: 2048 }));
}

#[test]
fn dkim_keys_refused() {
    let cases = [
        (
            format!("v=DKIM2; p={RSA_2048}"),
            "`v=DKIM2` must be `v=DKIM1` and come first",
        ),
        (
            format!("p={RSA_2048}; v=DKIM1"),
            "`v=DKIM1` must be `v=DKIM1` and come first",
        ),
        (
            "v=DKIM1; k=rsa".to_string(),
            "it has no `p=` (the public key)",
        ),
        (
            "v=DKIM1; p=not*base64".to_string(),
            "`p=` is not base64 (Invalid symbol 42, offset 3.)",
        ),
        (
            "v=DKIM1; p=AAAA".to_string(),
            "`p=` decodes to no RSA public key",
        ),
        (
            format!("v=DKIM1; k=ed25519; p={RSA_1024}"),
            "an Ed25519 key is 32 bytes, `p=` decodes to 162 bytes",
        ),
        (
            format!("v=DKIM1; k=dsa; p={RSA_1024}"),
            "`k=dsa` is not a key type receivers know (rsa, ed25519)",
        ),
        (
            "v=DKIM1 p=abc".to_string(),
            "`v=DKIM1 p=abc` must be `v=DKIM1` and come first",
        ),
    ];
    for (text, why) in cases {
        assert_eq!(dkim::read(&text), Err(why.to_string()), "{text}");
    }
}

#[test]
fn dkim_findings_by_key_size() {
    let got = one(
        "a.example",
        &[
            txt("good._domainkey", &format!("v=DKIM1; p={RSA_2048}")),
            txt("mid._domainkey", &format!("v=DKIM1; p={RSA_1024}")),
            txt("weak._domainkey.shop", &format!("v=DKIM1; p={RSA_512}")),
            txt("old._domainkey", "v=DKIM1; p="),
            txt("_domainkey", "o=-"),
        ],
    );
    let lines: Vec<(Severity, &str, &str)> = got
        .iter()
        .map(|f| (f.0, f.1.as_str(), f.2.as_str()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (
                Severity::Warning,
                "a.example.yaml:4",
                "the DKIM key at mid._domainkey.a.example is RSA of 1024 bits: receivers still accept it, but keys under 2048 bits can be broken; have the mail provider issue a 2048-bit key under a new selector, then retire this one"
            ),
            (
                Severity::Error,
                "a.example.yaml:5",
                "the DKIM key at weak._domainkey.shop.a.example is unusable: its RSA key has 512 bits, under the 1024 receivers accept (RFC 8301); receivers fail every signature made with this selector, so DMARC fails for mail that relies on it; publish the key exactly as the mail provider gives it"
            ),
            (
                Severity::Info,
                "a.example.yaml:6",
                "the DKIM key at old._domainkey.a.example is revoked (empty `p=`): receivers fail signatures made with this selector; remove the record once no mail is signed with it"
            ),
        ]
    );
}

#[test]
fn der_lengths_are_checked() {
    assert_eq!(key::rsa_bits(&[]), None);
    assert_eq!(key::rsa_bits(&[0x30, 0x82, 0xff]), None);
    // SEQUENCE { INTEGER 0x00 0x80 (8 bits), INTEGER 3 }
    assert_eq!(
        key::rsa_bits(&[0x30, 0x07, 0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x03]),
        Some(8)
    );
    assert_eq!(
        key::rsa_bits(&[0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x03]),
        None
    );
}

#[test]
fn mx_accepted() {
    let got = one(
        "a.example",
        &[
            "{ name: \"@\", type: MX, content: \"10 mail.a.example.\" }".into(),
            "{ name: \"@\", type: MX, content: \"20 mx.elsewhere.example.\" }".into(),
            "{ name: mail, type: A, content: 192.0.2.1 }".into(),
            "{ name: nomail, type: MX, content: \"0 .\" }".into(),
        ],
    );
    assert_eq!(got, vec![]);
}

#[test]
fn mx_refused() {
    let got = findings(&[
        (
            "a.example",
            &[
                "{ name: \"@\", type: MX, content: \"10 mail.b.example.\" }",
                "{ name: shop, type: MX, content: \"0 .\" }",
                "{ name: shop, type: MX, content: \"10 mx.elsewhere.example.\" }",
            ],
        ),
        (
            "b.example",
            &["{ name: mail, type: CNAME, content: mx.elsewhere.example. }"],
        ),
    ]);
    assert_eq!(
        got,
        vec![
            (Severity::Error, "a.example.yaml:3".into(), "the MX of a.example points at mail.b.example, which is a CNAME (b.example.yaml:3:5) (RFC 2181 §10.3): some senders refuse or bounce the mail, others loop; point the MX at the host the CNAME names, or make mail.b.example an A/AAAA record".into()),
            (Severity::Error, "a.example.yaml:4".into(), "shop.a.example has a null MX (`0 .`, \"accepts no mail\", RFC 7505) beside 1 other MX record(s): receivers may bounce mail to shop.a.example or deliver it to the others, depending on the sender; keep the null MX alone, or remove it if shop.a.example receives mail".into()),
        ]
    );
}

#[test]
fn a_and_mx_terms_naming_account_hosts_without_records_are_void_lookups() {
    let got = one(
        "a.example",
        &[
            txt(
                "@",
                "v=spf1 a mx a:gone.a.example mx:mail.a.example a:www.a.example mx:elsewhere.example -all",
            ),
            "{ name: mail, type: A, content: 192.0.2.1 }".into(),
            "{ name: www, type: CNAME, content: mail.a.example. }".into(),
        ],
    );
    assert_eq!(
        got,
        vec![(Severity::Error, "a.example.yaml:3".into(), "the SPF record of a.example makes 4 void lookups (names without records), more than the 2 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; lookups per record: a.example: 6 [void: a, mx, a:gone.a.example, mx:mail.a.example]; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone)".into())]
    );
    let two = one("a.example", &[txt("@", "v=spf1 a mx -all")]);
    assert_eq!(two, vec![]);
}

/// Live records the files don't show (`ignore`, `prune: false`) may be there: no void, no
/// missing SPF, no missing consent is concluded from their absence.
#[test]
fn names_whose_records_the_files_may_not_all_show_are_not_judged_absent() {
    let files = vec![
        (
            PathBuf::from("a.example.yaml"),
            concat!(
                "zone: a.example\n",
                "ignore:\n",
                "  - { name: \"_spf*\", type: TXT }\n",
                "  - { name: gone, type: A }\n",
                "records:\n",
                "  - { name: \"@\", type: TXT, content: \"v=spf1 a:gone.a.example include:_spf.a.example include:_spf.b.example -all\" }\n",
                "  - { name: _dmarc, type: TXT, content: \"v=DMARC1; p=none; rua=mailto:d@b.example\" }\n",
            )
            .to_string(),
        ),
        (
            PathBuf::from("b.example.yaml"),
            "zone: b.example\nprune: false\nrecords:\n  - { name: \"@\", type: A, content: 192.0.2.1 }\n"
                .to_string(),
        ),
    ];
    let desired = load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"));
    let got: Vec<(Severity, String)> = without_a_resolver(&desired)
        .into_iter()
        .map(|f| (f.severity, f.message))
        .collect();
    let kept = "its zone's `ignore` rules or `prune: false` keep records the files don't show, no resolver to ask";
    assert_eq!(
        got,
        vec![
            (Severity::Info, format!("the SPF record of a.example needs at least 3 DNS lookups of the 10 receivers allow; not followed: include:_spf.a.example ({kept}), include:_spf.b.example ({kept}); lookups per record: a.example: 3 (include:_spf.a.example: not followed ({kept}), include:_spf.b.example: not followed ({kept})); a resolver would count them")),
            (Severity::Info, "`rua` sends a.example's DMARC reports to b.example, whose zone keeps TXT records its files don't show (`ignore` rules or `prune: false`): receivers send them only if b.example publishes a `a.example._report._dmarc.b.example` TXT record `v=DMARC1` (RFC 7489 §7.1), which the files can't show; make sure it does".to_string()),
        ]
    );
}

#[test]
fn includes_nested_deeper_than_ten_are_not_followed_and_redirect_is_followed() {
    let mut records = vec![txt("@", "v=spf1 redirect=d1.a.example")];
    for i in 1..=12 {
        records.push(txt(
            &format!("d{i}"),
            &format!("v=spf1 include:d{}.a.example -all", i + 1),
        ));
    }
    let got = one("a.example", &records);
    let root = &got[0];
    assert_eq!(
        (root.0, root.1.as_str()),
        (Severity::Error, "a.example.yaml:3")
    );
    assert_eq!(
        root.2,
        "the SPF record of a.example needs at least 11 DNS lookups, more than the 10 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated, so it is often rejected or junked; lookups per record: a.example: 1 (redirect=d1.a.example: 1 (include:d2.a.example: 1 (include:d3.a.example: 1 (include:d4.a.example: 1 (include:d5.a.example: 1 (include:d6.a.example: 1 (include:d7.a.example: 1 (include:d8.a.example: 1 (include:d9.a.example: 1 (include:d10.a.example: 1 (include:d11.a.example: not followed (nested too deep)))))))))))); replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used"
    );
}

#[test]
fn an_outside_include_no_resolver_could_follow_is_said_once_for_the_account() {
    let zone = |name: &str, spf: &str| {
        (
            PathBuf::from(format!("{name}.yaml")),
            format!(
                "zone: {name}\nrecords:\n  - {{ name: \"@\", type: TXT, content: \"{spf}\" }}\n"
            ),
        )
    };
    let files = vec![
        zone("a.example", "v=spf1 include:_spf.mail.example -all"),
        zone("b.example", "v=spf1 include:_spf.mail.example -all"),
        // Refused form: a macro is not a resolver's to follow, so it stays with its record.
        zone("c.example", "v=spf1 include:%{d}.x.example -all"),
    ];
    let desired = load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"));
    let got: Vec<(String, Severity, String)> = without_a_resolver(&desired)
        .into_iter()
        .map(|f| (f.target.name, f.severity, f.message))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "c.example".to_string(),
                Severity::Info,
                "the SPF record of c.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:%{d}.x.example (a macro only a receiver can expand); lookups per record: c.example: 1 (include:%{d}.x.example: not followed (a macro only a receiver can expand))".to_string()
            ),
            (
                "a.example".to_string(),
                Severity::Info,
                "SPF lookups not followed, so the counts of the records that hold them are lower bounds (each below the warning): include:_spf.mail.example (outside the account, no resolver to ask) in a.example, b.example; a resolver would count them".to_string()
            ),
        ]
    );
}

/// The mail findings of `desired` when no resolver is given (as `plan` without one).
fn without_a_resolver(desired: &crate::config::model::Desired) -> Vec<crate::plan::model::Finding> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    rt.block_on(mail_findings(desired, None))
}
