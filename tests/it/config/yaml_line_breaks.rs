//! YAML 1.2 line breaks: only LF and CR (and CR LF) end a line. NEL (U+0085), LINE SEPARATOR
//! (U+2028) and PARAGRAPH SEPARATOR (U+2029), line breaks in YAML 1.1 (PyYAML, libyaml's
//! 1.1 mode), are ordinary characters: inside a scalar they are part of its value, inside a
//! comment they don't end it, and they never move a later line number (docs/file-format.md).

use super::{ok, one_error, zone_with};

const NEL: char = '\u{85}';
const LS: char = '\u{2028}';
const PS: char = '\u{2029}';

/// Every scalar style keeps the three characters as they are: nothing folded, split or dropped.
#[test]
fn nel_and_line_separators_inside_scalars_are_characters_not_line_breaks() {
    let yaml = format!(
        "zone: example.com\nrecords:\n  \
         - {{ name: dq, type: TXT, content: \"a{NEL}b{LS}c{PS}d\" }}\n  \
         - {{ name: sq, type: TXT, content: 'a{NEL}b{LS}c{PS}d' }}\n  \
         - {{ name: plain, type: TXT, content: a{NEL}b{LS}c{PS}d }}\n  \
         - name: folded\n    type: TXT\n    content: >-\n      a{NEL}b{LS}c{PS}d\n  \
         - name: literal\n    type: TXT\n    content: |-\n      a{NEL}b{LS}c{PS}d\n"
    );
    let desired = ok(&yaml);
    let read: Vec<(&str, &str, usize)> = desired.zones[0]
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.content.as_str(), r.location.line))
        .collect();
    let value = format!("a{NEL}b{LS}c{PS}d");
    assert_eq!(
        read,
        [
            ("dq", value.as_str(), 3),
            ("sq", value.as_str(), 4),
            ("plain", value.as_str(), 5),
            ("folded", value.as_str(), 6),
            ("literal", value.as_str(), 10),
        ]
    );
}

/// The contrast that shows the rule is the loader's and not chance: a real line break in the
/// same places is folded to a space (flow scalars, `>`) or kept as LF (`|`), as YAML says.
#[test]
fn a_real_line_break_in_the_same_scalars_is_folded_or_kept_as_yaml_says() {
    let yaml = "zone: example.com\nrecords:\n  \
        - { name: dq, type: TXT, content: \"a\n    b\" }\n  \
        - { name: plain, type: TXT, content: a\n    b }\n  \
        - name: literal\n    type: TXT\n    content: |-\n      a\n      b\n";
    let desired = ok(yaml);
    let read: Vec<(&str, &str)> = desired.zones[0]
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.content.as_str()))
        .collect();
    assert_eq!(read, [("dq", "a b"), ("plain", "a b"), ("literal", "a\nb")]);
}

/// A comment runs to the real end of its line: a YAML 1.1 reader would end it at U+2028 and
/// read `ttl: 60` as a key; here the record keeps the default TTL.
#[test]
fn a_line_separator_inside_a_comment_does_not_end_it() {
    for sep in [NEL, LS, PS] {
        let yaml = format!(
            "zone: example.com\nrecords:\n  - name: www # note{sep}ttl: 60\n    type: A\n    content: 192.0.2.1\n"
        );
        let desired = ok(&yaml);
        let record = &desired.zones[0].records[0];
        assert_eq!((record.ttl, record.location.line), (3600, 3), "{sep:?}");
    }
}

/// Problems after such a character are located on their real line, counted by LF only.
#[test]
fn a_problem_after_a_line_separator_is_located_on_its_real_line() {
    let yaml = zone_with(&[
        &format!("{{ name: a, type: TXT, content: \"x{NEL}y{LS}z\" }}"),
        "{ name: b, type: A, content: 300.0.0.1 }",
    ]);
    one_error(
        &yaml,
        "4:34",
        "invalid A content: `300.0.0.1` is not an IPv4 address \
         [hint: write four decimal numbers 0–255 separated by dots, e.g. `203.0.113.10`]",
    );
}
