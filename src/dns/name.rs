//! Zone names and record names.
//!
//! CONTRACT (shared with plan/): record names are kept in the API's relative form:
//! `@` for the apex, `*` for the wildcard, otherwise lower-case relative labels (`www`, `a.b`,
//! `*.dev`, `_dmarc`), never with a trailing dot.

use std::fmt;

/// A zone (domain) name: lower case, no trailing dot, e.g. `example.com`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ZoneName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("`{name}` is not a valid domain name: {reason}")]
    Invalid { name: String, reason: String },
    #[error("`{name}` is outside the zone `{zone}`")]
    OutsideZone { name: String, zone: String },
}

impl ZoneName {
    /// Parses and normalizes (case, final dot) a zone name.
    pub fn parse(input: &str) -> Result<ZoneName, NameError> {
        let name = input.trim().trim_end_matches('.').to_ascii_lowercase();
        if name.is_empty() {
            return Err(NameError::Invalid {
                name: input.to_string(),
                reason: "it is empty".into(),
            });
        }
        Ok(ZoneName(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ZoneName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Normalizes a record name written by the user in a zone file: `@`, `*`, relative labels, or an
/// absolute name with a trailing dot inside the zone. Returns the relative form (see CONTRACT).
pub fn record_name_to_relative(input: &str, zone: &ZoneName) -> Result<String, NameError> {
    let lower = input.trim().to_ascii_lowercase();
    if lower == "@" || lower.is_empty() {
        return Ok("@".into());
    }
    match lower.strip_suffix('.') {
        None => Ok(lower),
        Some(abs) if abs == zone.as_str() => Ok("@".into()),
        Some(abs) => abs
            .strip_suffix(zone.as_str())
            .and_then(|prefix| prefix.strip_suffix('.'))
            .map(str::to_string)
            .ok_or_else(|| NameError::OutsideZone {
                name: input.to_string(),
                zone: zone.to_string(),
            }),
    }
}

/// Normalizes a record name as a server returned it. Servers differ: relative (`www`, `@`),
/// absolute with a dot (`www.example.com.`) or absolute without (`www.example.com`). A name equal
/// to the zone or ending in `.zone` counts as absolute even without the final dot.
pub fn live_name_to_relative(input: &str, zone: &ZoneName) -> String {
    let lower = input.trim().trim_end_matches('.').to_ascii_lowercase();
    if lower.is_empty() || lower == "@" || lower == zone.as_str() {
        return "@".into();
    }
    lower
        .strip_suffix(zone.as_str())
        .and_then(|prefix| prefix.strip_suffix('.'))
        .map(str::to_string)
        .unwrap_or(lower)
}
