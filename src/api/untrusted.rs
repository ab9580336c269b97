//! Server text on its way to a terminal or a CI log: control characters are shown escaped
//! (`\u{1b}`, `\n`), so an answer can neither drive the terminal nor start a line of its own
//! (GitHub runs a log line that starts `::` as a workflow command).

use std::borrow::Cow;

/// `text` with every control character (C0, DEL, C1) and line or paragraph separator escaped.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// At most `max` characters of `text` on one escaped line, whitespace runs folded to one
/// space, `…` when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = folded.chars().take(max).collect();
    if folded.chars().count() > max {
        out.push('…');
    }
    escape(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(escape("plain text"), "plain text");
        assert_eq!(
            escape("a\u{1b}[31mred\nb\r\t\u{7f}\u{9b}\u{2028}"),
            "a\\u{1b}[31mred\\nb\\r\\t\\u{7f}\\u{9b}\\u{2028}"
        );
        assert_eq!(
            excerpt("<p>\n  two\n\nlines \u{1b}x</p>", 100),
            "<p> two lines \\u{1b}x</p>"
        );
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
