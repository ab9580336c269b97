//! Record content per type.
//!
//! CONTRACT (shared with config/ and plan/): `canonical_content` returns the one string two
//! equal contents share, or an error saying what is wrong and how to fix it. Canonical forms:
//! - A, AAAA: the address in Rust's `Display` form (IPv6 compressed, lower case).
//! - CNAME, NS, PTR: the absolute host name, lower case, with the final dot (`mail.example.com.`).
//! - MX: `priority host.`; SRV: `priority weight port target.`; single spaces.
//! - CAA: `flags tag "value"` with the tag lower case and the value as given (unescaped, re-quoted).
//! - TXT: the logical text: quotes removed, 255-octet chunks joined, escapes resolved.

use super::{RecordType, ZoneName};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ContentError {
    /// What is wrong, e.g. "`10.0.0` is not an IPv4 address".
    pub message: String,
    /// What to do about it, when there is something better than "fix it".
    pub hint: Option<String>,
}

pub fn canonical_content(
    rtype: RecordType,
    content: &str,
    _zone: &ZoneName,
) -> Result<String, ContentError> {
    // Placeholder normalization; the config/dns work replaces it with full per-type parsing.
    let trimmed = content.trim();
    Ok(match rtype {
        RecordType::TXT => trimmed.to_string(),
        _ => trimmed.to_ascii_lowercase(),
    })
}
