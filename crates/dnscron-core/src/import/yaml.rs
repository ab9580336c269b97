//! Scalars written so that the loader reads back exactly the same string.
//!
//! Plain (unquoted) only for a conservative set that can't be taken for anything but a string
//! (`www`, `_dmarc`, `TXT`); everything else is double-quoted on one line with YAML escapes, so
//! no content, however odd (quotes, backslashes, `#`, control characters), can change the
//! document's structure or lose a character.

/// `text` as a YAML scalar: plain when unambiguous, else double-quoted.
pub(super) fn scalar(text: &str) -> String {
    if is_plain_safe(text) {
        text.to_string()
    } else {
        quoted(text)
    }
}

/// `text` double-quoted, escaped so it stays on one line.
pub(super) fn quoted(text: &str) -> String {
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
fn needs_escape(c: char) -> bool {
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

/// Server text shown inside a `#` comment: control characters escaped, so a line break in it
/// can't end the comment and inject YAML.
pub(super) fn comment_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
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
        assert_eq!(comment_text("x\ny \"q\""), "x\\ny \"q\"");
    }
}
