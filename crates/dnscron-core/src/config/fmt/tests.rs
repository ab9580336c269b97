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
  # inside the item
  - { name: \"@\", type: MX, content: \"10 mail.example.com.\" }

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
fn leaves_alone_only_anchors_aliases_tags_and_a_flow_document() {
    let left = |source: &str| match format_source(source) {
        Formatted::LeftAlone(left) => (left.line, left.col, left.reason),
        other @ (Formatted::Unchanged | Formatted::Rewritten(_)) => panic!("{other:?}"),
    };
    let anchored =
        "zone: example.com\nrecords:\n  - &a { name: \"@\", type: A, content: \"192.0.2.1\" }\n";
    assert_eq!(left(anchored), (3, 8, Reason::Anchor));
    let aliased = "zone: example.com\nsafety: { max_deletes: &t 300 }\nrecords:\n  - { name: \"@\", type: A, content: \"192.0.2.1\", ttl: *t }\n";
    assert_eq!(left(aliased).2, Reason::Anchor);
    let tagged =
        "zone: example.com\nrecords:\n  - { name: \"@\", type: A, content: !!str 192.0.2.1 }\n";
    assert_eq!(left(tagged).2, Reason::Tag);
    let flow_document =
        "{ zone: example.com, records: [ { name: www, type: A, content: 192.0.2.1 } ] }\n";
    assert_eq!(left(flow_document), (1, 1, Reason::FlowDocument));
}

/// Every layout the loader reads comes out as the same canonical items, comments kept.
#[test]
fn every_item_layout_is_rewritten() {
    let canonical = "zone: example.com\nrecords:\n  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\" }\n  - { name: www, type: A, content: \"192.0.2.1\" }\n";
    for (layout, source) in [
        (
            "a flow list",
            "zone: example.com\nrecords: [ { name: www, type: A, content: 192.0.2.1 }, { name: \"@\", type: TXT, content: v=spf1 mx -all } ]\n",
        ),
        (
            "a flow list over lines",
            "zone: example.com\nrecords: [\n    { name: www, type: A, content: 192.0.2.1 },\n    { name: \"@\", type: TXT,\n      content: v=spf1 mx -all }\n]\n",
        ),
        (
            "`-` alone on its line",
            "zone: example.com\nrecords:\n  -\n    name: www\n    type: A\n    content: 192.0.2.1\n  -\n    name: \"@\"\n    type: TXT\n    content: v=spf1 mx -all\n",
        ),
        (
            "a folded scalar",
            "zone: example.com\nrecords:\n  - name: www\n    type: A\n    content: 192.0.2.1\n  - name: \"@\"\n    type: TXT\n    content: >-\n      v=spf1\n      mx -all\n",
        ),
        (
            "a literal scalar",
            "zone: example.com\nrecords:\n  - name: www\n    type: A\n    content: |-\n      192.0.2.1\n  - name: \"@\"\n    type: TXT\n    content: |-\n      v=spf1 mx -all\n",
        ),
        (
            "scalars over lines",
            "zone: example.com\nrecords:\n  - { name: www, type: A,\n      content: 192.0.2.1 }\n  - name: \"@\"\n    type: TXT\n    content: \"v=spf1\n      mx -all\"\n",
        ),
        (
            "an item at the key's indent",
            "zone: example.com\nrecords:\n- { name: www, type: A, content: 192.0.2.1 }\n- { name: \"@\", type: TXT, content: v=spf1 mx -all }\n",
        ),
    ] {
        let formatted = formatted(source);
        let expected = if layout == "an item at the key's indent" {
            canonical.replace("  - ", "- ")
        } else {
            canonical.to_string()
        };
        assert_eq!(formatted, expected, "{layout}");
    }
}

#[test]
fn comments_inside_an_item_go_above_it_and_one_on_its_last_line_stays() {
    let source = "zone: example.com\nrecords: # the list\n  - # www\n    name: www # the name\n    type: A\n    content: 192.0.2.1 # the address\n  - name: \"@\"\n    type: TXT\n    content: >- # folded\n      v=spf1\n      mx -all\n";
    assert_eq!(
        formatted(source),
        "zone: example.com\nrecords: # the list\n  # folded\n  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\" }\n  # www\n  # the name\n  - { name: www, type: A, content: \"192.0.2.1\" } # the address\n"
    );
    let flow = "zone: example.com\nrecords: [ # the list\n  # about www\n  { name: www, type: A, content: 192.0.2.1 }, # www's own\n  { name: \"@\", # inside\n    type: TXT, content: v=spf1 mx -all }\n  # the end\n] # closed\n";
    assert_eq!(
        formatted(flow),
        "zone: example.com\nrecords:\n  # inside\n  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\" }\n  # the list\n  # about www\n  - { name: www, type: A, content: \"192.0.2.1\" } # www's own\n  # the end\n  # closed\n"
    );
}

#[test]
fn windows_line_ends_are_kept() {
    let source = "zone: example.com\r\nrecords:\r\n  - { name: www, type: A, content: 192.0.2.1 }\r\n  - { name: \"@\", type: TXT, content: v=spf1 mx -all }\r\n";
    let text = formatted(source);
    assert_eq!(
        text,
        "zone: example.com\r\nrecords:\r\n  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\" }\r\n  - { name: www, type: A, content: \"192.0.2.1\" }\r\n"
    );
    assert_eq!(format_source(&text), Formatted::Unchanged);
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

    /// A trailing comment (with its space) now and then.
    fn maybe_comment(rng: &mut Rng, n: &mut usize, comments: &mut Vec<String>) -> String {
        if rng.below(4) == 0 {
            let c = comment(rng, n);
            comments.push(c.clone());
            format!(" {c}")
        } else {
            String::new()
        }
    }

    /// `content` over two lines at one of its single spaces, the second at `indent`, or `None`
    /// when it has none (a folded or quoted scalar reads such a break as that space).
    fn fold(rng: &mut Rng, content: &str, indent: &str) -> Option<String> {
        let b = content.as_bytes();
        let spaces: Vec<usize> = (1..b.len().saturating_sub(1))
            .filter(|&i| b[i] == b' ' && b[i - 1] != b' ' && b[i + 1] != b' ')
            .collect();
        let at = *spaces.get(rng.below(spaces.len().max(1)))?;
        Some(format!(
            "{}\n{indent}{}",
            &content[..at],
            &content[at + 1..]
        ))
    }

    /// The content as a block-style item's value, in one of the layouts YAML allows: spelled
    /// on one line, folded (`>-`) or literal (`|-`) block scalars, a double-quoted or plain
    /// scalar over two lines.
    /// The text, and whether a comment may follow it on its last line (not a block scalar's).
    fn block_content(rng: &mut Rng, content: &str) -> (String, bool) {
        const INDENT: &str = "      ";
        match rng.below(6) {
            0 => match fold(rng, content, INDENT) {
                Some(folded) => (format!(">-\n{INDENT}{folded}"), false),
                None => (format!(">-\n{INDENT}{content}"), false),
            },
            1 => (format!("|-\n{INDENT}{content}"), false),
            2 => {
                let quoted = content.replace('\\', "\\\\").replace('"', "\\\"");
                match fold(rng, &quoted, INDENT) {
                    Some(folded) => (format!("\"{folded}\""), true),
                    None => (format!("\"{quoted}\""), true),
                }
            }
            3 if !content.contains(['"', ';', ',', ':', '#']) => (
                fold(rng, content, INDENT).unwrap_or_else(|| content.to_string()),
                true,
            ),
            _ => (spell_content(rng, content), true),
        }
    }

    /// A zone file and the comments it holds: items in block style (`-` alone on its line or
    /// not, comments after the dash, inside and trailing, multi-line scalars of every style)
    /// or flow style (on one line or two), in a block list or a flow `records: [ … ]`; Windows
    /// line ends now and then.
    fn zone_file(rng: &mut Rng) -> (String, Vec<String>) {
        let mut comments = Vec::new();
        let mut n = 0;
        let mut out = String::from("zone: example.com\n");
        if rng.below(2) == 0 {
            out.push_str("defaults:\n  ttl: 600\n");
        }
        let flow_list = rng.below(5) == 0;
        out.push_str(if flow_list { "records: [" } else { "records:" });
        if rng.below(4) == 0 {
            let c = comment(rng, &mut n);
            out.push_str(&format!(" {c}"));
            comments.push(c);
        }
        out.push('\n');
        let mut order: Vec<usize> = (0..RECORDS.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let count = 1 + rng.below(RECORDS.len());
        for (k, &i) in order[..count].iter().enumerate() {
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
            // One RRset has one TTL: the two MX records keep the default.
            let ttl = match rng.below(4) {
                _ if rtype == "MX" => None,
                0 => Some("300"),
                1 => Some("0x258"),
                _ => None,
            };
            if flow_list || rng.below(2) == 0 {
                let content = spell_content(rng, content);
                let ttl = ttl.map(|t| format!(", ttl: {t}")).unwrap_or_default();
                let lead = if flow_list { "  " } else { "  - " };
                if rng.below(3) == 0 {
                    let inside = maybe_comment(rng, &mut n, &mut comments);
                    out.push_str(&format!(
                        "{lead}{{ name: {name},{inside}\n      type: {rtype}, content: {content}{ttl} }}"
                    ));
                } else {
                    out.push_str(&format!(
                        "{lead}{{ name: {name}, type: {rtype}, content: {content}{ttl} }}"
                    ));
                }
                if flow_list && k + 1 < count {
                    out.push(',');
                }
                let trailing = maybe_comment(rng, &mut n, &mut comments);
                out.push_str(&format!("{trailing}\n"));
            } else {
                let dash_alone = rng.below(3) == 0;
                let after_dash = maybe_comment(rng, &mut n, &mut comments);
                let first = if dash_alone || !after_dash.is_empty() {
                    format!("  -{after_dash}\n    ")
                } else {
                    "  - ".to_string()
                };
                let (content, may_trail) = block_content(rng, content);
                let mut keys = vec![
                    (format!("name: {name}"), true),
                    (format!("type: {rtype}"), true),
                    (format!("content: {content}"), may_trail),
                ];
                if let Some(t) = ttl {
                    keys.push((format!("ttl: {t}"), true));
                }
                for j in (1..keys.len()).rev() {
                    keys.swap(j, rng.below(j + 1));
                }
                out.push_str(&first);
                for (j, (key, may_trail)) in keys.iter().enumerate() {
                    if j > 0 {
                        out.push_str("    ");
                    }
                    // A comment can't follow a block scalar's text on its last line.
                    let trailing = if *may_trail {
                        maybe_comment(rng, &mut n, &mut comments)
                    } else {
                        String::new()
                    };
                    out.push_str(&format!("{key}{trailing}\n"));
                    if rng.below(6) == 0 {
                        let c = comment(rng, &mut n);
                        out.push_str(&format!("    {c}\n"));
                        comments.push(c);
                    }
                }
            }
        }
        if flow_list {
            out.push_str("]\n");
        }
        let c = comment(rng, &mut n);
        out.push_str(&format!("{c}\n"));
        comments.push(c);
        if rng.below(8) == 0 {
            out = out.replace('\n', "\r\n");
        }
        (out, comments)
    }

    #[test]
    fn formatting_keeps_meaning_and_comments_and_is_a_fixed_point() {
        let mut rng = Rng(0x5eed_f0f0_1234_5678);
        for round in 0..600 {
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
