use super::{errors, ok, one_error, zone_with};
use dnscron_core::dns::RecordType;

#[test]
fn record_names_accepted_and_normalized() {
    let d = ok(&zone_with(&[
        r#"{ name: "@", type: A, content: 203.0.113.1 }"#,
        r#"{ name: "*", type: A, content: 203.0.113.2 }"#,
        r#"{ name: WWW, type: A, content: 203.0.113.3 }"#,
        r#"{ name: a.b, type: A, content: 203.0.113.4 }"#,
        r#"{ name: "*.dev", type: A, content: 203.0.113.5 }"#,
        r#"{ name: shop.example.com., type: A, content: 203.0.113.6 }"#,
        r#"{ name: example.com., type: AAAA, content: "2001:db8::1" }"#,
    ]));
    let names: Vec<&str> = d.zones[0].records.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["@", "*", "www", "a.b", "*.dev", "shop", "@"]);
}

#[test]
fn record_names_rejected() {
    for (name, part) in [
        (
            "www.example.org.",
            "`www.example.org.` is outside the zone `example.com` [hint: write a name relative to the zone (`www`, `@` for the apex) or an absolute name ending in `.example.com.`; records of another zone belong in that zone's file]",
        ),
        (
            "www.example.com",
            "`www.example.com` is not a valid domain name: it ends in the zone name but has no final dot, so it would mean `www.example.com.example.com`; write `www` or `www.example.com.` [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
        ),
        (
            "bad!",
            "`bad!` is not a valid domain name: the label `bad!` contains `!` [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
        ),
        (
            "a.*",
            "`a.*` is not a valid domain name: `*` is only allowed as the whole leftmost label (`*`, `*.dev`) [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
        ),
        (
            "-x",
            "`-x` is not a valid domain name: the label `-x` starts or ends with a hyphen [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
        ),
        (
            &"a".repeat(64),
            "`aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa` is not a valid domain name: the label `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa` is 64 characters long (at most 63) [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
        ),
    ] {
        one_error(
            &zone_with(&[&format!(
                "{{ name: \"{name}\", type: A, content: 203.0.113.1 }}"
            )]),
            "3:13",
            part,
        );
    }
}

#[test]
fn every_type_is_accepted_with_valid_content() {
    let d = ok(&zone_with(&[
        r#"{ name: a, type: A, content: 203.0.113.1 }"#,
        r#"{ name: a, type: AAAA, content: "2001:DB8:0::1" }"#,
        r#"{ name: c, type: CNAME, content: target.example.net }"#,
        r#"{ name: "@", type: MX, content: "10 mail.example.com" }"#,
        r#"{ name: t, type: TXT, content: "\"quoted\" \" chunks\"" }"#,
        r#"{ name: sub, type: NS, content: ns1.other-dns.net. }"#,
        r#"{ name: _sip._tcp, type: SRV, content: "10 60 5060 sip.example.com." }"#,
        r#"{ name: "@", type: CAA, content: '0 issue "letsencrypt.org"' }"#,
        r#"{ name: ptr, type: PTR, content: host.example.com. }"#,
    ]));
    let canon: Vec<(RecordType, &str)> = d.zones[0]
        .records
        .iter()
        .map(|r| (r.rtype, r.canonical.as_str()))
        .collect();
    assert_eq!(
        canon,
        [
            (RecordType::A, "203.0.113.1"),
            (RecordType::AAAA, "2001:db8::1"),
            (RecordType::CNAME, "target.example.net."),
            (RecordType::MX, "10 mail.example.com."),
            (RecordType::TXT, "quoted chunks"),
            (RecordType::NS, "ns1.other-dns.net."),
            (RecordType::SRV, "10 60 5060 sip.example.com."),
            (RecordType::CAA, "0 issue \"letsencrypt.org\""),
            (RecordType::PTR, "host.example.com."),
        ]
    );
}

#[test]
fn invalid_contents_are_rejected_at_the_content() {
    for (rtype, content, part) in [
        (
            "A",
            "203.0.113",
            "invalid A content: `203.0.113` is not an IPv4 address [hint: write four decimal numbers 0–255 separated by dots, e.g. `203.0.113.10`]",
        ),
        (
            "AAAA",
            "203.0.113.1",
            "invalid AAAA content: `203.0.113.1` is not an IPv6 address [hint: this is an IPv4 address: use type A]",
        ),
        (
            "CNAME",
            "mail",
            "invalid CNAME content: `mail` is a single label, not a full host name [hint: write `mail.example.com.` or the full name]",
        ),
        (
            "MX",
            "mail.example.com.",
            "invalid MX content: MX content `mail.example.com.` needs exactly two fields [hint: write `priority host`, e.g. `10 mail.example.com.`]",
        ),
        (
            "TXT",
            "'\"unclosed'",
            "invalid TXT content: a quoted TXT chunk has no closing `\"` [hint: close the quote, write `\\\"` for a quote inside the text, or drop the quotes altogether]",
        ),
        (
            "NS",
            "ns1",
            "invalid NS content: `ns1` is a single label, not a full host name [hint: write `ns1.example.com.` or the full name]",
        ),
        (
            "SRV",
            "10 5060 sip.example.com.",
            "invalid SRV content: SRV content `10 5060 sip.example.com.` needs exactly four fields [hint: write `priority weight port target`, e.g. `10 60 5060 sip.example.com.`]",
        ),
        (
            "CAA",
            "'0 issue'",
            "invalid CAA content: CAA content `0 issue` needs three fields [hint: write `flags tag \"value\"`, e.g. `0 issue \"letsencrypt.org\"`]",
        ),
        (
            "PTR",
            "host!.example.com",
            "invalid PTR content: `host!.example.com` is not a valid host name: the label `host!` contains `!` [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each]",
        ),
    ] {
        let name = if rtype == "SRV" { "_sip._tcp" } else { "x" };
        one_error(
            &zone_with(&[&format!(
                "{{ name: {name}, type: {rtype}, content: {content} }}"
            )]),
            &format!("3:{}", 32 + name.len() + rtype.len()),
            part,
        );
    }
}

#[test]
fn record_types_are_checked() {
    one_error(
        &zone_with(&[r#"{ name: x, type: CNAM, content: a.example. }"#]),
        "3:22",
        "record type `CNAM` is not one of: A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, PTR [hint: did you mean `CNAME`?]",
    );
    one_error(
        &zone_with(&[r#"{ name: x, type: txt, content: hi }"#]),
        "3:22",
        "record type `txt` must be upper case [hint: write `TXT`]",
    );
}

#[test]
fn ttl_range_and_defaults() {
    let d = ok(
        "zone: example.com\ndefaults: { ttl: 600 }\nrecords:\n  - { name: a, type: A, content: 192.0.2.1 }\n  - { name: b, type: A, content: 192.0.2.2, ttl: 60 }\n  - { name: c, type: A, content: 192.0.2.3, ttl: 604800 }\n",
    );
    let ttls: Vec<u32> = d.zones[0].records.iter().map(|r| r.ttl).collect();
    assert_eq!(ttls, [600, 60, 604800]);
    let d = ok(&zone_with(&[r#"{ name: a, type: A, content: 192.0.2.1 }"#]));
    assert_eq!(d.zones[0].records[0].ttl, 3600);
    for (ttl, part) in [
        ("59", "`ttl` is 59; it must be from 60 to 604800"),
        ("604801", "`ttl` is 604801; it must be from 60 to 604800"),
        (
            "\"abc\"",
            "`ttl` must be an integer from 60 to 604800, found the string `abc` [hint: write a whole number without quotes, e.g. `3600`]",
        ),
        (
            "\"300\"",
            "`ttl` must be an integer from 60 to 604800, found the string `300` [hint: remove the quotes]",
        ),
        (
            "1.5",
            "`ttl` must be an integer from 60 to 604800, found the number `1.5`",
        ),
    ] {
        one_error(
            &zone_with(&[&format!(
                "{{ name: a, type: A, content: 192.0.2.1, ttl: {ttl} }}"
            )]),
            "3:50",
            part,
        );
    }
    one_error(
        "zone: example.com\ndefaults: { ttl: 10 }\n",
        "2:18",
        "`ttl` is 10; it must be from 60 to 604800",
    );
}

#[test]
fn content_length_limit() {
    let ok_txt = "x".repeat(2000);
    ok(&zone_with(&[&format!(
        "{{ name: t, type: TXT, content: {ok_txt} }}"
    )]));
    let long = "x".repeat(2001);
    one_error(
        &zone_with(&[&format!("{{ name: t, type: TXT, content: {long} }}")]),
        "3:36",
        "invalid TXT content: the content is 2001 characters long (at most 2000) [hint: shorten it; the API refuses longer content]",
    );
}

#[test]
fn txt_longer_than_255_is_kept_whole() {
    let text = format!("v=DKIM1; k=rsa; p={}", "A".repeat(400));
    let d = ok(&zone_with(&[&format!(
        "{{ name: k._domainkey, type: TXT, content: \"{text}\" }}"
    )]));
    assert_eq!(d.zones[0].records[0].canonical, text);
}

#[test]
fn cname_rules() {
    ok(&zone_with(&[
        r#"{ name: www, type: CNAME, content: example.com. }"#,
        r#"{ name: "@", type: A, content: 192.0.2.1 }"#,
    ]));
    one_error(
        &zone_with(&[r#"{ name: "@", type: CNAME, content: example.net. }"#]),
        "3:13",
        "a CNAME cannot be at the zone apex (`@`) [hint: the apex has SOA and NS records; use A/AAAA records there, or a CNAME on a subdomain such as `www`]",
    );
    one_error(
        &zone_with(&[
            r#"{ name: www, type: CNAME, content: example.com. }"#,
            r#"{ name: www, type: TXT, content: hello }"#,
        ]),
        "4:13",
        "TXT record `www` clashes with the CNAME record at f.yaml:3:5: a CNAME must be the only record at its name [hint: remove the other record, or replace the CNAME with A/AAAA records]",
    );
    one_error(
        &zone_with(&[
            r#"{ name: www, type: A, content: 192.0.2.1 }"#,
            r#"{ name: WWW, type: CNAME, content: example.com. }"#,
        ]),
        "4:13",
        "CNAME record `www` clashes with the A record at f.yaml:3:5: a CNAME must be the only record at its name [hint: remove the other record, or replace the CNAME with A/AAAA records]",
    );
    // Each clash names the earliest record it clashes with; A records beside no CNAME are fine.
    let errs = errors(&zone_with(&[
        r#"{ name: www, type: A, content: 192.0.2.1 }"#,
        r#"{ name: www, type: A, content: 192.0.2.2 }"#,
        r#"{ name: www, type: CNAME, content: example.com. }"#,
        r#"{ name: www, type: TXT, content: hi }"#,
    ]));
    insta::assert_debug_snapshot!(errs);
}

#[test]
fn duplicate_records_compare_normalized_content() {
    ok(&zone_with(&[
        r#"{ name: "@", type: MX, content: "10 mail.example.com." }"#,
        r#"{ name: "@", type: MX, content: "20 mail.example.com." }"#,
    ]));
    let errs = errors(&zone_with(&[
        r#"{ name: "@", type: MX, content: "10 mail.example.com." }"#,
        r#"{ name: example.com., type: MX, content: "10  MAIL.example.com" }"#,
    ]));
    // Names the first place.
    insta::assert_debug_snapshot!(errs);
}

#[test]
fn srv_names_look_like_service_and_protocol() {
    ok(&zone_with(&[
        r#"{ name: _sip._tcp, type: SRV, content: "1 1 5060 sip.example.com." }"#,
    ]));
    one_error(
        &zone_with(&[r#"{ name: sip, type: SRV, content: "1 1 5060 sip.example.com." }"#]),
        "3:13",
        "SRV record name `sip` is not `_service._proto` [hint: name SRV records after the service and protocol, e.g. `_sip._tcp`]",
    );
}

#[test]
fn declared_records_may_not_be_ignored() {
    let base =
        "zone: example.com\nignore:\n  - { name: \"_acme-challenge*\", type: TXT }\nrecords:\n";
    let d = ok(&format!(
        "{base}  - {{ name: _acme-challenge, type: CNAME, content: acme.example.net. }}\n"
    ));
    assert_eq!(d.zones[0].ignore[0].name, "_acme-challenge*");
    one_error(
        &format!("{base}  - {{ name: _acme-challenge.www, type: TXT, content: token }}\n"),
        "5:13",
        "_acme-challenge.www TXT is both declared and ignored (by the rule at f.yaml:3:5) [hint: a record is either managed or ignored: remove it from `records` or narrow the ignore rule]",
    );
}

#[test]
fn ignore_rules_need_a_name_or_type() {
    let d = ok("zone: example.com\nignore:\n  - { type: TXT }\n");
    assert_eq!(d.zones[0].ignore[0].name, "*");
    one_error(
        "zone: example.com\nignore:\n  - { content: x }\n",
        "3:5",
        "an ignore rule needs a `name`, a `type` or both [hint: a rule matching every record would make `prune` do nothing; write e.g. `{ name: \"_acme-challenge*\", type: TXT }`]",
    );
}

#[test]
fn apex_ns_records_are_refused() {
    ok(&zone_with(&[
        r#"{ name: sub, type: NS, content: ns1.other-dns.net. }"#,
    ]));
    one_error(
        &zone_with(&[r#"{ name: "@", type: NS, content: ns1.other-dns.net. }"#]),
        "3:13",
        "NS records at the zone apex (`@`) are not managed here [hint: the service keeps the apex NS records itself (they are hidden from listings); use the zone's `nameservers:` key to choose the domain's nameservers, or NS records on a subdomain to delegate it]",
    );
}
