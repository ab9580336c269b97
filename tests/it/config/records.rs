use super::{errors, ok, one_error, zone_with};
use dnscron::dns::RecordType;

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
        ("www.example.org.", "outside the zone"),
        ("www.example.com", "no final dot"),
        ("bad!", "contains `!`"),
        ("a.*", "leftmost"),
        ("-x", "hyphen"),
        (&"a".repeat(64), "at most 63"),
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
        ("A", "203.0.113", "not an IPv4"),
        ("AAAA", "203.0.113.1", "use type A"),
        (
            "CNAME",
            "mail",
            "write `mail.example.com.` or the full name",
        ),
        ("MX", "mail.example.com.", "priority host"),
        ("TXT", "'\"unclosed'", "no closing"),
        ("NS", "ns1", "ns1.example.com."),
        ("SRV", "10 5060 sip.example.com.", "four fields"),
        ("CAA", "'0 issue'", "three fields"),
        ("PTR", "host!.example.com", "not a valid host name"),
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
        "did you mean `CNAME`?",
    );
    one_error(
        &zone_with(&[r#"{ name: x, type: txt, content: hi }"#]),
        "3:22",
        "write `TXT`",
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
        ("59", "it must be from 60 to 604800"),
        ("604801", "it must be from 60 to 604800"),
        (
            "\"abc\"",
            "must be an integer from 60 to 604800, found the string `abc`",
        ),
        ("\"300\"", "remove the quotes"),
        ("1.5", "found the number"),
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
        "from 60",
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
        "2001 characters long (at most 2000)",
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
        "apex",
    );
    one_error(
        &zone_with(&[
            r#"{ name: www, type: CNAME, content: example.com. }"#,
            r#"{ name: www, type: TXT, content: hello }"#,
        ]),
        "4:13",
        "clashes with the CNAME record at",
    );
    one_error(
        &zone_with(&[
            r#"{ name: www, type: A, content: 192.0.2.1 }"#,
            r#"{ name: WWW, type: CNAME, content: example.com. }"#,
        ]),
        "4:13",
        "clashes with the A record at",
    );
    // Each clash names the earliest record it clashes with; A records beside no CNAME are fine.
    let errs = errors(&zone_with(&[
        r#"{ name: www, type: A, content: 192.0.2.1 }"#,
        r#"{ name: www, type: A, content: 192.0.2.2 }"#,
        r#"{ name: www, type: CNAME, content: example.com. }"#,
        r#"{ name: www, type: TXT, content: hi }"#,
    ]));
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(errs[0].starts_with("5:13 CNAME record `www` clashes with the A record at"));
    assert!(errs[0].contains("f.yaml:3:5"), "{errs:#?}");
    assert!(errs[1].starts_with("6:13 TXT record `www` clashes with the CNAME record at"));
    assert!(errs[1].contains("f.yaml:5:5"), "{errs:#?}");
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
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with("4:13 duplicate record"), "{errs:#?}");
    assert!(
        errs[0].contains("f.yaml:3:5"),
        "names the first place: {errs:#?}"
    );
}

#[test]
fn srv_names_look_like_service_and_protocol() {
    ok(&zone_with(&[
        r#"{ name: _sip._tcp, type: SRV, content: "1 1 5060 sip.example.com." }"#,
    ]));
    one_error(
        &zone_with(&[r#"{ name: sip, type: SRV, content: "1 1 5060 sip.example.com." }"#]),
        "3:13",
        "_service._proto",
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
        "both declared and ignored (by the rule at",
    );
}

#[test]
fn ignore_rules_need_a_name_or_type() {
    let d = ok("zone: example.com\nignore:\n  - { type: TXT }\n");
    assert_eq!(d.zones[0].ignore[0].name, "*");
    one_error(
        "zone: example.com\nignore:\n  - { content: x }\n",
        "3:5",
        "needs a `name`, a `type`",
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
        "use the zone's `nameservers:` key",
    );
}
