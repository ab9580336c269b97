//! The record-line scanner against the parser alone: for every document, the tree, the items the
//! sink keeps and the error (message and position) are identical with the scanner on and off.

use super::fast::{OFF, READS};
use super::*;

/// What reading `source` gives: the documents or the error, and the items the sink keeps.
type Reading = (
    Result<Vec<Node<'static>>, SyntaxError>,
    Vec<(usize, Node<'static>)>,
);

fn read(source: &str, scanner: bool) -> Reading {
    OFF.set(!scanner);
    let mut items = Vec::new();
    let docs = documents_streaming(source, "records", &mut |diverted| match diverted {
        Diverted::Item(doc, node) => items.push((doc, owned(node))),
        Diverted::Restart => items.clear(),
    });
    OFF.set(false);
    (docs.map(|d| d.into_iter().map(owned).collect()), items)
}

fn owned(node: Node<'_>) -> Node<'static> {
    let value = match node.value {
        Value::Null => Value::Null,
        Value::Bool(b) => Value::Bool(b),
        Value::Int(i) => Value::Int(i),
        Value::Float(f) => Value::Float(f),
        Value::Str(s) => Value::Str(s.into_owned().into()),
        Value::Seq(items) => Value::Seq(items.into_iter().map(owned).collect()),
        Value::Map(entries) => Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| (owned(k), owned(v)))
                .collect(),
        ),
    };
    Node {
        value,
        pos: node.pos,
    }
}

/// The same reading with the scanner on and off; whether the scanner read the file to the end.
fn same_with_scanner(source: &str) -> bool {
    let before = READS.get();
    let fast = read(source, true);
    let scanned = READS.get() > before;
    let slow = read(source, false);
    // NaN is not equal to itself: compare the printed forms, which show every value and position.
    let (fast, slow) = (format!("{fast:?}"), format!("{slow:?}"));
    if fast != slow {
        let at = fast
            .bytes()
            .zip(slow.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let from = at.saturating_sub(200);
        panic!(
            "{source:?}\nscanner: …{}\nparser:  …{}",
            &fast[from..(at + 200).min(fast.len())],
            &slow[from..(at + 200).min(slow.len())]
        );
    }
    scanned
}

/// Lines the scanner reads.
const ACCEPTED: &[&str] = &[
    "- { name: www, type: A, content: \"203.0.113.10\", ttl: 300 }",
    "- {name: '@', type: CNAME, content: example.com.}",
    "- { name: n1, type: TXT, content: \"v=spf1 include:_spf.example.net ~all\" }   # comment",
    "- { name: mail, type: MX, content: mx.example.com., priority: 10 }",
    "- { name: v6, type: AAAA, content: 2001:db8::1 }",
    "- { name: \"é\", type: TXT, content: \"naïve café ☕\" }",
    "- { content: 'it is', ttl: 1e3, a: -1, b: .inf, c: 0x1F, d: yes, e: ~, f: null, g: 007 }",
    "- { name: two words, type: a b c, x:y: z, http://h/p: +1.5 }",
    "- { name: www, type: A, content: 300.1.1.1 }",
    "- { name: www, type: BOGUS, content: x }",
    "- { name: a, name: b }",
    "- { 1: a, 0x1: b }",
    "- {}",
    "- { a: \"\", b: '' }",
    "- {  a:   b  ,  c: d  }",
    "- { name: _dmarc, type: TXT, content: \"v=DMARC1; p=none\" }",
];

/// Lines the scanner leaves to the parser (some are not even valid YAML).
const REFUSED: &[&str] = &[
    "- name: www",
    "- { name: \"a\\tb\" }",
    "- { name: 'it''s' }",
    "- { name: &a www }",
    "- { name: *a }",
    "- { name: !!str www }",
    "- { ? name : www }",
    "- { <<: {a: b} }",
    "- { name: [a, b] }",
    "- { name: {a: b} }",
    "- { name: www, }",
    "- { name: }",
    "- { name }",
    "- { name: www }#c",
    "- { name: www } x",
    "- { name:\twww }",
    "- { name: www",
    "- { name: www }}",
    "- { name: \"a\" b }",
    "- { name: @x }",
    "- { name: a # b }",
    "- [a, b]",
    "- plain",
    "-",
    "- { name: a::, b: c }",
    "- { name: a:, b: c }",
    "- { a: b,c: d }",
    "- {a: b} # c\t",
];

/// What may follow an item line.
const AFTER: &[&str] = &["", "\n", "# comment\n", "    # deeper comment\n", "   \n"];

#[test]
fn hand_written_documents_read_the_same() {
    // Each document, and whether the scanner reads it to the end or gives up (then the
    // parser reads it alone).
    let sources = [
        // Every line accepted, the list's value then nothing to the parser.
        (
            "zone: z\nrecords:\n  - { name: a, type: A, content: \"1.2.3.4\" }\n  - { name: b }\n",
            true,
        ),
        (
            "zone: z\nrecords: # the records\n- { name: a }\n\n- { name: b }\nnext: 1\n",
            true,
        ),
        // Mixed with block items and nested block collections ending before a line.
        (
            "records:\n  - name: x\n    type: A\n    list:\n      - a\n      - b: c\n  - { name: y }\n  - z\n",
            true,
        ),
        (
            "records:\n  - { name: y }\n  - name: x\n    text: |\n      abc\n  - { name: z }\n",
            true,
        ),
        ("records:\n  - |+\n    keep\n\n  - { name: z }\n", true),
        (
            "records:\n  - >\n    folded\n  - { name: z }\n  - \"x\"\n",
            true,
        ),
        // A scalar or a collection across an item line.
        ("records:\n  - \"abc\n  - { name: x }\n    def\"\n", false),
        ("records:\n  - 'abc\n  - { name: x }\n    def'\n", false),
        ("records:\n  - [a,\n  - { name: x }\n  ]\n", false),
        (
            "records:\n  - { a: b,\n  - { name: x }\n    c: d }\n",
            false,
        ),
        ("records:\n- plain\n  - { name: x }\n", false),
        ("records:\n  - { name: x }\n    deeper: 1\n", false),
        ("records:\n  - { name: x }\n  foo: 1\n", false),
        ("records:\n  - { name: x }\n- y\n", false),
        ("records:\n    - a\n  - { name: x }\n", false),
        // `records` not at the top level, or not a real key.
        ("text: |\n  records:\n  - { name: x }\n", false),
        ("text: \"\nrecords:\n  - { name: x }\n\"\n", false),
        ("zone:\n  records:\n  - { name: x }\n", false),
        ("- a\nrecords:\n  - { name: x }\n", false),
        ("[a,\nrecords:\n  - { name: x }\n]\n", false),
        ("records: &r\n  - { name: x }\nother: *r\n", false),
        ("records: []\n  - { name: x }\n", false),
        ("records:\nrecords:\n  - { name: x }\n", false),
        ("\"records\":\n  - { name: x }\n", false),
        // Documents.
        (
            "---\nrecords:\n  - { name: a }\n---\nrecords:\n  - { name: b }\n...\n---\nx: 1\n",
            true,
        ),
        (
            "a: 1\n---\n---\nrecords:\n  - { name: a }\n--- # c\nrecords:\n- { name: b }\n",
            true,
        ),
        ("records:\n  - { name: a }\n---\n  - { name: b }\n", true),
        // Anchors elsewhere; comments; CRLF; non-ASCII before.
        (
            "base: &b {ttl: 300}\nrecords:\n  - { name: a }\n  - <<: *b\n    name: c\n  - *b\n",
            true,
        ),
        (
            "zone: z\r\nrecords:\r\n  - { name: a }\r\n  - { name: b }   # c\r\nnext: 1\r\n",
            true,
        ),
        ("zone: z\rrecords:\n  - { name: a }\n", false),
        ("\u{feff}zone: z\nrecords:\n  - { name: a }\n", true),
        ("zone: \u{feff}z\nrecords:\n  - { name: a }\n", false),
        (
            "é: ü\nnote: \"naïve\"\nrecords:\n  - { name: \"ö\", c: d }\n  - { name: e }\n",
            true,
        ),
        // Errors after, before and inside the list.
        (
            "records:\n  - { name: a }\n  - { name: a: b }\nx: [\n",
            false,
        ),
        ("x: [\nrecords:\n  - { name: a }\n", false),
        ("records:\n  - { name: a, name: a }\n", false),
        ("records:\n  - { name: a }\n  - *missing\n", false),
        ("records:\n  - { name: a }\n\tx: 1\n", false),
        (
            "records:\n  - { name: a }\nrecords:\n  - { name: b }\n",
            false,
        ),
        ("records:\n  - { name: a }\n", true),
        ("records:\n  - { name: a }", true),
        ("records:\n  - { name: a }\r\n", true),
    ];
    for (source, scanned) in sources {
        assert_eq!(same_with_scanner(source), scanned, "{source:?}");
    }
}

#[test]
fn the_common_zone_is_read_by_the_scanner() {
    let zone = "zone: z\nrecords:\n  - { name: a, type: A, content: \"1.2.3.4\" }\n\
                # a comment\n  - name: b\n    type: A\n  - { name: c }\nnext: 1\n";
    assert!(same_with_scanner(zone));
    assert!(same_with_scanner(
        "records:\n- { name: a }\n---\nrecords:\n  - { name: b }\n"
    ));
}

/// A small deterministic generator (xorshift), so every run tries the same documents.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).unwrap_or(0)
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

#[test]
fn generated_documents_read_the_same() {
    let heads = [
        "",
        "zone: z\n",
        "# c\nzone: 'é'\n",
        "a: &x 1\nb: *x\n",
        "---\n",
    ];
    let keys = [
        "records:\n",
        "records: # c\n",
        "records:   \n",
        "records: \n\n",
    ];
    let tails = [
        "",
        "next: 1\n",
        "---\nrecords:\n  - { a: b }\n",
        "...\n",
        "  - tail\n",
        "# end\n",
        " odd: 1\n",
        "   - deeper\n",
        "\tx: 1\n",
        "records:\n- { dup: key }\n",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut scanned = 0;
    for _ in 0..6000 {
        let indent = ["", "  ", "    "][rng.below(3)];
        let mut source = format!("{}{}", rng.pick(&heads), rng.pick(&keys));
        for _ in 0..1 + rng.below(5) {
            let line = if rng.below(3) == 0 {
                rng.pick(REFUSED)
            } else {
                rng.pick(ACCEPTED)
            };
            // Now and then a line out of step with the others.
            let indent = [indent, indent, indent, indent, indent, " ", "      "][rng.below(7)];
            source.push_str(&format!("{indent}{line}\n{}", rng.pick(AFTER)));
        }
        source.push_str(rng.pick(&tails));
        if rng.below(8) == 0 {
            source = source.replace('\n', "\r\n");
        }
        scanned += usize::from(same_with_scanner(&source));
    }
    // Most documents are read by the scanner, not given up.
    assert!(scanned > 600, "{scanned}");
}

#[test]
fn scanned_lines_are_charged_to_the_limits() {
    use super::build::limits::MAX_SCALAR_BYTES;
    // The scalar bytes limit reached inside a scanned line stops there, as without the scanner.
    let big = "x".repeat(MAX_SCALAR_BYTES / 2);
    let source = format!("records:\n  - {{ a: \"{big}\" }}\n  - {{ b: \"{big}\" }}\n");
    let (docs, _) = read(&source, true);
    let err = docs.expect_err("over the limit");
    assert_eq!(
        err.message,
        format!("the file has more than {MAX_SCALAR_BYTES} bytes of text (aliases expanded)")
    );
    assert_eq!(err.pos.map(|p| (p.line, p.col)), Some((3, 10)));
    assert!(same_with_scanner(&source.replace(&big, "x")));
}

/// What the loader makes of `text` as one file: the desired state or every diagnostic, rendered
/// with its `file:line:col`.
fn load(text: &str, scanner: bool) -> String {
    OFF.set(!scanner);
    let files = [(std::path::PathBuf::from("zones/z.yaml"), text.to_string())];
    let loaded = crate::config::load::load_texts(&files);
    OFF.set(false);
    match loaded {
        Ok(desired) => format!("{desired:?}"),
        Err(diags) => diags.to_string(),
    }
}

#[test]
fn the_loaders_findings_are_the_same() {
    let zones = [
        // Wrong values inside scanned lines: a bad address, an unknown type, a duplicate record.
        "zone: example.com\nrecords:\n  - { name: www, type: A, content: \"300.1.1.1\" }\n  \
         - { name: x, type: BOGUS, content: y }\n  - { name: \"é\", type: A, content: 1.2.3.4 }\n  \
         - { name: d, type: A, content: \"192.0.2.1\" }\n  - { name: d, type: A, content: \"192.0.2.1\" }\n",
        // A duplicate key in a scanned line; an unknown key; mixed with block items.
        "zone: example.com\nrecords:\n  - { name: a, name: b }\n  - name: c\n    type: A\n    \
         content: 192.0.2.2\n  - { name: e, type: A, content: 192.0.2.3, colour: red }\n",
        // A syntax error after scanned lines.
        "zone: example.com\nrecords:\n  - { name: a, type: A, content: 192.0.2.1 }\nnext: [\n",
        // Valid, CRLF, comments, two documents.
        "zone: example.com\r\nrecords: # all\r\n  - { name: a, type: A, content: 192.0.2.1, ttl: 300 }\
         \r\n  # between\r\n  - { name: a, type: TXT, content: \"v=spf1 -all\" }   # spf\r\n---\r\n\
         zone: example.net\r\nrecords:\r\n- { name: \"@\", type: MX, content: mx.example.net., priority: 10 }\r\n",
    ];
    let mut scanned = Vec::new();
    for zone in zones {
        let before = READS.get();
        let fast = load(zone, true);
        scanned.push(READS.get() > before);
        assert_eq!(fast, load(zone, false), "{zone:?}");
    }
    // A duplicate key or a syntax error gives the scanner's reading up: the parser's message.
    assert_eq!(scanned, [true, false, false, true]);
}
