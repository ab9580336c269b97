//! TXT text: the presentation form (quoted chunks with escapes) ↔ the logical text.
//!
//! Input starting with `"` is read as one or more quoted chunks separated by whitespace
//! (`"a" "b"` → `ab`), with `\"`, `\\`, `\DDD` (decimal octet) and `\X` (X literally) resolved.
//! Anything else is taken literally (not even trimmed), so `v=spf1 -all` needs no quotes.

use super::content::ContentError;

/// Parses TXT content as written by a user or returned by a server into the logical text.
pub(crate) fn parse_txt(content: &str) -> Result<String, ContentError> {
    let trimmed = content.trim();
    if !trimmed.starts_with('"') {
        return Ok(content.to_string());
    }
    let mut bytes = Vec::new();
    let mut rest = trimmed;
    while !rest.is_empty() {
        rest = parse_chunk(rest, &mut bytes)?;
        let after = rest.trim_start();
        if !after.is_empty() && !after.starts_with('"') {
            return Err(ContentError::with_hint(
                format!("unquoted text `{after}` after a quoted chunk"),
                "quote every chunk (`\"a\" \"b\"`), or write the whole text without quotes",
            ));
        }
        rest = after;
    }
    String::from_utf8(bytes).map_err(|_| {
        ContentError::with_hint(
            "the `\\DDD` escapes do not form valid UTF-8 text",
            "write the characters themselves instead of escapes",
        )
    })
}

/// Reads one `"…"` chunk from the start of `input` into `out`; returns what follows it.
fn parse_chunk<'a>(input: &'a str, out: &mut Vec<u8>) -> Result<&'a str, ContentError> {
    let body = &input[1..];
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok(&body[i + 1..]),
            '\\' => push_escape(&mut chars, out)?,
            _ => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    Err(ContentError::with_hint(
        "a quoted TXT chunk has no closing `\"`",
        "close the quote, write `\\\"` for a quote inside the text, or drop the quotes \
         altogether",
    ))
}

fn push_escape(
    chars: &mut std::str::CharIndices<'_>,
    out: &mut Vec<u8>,
) -> Result<(), ContentError> {
    let Some((_, c)) = chars.next() else {
        return Err(ContentError::new("the TXT text ends with a lone `\\`"));
    };
    if !c.is_ascii_digit() {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        return Ok(());
    }
    let mut digits = String::from(c);
    for _ in 0..2 {
        match chars.next() {
            Some((_, d)) if d.is_ascii_digit() => digits.push(d),
            _ => return Err(bad_ddd(&digits)),
        }
    }
    let value: u16 = digits.parse().map_err(|_| bad_ddd(&digits))?;
    let byte = u8::try_from(value).map_err(|_| bad_ddd(&digits))?;
    out.push(byte);
    Ok(())
}

fn bad_ddd(digits: &str) -> ContentError {
    ContentError::with_hint(
        format!("`\\{digits}` is not a valid escape"),
        "`\\DDD` takes exactly three decimal digits from 000 to 255",
    )
}

/// The form to send for a logical text: as is, unless reading it back would change it (it
/// starts with a quote, or has whitespace at either end) or the API would refuse it (a control
/// character); then one quoted string, with `\"`, `\\` and a control character's bytes as
/// `\DDD`, so what is sent holds no control character and reads back to the same text.
pub(crate) fn txt_wire(text: &str) -> String {
    let needs_quotes = text.starts_with('"')
        || text.trim() != text
        || text.is_empty()
        || text.chars().any(char::is_control);
    if !needs_quotes {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
            out.push(c);
        } else if c.is_control() {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\{byte:03}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_and_raw_forms() {
        for (input, want) in [
            ("v=spf1 -all", "v=spf1 -all"),
            ("\"v=spf1 -all\"", "v=spf1 -all"),
            ("  \"a\"   \"b\"  ", "ab"),
            ("\"a\"\"b\"", "ab"),
            (r#""say \"hi\"""#, r#"say "hi""#),
            (r#""back\\slash""#, r"back\slash"),
            (r#""semi\059colon""#, "semi;colon"),
            (r#""\ä""#, "ä"),
            ("raw \"inner\" quotes", "raw \"inner\" quotes"),
            ("\"\"", ""),
        ] {
            assert_eq!(parse_txt(input).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn malformed_quoted_forms() {
        for bad in [
            "\"open",
            "\"a\" b",
            r#""\25""#,
            r#""\256""#,
            "\"a\\",
            r#""\255""#,
        ] {
            assert!(parse_txt(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn wire_form_reads_back_to_the_same_text() {
        for text in [
            "plain",
            "\"starts quoted",
            " lead",
            "trail ",
            "a\\b \"c\"",
            "",
            "a\u{7f}b",
            "tab\there\nand\u{85}next",
        ] {
            let wire = txt_wire(text);
            assert_eq!(parse_txt(&wire).unwrap(), text, "{text}");
            assert!(!wire.chars().any(char::is_control), "{wire:?}");
        }
        assert_eq!(txt_wire("a\u{7f}b"), r#""a\127b""#);
        assert_eq!(txt_wire("\u{85}"), r#""\194\133""#);
        assert_eq!(txt_wire("v=spf1 -all"), "v=spf1 -all");
    }
}
