//! Resolving a token's escapes: as octets (character-strings) or as a domain name made
//! absolute against the origin (RFC 1035 §5.1).

use super::lexer::Token;
use super::problem::ProblemKind;

/// The octets a token stands for: `\DDD` is a decimal octet, `\X` is X itself.
pub(super) fn octets(token: &Token) -> Result<Vec<u8>, ProblemKind> {
    let bad = || ProblemKind::BadEscape {
        text: token.text.clone(),
    };
    let mut out = Vec::with_capacity(token.text.len());
    let mut chars = token.text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let Some(next) = chars.next() else {
            return Err(bad());
        };
        if !next.is_ascii_digit() {
            let mut buf = [0u8; 4];
            out.extend_from_slice(next.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let mut value = u32::from(next as u8 - b'0');
        for _ in 0..2 {
            match chars.next() {
                Some(d) if d.is_ascii_digit() => value = value * 10 + u32::from(d as u8 - b'0'),
                _ => return Err(bad()),
            }
        }
        out.push(u8::try_from(value).map_err(|_| bad())?);
    }
    Ok(out)
}

/// A name as written (`www`, `www.example.com.`, `@`) made absolute, lower case, with its
/// final dot. An escaped dot stays escaped (it is part of a label); other escapes resolve.
pub(super) fn absolute(token: &Token, origin: Option<&str>) -> Result<String, ProblemKind> {
    if token.text == "@" {
        return origin
            .map(str::to_string)
            .ok_or_else(|| ProblemKind::NoOrigin {
                name: token.text.clone(),
            });
    }
    let (name, is_absolute) = resolve_name(token)?;
    if is_absolute {
        return Ok(name);
    }
    let origin = origin.ok_or_else(|| ProblemKind::NoOrigin {
        name: token.text.clone(),
    })?;
    Ok(if origin == "." {
        format!("{name}.")
    } else {
        format!("{name}.{origin}")
    })
}

/// The name with escapes resolved (but `\.`), lower case; whether it ended with a plain dot.
fn resolve_name(token: &Token) -> Result<(String, bool), ProblemKind> {
    let bad = || ProblemKind::BadEscape {
        text: token.text.clone(),
    };
    let mut out = String::with_capacity(token.text.len());
    let mut chars = token.text.chars();
    let mut ends_with_dot = false;
    while let Some(c) = chars.next() {
        ends_with_dot = c == '.';
        if c != '\\' {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        let next = chars.next().ok_or_else(bad)?;
        let resolved = if next.is_ascii_digit() {
            let digits: String = std::iter::once(next)
                .chain(chars.by_ref().take(2))
                .collect();
            let value: u8 = digits
                .parse()
                .ok()
                .filter(|_| digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(bad)?;
            char::from(value)
        } else {
            next
        };
        if resolved == '.' || resolved == '\\' {
            out.push('\\');
        }
        out.push(resolved.to_ascii_lowercase());
    }
    if ends_with_dot {
        // A name of only `.` is the root; otherwise drop nothing: the final dot marks it absolute.
        return Ok((out, true));
    }
    Ok((out, false))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn token(text: &str) -> Token {
        Token {
            text: text.into(),
            quoted: false,
            line: 1,
            col: 1,
        }
    }

    #[test]
    fn octets_resolve_both_escapes() {
        assert_eq!(octets(&token(r#"a\"b\059\\"#)).unwrap(), b"a\"b;\\");
        for bad in [r"\25", r"\256", "end\\"] {
            assert!(octets(&token(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_become_absolute_against_the_origin() {
        let origin = Some("example.com.");
        assert_eq!(absolute(&token("@"), origin).unwrap(), "example.com.");
        assert_eq!(absolute(&token("WWW"), origin).unwrap(), "www.example.com.");
        assert_eq!(
            absolute(&token("mx.other.net."), origin).unwrap(),
            "mx.other.net."
        );
        assert_eq!(
            absolute(&token(r"a\.b"), origin).unwrap(),
            r"a\.b.example.com."
        );
        assert_eq!(
            absolute(&token(r"\072i"), origin).unwrap(),
            "hi.example.com."
        );
        assert_eq!(absolute(&token("x"), Some(".")).unwrap(), "x.");
        assert!(matches!(
            absolute(&token("www"), None),
            Err(ProblemKind::NoOrigin { .. })
        ));
    }
}
