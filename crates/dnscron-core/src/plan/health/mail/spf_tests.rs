//! SPF (RFC 7208) as receivers read it, accepted and refused: the syntax (§4.6, §7.1, §12), the
//! terms after `all` (§5.1), the lookup count and its tree (§4.6.4), void lookups and `mx` hosts
//! (§4.6.4), includes that break (§5.2, §6.1), and what the files can't show.

use std::path::PathBuf;

use super::spf::{self, is_spf};
use super::tests::{findings, one, txt, without_a_resolver};
use crate::config::load_texts;
use crate::finding::FindingCode;

const PERMERROR: &str = "receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked";
const TRIM: &str =
    "replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used";

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
        "v=spf1 include:example.net exp=explain.%{d} unknown-mod=anything empty-mod= -all",
        // §7.1: one letter, then digits, `r` and delimiters; upper case asks for URL escaping.
        "v=spf1 exists:%{ir}.%{v}._ip.%{d2r.-}.example.com exists:%{L}.%{h}.%{p1}.%{o}.%{S}.example.com -all",
        "v=spf1 exists:%%.%_.%-.example.com -all",
        // §12: `0`, or no leading zero.
        "v=spf1 ip4:192.0.2.0/0 ip4:192.0.2.0/9 ip4:192.0.2.0/32 ip6:2001:db8::/0 ip6:2001:db8::/128 a/0//0 mx/24//100 -all",
    ] {
        assert!(spf::parse(text).is_ok(), "{text}: {:?}", spf::parse(text));
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
            "`ip4:192.0.2.0/33`: the prefix length `33` is over 32",
        ),
        (
            "v=spf1 ip6:2001:db8::/129",
            "`ip6:2001:db8::/129`: the prefix length `129` is over 128",
        ),
        (
            "v=spf1 ip4:192.0.2.0/024",
            "`ip4:192.0.2.0/024`: the prefix length `024` has a leading zero (RFC 7208 §12)",
        ),
        (
            "v=spf1 ip6:2001:db8::/064",
            "`ip6:2001:db8::/064`: the prefix length `064` has a leading zero (RFC 7208 §12)",
        ),
        (
            "v=spf1 a/08",
            "`a/08`: the prefix length `08` has a leading zero (RFC 7208 §12)",
        ),
        (
            "v=spf1 mx//00",
            "`mx//00`: the prefix length `00` has a leading zero (RFC 7208 §12)",
        ),
        ("v=spf1 a/33", "`a/33`: the prefix length `33` is over 32"),
        (
            "v=spf1 a/+8",
            "`a/+8`: the prefix length `+8` is not a number",
        ),
        ("v=spf1 a24", "`a24` is not an SPF mechanism or modifier"),
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
            "`exists:%{z}.example`: `%{z}` is not a macro: it starts with one of the letters s, l, o, d, i, p, h, v",
        ),
        (
            "v=spf1 exists:%{ip}.example",
            "`exists:%{ip}.example`: `%{ip}`: after its one letter a macro takes only a number of parts, `r` and the delimiters .-+,/_= (RFC 7208 §7.1)",
        ),
        (
            "v=spf1 exists:%{dd}.example",
            "`exists:%{dd}.example`: `%{dd}`: after its one letter a macro takes only a number of parts, `r` and the delimiters .-+,/_= (RFC 7208 §7.1)",
        ),
        (
            "v=spf1 exists:%{c}.example",
            "`exists:%{c}.example`: `%{c}`: the macro letter `c` is allowed only in explanation text (RFC 7208 §7.1)",
        ),
        (
            "v=spf1 exists:%{d0}.example",
            "`exists:%{d0}.example`: `%{d0}`: the number of parts must not be zero (RFC 7208 §7.3)",
        ),
        (
            "v=spf1 exists:%x.example",
            "`exists:%x.example`: `%x.ex` is not a macro (`%{letter}`, `%%`, `%_` or `%-`)",
        ),
        ("v=spf1 -all exp=", "`exp=` needs a domain"),
        ("v=spf1 redirect=", "`redirect=` needs a domain"),
        (
            "v=spf1 -all exp=a.example exp=b.example",
            "`exp=` appears twice",
        ),
        // §4.6: a syntax error anywhere is a permerror, after `all` too.
        (
            "v=spf1 -all include",
            "`include` needs a domain (`include:domain`)",
        ),
        // Record text is escaped where a message quotes it.
        (
            "v=spf1 \u{1b}[31m -all",
            "`\\u{1b}[31m` is not an SPF mechanism or modifier",
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
            "{ name: \"@\", type: MX, content: \"10 www.a.example.\" }".into(),
        ],
    );
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfMultiple,
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
fn eight_lookups_are_quiet_nine_a_warning_eleven_an_error_each_drawn_as_a_tree() {
    let eight = one("a.example", &chain(5, 3));
    assert_eq!(eight, vec![]);
    let nine = one("a.example", &chain(6, 3));
    assert_eq!(
        nine,
        vec![(
            FindingCode::SpfLookupsNearLimit,
            "a.example.yaml:3".into(),
            format!(
                "the SPF record of a.example needs 9 DNS lookups of the 10 receivers allow: one more include (or a provider adding one to theirs) makes it a permerror, and the mail unauthenticated; {TRIM}. Lookups per record:\n\
                 a.example                   7   total 7\n\
                 \x20 include:s1.a.example      1   total 8\n\
                 \x20   include:s2.a.example    1   total 9\n\
                 \x20     include:s3.a.example  0   total 9"
            )
        )]
    );
    let eleven = one("a.example", &chain(8, 3));
    assert_eq!(
        eleven,
        vec![(
            FindingCode::SpfTooManyLookups,
            "a.example.yaml:3".into(),
            format!(
                "the SPF record of a.example needs 11 DNS lookups, more than the 10 receivers allow (RFC 7208 §4.6.4): {PERMERROR}; {TRIM}. Lookups per record:\n\
                 a.example                   9   total 9\n\
                 \x20 include:s1.a.example      1   total 10\n\
                 \x20   include:s2.a.example    1   total 11\n\
                 \x20     include:s3.a.example  0   total 11"
            )
        )]
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
    let fix = format!("{PERMERROR}; fix or remove that include");
    let void = "void lookups (names without records), more than the 2 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone). Lookups per record:";
    let broken = |name: &str, what: &str, chain: &str| {
        (
            FindingCode::SpfIncludeBroken,
            "a.example.yaml:3".to_string(),
            format!("the SPF record of {name} {what}: {chain}; {fix}"),
        )
    };
    let at_l1 = |f: (FindingCode, String, String)| (f.0, "a.example.yaml:4".to_string(), f.2);
    assert_eq!(
        got,
        vec![
            (
                FindingCode::SpfTooManyVoidLookups,
                "a.example.yaml:3".into(),
                format!(
                    "the SPF record of a.example makes 3 {void}\n\
                     a.example               5   total 5\n\
                     \x20 include:l1.a.example  1   total 6\n\
                     \x20   include:a.example   -             loop: already being evaluated\n\
                     \x20 include:n1.a.example  -             void: no such name or no TXT record\n\
                     \x20 include:n2.a.example  -             void: no such name or no TXT record\n\
                     \x20 include:n3.a.example  -             void: no such name or no TXT record\n\
                     \x20 include:t.a.example   -             no SPF record"
                )
            ),
            broken(
                "a.example",
                "includes a record already being evaluated (a loop)",
                "a.example → include:l1.a.example → include:a.example"
            ),
            broken(
                "a.example",
                "finds no SPF record there",
                "a.example → include:n1.a.example"
            ),
            broken(
                "a.example",
                "finds no SPF record there",
                "a.example → include:n2.a.example"
            ),
            broken(
                "a.example",
                "finds no SPF record there",
                "a.example → include:n3.a.example"
            ),
            broken(
                "a.example",
                "finds no SPF record there",
                "a.example → include:t.a.example"
            ),
            (
                FindingCode::SpfTooManyVoidLookups,
                "a.example.yaml:4".into(),
                format!(
                    "the SPF record of l1.a.example makes 3 {void}\n\
                     l1.a.example              1   total 1\n\
                     \x20 include:a.example       5   total 6\n\
                     \x20   include:l1.a.example  -             loop: already being evaluated\n\
                     \x20   include:n1.a.example  -             void: no such name or no TXT record\n\
                     \x20   include:n2.a.example  -             void: no such name or no TXT record\n\
                     \x20   include:n3.a.example  -             void: no such name or no TXT record\n\
                     \x20   include:t.a.example   -             no SPF record"
                )
            ),
            at_l1(broken(
                "l1.a.example",
                "includes a record already being evaluated (a loop)",
                "l1.a.example → include:a.example → include:l1.a.example"
            )),
            at_l1(broken(
                "l1.a.example",
                "finds no SPF record there",
                "l1.a.example → include:a.example → include:n1.a.example"
            )),
            at_l1(broken(
                "l1.a.example",
                "finds no SPF record there",
                "l1.a.example → include:a.example → include:n2.a.example"
            )),
            at_l1(broken(
                "l1.a.example",
                "finds no SPF record there",
                "l1.a.example → include:a.example → include:n3.a.example"
            )),
            at_l1(broken(
                "l1.a.example",
                "finds no SPF record there",
                "l1.a.example → include:a.example → include:t.a.example"
            )),
        ]
    );
}

#[test]
fn includes_outside_the_account_without_a_resolver_are_named_as_not_followed() {
    // Accepted form: every term left is one a resolver would follow.
    let got = one(
        "a.example",
        &[txt("@", "v=spf1 include:_spf.mailhost.example -all")],
    );
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfNotFollowed,
            "a.example.yaml:3".into(),
            "the SPF record of a.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask); a resolver would settle them"
                .into()
        )]
    );
    // Refused form: a macro is not a resolver's to follow, so the count stays uncounted.
    let got = one(
        "a.example",
        &[txt(
            "@",
            "v=spf1 include:_spf.mailhost.example include:%{d}.x.example -all",
        )],
    );
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfLookupsUncounted,
            "a.example.yaml:3".into(),
            "the SPF record of a.example needs at least 2 DNS lookups of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask), include:%{d}.x.example (a macro only a receiver can expand); a resolver would settle them"
                .into()
        )]
    );
}

/// Each zone's finding names its own records' terms, never another zone's.
#[test]
fn each_zone_is_told_only_about_its_own_records() {
    let got: Vec<(String, FindingCode, String)> = findings(&[
        (
            "a.example",
            &[&txt("@", "v=spf1 include:_spf.mail.example -all")],
        ),
        (
            "b.example",
            &[&txt("@", "v=spf1 include:_spf.other.example -all")],
        ),
    ])
    .into_iter()
    .map(|(code, line, message)| (line, code, message))
    .collect();
    let told = |zone: &str, include: &str| {
        (
            format!("{zone}.yaml:3"),
            FindingCode::SpfNotFollowed,
            format!(
                "the SPF record of {zone} needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:{include} (outside the account, no resolver to ask); a resolver would settle them"
            ),
        )
    };
    assert_eq!(
        got,
        vec![
            told("a.example", "_spf.mail.example"),
            told("b.example", "_spf.other.example")
        ]
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
        vec![(
            FindingCode::SpfInvalid,
            "a.example.yaml:3".into(),
            format!(
                "the SPF record of a.example is invalid: `ip4:10.0.0.1/40`: the prefix length `40` is over 32; {PERMERROR}; correct the term (RFC 7208 §4.6, §5, §6, §7.1, §12)"
            )
        )]
    );
}

/// octoDNS writes `;` as `\;`; in an SPF record that breaks the term it sticks to.
#[test]
fn an_octodns_escape_that_breaks_an_spf_record_has_its_own_words() {
    let got = one("a.example", &[txt("@", "v=spf1 mx -all\\\\;")]);
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfOctodnsEscape,
            "a.example.yaml:3".into(),
            format!(
                "the SPF record of a.example is invalid: `-all\\;` is not an SPF mechanism or modifier; `\\;` is octoDNS's escape for `;`; in dnscron files write `;`; {PERMERROR} (RFC 7208 §4.6)"
            )
        )]
    );
    // Accepted form: inside an unknown modifier's value `\;` is text, and receivers ignore it.
    let quiet = one(
        "a.example",
        &[
            txt("@", "v=spf1 mx note=a\\\\;b -all"),
            "{ name: \"@\", type: MX, content: \"10 mail.a.example.\" }".into(),
        ],
    );
    assert_eq!(quiet, vec![]);
}

#[test]
fn terms_after_all_are_neither_counted_nor_followed_and_a_warning_says_so() {
    let got = one(
        "a.example",
        &[
            txt(
                "@",
                "v=spf1 a -all include:gone.a.example mx:nomail.a.example a:gone.a.example exp=explain.a.example",
            ),
            "{ name: \"@\", type: A, content: 192.0.2.1 }".into(),
        ],
    );
    assert_eq!(
        got,
        vec![(FindingCode::SpfTermsAfterAll, "a.example.yaml:3".into(), "the SPF record of a.example has terms after `all` (include:gone.a.example mx:nomail.a.example a:gone.a.example): receivers stop at `all` and never evaluate them (RFC 7208 §5.1), so they authorize nothing and are not counted; move them before `all`, or remove them".into())]
    );
    let parsed =
        spf::parse("v=spf1 a -all include:gone.a.example mx").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (parsed.lookups, parsed.includes.len(), parsed.hosts.len()),
        (1, 0, 1)
    );
    // Accepted form: modifiers after `all` are no mechanisms, and nothing follows a bare record.
    let quiet = one(
        "a.example",
        &[
            txt("@", "v=spf1 a -all exp=explain.a.example"),
            "{ name: \"@\", type: A, content: 192.0.2.1 }".into(),
        ],
    );
    assert_eq!(quiet, vec![]);
}

#[test]
fn a_and_mx_terms_naming_account_hosts_without_records_are_void_lookups() {
    let got = one(
        "a.example",
        &[
            txt(
                "@",
                "v=spf1 a mx a:gone.a.example mx:mail.a.example a:www.a.example -all",
            ),
            "{ name: mail, type: A, content: 192.0.2.1 }".into(),
            "{ name: www, type: CNAME, content: mail.a.example. }".into(),
        ],
    );
    assert_eq!(
        got,
        vec![(FindingCode::SpfTooManyVoidLookups, "a.example.yaml:3".into(), "the SPF record of a.example makes 4 void lookups (names without records), more than the 2 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone). Lookups per record:\n\
          a.example  5   total 5   void: a, mx, a:gone.a.example, mx:mail.a.example".into())]
    );
    let two = one("a.example", &[txt("@", "v=spf1 a mx -all")]);
    assert_eq!(two, vec![]);
}

/// §4.6.4: an `mx` whose name has more than 10 MX hosts is a permerror; a null MX names none.
#[test]
fn an_mx_term_of_more_than_ten_hosts_is_an_error() {
    let zone = |hosts: usize| {
        let mut records = vec![
            txt("@", "v=spf1 mx mx:big.a.example -all"),
            "{ name: \"@\", type: MX, content: \"10 mail.a.example.\" }".to_string(),
            "{ name: big, type: MX, content: \"0 .\" }".to_string(),
        ];
        for i in 0..hosts {
            records.push(format!(
                "{{ name: big, type: MX, content: \"{i} mx{i}.a.example.\" }}"
            ));
        }
        one("a.example", &records)
    };
    let ten: Vec<FindingCode> = zone(10).into_iter().map(|f| f.0).collect();
    // The null MX beside others is its own finding; nothing about SPF.
    assert_eq!(ten, vec![FindingCode::MxNullBesideOthers]);
    let eleven: Vec<(FindingCode, String, String)> = zone(11)
        .into_iter()
        .filter(|f| f.0 != FindingCode::MxNullBesideOthers)
        .collect();
    assert_eq!(
        eleven,
        vec![(
            FindingCode::SpfMxTooManyHosts,
            "a.example.yaml:3".into(),
            format!(
                "the SPF record of a.example has `mx:big.a.example`, whose name has 11 MX hosts (the files declare), more than the 10 receivers look up for one `mx` (RFC 7208 §4.6.4): {PERMERROR}; list the mail servers' addresses with ip4:/ip6: instead"
            )
        )]
    );
}

#[test]
fn a_and_mx_hosts_outside_the_account_are_named_as_not_checked_without_a_resolver() {
    let got = one(
        "a.example",
        &[
            txt(
                "@",
                "v=spf1 mx a:out.elsewhere.example mx:mx.elsewhere.example -all",
            ),
            "{ name: \"@\", type: MX, content: \"10 mx.elsewhere.example.\" }".into(),
        ],
    );
    assert_eq!(
        got,
        vec![(FindingCode::SpfNotFollowed, "a.example.yaml:3".into(), "the SPF record of a.example needs 3 DNS lookups of the 10 receivers allow; not checked for a void lookup: a:out.elsewhere.example (outside the account, no resolver to ask), mx:mx.elsewhere.example (outside the account, no resolver to ask); a resolver would settle them".into())]
    );
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
    let got: Vec<(FindingCode, String)> = without_a_resolver(&desired)
        .into_iter()
        .map(|f| (f.code, f.message))
        .collect();
    let kept = "its zone's `ignore` rules or `prune: false` keep records the files don't show, no resolver to ask";
    assert_eq!(
        got,
        vec![
            (
                FindingCode::SpfLookupsUncounted,
                format!(
                    "the SPF record of a.example needs at least 3 DNS lookups of the 10 receivers allow; not followed: include:_spf.a.example ({kept}), include:_spf.b.example ({kept}); a resolver would settle them"
                )
            ),
            (
                FindingCode::DmarcReportAuthorizationUnseen,
                "`rua` sends a.example's DMARC reports to b.example, whose zone keeps TXT records its files don't show (`ignore` rules or `prune: false`): receivers send them only if b.example publishes a `a.example._report._dmarc.b.example` TXT record `v=DMARC1` (RFC 7489 §7.1), which the files can't show; make sure it does".to_string()
            ),
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
    assert_eq!(
        (got[0].0, got[0].1.as_str()),
        (FindingCode::SpfTooManyLookups, "a.example.yaml:3")
    );
    assert_eq!(
        got[0].2,
        format!(
            "the SPF record of a.example needs at least 11 DNS lookups, more than the 10 receivers allow (RFC 7208 §4.6.4): {PERMERROR}; {TRIM}. Lookups per record:\n\
             a.example                                    1   total 1\n\
             \x20 redirect=d1.a.example                      1   total 2\n\
             \x20   include:d2.a.example                     1   total 3\n\
             \x20     include:d3.a.example                   1   total 4\n\
             \x20       include:d4.a.example                 1   total 5\n\
             \x20         include:d5.a.example               1   total 6\n\
             \x20           include:d6.a.example             1   total 7\n\
             \x20             include:d7.a.example           1   total 8\n\
             \x20               include:d8.a.example         1   total 9\n\
             \x20                 include:d9.a.example       1   total 10\n\
             \x20                   include:d10.a.example    1   total 11\n\
             \x20                     include:d11.a.example  ?              not followed: nested too deep"
        )
    );
}

#[test]
fn the_terms_not_followed_are_read_back_from_the_message_as_it_words_them() {
    let got = one(
        "a.example",
        &[txt(
            "@",
            "v=spf1 include:_spf.mailhost.example include:_spf.other.example -all",
        )],
    );
    let terms = super::spf::not_followed_terms(&got[0].2);
    assert_eq!(
        terms,
        [
            (
                "include:_spf.mailhost.example",
                "outside the account, no resolver to ask"
            ),
            (
                "include:_spf.other.example",
                "outside the account, no resolver to ask"
            ),
        ]
    );
    // A message that names nothing not followed gives nothing.
    assert!(
        super::spf::not_followed_terms("the SPF record of a.example needs 3 DNS lookups")
            .is_empty()
    );
}
