//! Text that came from the network (an error message, a record's content, a slug, a request
//! id), made safe to print. The client and every stage of the core use this module; it uses none.
//!
//! A server, a proxy in front of it or a record someone else wrote can put anything in a string.
//! Printed raw, an escape sequence rewrites the terminal, a bidi override makes the text read
//! differently than it is, and a line break fakes a line of our own output: on GitHub Actions a
//! line starting `::warning …::` (or the older `##[warning]`) is executed as a workflow
//! command, on stdout and stderr alike. So every server string is printed through [`escape`]:
//!
//! - C0 controls (line breaks and tabs included), DEL, C1 controls, the bidi controls
//!   (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) and the Unicode line and paragraph
//!   separators become `\u{hex}`, so the text stays on one line and reads as it is;
//! - text shaped like a workflow command at its start gets its first character escaped the same
//!   way, so even where a format puts server text first on a line, no runner executes it.
//!   (An IPv6 address has one `::` at most, so `::1` is left as it is.)
//!
//! JSON output keeps its own escaping, finished by [`json_text`]: serde_json escapes C0
//! controls but writes DEL, C1 and bidi controls raw, so those become `\uXXXX` as well.

use std::borrow::Cow;
use std::fmt;

/// Whether `c` must not reach a terminal or a log as it is.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `\u{1b}` for ESC: visible, and unambiguous about which character it was.
pub fn escape_char(c: char) -> String {
    format!("\\u{{{:x}}}", u32::from(c))
}

/// `text` with every unsafe character escaped and no workflow-command shape at its start.
pub fn escape(text: &str) -> Cow<'_, str> {
    let command_shaped = looks_like_command(text);
    if !command_shaped && !text.chars().any(is_unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars();
    if command_shaped {
        // The first non-blank character is `:` or `#`; escaping it breaks the shape.
        for c in chars.by_ref() {
            if c == ':' || c == '#' {
                out.push_str(&escape_char(c));
                break;
            }
            push_safe(&mut out, c);
        }
    }
    chars.for_each(|c| push_safe(&mut out, c));
    Cow::Owned(out)
}

fn push_safe(out: &mut String, c: char) {
    if is_unsafe_char(c) {
        out.push_str(&escape_char(c));
    } else {
        out.push(c);
    }
}

/// `::name …::message` (GitHub's runner trims the line first) or the older `##[name]`.
fn looks_like_command(text: &str) -> bool {
    let line = text.trim_start();
    match line.strip_prefix("::") {
        Some(rest) => rest.contains("::"),
        None => line.starts_with("##["),
    }
}

/// `text` escaped line by line: its line breaks kept, every other unsafe character escaped, no
/// line shaped like a workflow command, and none starting (after its indentation) with `#`, `|`
/// or `>`, so no line passes for a Markdown heading, table row or quote of our own. For text
/// whose line breaks are ours (a finding's detail: a sentence, then the SPF lookup tree), which
/// may still come from a file someone else wrote (a plan file under review).
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return escape_line(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(escape_line).collect();
    if lines.iter().all(|l| matches!(l, Cow::Borrowed(_))) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(lines.join("\n"))
}

fn escape_line(line: &str) -> Cow<'_, str> {
    let body = line.trim_start_matches(' ');
    match body.chars().next() {
        Some(c @ ('#' | '|' | '>')) => {
            let indent = &line[..line.len() - body.len()];
            Cow::Owned(format!(
                "{indent}{}{}",
                escape_char(c),
                escape(&body[c.len_utf8()..])
            ))
        }
        _ => escape(line),
    }
}

/// Serialized JSON made safe to print: the unsafe characters serde_json leaves raw (DEL, C1,
/// bidi controls, line separators) become `\uXXXX`. They can only stand inside strings (serde
/// escapes C0 there, so a raw line break is the pretty printer's), where the escape means the
/// same character: the JSON still parses to the same values.
pub fn json_text(json: String) -> String {
    if !json.chars().any(|c| c != '\n' && is_unsafe_char(c)) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c != '\n' && is_unsafe_char(c) {
            // Every unsafe character is in the Basic Multilingual Plane: one `\uXXXX`.
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Displays a string through [`escape`]: `format!("{}", Untrusted(&message))`.
#[derive(Clone, Copy, Debug)]
pub struct Untrusted<'a>(pub &'a str);

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(self.0))
    }
}

/// Server text on one line for an error: at most `max` characters of `text` (an excerpt of a
/// body that is not the API's), whitespace runs folded to one space, `…` when cut, escaped.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
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
    fn escapes_controls_bidi_and_separators() {
        for (raw, shown) in [
            ("plain text", "plain text"),
            ("\u{1b}[31mred\u{1b}[0m", "\\u{1b}[31mred\\u{1b}[0m"),
            ("a\nb\r\tc", "a\\u{a}b\\u{d}\\u{9}c"),
            ("del\u{7f} c1\u{9b}", "del\\u{7f} c1\\u{9b}"),
            ("abc\u{202e}fed", "abc\\u{202e}fed"),
            (
                "\u{2066}x\u{2069}\u{200f}\u{61c}",
                "\\u{2066}x\\u{2069}\\u{200f}\\u{61c}",
            ),
            ("line\u{2028}sep\u{2029}", "line\\u{2028}sep\\u{2029}"),
            ("é ü 例 xn--bcher-kva", "é ü 例 xn--bcher-kva"),
        ] {
            assert_eq!(escape(raw), shown, "{raw:?}");
        }
    }

    #[test]
    fn escape_lines_keeps_line_breaks_and_escapes_each_line() {
        for (raw, shown) in [
            ("one line", "one line"),
            ("head\n  tree 1\n  tree 2", "head\n  tree 1\n  tree 2"),
            (
                "a\u{1b}[31m\n::error::x\r",
                "a\\u{1b}[31m\n\\u{3a}:error::x\\u{d}",
            ),
            ("\u{1b}", "\\u{1b}"),
            ("# one line", "\\u{23} one line"),
            (
                "x\n# Approved\n  | ok |\n> quoted",
                "x\n\\u{23} Approved\n  \\u{7c} ok |\n\\u{3e} quoted",
            ),
        ] {
            assert_eq!(escape_lines(raw), shown, "{raw:?}");
        }
        // Already escaped text stays as it is: views may escape a detail the core escaped.
        let once = escape_lines("x\u{1b}\n\u{202e}y").into_owned();
        assert_eq!(escape_lines(&once), once);
    }

    #[test]
    fn server_text_never_starts_a_workflow_command() {
        for (raw, shown) in [
            ("::warning file=x::boom", "\\u{3a}:warning file=x::boom"),
            ("  ::error::x", "  \\u{3a}:error::x"),
            ("\t::error::x", "\\u{9}\\u{3a}:error::x"),
            ("##[error]x", "\\u{23}#[error]x"),
            ("x\n::warning file=a::b", "x\\u{a}::warning file=a::b"),
            // Addresses and ordinary colons stay as they are.
            ("::1", "::1"),
            ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
            ("2001:db8::1", "2001:db8::1"),
            ("note: a::b", "note: a::b"),
            ("# comment", "# comment"),
        ] {
            assert_eq!(escape(raw), shown, "{raw:?}");
        }
        assert_eq!(Untrusted("a\u{1b}b").to_string(), "a\\u{1b}b");
    }

    #[test]
    fn json_keeps_its_values_and_loses_its_raw_controls() {
        let value = serde_json::json!({"m": "a\u{1b}b\u{7f}c\u{9b}d\u{202e}e\nf"});
        let text = json_text(serde_json::to_string_pretty(&value).unwrap_or_default());
        assert_eq!(
            text,
            "{\n  \"m\": \"a\\u001bb\\u007fc\\u009bd\\u202ee\\nf\"\n}"
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).ok(),
            Some(value)
        );
    }

    #[test]
    fn excerpts_are_one_escaped_line() {
        assert_eq!(
            excerpt("<p>\n  two\n\nlines \u{1b}x</p>", 100),
            "<p> two lines \\u{1b}x</p>"
        );
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
