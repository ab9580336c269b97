//! Normalization pairs in both directions: written differently but equal → same canonical
//! form; truly different → different forms. The planner relies on exactly this.

use super::*;
use RecordType::*;

fn zone() -> ZoneName {
    ZoneName::parse("example.com").unwrap()
}

fn canon(t: RecordType, c: &str) -> String {
    canonical_content(t, c, &zone()).unwrap_or_else(|e| panic!("{t} `{c}`: {e}"))
}

/// (type, a, b): a and b are spelled differently (user vs server) but mean the same.
const EQUAL: &[(RecordType, &str, &str)] = &[
    (A, "203.0.113.10", " 203.0.113.10 "),
    (
        AAAA,
        "2001:db8::10",
        "2001:0DB8:0000:0000:0000:0000:0000:0010",
    ),
    (AAAA, "2001:db8::10", "2001:DB8::10"),
    (CNAME, "example.com.", "example.com"),
    (CNAME, "example.com.", "EXAMPLE.COM."),
    (NS, "ns1.other-dns.net", "NS1.Other-DNS.net."),
    (PTR, "host.example.com.", "Host.Example.Com"),
    (MX, "10 mail.example.com.", "10   MAIL.example.com"),
    (MX, "10 mail.example.com.", "010 mail.example.com."),
    (
        SRV,
        "10 60 5060 sip.example.com.",
        " 10  60 5060  SIP.example.com ",
    ),
    (
        CAA,
        "0 issue \"letsencrypt.org\"",
        "0 ISSUE \"letsencrypt.org\"",
    ),
    (
        CAA,
        "0 issue \"letsencrypt.org\"",
        "0  issue   letsencrypt.org",
    ),
    (
        CAA,
        "0 iodef \"mailto:security@example.com\"",
        "0 iodef   \"mailto:security@example.com\"",
    ),
    (TXT, "v=spf1 mx -all", "\"v=spf1 mx -all\""),
    (TXT, "v=spf1 mx -all", "\"v=spf1 \" \"mx -all\""),
    (TXT, "v=spf1 mx -all", "  \"v=spf1 mx\"   \" -all\"  "),
    (TXT, "say \"hi\"", "\"say \\\"hi\\\"\""),
    (TXT, "a;b", "\"a\\059b\""),
    (TXT, "back\\slash", "\"back\\\\slash\""),
];

/// (type, a, b): a and b really differ; folding them would hide a change.
const DIFFERENT: &[(RecordType, &str, &str)] = &[
    (A, "203.0.113.10", "203.0.113.11"),
    (AAAA, "2001:db8::10", "2001:db8::11"),
    (CNAME, "example.com.", "www.example.com."),
    (MX, "10 mail.example.com.", "20 mail.example.com."),
    (MX, "10 mail.example.com.", "10 mail2.example.com."),
    (
        SRV,
        "10 60 5060 sip.example.com.",
        "10 60 5061 sip.example.com.",
    ),
    (
        CAA,
        "0 issue \"letsencrypt.org\"",
        "0 issuewild \"letsencrypt.org\"",
    ),
    (
        CAA,
        "0 issue \"letsencrypt.org\"",
        "0 issue \"LetsEncrypt.org\"",
    ),
    (
        CAA,
        "0 issue \"letsencrypt.org\"",
        "128 issue \"letsencrypt.org\"",
    ),
    (
        TXT,
        "google-site-verification=abc123XYZ",
        "google-site-verification=abc123xyz",
    ),
    (TXT, "v=spf1 mx -all", "v=spf1  mx -all"),
    (TXT, "\"a\" \"b\"", "\"a b\""),
    (TXT, "raw \"q\"", "raw q"),
];

#[test]
fn equal_spellings_share_one_canonical_form() {
    for (t, a, b) in EQUAL {
        assert_eq!(canon(*t, a), canon(*t, b), "{t}: `{a}` vs `{b}`");
    }
}

#[test]
fn different_contents_stay_different() {
    for (t, a, b) in DIFFERENT {
        assert_ne!(canon(*t, a), canon(*t, b), "{t}: `{a}` vs `{b}`");
    }
}

#[test]
fn canonical_forms_are_exact() {
    for (t, input, want) in [
        (AAAA, "2001:0DB8::0010", "2001:db8::10"),
        (CNAME, "Example.com", "example.com."),
        (MX, "10  Mail.Example.com", "10 mail.example.com."),
        (MX, "0 .", "0 ."),
        (
            SRV,
            "10 60 5060 sip.example.com",
            "10 60 5060 sip.example.com.",
        ),
        (
            CAA,
            "0 IODEF mailto:a@example.com",
            "0 iodef \"mailto:a@example.com\"",
        ),
        (CAA, "0 issue \";\"", "0 issue \";\""),
        (
            CAA,
            "0 issue \"ca.example; account=12\"",
            "0 issue \"ca.example; account=12\"",
        ),
        (TXT, "\"v=DKIM1; \" \"k=rsa\"", "v=DKIM1; k=rsa"),
    ] {
        assert_eq!(canon(t, input), want, "{t} `{input}`");
    }
}

#[test]
fn canonical_is_idempotent_and_wire_reads_back() {
    let long_txt = format!("v=DKIM1; k=rsa; p={}", "A".repeat(400));
    let mut cases: Vec<(RecordType, String)> = EQUAL
        .iter()
        .chain(DIFFERENT)
        .flat_map(|(t, a, b)| [(*t, a.to_string()), (*t, b.to_string())])
        .collect();
    cases.push((TXT, long_txt));
    cases.push((TXT, "\" leading space\"".into()));
    cases.push((TXT, "\"\\\"starts with a quote\"".into()));
    for (t, input) in cases {
        let c = canon(t, &input);
        if !c.starts_with('"') {
            assert_eq!(canon(t, &c), c, "idempotent: {t} `{input}`");
        }
        assert_eq!(canon(t, &wire_content(t, &c)), c, "wire: {t} `{input}`");
    }
}

#[test]
fn wire_forms() {
    assert_eq!(wire_content(TXT, "v=spf1 -all"), "v=spf1 -all");
    assert_eq!(wire_content(TXT, "\"q\""), "\"\\\"q\\\"\"");
    assert_eq!(wire_content(CNAME, "example.com."), "example.com.");
    assert_eq!(
        wire_content(MX, "10 mail.example.com."),
        "10 mail.example.com."
    );
}

#[test]
fn long_txt_is_allowed_up_to_the_api_limit() {
    let ok = "x".repeat(MAX_CONTENT_CHARS);
    assert_eq!(canon(TXT, &ok).len(), MAX_CONTENT_CHARS);
    let too_long = "x".repeat(MAX_CONTENT_CHARS + 1);
    assert!(canonical_content(TXT, &too_long, &zone()).is_err());
}

#[test]
fn invalid_contents_are_errors_with_hints() {
    for (t, bad, hint_part) in [
        (A, "10.0.0", "four decimal numbers"),
        (A, "2001:db8::1", "AAAA"),
        (A, "010.0.0.1", "four decimal numbers"),
        (AAAA, "203.0.113.10", "type A"),
        (AAAA, "2001:db8::g", "IPv6 address such as"),
        (CNAME, "mail", "write `mail.example.com.` or the full name"),
        (CNAME, "@", "example.com."),
        (CNAME, "bad_host!.example.com", "labels use"),
        (CNAME, ".", ""),
        (NS, "ns1", "ns1.example.com."),
        (MX, "mail.example.com.", "priority host"),
        (MX, "10 mail", "mail.example.com."),
        (MX, "70000 mail.example.com.", ""),
        (SRV, "10 60 sip.example.com.", "priority weight port target"),
        (SRV, "10 60 99999 sip.example.com.", ""),
        (CAA, "0 issue", "flags tag"),
        (CAA, "0 tbs \"x\"", "issuewild"),
        (CAA, "256 issue \"letsencrypt.org\"", ""),
        (CAA, "0 iodef \"security@example.com\"", "mailto:"),
        (CAA, "0 issue \"not a domain\"", "CA's domain"),
        (CAA, "0 issue lets encrypt", "double quotes"),
        (TXT, "\"open", "close the quote"),
        (TXT, "\"a\" b", "quote every chunk"),
        (TXT, "\"\"", ""),
        (TXT, "   ", ""),
    ] {
        let err = canonical_content(t, bad, &zone()).expect_err(bad);
        let hint = err.hint.clone().unwrap_or_default();
        assert!(
            hint.contains(hint_part),
            "{t} `{bad}`: {err} / hint {hint:?}"
        );
    }
}

#[test]
fn live_content_never_fails() {
    assert_eq!(
        canonical_live_content(CNAME, "EXAMPLE.com", &zone()),
        "example.com."
    );
    assert_eq!(canonical_live_content(CNAME, " mail ", &zone()), "mail");
    assert_ne!(
        canonical_live_content(CNAME, "mail", &zone()),
        canon(CNAME, "mail.example.com.")
    );
}

#[test]
fn live_content_is_borrowed_only_when_already_canonical() {
    use std::borrow::Cow;
    let borrowed = |t, c: &str| match canonical_live_borrowed(t, c, &zone()) {
        Cow::Borrowed(b) => Some(b.to_string()),
        Cow::Owned(_) => None,
    };
    assert_eq!(borrowed(A, "192.0.2.1").as_deref(), Some("192.0.2.1"));
    assert_eq!(borrowed(TXT, "v=spf1 -all").as_deref(), Some("v=spf1 -all"));
    assert_eq!(
        borrowed(CNAME, "mail.example.com.").as_deref(),
        Some("mail.example.com.")
    );
    // Refused content is kept trimmed, as `canonical_live_content` keeps it.
    assert_eq!(borrowed(CNAME, " mail ").as_deref(), Some("mail"));
    for (t, c) in [
        (AAAA, "2001:DB8::1"),
        (TXT, "\"a\" \"b\""),
        (CNAME, "Mail.example.com"),
        (A, " 192.0.2.1"),
    ] {
        assert_eq!(borrowed(t, c), None, "{t} `{c}`");
        assert_eq!(
            canonical_live_borrowed(t, c, &zone()),
            canonical_live_content(t, c, &zone()),
            "{t} `{c}`"
        );
    }
    assert_eq!(canonical_live_borrowed(TXT, "\"a\" \"b\"", &zone()), "ab");
}
