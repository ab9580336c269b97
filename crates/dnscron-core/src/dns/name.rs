//! Zone names and record names.
//!
//! CONTRACT (shared with plan/): record names are kept in the API's relative form:
//! `@` for the apex, `*` for the wildcard, otherwise lower-case relative labels (`www`, `a.b`,
//! `*.dev`, `_dmarc`), never with a trailing dot.
//!
//! Labels are LDH (letters, digits, hyphen) plus `_` (needed for `_dmarc`, `_sip._tcp`), 1–63
//! octets, not starting or ending with a hyphen; a full name is at most 253 octets.

use std::borrow::Cow;
use std::fmt;

/// A zone (domain) name: lower case, no trailing dot, e.g. `example.com`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ZoneName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error(
        "`{}` is not a valid domain name: {}",
        dnscron_api::untrusted::Untrusted(name),
        dnscron_api::untrusted::Untrusted(reason)
    )]
    Invalid { name: String, reason: String },
    #[error("`{name}` is outside the zone `{zone}`")]
    OutsideZone { name: String, zone: String },
}

impl NameError {
    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            NameError::Invalid { reason, .. } if reason.contains("non-ASCII") => {
                Some("write internationalized names in their `xn--` (punycode) form".into())
            }
            NameError::Invalid { reason, .. }
                if reason.contains("Punycode")
                    || reason.contains("IDNA")
                    || reason.contains("positions 3 and 4") =>
            {
                Some(
                    "`--` in positions 3 and 4 is reserved for `xn--` labels; copy an \
                     internationalized name's `xn--` form from the registrar (e.g. \
                     `xn--bcher-kva` for bücher)"
                        .into(),
                )
            }
            NameError::Invalid { .. } => Some(
                "labels use letters, digits, `-` and `_`, 1 to 63 characters each, \
                 253 characters in all"
                    .into(),
            ),
            NameError::OutsideZone { zone, .. } => Some(format!(
                "write a name relative to the zone (`www`, `@` for the apex) or an absolute \
                 name ending in `.{zone}.`; records of another zone belong in that zone's file"
            )),
        }
    }
}

const MAX_NAME: usize = dnscron_provider::limits::NAME_MAX_CHARS;
const MAX_LABEL: usize = dnscron_provider::limits::LABEL_MAX_CHARS;

fn invalid(name: &str, reason: impl Into<String>) -> NameError {
    NameError::Invalid {
        name: name.to_string(),
        reason: reason.into(),
    }
}

/// Checks one label (without dots): LDH plus `_`, 1–63 octets, no hyphen at either end.
pub(crate) fn check_label(label: &str) -> Result<(), String> {
    if label.is_empty() {
        return Err("it has an empty label (two dots in a row, or a leading dot)".into());
    }
    if label.len() > MAX_LABEL {
        return Err(format!(
            "the label `{label}` is {} characters long (at most {MAX_LABEL})",
            label.len()
        ));
    }
    if let Some(c) = label.chars().find(|c| !c.is_ascii()) {
        return Err(format!("`{c}` is a non-ASCII character"));
    }
    if let Some(c) = label
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!("the label `{label}` contains `{c}`"));
    }
    if label.starts_with('-') || label.ends_with('-') {
        return Err(format!("the label `{label}` starts or ends with a hyphen"));
    }
    match super::rules::idna_label_problem(label) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// Checks a dotted host name without its final dot (already lower case or not).
pub(crate) fn check_host(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty".into());
    }
    if name.len() > MAX_NAME {
        return Err(format!(
            "it is {} characters long (at most {MAX_NAME})",
            name.len()
        ));
    }
    name.split('.').try_for_each(check_label)
}

impl ZoneName {
    /// Parses and normalizes (case, final dot) a zone name. A zone has at least two labels.
    pub fn parse(input: &str) -> Result<ZoneName, NameError> {
        let trimmed = input.trim();
        let name = trimmed
            .strip_suffix('.')
            .unwrap_or(trimmed)
            .to_ascii_lowercase();
        check_host(&name).map_err(|reason| invalid(input, reason))?;
        if !name.contains('.') {
            return Err(invalid(
                input,
                "a zone needs at least two labels, e.g. `example.com`",
            ));
        }
        Ok(ZoneName(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `host` (lower case, no final dot) is the zone itself or inside it.
    pub fn contains(&self, host: &str) -> bool {
        host == self.0
            || host
                .strip_suffix(self.0.as_str())
                .is_some_and(|prefix| prefix.ends_with('.'))
    }
}

impl fmt::Display for ZoneName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Normalizes a record name written by the user in a zone file: `@`, `*`, relative labels
/// (`www`, `a.b`, `*.dev`), or an absolute name with a trailing dot inside the zone. Returns
/// the relative form (see CONTRACT). A relative name that already ends in the zone name
/// (`www.example.com` without the final dot) is refused: it would mean
/// `www.example.com.example.com`, which is never what was meant.
pub fn record_name_to_relative(input: &str, zone: &ZoneName) -> Result<String, NameError> {
    let lower = input.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return Err(invalid(input, "it is empty; write `@` for the apex"));
    }
    if lower == "@" {
        return Ok("@".into());
    }
    let relative = match lower.strip_suffix('.') {
        None => {
            if zone.contains(&lower) {
                return Err(invalid(
                    input,
                    format!(
                        "it ends in the zone name but has no final dot, so it would mean \
                         `{lower}.{zone}`; write `{}` or `{lower}.`",
                        relative_of(&lower, zone)
                    ),
                ));
            }
            lower
        }
        Some(abs) if abs == zone.as_str() => return Ok("@".into()),
        Some(abs) => {
            if !zone.contains(abs) {
                return Err(NameError::OutsideZone {
                    name: input.to_string(),
                    zone: zone.to_string(),
                });
            }
            relative_of(abs, zone)
        }
    };
    check_relative(&relative, zone).map_err(|reason| invalid(input, reason))?;
    Ok(relative)
}

fn relative_of(abs: &str, zone: &ZoneName) -> String {
    if abs == zone.as_str() {
        return "@".into();
    }
    abs.strip_suffix(zone.as_str())
        .and_then(|p| p.strip_suffix('.'))
        .unwrap_or(abs)
        .to_string()
}

/// `*` may only be the whole leftmost label; the full name must fit in 253 octets.
fn check_relative(relative: &str, zone: &ZoneName) -> Result<(), String> {
    let full_len = relative.len() + 1 + zone.as_str().len();
    if full_len > MAX_NAME {
        return Err(format!(
            "the full name is {full_len} characters long (at most {MAX_NAME})"
        ));
    }
    let mut labels = relative.split('.');
    let first = labels.next().unwrap_or_default();
    if first != "*" {
        check_label(first)?;
    }
    for label in labels {
        if label.contains('*') {
            return Err("`*` is only allowed as the whole leftmost label (`*`, `*.dev`)".into());
        }
        check_label(label)?;
    }
    Ok(())
}

/// A host name as DNS compares it: case, surrounding space and the final dot don't matter.
/// Validation, import and plan fold nameserver hosts with this one function, so what a file
/// declares and what the registry lists compare equal exactly when DNS says they are.
pub fn fold_host(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// Normalizes a record name as a server returned it. Servers differ: relative (`www`, `@`),
/// absolute with a dot (`www.example.com.`) or absolute without (`www.example.com`). A name equal
/// to the zone or ending in `.zone` counts as absolute even without the final dot.
pub fn live_name_to_relative(input: &str, zone: &ZoneName) -> String {
    live_name_relative(input, zone).into_owned()
}

/// [`live_name_to_relative`] borrowing from `input` when it needs no case folding: the
/// planner runs it on every live record, and servers mostly return lower-case names.
pub(crate) fn live_name_relative<'a>(input: &'a str, zone: &ZoneName) -> Cow<'a, str> {
    let trimmed = input.trim().trim_end_matches('.');
    let lower = if trimmed.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(trimmed.to_ascii_lowercase())
    } else {
        Cow::Borrowed(trimmed)
    };
    if lower.is_empty() || lower == "@" || lower == zone.as_str() {
        return Cow::Borrowed("@");
    }
    let prefix_len = lower
        .strip_suffix(zone.as_str())
        .and_then(|prefix| prefix.strip_suffix('.'))
        .map(str::len);
    match (prefix_len, lower) {
        (Some(len), Cow::Borrowed(s)) => Cow::Borrowed(&s[..len]),
        (Some(len), Cow::Owned(mut s)) => {
            s.truncate(len);
            Cow::Owned(s)
        }
        (None, lower) => lower,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone() -> ZoneName {
        ZoneName::parse("example.com").unwrap()
    }

    #[test]
    fn zone_names_normalize_case_and_final_dot() {
        for ok in [
            "example.com",
            "Example.COM.",
            " example.com ",
            "xn--bcher-kva.example",
        ] {
            assert!(ZoneName::parse(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            ZoneName::parse("Example.COM.").unwrap().as_str(),
            "example.com"
        );
    }

    #[test]
    fn zone_names_reject_bad_labels() {
        let long_label = format!("{}.com", "a".repeat(64));
        let long_name = format!("{}com", "abcdefghi.".repeat(26));
        for bad in [
            "",
            "com",
            "exa mple.com",
            "-x.com",
            "x-.com",
            "a..com",
            "bücher.de",
            &long_label,
            &long_name,
        ] {
            assert!(ZoneName::parse(bad).is_err(), "{bad}");
        }
        assert!(ZoneName::parse(&format!("{}.com", "a".repeat(63))).is_ok());
    }

    #[test]
    fn record_names_accepted() {
        let z = zone();
        for (input, want) in [
            ("@", "@"),
            ("*", "*"),
            ("www", "www"),
            ("WWW", "www"),
            ("a.b", "a.b"),
            ("*.dev", "*.dev"),
            ("_dmarc", "_dmarc"),
            ("_sip._tcp", "_sip._tcp"),
            ("www.example.com.", "www"),
            ("example.com.", "@"),
            ("A.B.Example.Com.", "a.b"),
        ] {
            assert_eq!(record_name_to_relative(input, &z).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn record_names_rejected() {
        let z = zone();
        for bad in [
            "",
            "www.other.com.",
            "example.org.",
            "notexample.com.",
            "a b",
            "-a",
            "a.*",
            "w*w",
            "www.example.com",
            "a..b",
        ] {
            assert!(record_name_to_relative(bad, &z).is_err(), "{bad}");
        }
        let err = record_name_to_relative("www.other.com.", &z).unwrap_err();
        assert!(matches!(err, NameError::OutsideZone { .. }));
        let long = format!("{}a", "abcdefghi.".repeat(25));
        assert!(record_name_to_relative(&long, &z).is_err());
    }

    #[test]
    fn live_names_become_relative() {
        let z = zone();
        for (input, want) in [
            ("@", "@"),
            ("", "@"),
            ("example.com", "@"),
            ("example.com.", "@"),
            ("WWW.Example.com", "www"),
            ("www.example.com.", "www"),
            ("www", "www"),
            (" Mail.Other.NET. ", "mail.other.net"),
        ] {
            assert_eq!(live_name_to_relative(input, &z), want, "{input}");
        }
        // Lower-case names are borrowed, not copied; others are folded into a new string.
        for input in ["www.example.com.", "www", " a.b.example.com "] {
            let name = live_name_relative(input, &z);
            assert!(matches!(name, Cow::Borrowed(_)), "{input}: {name:?}");
        }
        assert!(matches!(live_name_relative("WWW", &z), Cow::Owned(n) if n == "www"));
    }
}
