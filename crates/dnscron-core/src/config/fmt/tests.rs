use super::*;

fn formatted(source: &str) -> String {
    match format_source(source) {
        Formatted::Rewritten(text) => text,
        Formatted::Unchanged => source.to_string(),
        Formatted::LeftAlone(left) => panic!("left alone: {left:?}"),
    }
}

#[test]
fn sorts_respells_and_keeps_every_comment() {
    let source = "\
# head
zone: Example.COM # the zone
records:   # the list
  # about www
  - { name: WWW.example.com., type: A, content: '192.0.2.2', ttl: 0x12c }   # www's own
  - name: \"@\"
    type: MX
    # inside the item
    content: 10 Mail.Example.com.

  - { name: '@', type: TXT, content: v=spf1 -all, override: true }
  - {name: \"@\", type: A, content: 192.0.2.1}
# after the list
use: [mail]
";
    assert_eq!(
        formatted(source),
        "\
# head
zone: Example.COM # the zone
records:   # the list
  - { name: \"@\", type: A, content: \"192.0.2.1\" }
  - name: \"@\"
    type: MX
    # inside the item
    content: 10 Mail.Example.com.

  - { name: \"@\", type: TXT, content: \"v=spf1 -all\", override: true }
  # about www
  - { name: www, type: A, content: \"192.0.2.2\", ttl: 300 } # www's own
# after the list
use: [mail]
"
    );
}

#[test]
fn canonical_text_is_a_fixed_point() {
    let source = "zone: example.com\nrecords:\n  - { name: \"@\", type: A, content: \"192.0.2.1\" }\n  - { name: www, type: CNAME, content: \"example.com.\" }\n";
    assert_eq!(format_source(source), Formatted::Unchanged);
}

#[test]
fn a_set_keeps_its_placeholder_text() {
    let source = "record_set: mail\nrecords:\n  - { name: _dmarc, type: TXT, content: 'v=DMARC1; rua=mailto:d@{zone}' }\n  - { name: \"@\", type: MX, content: '10 mail.{zone}.' }\n";
    assert_eq!(
        formatted(source),
        "record_set: mail\nrecords:\n  - { name: \"@\", type: MX, content: \"10 mail.{zone}.\" }\n  - { name: _dmarc, type: TXT, content: \"v=DMARC1; rua=mailto:d@{zone}\" }\n"
    );
}

#[test]
fn leaves_alone_what_it_does_not_model() {
    let left = |source: &str| match format_source(source) {
        Formatted::LeftAlone(left) => (left.line, left.col, left.reason),
        other => panic!("{other:?}"),
    };
    let anchored =
        "zone: example.com\nrecords:\n  - &a { name: \"@\", type: A, content: \"192.0.2.1\" }\n";
    assert_eq!(left(anchored), (3, 8, Reason::Anchor));
    let aliased = "zone: example.com\nsafety: { max_deletes: &t 300 }\nrecords:\n  - { name: \"@\", type: A, content: \"192.0.2.1\", ttl: *t }\n";
    assert_eq!(left(aliased).2, Reason::Anchor);
    let tagged =
        "zone: example.com\nrecords:\n  - { name: \"@\", type: A, content: !!str 192.0.2.1 }\n";
    assert_eq!(left(tagged).2, Reason::Tag);
    let flow = "zone: example.com\nrecords: [ { name: www, type: A, content: \"192.0.2.1\" } ]\n";
    assert_eq!(left(flow), (2, 10, Reason::FlowRecords));
    let dash_alone = "zone: example.com\nrecords:\n  -\n    name: www\n    type: A\n    content: \"192.0.2.1\"\n";
    assert_eq!(left(dash_alone), (4, 5, Reason::ItemLayout));
    let crlf = "zone: example.com\r\nrecords: []\r\n";
    assert_eq!(left(crlf), (1, 18, Reason::CarriageReturns));
}

#[test]
fn what_it_models_in_the_same_places_is_formatted() {
    let ok = "zone: example.com\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\nuse: [mail]\nnameservers:\n  mode: custom\n  hosts: [a.example.net, b.example.net]\n";
    assert_eq!(format_source(ok), Formatted::Unchanged);
    let empty = "zone: example.com\nrecords: []\n";
    assert_eq!(format_source(empty), Formatted::Unchanged);
}

#[test]
fn an_item_ending_in_a_multi_byte_character_keeps_its_lines() {
    let source = "zone: example.com\nrecords:\n  - name: www\n    type: TXT\n    content: grüße ✓\n    # about @\n  - name: \"@\"\n    type: TXT\n    content: ok ✓\n";
    assert_eq!(
        formatted(source),
        "zone: example.com\nrecords:\n    # about @\n  - { name: \"@\", type: TXT, content: \"ok ✓\" }\n  - { name: www, type: TXT, content: \"grüße ✓\" }\n"
    );
}

#[test]
fn the_last_item_without_a_line_break_moves_with_one() {
    let source = "zone: example.com\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\n  - { name: \"@\", type: A, content: \"192.0.2.1\" }";
    assert_eq!(
        formatted(source),
        "zone: example.com\nrecords:\n  - { name: \"@\", type: A, content: \"192.0.2.1\" }\n  - { name: www, type: A, content: \"192.0.2.1\" }\n"
    );
}

/// A seeded generator of zone files: records in any order, names in any spelling, values in
/// any quoting, comments above, beside and inside items.
mod generated {
    use std::path::PathBuf;

    use super::*;
    use crate::config::load_texts;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            // xorshift64*: enough to vary the files, and the same files on every run.
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
            options[self.below(options.len())]
        }
    }

    const RECORDS: [(&str, &str, &str); 13] = [
        ("@", "A", "192.0.2.1"),
        ("@", "AAAA", "2001:DB8::1"),
        ("@", "MX", "10 Mail.example.com."),
        ("@", "MX", "5 MAIL2.example.com."),
        ("@", "TXT", "v=spf1 mx -all"),
        ("@", "CAA", "0 issue \"letsencrypt.org\""),
        ("*", "A", "192.0.2.9"),
        ("www", "CNAME", "example.com."),
        ("mail", "A", "192.0.2.25"),
        ("_sip._tcp", "SRV", "10 60 5060 sip.example.com."),
        ("_dmarc", "TXT", "v=DMARC1; p=none"),
        ("uni", "TXT", "grüße ✓"),
        (
            "long",
            "TXT",
            "a very long text that goes past the width of a one-line item, so the writer uses block style",
        ),
    ];

    fn spell_name(rng: &mut Rng, name: &str) -> String {
        match (name, rng.below(3)) {
            ("@", 0) => "example.com.".into(),
            ("@", _) => "\"@\"".into(),
            ("*", _) => "'*'".into(),
            (n, 0) => format!("{}.example.com.", n.to_ascii_uppercase()),
            (n, 1) => format!("'{n}'"),
            (n, _) => n.to_string(),
        }
    }

    fn spell_content(rng: &mut Rng, content: &str) -> String {
        match rng.below(3) {
            0 if !content.contains(['"', ';', ',']) => content.to_string(),
            1 if !content.contains('\'') => format!("'{content}'"),
            _ => format!("\"{}\"", content.replace('"', "\\\"")),
        }
    }

    fn comment(rng: &mut Rng, n: &mut usize) -> String {
        *n += 1;
        format!(
            "# note {n} {}",
            rng.pick(&["", "about this", "see: the docs", "- not an item"])
        )
    }

    /// A zone file and the comments it holds.
    fn zone_file(rng: &mut Rng) -> (String, Vec<String>) {
        let mut comments = Vec::new();
        let mut n = 0;
        let mut out = String::from("zone: example.com\n");
        if rng.below(2) == 0 {
            out.push_str("defaults:\n  ttl: 600\n");
        }
        out.push_str("records:\n");
        let mut order: Vec<usize> = (0..RECORDS.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let count = 1 + rng.below(RECORDS.len());
        for &i in &order[..count] {
            let (name, rtype, content) = RECORDS[i];
            if rng.below(3) == 0 {
                let c = comment(rng, &mut n);
                out.push_str(&format!("  {c}\n"));
                comments.push(c);
            }
            if rng.below(4) == 0 {
                out.push('\n');
            }
            let name = spell_name(rng, name);
            let content = spell_content(rng, content);
            // One RRset has one TTL: the two MX records keep the default.
            let ttl = match rng.below(4) {
                _ if rtype == "MX" => String::new(),
                0 => ", ttl: 300".to_string(),
                1 => ", ttl: 0x258".to_string(),
                _ => String::new(),
            };
            if rng.below(3) == 0 {
                let inner = comment(rng, &mut n);
                out.push_str(&format!(
                    "  - name: {name}\n    {inner}\n    type: {rtype}\n    content: {content}\n"
                ));
                comments.push(inner);
                if !ttl.is_empty() {
                    out.push_str(&format!("    ttl: {}\n", &ttl[7..]));
                }
            } else {
                out.push_str(&format!(
                    "  - {{ name: {name}, type: {rtype}, content: {content}{ttl} }}"
                ));
                if rng.below(3) == 0 {
                    let c = comment(rng, &mut n);
                    out.push_str(&format!("  {c}"));
                    comments.push(c);
                }
                out.push('\n');
            }
        }
        let c = comment(rng, &mut n);
        out.push_str(&format!("{c}\n"));
        comments.push(c);
        (out, comments)
    }

    #[test]
    fn formatting_keeps_meaning_and_comments_and_is_a_fixed_point() {
        let mut rng = Rng(0x5eed_f0f0_1234_5678);
        for round in 0..300 {
            let (source, comments) = zone_file(&mut rng);
            let path = PathBuf::from("z.yaml");
            let files = vec![(path.clone(), source.clone())];
            let results = format_texts(files.clone()).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
            let text = match &results[0].formatted {
                Formatted::Rewritten(text) => text.clone(),
                Formatted::Unchanged => source.clone(),
                Formatted::LeftAlone(left) => panic!("round {round}: {left:?}\n{source}"),
            };
            let before = load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"));
            assert!(
                meaning::kept(&before, &[(path, text.clone())]),
                "round {round}: meaning changed\n{source}\n---\n{text}"
            );
            for c in &comments {
                assert_eq!(
                    source.matches(c.as_str()).count(),
                    text.matches(c.as_str()).count(),
                    "round {round}: `{c}`\n{text}"
                );
            }
            assert_eq!(
                format_source(&text),
                Formatted::Unchanged,
                "round {round}:\n{text}"
            );
        }
    }
}

mod meaning_check {
    use std::path::PathBuf;

    use super::*;
    use crate::config::load_texts;

    fn file(text: &str) -> Vec<(PathBuf, String)> {
        vec![(PathBuf::from("z.yaml"), text.to_string())]
    }

    const ZONE: &str = "zone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n  - { name: \"@\", type: MX, content: 10 mx.example.com. }\n";

    #[test]
    fn order_places_and_spelling_are_not_meaning() {
        let before = load_texts(&file(ZONE)).unwrap();
        let after = "# moved\nzone: example.com\nrecords:\n  - { name: \"@\", type: MX, content: \"10 MX.example.com\" }\n  - { name: WWW.example.com., type: A, content: \"192.0.2.1\", ttl: 3600 }\n";
        assert!(meaning::kept(&before, &file(after)));
    }

    #[test]
    fn a_value_a_record_or_validity_lost_is_meaning() {
        let before = load_texts(&file(ZONE)).unwrap();
        for after in [
            ZONE.replace("192.0.2.1", "192.0.2.2"),
            ZONE.replace("content: 192.0.2.1 }", "content: 192.0.2.1, ttl: 300 }"),
            ZONE.replace("  - { name: www, type: A, content: 192.0.2.1 }\n", ""),
            ZONE.replace("192.0.2.1", "192.0.2.300"),
        ] {
            assert!(!meaning::kept(&before, &file(&after)), "{after}");
        }
    }

    #[test]
    fn invalid_files_give_the_loaders_problems_and_no_result() {
        let diags = format_texts(file(&ZONE.replace("192.0.2.1", "192.0.2.300"))).unwrap_err();
        assert_eq!(diags.items.len(), 1);
        let results = format_texts(file(ZONE)).unwrap();
        assert!(matches!(results[0].formatted, Formatted::Rewritten(_)));
    }
}
