//! The event builder against the loader's previous serde-saphyr path (`oracle`), and the limits.

use super::build::limits::*;
use super::*;

#[path = "oracle.rs"]
mod oracle;

/// The new tree equals the old one, positions included.
fn same_as_before(source: &str) {
    let new = parse_documents(source);
    let old = oracle::documents(source);
    match (&new, &old) {
        (Ok(new), Ok(old)) => assert_eq!(new, old, "{source:?}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{source:?}: new {new:?}\nold {old:?}"),
    }
}

#[test]
fn plain_scalars_are_typed_as_before() {
    let scalars = [
        "0",
        "-0",
        "+1",
        "007",
        "-007",
        "0x1F",
        "0X1f",
        "-0x10",
        "0o17",
        "0b101",
        "0b",
        "0x",
        "1_000",
        "_1",
        "1_",
        "1__0",
        "0x_1",
        "1e3",
        "1E-3",
        ".5",
        "1.",
        "-1.5",
        "+2.5e+3",
        "inf",
        "nan",
        "infinity",
        "Infinity",
        "NaN",
        "e5",
        "E1",
        "x1",
        "yes",
        "No",
        "ON",
        "off",
        "y",
        "N",
        "Yes please",
        "~",
        "null",
        "Null",
        "NULL",
        "nULL",
        "",
        "true",
        "True",
        "FALSE",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "340282366920938463463374607431768211456",
        "0.0",
        "-0.0",
        "12:30",
        "2001-12-14",
        "é",
        "1 2",
        "+",
        "-",
        "-a",
        "0xG",
        "1e",
        "300",
        "203.0.113.10",
        "2001:db8::1",
        "@",
        "*.dev",
    ];
    for s in scalars {
        let quoted = s.replace('\'', "''");
        same_as_before(&format!("k: {s}\n"));
        same_as_before(&format!("k: '{quoted}'\n"));
        same_as_before(&format!("k: \"{s}\"\n"));
        same_as_before(&format!("[{s}]\n"));
        for tag in [
            "!!str", "!", "!!int", "!!bool", "!!float", "!!null", "!local",
        ] {
            same_as_before(&format!("k: {tag} {s}\n"));
        }
    }
}

#[test]
fn trees_and_positions_are_as_before() {
    let sources = [
        "zone: example.com\nrecords:\n  - { name: \"@\", type: A, content: 203.0.113.10 }\n  - name: www\n    type: CNAME\n    content: example.com.\n    ttl: 300\n",
        "# comment\nzone: a.example # trailing\n---\n---\nsite: x\ncron:\n  - schedule: \"*/5 * * * *\"\n    command: |\n      php a.php\n      b\n  - { schedule: '0 0 * * *', command: >-\n      wp cron\n      run }\n...\n",
        "ä: ü\nlist: [1, 2.5, \"x\", 'y', ~, true]\nnested: {a: {b: [c, {d: e}]}}\nempty_map: {}\nempty_list: []\nnull_value:\n",
        "- a\n- - b\n  - c\n- k: v\n  j: w\n",
        "a: &x 1\nb: *x\nc: &m {p: 1, q: [2, 3]}\nd: *m\n",
        "base: &b {ttl: 300, type: A}\nrec:\n  <<: *b\n  name: www\n  ttl: 60\nmulti:\n  <<: [*b, {content: x}]\n",
        "? complex key\n: value\n? [a, b]\n: list key\n1: int key\n\"1\": str key\n",
        "---\n...\n---\nnull\n---\n~\n---\nzone: z.example\n",
        "\u{feff}zone: bom.example\n",
        "k: \"tab\\there \\u00e9\"\nl: 'it''s'\nm: plain text\n  continued\n",
        "%YAML 1.2\n---\nzone: directive.example\n",
        "zone: example.com\nrecords: [\n  - a: b\n",
        "zone: example.com\nzone: example.org\n",
        "a: [1, 2\nb: c\n",
        "a: *nope\n",
        "a: b: c\n",
        "key: 'unterminated\n",
    ];
    for source in sources {
        same_as_before(source);
    }
}

#[test]
fn the_example_files_parse_as_before() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dns");
    for name in [
        "zones/example.com.yaml",
        "zones/example.org.yaml",
        "sites/blog.yaml",
        "sites/shop.yaml",
    ] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        same_as_before(&text);
    }
}

#[test]
fn duplicate_keys_are_refused_at_the_second() {
    let err = parse_documents("zone: a\nzone: b\n").unwrap_err();
    assert_eq!(
        err.message,
        "the key `zone` appears twice in the same mapping"
    );
    assert_eq!(err.pos.map(|p| (p.line, p.col)), Some((2, 1)));
    // Past the linear scan, the index finds it too.
    let long: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
    let err = parse_documents(&format!("{long}k7: again\n")).unwrap_err();
    assert_eq!(
        err.message,
        "the key `k7` appears twice in the same mapping"
    );
    assert_eq!(err.pos.map(|p| (p.line, p.col)), Some((41, 1)));
    // A key a merge brings in is overridden, not duplicated.
    assert!(parse_documents("b: &b {k: 1}\nm: {<<: *b, k: 2}\n").is_ok());
}

#[test]
fn non_finite_floats_are_numbers_not_syntax_errors() {
    // serde-saphyr refused these for the whole file; now the value is located and the loader
    // says "found the number `inf`" where it expects something else.
    let docs = parse_documents("a: .inf\nb: -.Inf\nc: 1e999\n").unwrap();
    let Value::Map(entries) = &docs[0].value else {
        panic!()
    };
    let kinds: Vec<String> = entries.iter().map(|(_, v)| v.value.kind()).collect();
    assert_eq!(
        kinds,
        ["the number `inf`", "the number `-inf`", "the number `inf`"]
    );
}

fn limit_error(source: &str) -> (String, (usize, usize)) {
    let err = parse_documents(source).unwrap_err();
    (
        err.message,
        err.pos
            .map(|p| (p.line as usize, p.col as usize))
            .unwrap_or_default(),
    )
}

#[test]
fn a_billion_laughs_stops_at_the_alias_budget() {
    let mut src = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        src.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let (message, at) = limit_error(&src);
    assert_eq!(
        message,
        format!("aliases expand to more than {MAX_ALIAS_NODES} nodes")
    );
    assert_eq!(at.0, 6, "{message}");
    // Expanding the same anchors a few times is fine.
    assert!(parse_documents("a: &a [1, 2]\nb: [*a, *a, *a]\n").is_ok());
}

#[test]
fn nesting_beyond_the_depth_limit_is_refused() {
    let ok = format!("{}{}\n", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(parse_documents(&ok).is_ok());
    let deep = format!(
        "{}{}\n",
        "[".repeat(MAX_DEPTH + 1),
        "]".repeat(MAX_DEPTH + 1)
    );
    let (message, at) = limit_error(&deep);
    assert_eq!(
        message,
        format!("lists and mappings are nested more than {MAX_DEPTH} deep")
    );
    assert_eq!(at, (1, MAX_DEPTH + 1));
    // An alias counts the depth it brings.
    let half = MAX_DEPTH / 2 + 1;
    let src = format!(
        "a: &a {}{}\nb: {}*a{}\n",
        "[".repeat(half),
        "]".repeat(half),
        "[".repeat(half),
        "]".repeat(half)
    );
    let (message, at) = limit_error(&src);
    assert_eq!(
        message,
        format!("the alias `*a` nests lists and mappings more than {MAX_DEPTH} deep")
    );
    assert_eq!(at, (2, 4 + half));
}

#[test]
fn recursive_aliases_and_unknown_anchors_are_refused() {
    let (message, at) = limit_error("a: &a [1, *a]\n");
    assert_eq!(
        message,
        "the alias `*a` refers to a node that contains it (a recursive alias)"
    );
    assert_eq!(at, (1, 11));
    assert!(parse_documents("a: *missing\n").is_err());
}

#[test]
fn too_many_aliases_documents_and_anchors_are_refused() {
    let many_aliases = format!("a: &a 1\nb: [{}]\n", vec!["*a"; MAX_ALIASES + 1].join(", "));
    assert_eq!(
        limit_error(&many_aliases).0,
        format!("the file uses more than {MAX_ALIASES} aliases")
    );
    let many_docs = "---\na: 1\n".repeat(MAX_DOCUMENTS + 1);
    assert_eq!(
        limit_error(&many_docs).0,
        format!("the file has more than {MAX_DOCUMENTS} documents")
    );
    let anchors: Vec<String> = (0..=MAX_ANCHORS).map(|i| format!("&x{i} {i}")).collect();
    let many_anchors = format!("[{}]\n", anchors.join(", "));
    assert_eq!(
        limit_error(&many_anchors).0,
        format!("the file defines more than {MAX_ANCHORS} anchors")
    );
}

#[test]
fn documents_beyond_the_parsers_default_node_budget_are_read() {
    // 300,001 nodes: over serde-saphyr's default of 250,000 (a zone of ~35,000 records).
    let src = format!("records: [{}]\n", vec!["1"; 300_000].join(","));
    let docs = parse_documents(&src).unwrap();
    let Value::Map(entries) = &docs[0].value else {
        panic!("not a map")
    };
    assert!(matches!(&entries[0].1.value, Value::Seq(items) if items.len() == 300_000));
}

#[test]
fn nodes_carry_line_col_and_byte_span() {
    let src = "zone: example.com\nrecords:\n  - { name: \"@\", ttl: 300 }\n---\nsite: x\n";
    let docs = parse_documents(src).unwrap();
    assert_eq!(docs.len(), 2);
    let Value::Map(zone) = &docs[0].value else {
        panic!()
    };
    let Value::Seq(records) = &zone[1].1.value else {
        panic!()
    };
    let Value::Map(record) = &records[0].value else {
        panic!()
    };
    let (_, name) = &record[0];
    assert_eq!((name.pos.line, name.pos.col), (3, 13));
    assert_eq!(
        &src[name.pos.span().0..name.pos.span().0 + name.pos.span().1],
        "\"@\""
    );
    assert_eq!(record[1].1.value, Value::Int(300));
}

#[test]
fn syntax_errors_are_located() {
    let err = parse_documents("a: [1, 2\nb: c\n").unwrap_err();
    assert!(err.pos.is_some(), "{err:?}");
}

#[test]
fn byte_offsets_count_characters_per_line() {
    let src = "ä: 1\nb: ü\n";
    assert_eq!(byte_offset(src, 2, 4), "ä: 1\nb: ".len());
}

/// A 100,000-record zone has about 700,000 nodes: their size is most of the loader's peak memory.
#[cfg(target_pointer_width = "64")]
#[test]
fn a_node_stays_48_bytes() {
    assert_eq!(std::mem::size_of::<Pos>(), 16);
    assert_eq!(std::mem::size_of::<Node<'_>>(), 48);
}

#[test]
fn only_a_documents_own_unanchored_list_under_the_key_is_streamed() {
    let src = "a: 1\nrecords: [x, q]\n---\nother: { records: [z] }\n---\nrecords: &l [w]\n---\n\
               records: [v]\n";
    let mut streamed = Vec::new();
    let docs = super::documents_streaming(src, "records", &mut |doc, node| {
        if let Value::Str(s) = node.value {
            streamed.push((doc, s.into_owned()));
        }
    })
    .unwrap();
    let at = |doc: usize, s: &str| (doc, s.to_string());
    assert_eq!(streamed, [at(0, "x"), at(0, "q"), at(3, "v")]);
    // The streamed lists stay in the tree, empty; the others are whole.
    fn list<'s>(doc: &Node<'s>, key: &str) -> Option<Value<'s>> {
        let Value::Map(entries) = &doc.value else {
            return None;
        };
        entries
            .iter()
            .find(|(k, _)| k.value == Value::Str(key.into()))
            .map(|(_, v)| v.value.clone())
    }
    assert_eq!(list(&docs[0], "records"), Some(Value::Seq(Vec::new())));
    assert!(matches!(list(&docs[1], "other"), Some(Value::Map(m)) if m.len() == 1));
    assert!(matches!(list(&docs[2], "records"), Some(Value::Seq(items)) if items.len() == 1));
    assert_eq!(list(&docs[3], "records"), Some(Value::Seq(Vec::new())));
}

#[test]
fn comments_and_constructs_are_kept_only_when_asked() {
    let source = "# above\nzone: x # beside\nttl: &t 300\ncopy: *t\nhosts: [a, b]\nn: !!str 1\n";
    let (docs, presentation) = super::documents_presented(source).unwrap();
    assert_eq!(docs, parse_documents(source).unwrap());
    let comments: Vec<(&str, bool)> = presentation
        .comments
        .iter()
        .map(|c| {
            (
                &source[c.pos.offset as usize..(c.pos.offset + c.pos.len) as usize],
                c.trailing,
            )
        })
        .collect();
    assert_eq!(comments, [("# above", false), ("# beside", true)]);
    let constructs: Vec<(Construct, u32)> = presentation
        .constructs
        .iter()
        .map(|(c, pos)| (*c, pos.line))
        .collect();
    assert_eq!(
        constructs,
        [
            (Construct::Anchor, 3),
            (Construct::Alias, 4),
            (Construct::Tag, 6)
        ]
    );
    let flow = source.find('[').unwrap() as u32;
    assert_eq!(
        presentation.flow_end(flow),
        Some(source.find(']').unwrap() as u32 + 1)
    );
}

#[test]
fn each_tag_is_kept_as_written_at_its_node() {
    let source = "a: !include other.yaml\nb: !!str 1\nc: plain\n";
    let (_, presentation) = super::documents_presented(source).unwrap();
    let mut tags: Vec<(&str, &str)> = presentation
        .tags
        .iter()
        .map(|(offset, tag)| (&source[*offset as usize..], tag.as_str()))
        .collect();
    tags.sort();
    assert_eq!(
        tags,
        [
            ("1\nc: plain\n", "tag:yaml.org,2002:str"),
            ("other.yaml\nb: !!str 1\nc: plain\n", "!include"),
        ]
    );
}
