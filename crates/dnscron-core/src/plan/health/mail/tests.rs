//! Accepted and refused forms of every mail rule, on records as the files declare them: the
//! helpers, DKIM and MX here, SPF in spf_tests.rs, DMARC in dmarc_tests.rs. The SPF lookups over
//! DNS are tested in dns_tests.rs and end to end in tests/it/plan/mail.rs.

use std::path::PathBuf;

use super::dkim::{self, Key};
use super::{key, mail_findings};
use crate::config::load_texts;
use crate::finding::FindingCode;

const RSA_512: &str = "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAO/R9lsJ3bgTPEfEKtfSEBX4CQpevF8qHJepMLfTZCg6G2GuC5VXDEM7Qwr7V4KfRD553ZXuy4zpqY+Bjc4LTKkCAwEAAQ==";
const RSA_1024: &str = "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDg6X7OxouPBpAqPpDz6DXYuNmyvgMhG0yQBXU0u6HNvzf3TF8CtVH/rUvg0adm/XqoYlDLFaq7AkwXyutnwC/whc9Z4vSwnyDffzCu/jMgGuz414YJPYdHAEoYZMiI9I6FSOqBGfOStCfLQLK1lIxumXisytlZRf2AlD32PnzmDwIDAQAB";
const RSA_2048: &str = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArfj1/bsNl91o3k/EssP9Fg3CTj0fg1aF/W7tlPbnwBvmI1dkVdtr6gqHxhS3BD+ax5CLvNUDqKmF6cUXsX1hJbq7YvLya9XoWNSKtYlHDhH2cMTEwUajX0UTJk87KQlpT3wFTaW+ySm+EAShv8dfqubF4qrKTqGCM2KN4trM9UJg3OiqUAaOe0CXCzFEA3SGI05afo1lIYOwjpiI023+6c/2VsqXCUGkxgtgClm4WYa30WbdTUscAN5Koo16d/BbUZTIcD9VAjkbyeR6eESysWNvQH/bd3h8EHocvkf6KXU5ehsuEZVScP+3OOxLKG61AlYo1u/Sh4OpXaOVdhw7HQIDAQAB";
const PKCS1_1024: &str = "MIGJAoGBAOcTVSIhy8vxqYAGRIuARk73Zc88jFVKs7fz/JQHvXf93khnN+E6I6t0Hi+Awsk++7zl1gqpGDJszZkyy3el52vp8h1k086/6+Bhsqyv8svcLoWJWYeWzIoGp+Ojn8+RUItHqaCFSfwBv2U2qYqSwBR2ZbNPVHJu3lnDm1wOTt3hAgMBAAE=";
const ED25519: &str = "EZBOdr+PYqgaicmTZBvwsyKQmd4i4PZObaJSRRJhQlI=";

/// The findings of zone files given as (zone, records in flow style): code, `file:line` and
/// message.
pub(super) fn findings(zones: &[(&str, &[&str])]) -> Vec<(FindingCode, String, String)> {
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
            (f.code, line, message)
        })
        .collect()
}

/// The findings as `(code, &str, &str)`, to compare with literals.
pub(super) fn borrowed(got: &[(FindingCode, String, String)]) -> Vec<(FindingCode, &str, &str)> {
    got.iter()
        .map(|f| (f.0, f.1.as_str(), f.2.as_str()))
        .collect()
}

pub(super) fn txt(name: &str, text: &str) -> String {
    format!("{{ name: \"{name}\", type: TXT, content: \"{text}\" }}")
}

pub(super) fn one(zone: &str, records: &[String]) -> Vec<(FindingCode, String, String)> {
    let records: Vec<&str> = records.iter().map(String::as_str).collect();
    findings(&[(zone, &records)])
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
    assert_eq!(
        borrowed(&got),
        vec![
            (
                FindingCode::DkimKeyWeak,
                "a.example.yaml:4",
                "the DKIM key at mid._domainkey.a.example is RSA of 1024 bits: receivers still accept it, but keys under 2048 bits can be broken; have the mail provider issue a 2048-bit key under a new selector, then retire this one"
            ),
            (
                FindingCode::DkimKeyTooShort,
                "a.example.yaml:5",
                "the DKIM key at weak._domainkey.shop.a.example is unusable: its RSA key has 512 bits, under the 1024 receivers accept (RFC 8301); receivers fail every signature made with this selector, so DMARC fails for mail that relies on it; publish the key exactly as the mail provider gives it"
            ),
            (
                FindingCode::DkimKeyRevoked,
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
            (FindingCode::MxTargetIsCname, "a.example.yaml:3".into(), "the MX of a.example points at mail.b.example, which is a CNAME (b.example.yaml:3:5) (RFC 2181 §10.3): some senders refuse or bounce the mail, others loop; point the MX at the host the CNAME names, or make mail.b.example an A/AAAA record".into()),
            (FindingCode::MxNullBesideOthers, "a.example.yaml:4".into(), "shop.a.example has a null MX (`0 .`, \"accepts no mail\", RFC 7505) beside 1 other MX record(s): receivers may bounce mail to shop.a.example or deliver it to the others, depending on the sender; keep the null MX alone, or remove it if shop.a.example receives mail".into()),
        ]
    );
}

/// The mail findings of `desired` when no resolver is given (as `plan` without one).
pub(super) fn without_a_resolver(
    desired: &crate::config::model::Desired,
) -> Vec<crate::plan::model::Finding> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    rt.block_on(mail_findings(desired, None))
}
