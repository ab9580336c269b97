//! Typing a scalar the way serde-saphyr's untyped path did (the loader's rules before it read
//! parser events itself), so the same text still means the same value: quoted and block scalars
//! are strings; a plain scalar is null, a YAML 1.1 boolean (`yes`/`no`/`on`/`off` too), an
//! integer in i64/u64 range (`0x`, `0o`, `0b`, `_` separators; no leading zero), a float, or
//! else a string. `!!str` and `!` keep the text; `!!null`, `!!bool`, `!!int`, `!!float` demand
//! their type.

use std::borrow::Cow;

use granit_parser::{ScalarStyle, Tag};

use super::Value;

/// The value of one scalar event, or why its explicit tag does not fit (a syntax error).
pub(super) fn resolve<'s>(
    text: Cow<'s, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value<'s>, String> {
    match tag.and_then(core_tag) {
        Some(CoreTag::Str) => Ok(Value::Str(text)),
        Some(CoreTag::Null) => Ok(Value::Null),
        Some(CoreTag::Bool) => yaml11_bool(&text)
            .map(Value::Bool)
            .ok_or_else(|| format!("`{text}` is tagged `!!bool` but is not a boolean")),
        Some(CoreTag::Int) => int(trim(&text))
            .map(Value::Int)
            .ok_or_else(|| format!("`{text}` is tagged `!!int` but is not an integer")),
        Some(CoreTag::Float) => float(trim(&text))
            .map(Value::Float)
            .ok_or_else(|| format!("`{text}` is tagged `!!float` but is not a number")),
        None if style != ScalarStyle::Plain => Ok(Value::Str(text)),
        None => Ok(plain(text)),
    }
}

enum CoreTag {
    Str,
    Null,
    Bool,
    Int,
    Float,
}

/// Tags outside the core schema (local `!foo`, `!!binary`, …) are ignored, as before.
fn core_tag(tag: &Tag) -> Option<CoreTag> {
    // The non-specific tag `!` (written `!` or `!!` relative to the local handle).
    if tag
        .suffix_in_namespace("!")
        .is_some_and(|s| s.is_empty() || s == "!")
    {
        return Some(CoreTag::Str);
    }
    match tag.core_suffix()? {
        "str" => Some(CoreTag::Str),
        "null" => Some(CoreTag::Null),
        "bool" => Some(CoreTag::Bool),
        "int" => Some(CoreTag::Int),
        "float" => Some(CoreTag::Float),
        _ => None,
    }
}

fn plain(text: Cow<'_, str>) -> Value<'_> {
    if matches!(text.as_ref(), "" | "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    if let Some(b) = yaml11_bool(&text) {
        return Value::Bool(b);
    }
    // Neither an integer nor a float starts with a letter (`.inf`, `.nan` start with a dot;
    // `inf`, `nan` stay strings): most keys and names skip the number parsers.
    if text.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
        return Value::Str(text);
    }
    let t = trim(&text);
    if let Some(i) = int(t) {
        return Value::Int(i);
    }
    // Past i64/u64 an integer spelling becomes a float, as serde's 64-bit visitors did.
    if let Some(f) = float(t) {
        return Value::Float(f);
    }
    Value::Str(text)
}

fn trim(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\r', '\n'])
}

fn yaml11_bool(s: &str) -> Option<bool> {
    let t = trim(s);
    let any = |words: &[&str]| words.iter().any(|w| t.eq_ignore_ascii_case(w));
    if any(&["true", "yes", "y", "on"]) {
        Some(true)
    } else if any(&["false", "no", "n", "off"]) {
        Some(false)
    } else {
        None
    }
}

/// An integer within i64 (negative) or u64 (otherwise).
fn int(t: &str) -> Option<i128> {
    let (negative, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (radix, digits) = radix_and_digits(rest);
    if radix == 10 && digits.starts_with('0') && digits != "0" {
        return None;
    }
    let magnitude = i128::try_from(digits_value(digits, radix)?).ok()?;
    let value = if negative { -magnitude } else { magnitude };
    let range = if negative {
        i128::from(i64::MIN)..=0
    } else {
        0..=i128::from(u64::MAX)
    };
    range.contains(&value).then_some(value)
}

fn radix_and_digits(rest: &str) -> (u32, &str) {
    for (prefixes, radix) in [(["0x", "0X"], 16), (["0o", "0O"], 8), (["0b", "0B"], 2)] {
        if let Some(digits) = prefixes.iter().find_map(|p| rest.strip_prefix(p)) {
            return (radix, digits);
        }
    }
    (10, rest)
}

/// Digits with single `_` separators between them (none leading or trailing).
fn digits_value(digits: &str, radix: u32) -> Option<u128> {
    let bytes = digits.as_bytes();
    let mut value: u128 = 0;
    let mut seen = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let separated =
                i > 0 && bytes[i - 1] != b'_' && bytes.get(i + 1).is_some_and(|n| *n != b'_');
            if !separated {
                return None;
            }
            continue;
        }
        let digit = char::from(b).to_digit(radix)?;
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(digit))?;
        seen = true;
    }
    seen.then_some(value)
}

/// YAML 1.2 floats: `.inf`, `-.inf`, `.nan` and their capitalised spellings, or a finite number
/// Rust's parser reads; a numeral overflowing f64 reads as infinity. `inf`, `nan` stay strings.
fn float(t: &str) -> Option<f64> {
    let (negative, unsigned) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    match unsigned {
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        ".inf" | ".Inf" | ".INF" if negative => return Some(f64::NEG_INFINITY),
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        _ => {}
    }
    let value = t.parse::<f64>().ok()?;
    let numeral = unsigned.as_bytes().first().is_some_and(u8::is_ascii_digit);
    (value.is_finite() || numeral).then_some(value)
}
