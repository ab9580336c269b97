//! The one writer of a record item and its scalars, shared by `import` (which writes files from
//! the live account) and `fmt` (which rewrites files people wrote), so that what `import` writes
//! is already in `fmt`'s form.
//!
//! Scalars are plain (unquoted) only for a conservative set that can't be taken for anything but
//! a string (`www`, `_dmarc`, `TXT`); everything else is double-quoted on one line with YAML
//! escapes, so no content, however odd (quotes, backslashes, `#`, control characters), can
//! change the document's structure or lose a character.

use std::fmt::Write as _;

use crate::dns::RecordType;

/// Records whose quoted content is longer are written in block style, one key per line.
const FLOW_CONTENT_MAX: usize = 80;

/// One record item as the files write it: `content` is the text to quote (wire form in a zone,
/// the set's own text in a record set).
pub(crate) struct RecordItem<'a> {
    pub name: &'a str,
    pub rtype: RecordType,
    pub content: &'a str,
    pub ttl: Option<u32>,
    pub override_sets: Option<bool>,
}

/// `item` as a list item at `indent`, ending with a line break; `trailing` (a comment's source
/// text, from its `#`) stays at the end of the item's last line.
pub(crate) fn record_item(
    out: &mut String,
    indent: &str,
    item: &RecordItem,
    trailing: Option<&str>,
) {
    let content = quoted(item.content);
    let name = scalar(item.name);
    let rtype = item.rtype;
    if content.chars().count() <= FLOW_CONTENT_MAX {
        let _ = write!(
            out,
            "{indent}- {{ name: {name}, type: {rtype}, content: {content}"
        );
        if let Some(t) = item.ttl {
            let _ = write!(out, ", ttl: {t}");
        }
        if let Some(o) = item.override_sets {
            let _ = write!(out, ", override: {o}");
        }
        out.push_str(" }");
    } else {
        let _ = write!(
            out,
            "{indent}- name: {name}\n{indent}  type: {rtype}\n{indent}  content: {content}"
        );
        if let Some(t) = item.ttl {
            let _ = write!(out, "\n{indent}  ttl: {t}");
        }
        if let Some(o) = item.override_sets {
            let _ = write!(out, "\n{indent}  override: {o}");
        }
    }
    if let Some(comment) = trailing {
        out.push(' ');
        out.push_str(comment);
    }
    out.push('\n');
}

/// `text` as a YAML scalar: plain when unambiguous, else double-quoted.
pub(crate) fn scalar(text: &str) -> String {
    if is_plain_safe(text) {
        text.to_string()
    } else {
        quoted(text)
    }
}

/// `text` double-quoted, escaped so it stays on one line.
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Control characters (C0, DEL, C1), line and paragraph separators and the BOM: YAML either
/// forbids them in a scalar or folds them as line breaks.
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// Words YAML 1.1 or 1.2 resolve to booleans or null when written plain.
const RESERVED: [&str; 11] = [
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf",
];

fn is_plain_safe(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && !RESERVED.contains(&text.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_only_when_unambiguous() {
        for plain in [
            "www",
            "_dmarc",
            "_sip._tcp",
            "default._domainkey",
            "TXT",
            "mail2",
        ] {
            assert_eq!(scalar(plain), plain);
        }
        for quoted in [
            "@",
            "*",
            "",
            "true",
            "No",
            "null",
            "1",
            "0x10",
            "2001:db8::1",
            "a b",
            "#x",
            "a,b",
            "203.0.113.1",
            "-x",
            ".inf",
        ] {
            assert!(scalar(quoted).starts_with('"'), "{quoted}");
        }
    }

    #[test]
    fn escapes_keep_one_line() {
        assert_eq!(quoted("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quoted("l1\nl2\tx\u{7}"), r#""l1\nl2\tx\u0007""#);
        assert_eq!(quoted("grüße ✓"), "\"grüße ✓\"");
    }

    fn item(content: &str, ttl: Option<u32>, override_sets: Option<bool>) -> String {
        let mut out = String::new();
        let item = RecordItem {
            name: "@",
            rtype: RecordType::TXT,
            content,
            ttl,
            override_sets,
        };
        record_item(&mut out, "  ", &item, Some("# why"));
        out
    }

    #[test]
    fn short_items_on_one_line_long_ones_one_key_a_line() {
        assert_eq!(
            item("x", Some(300), Some(true)),
            "  - { name: \"@\", type: TXT, content: \"x\", ttl: 300, override: true } # why\n"
        );
        assert_eq!(
            item("x", None, None),
            "  - { name: \"@\", type: TXT, content: \"x\" } # why\n"
        );
        let long = "a".repeat(FLOW_CONTENT_MAX);
        assert_eq!(
            item(&long, Some(60), None),
            format!("  - name: \"@\"\n    type: TXT\n    content: \"{long}\"\n    ttl: 60 # why\n")
        );
    }
}
