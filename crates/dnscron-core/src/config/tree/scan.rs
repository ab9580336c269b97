//! The record-line scanner: reads the overwhelmingly common record item, a one-line flow mapping
//! of plain or quoted scalars (`  - { name: www, type: A, content: "203.0.113.10", ttl: 300 }`),
//! without the parser. It accepts a strict subset of YAML whose reading is unambiguous and the
//! parser's own: plain scalars of a conservative character set, quoted scalars without escapes
//! (`\` in double quotes, `''` in single quotes), no anchors, aliases, tags, `?`, nested
//! collections, tabs or empty values, and nothing after the `}` but spaces and a comment. Any
//! other line is left to the parser.

use granit_parser::ScalarStyle;

/// Pairs one line may hold (a record has four keys); a longer mapping goes to the parser.
const MAX_PAIRS: usize = 8;

/// One scalar of a line: where it is written (quotes included) and how.
#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub start: u32,
    pub len: u32,
    pub style: ScalarStyle,
}

impl Token {
    const NONE: Token = Token {
        start: 0,
        len: 0,
        style: ScalarStyle::Plain,
    };

    /// The scalar's text: between the quotes of a quoted one.
    pub fn text<'a>(&self, line: &'a str) -> &'a str {
        let (start, end) = (self.start as usize, self.end());
        let (from, to) = match self.style {
            ScalarStyle::Plain => (start, end),
            _ => (start + 1, end - 1),
        };
        line.get(from..to).unwrap_or_default()
    }

    pub fn end(&self) -> usize {
        (self.start + self.len) as usize
    }
}

/// A scanned item: the bytes of its `{` and `}` and its keys and values, alternating.
pub(super) struct Item {
    pub open: usize,
    pub close: usize,
    tokens: [Token; 2 * MAX_PAIRS],
    count: usize,
}

impl Item {
    pub fn tokens(&self) -> &[Token] {
        &self.tokens[..self.count]
    }
}

/// The item written on `line` from its dash at byte `dash`, if the scanner accepts the line.
pub(super) fn item(line: &str, dash: usize) -> Option<Item> {
    let b = line.as_bytes();
    if b.get(dash..dash + 2) != Some(b"- ") {
        return None;
    }
    let open = skip_spaces(b, dash + 1);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut item = Item {
        open,
        close: 0,
        tokens: [Token::NONE; 2 * MAX_PAIRS],
        count: 0,
    };
    let mut i = skip_spaces(b, open + 1);
    if b.get(i) != Some(&b'}') {
        loop {
            if item.count == item.tokens.len() {
                return None;
            }
            let key = scalar(line, i)?;
            i = key.end();
            // `key: value`, the colon right after the key and a space after it.
            if b.get(i..i + 2) != Some(b": ") {
                return None;
            }
            let value = scalar(line, skip_spaces(b, i + 1))?;
            i = skip_spaces(b, value.end());
            item.tokens[item.count] = key;
            item.tokens[item.count + 1] = value;
            item.count += 2;
            match b.get(i) {
                Some(b',') => i = skip_spaces(b, i + 1),
                Some(b'}') => break,
                _ => return None,
            }
        }
    }
    item.close = i;
    let rest = skip_spaces(b, i + 1);
    // Only a comment may follow, and it needs a space before its `#`.
    let ends = rest == b.len() || (rest > i + 1 && b[rest] == b'#');
    ends.then_some(item)
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

fn scalar(line: &str, i: usize) -> Option<Token> {
    match line.as_bytes().get(i)? {
        b'"' => quoted(line, i, b'"', ScalarStyle::DoubleQuoted),
        b'\'' => quoted(line, i, b'\'', ScalarStyle::SingleQuoted),
        _ => plain(line.as_bytes(), i),
    }
}

/// A quoted scalar without escapes, control characters or YAML's special line breaks.
fn quoted(line: &str, start: usize, quote: u8, style: ScalarStyle) -> Option<Token> {
    let b = line.as_bytes();
    let mut j = start + 1;
    loop {
        let c = *b.get(j)?;
        if c == quote {
            return token(start, j + 1, style);
        }
        if c == b'\\' || c < 0x20 || c == 0x7f {
            return None;
        }
        if c >= 0x80 && !printable(line.get(j..)?.chars().next()?) {
            return None;
        }
        j += 1;
    }
}

/// Characters YAML prints as themselves (no C1 controls, no line or paragraph separators, no
/// byte-order mark or non-characters).
fn printable(c: char) -> bool {
    !matches!(
        c,
        '\u{80}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}

/// Characters a plain scalar may hold after its first.
fn plain_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'/' | b'+' | b'=' | b'@')
}

/// A plain scalar: it starts with a letter, a digit, `.`, `_`, `/`, or a sign before a digit,
/// letter or dot; it holds [`plain_char`]s, a `:` followed by one of them or another `:`, and
/// single words after spaces. Its trailing spaces are not part of it.
fn plain(b: &[u8], start: usize) -> Option<Token> {
    let first = *b.get(start)?;
    let signed = matches!(first, b'-' | b'+')
        && b.get(start + 1)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.');
    if !(first.is_ascii_alphanumeric() || matches!(first, b'.' | b'_' | b'/') || signed) {
        return None;
    }
    let mut end = start + 1;
    let mut j = end;
    while let Some(&c) = b.get(j) {
        if plain_char(c) {
            j += 1;
            end = j;
        } else if c == b':' && b.get(j + 1).is_some_and(|n| plain_char(*n) || *n == b':') {
            j += 1;
        } else if c == b' ' {
            let k = skip_spaces(b, j);
            if !b.get(k).is_some_and(u8::is_ascii_alphanumeric) {
                break;
            }
            j = k;
        } else {
            break;
        }
    }
    // A plain scalar never ends with a `:` (`a::` leaves `j` past `end` only on colons).
    if b.get(end) == Some(&b':') && b.get(end + 1).is_some_and(|n| *n == b':') {
        return None;
    }
    token(start, end, ScalarStyle::Plain)
}

/// The token of bytes `start..end` (a line longer than 4 GiB goes to the parser).
fn token(start: usize, end: usize, style: ScalarStyle) -> Option<Token> {
    Some(Token {
        start: u32::try_from(start).ok()?,
        len: u32::try_from(end - start).ok()?,
        style,
    })
}
