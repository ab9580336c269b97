//! Record content per type.
//!
//! CONTRACT (shared with config/ and plan/): `canonical_content` returns the one string two
//! equal contents share, or an error saying what is wrong and how to fix it. It is used on both
//! sides of the diff: what the user wrote and what the server returned. Canonical forms:
//! - A, AAAA: the address in Rust's `Display` form (IPv6 compressed, lower case).
//! - CNAME, NS, PTR: the absolute host name, lower case, with the final dot (`mail.example.com.`).
//!   `mail.example.com` (no final dot) means the same; a dotless single label (`mail`) is an
//!   error, since it is ambiguous (relative or a TLD?).
//! - MX: `priority host.`; SRV: `priority weight port target.`; single spaces. The null target
//!   `.` is allowed for MX and SRV.
//! - CAA: `flags tag "value"` with the tag lower case and the value as given (unescaped, then
//!   re-quoted with `\"` and `\\` escaped); the value may be written quoted or bare.
//! - TXT: the logical text: quotes removed, chunks joined, escapes resolved (see `dns::txt`).
//!   Content not starting with `"` (after whitespace) is taken literally, spaces included.
//!   So the canonical form is idempotent except for a text that itself starts with `"`:
//!   compare canonical forms, never re-canonicalize one.
//!   TXT text and CAA values keep their case.
//!
//! `wire_content(rtype, canonical)` is the form to SEND on create/update: the canonical form,
//! except TXT, which is sent as the logical text unquoted (the server accepts >255 octets and
//! chunks it itself) unless reading it back would change it (leading quote, outer whitespace),
//! then as one quoted, escaped string. For every canonical `c`:
//! `canonical_content(t, &wire_content(t, &c), zone) == Ok(c)`.
//!
//! The field parsers here return typed values (`record::RecordData`); its `Display` writes the
//! canonical form.
//!
//! Hand-written parsers rather than hickory-proto's: hickory's text parsers either live in its
//! zone-file lexer (which splits TXT at 255 octets and needs a full zone-file line) or give
//! generic errors; here every error says what to write instead.

use std::borrow::Cow;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::name::check_host;
use super::record::{CaaTag, RecordData};
use super::txt::{parse_txt, txt_wire};
use super::{RecordType, ZoneName};

/// The API's content limit (spec, Limits: DNS content).
pub(crate) const MAX_CONTENT_CHARS: usize = dnscron_provider::limits::CONTENT_MAX_CHARS;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ContentError {
    /// What is wrong, e.g. "`10.0.0` is not an IPv4 address".
    pub message: String,
    /// What to do about it, when there is something better than "fix it".
    pub hint: Option<String>,
}

impl ContentError {
    pub fn new(message: impl Into<String>) -> Self {
        ContentError {
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(message: impl Into<String>, hint: impl Into<String>) -> Self {
        ContentError {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }
}

/// Parses `content` (see `RecordData::parse`) and writes it in canonical form.
pub fn canonical_content(
    rtype: RecordType,
    content: &str,
    zone: &ZoneName,
) -> Result<String, ContentError> {
    RecordData::parse(rtype, content, zone).map(|data| data.to_string())
}

/// `canonical_content` for what a server returned: never fails, so one odd live value can't
/// stop a plan. Content the parser refuses is kept as given (trimmed), so it differs from any
/// valid desired content and shows up as a change instead of being silently folded.
pub fn canonical_live_content(rtype: RecordType, content: &str, zone: &ZoneName) -> String {
    canonical_live_borrowed(rtype, content, zone).into_owned()
}

/// [`canonical_live_content`], borrowing `content` when it already is the canonical form (an
/// A record, a plain TXT text): the plan compares 100,000 live records without copying them.
pub(crate) fn canonical_live_borrowed<'a>(
    rtype: RecordType,
    content: &'a str,
    zone: &ZoneName,
) -> Cow<'a, str> {
    let Ok(data) = RecordData::parse(rtype, content, zone) else {
        return Cow::Borrowed(content.trim());
    };
    let mut same = Unchanged { rest: content };
    if fmt::write(&mut same, format_args!("{data}")).is_ok() && same.rest.is_empty() {
        Cow::Borrowed(content)
    } else {
        Cow::Owned(data.to_string())
    }
}

/// A `fmt::Write` that checks, without storing it, that what is written is `rest`; it fails at
/// the first difference.
struct Unchanged<'a> {
    rest: &'a str,
}

impl fmt::Write for Unchanged<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.rest = self.rest.strip_prefix(s).ok_or(fmt::Error)?;
        Ok(())
    }
}

/// The form to send to the API for a canonical content (see CONTRACT above).
pub fn wire_content(rtype: RecordType, canonical: &str) -> String {
    match rtype {
        RecordType::TXT => txt_wire(canonical),
        // Their canonical form is what the API takes: only TXT quotes its strings on the wire.
        RecordType::A
        | RecordType::AAAA
        | RecordType::CNAME
        | RecordType::MX
        | RecordType::NS
        | RecordType::SRV
        | RecordType::CAA
        | RecordType::PTR => canonical.to_string(),
    }
}

/// The checks every type shares, made before its own parser runs.
pub(super) fn check_length(rtype: RecordType, content: &str) -> Result<(), ContentError> {
    let chars = content.chars().count();
    if chars > MAX_CONTENT_CHARS {
        return Err(ContentError::with_hint(
            format!("the content is {chars} characters long (at most {MAX_CONTENT_CHARS})"),
            "shorten it; the API refuses longer content",
        ));
    }
    if content.trim().is_empty() {
        return Err(ContentError::new(format!("{rtype} content is empty")));
    }
    Ok(())
}

/// A target host name in canonical form: lower case with the final dot (`mail.example.com.`),
/// or `.` (the root, the null MX/SRV target).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Host(String);

impl Host {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(super) fn ipv4(content: &str) -> Result<Ipv4Addr, ContentError> {
    let text = content.trim();
    text.parse::<Ipv4Addr>().map_err(|_| {
        let hint = if text.parse::<Ipv6Addr>().is_ok() {
            "this is an IPv6 address: use type AAAA"
        } else {
            "write four decimal numbers 0–255 separated by dots, e.g. `203.0.113.10`"
        };
        ContentError::with_hint(format!("`{text}` is not an IPv4 address"), hint)
    })
}

pub(super) fn ipv6(content: &str) -> Result<Ipv6Addr, ContentError> {
    let text = content.trim();
    text.parse::<Ipv6Addr>().map_err(|_| {
        let hint = if text.parse::<Ipv4Addr>().is_ok() {
            "this is an IPv4 address: use type A"
        } else {
            "write an IPv6 address such as `2001:db8::10`"
        };
        ContentError::with_hint(format!("`{text}` is not an IPv6 address"), hint)
    })
}

/// The whole content as one target host (CNAME, NS, PTR): the root is refused.
pub(super) fn target(content: &str, zone: &ZoneName) -> Result<Host, ContentError> {
    host(content.trim(), zone, false)
}

/// A target host name → `name.` (lower case, final dot). `allow_root` admits `.` (null MX/SRV).
fn host(text: &str, zone: &ZoneName, allow_root: bool) -> Result<Host, ContentError> {
    if text == "." {
        return if allow_root {
            Ok(Host(".".into()))
        } else {
            Err(ContentError::new(
                "`.` (the root) is not a valid target here",
            ))
        };
    }
    let lower = text.to_ascii_lowercase();
    let (name, absolute) = match lower.strip_suffix('.') {
        Some(name) => (name, true),
        None => (lower.as_str(), false),
    };
    if text == "@" {
        return Err(ContentError::with_hint(
            "`@` is not a host name here",
            format!("write the zone's name in full: `{zone}.`"),
        ));
    }
    if super::rules::is_ip_address(text) {
        return Err(ContentError::with_hint(
            format!("`{text}` is an IP address, but this record's target must be a host name"),
            "name the host (e.g. `mail.example.com.`) and give that name an A or AAAA record; \
             an address here is never looked up as one (RFC 1035 §3.3.9, RFC 1123 §2.1)",
        ));
    }
    check_host(name).map_err(|reason| {
        ContentError::with_hint(
            format!("`{text}` is not a valid host name: {reason}"),
            "labels use letters, digits, `-` and `_`, 1 to 63 characters each",
        )
    })?;
    if !absolute && !name.contains('.') {
        return Err(ContentError::with_hint(
            format!("`{text}` is a single label, not a full host name"),
            format!("write `{name}.{zone}.` or the full name"),
        ));
    }
    Ok(Host(format!("{name}.")))
}

fn fields(content: &str) -> Vec<&str> {
    content.split_whitespace().collect()
}

fn number<T: std::str::FromStr>(field: &str, what: &str, max: &str) -> Result<T, ContentError> {
    field.parse::<T>().map_err(|_| {
        ContentError::new(format!(
            "the {what} `{field}` is not a whole number from 0 to {max}"
        ))
    })
}

/// `priority host`.
pub(super) fn mx(content: &str, zone: &ZoneName) -> Result<(u16, Host), ContentError> {
    let hint = || format!("write `priority host`, e.g. `10 mail.{zone}.`");
    let [priority, target] = fields(content)[..] else {
        return Err(ContentError::with_hint(
            format!("MX content `{}` needs exactly two fields", content.trim()),
            hint(),
        ));
    };
    let priority: u16 = number(priority, "priority", "65535")?;
    Ok((priority, host(target, zone, true)?))
}

/// `priority weight port target`.
pub(super) fn srv(content: &str, zone: &ZoneName) -> Result<(u16, u16, u16, Host), ContentError> {
    let [priority, weight, port, target] = fields(content)[..] else {
        return Err(ContentError::with_hint(
            format!("SRV content `{}` needs exactly four fields", content.trim()),
            format!("write `priority weight port target`, e.g. `10 60 5060 sip.{zone}.`"),
        ));
    };
    let priority: u16 = number(priority, "priority", "65535")?;
    let weight: u16 = number(weight, "weight", "65535")?;
    let port: u16 = number(port, "port", "65535")?;
    Ok((priority, weight, port, host(target, zone, true)?))
}

/// The logical text; an empty one is refused.
pub(super) fn txt(content: &str) -> Result<String, ContentError> {
    let text = parse_txt(content)?;
    if text.is_empty() {
        return Err(ContentError::new("TXT content is empty"));
    }
    Ok(text)
}

/// `flags tag value`, the value quoted or bare.
pub(super) fn caa(content: &str) -> Result<(u8, CaaTag, String), ContentError> {
    let hint = "write `flags tag \"value\"`, e.g. `0 issue \"letsencrypt.org\"`";
    let text = content.trim();
    let Some((flags, rest)) = split_field(text) else {
        return Err(ContentError::with_hint(
            format!("CAA content `{text}` needs three fields"),
            hint,
        ));
    };
    let Some((tag, value)) = split_field(rest) else {
        return Err(ContentError::with_hint(
            format!("CAA content `{text}` needs three fields"),
            hint,
        ));
    };
    let flags: u8 = number(flags, "CAA flags", "255")?;
    let tag = tag.to_ascii_lowercase();
    let Some(tag) = CaaTag::ALL.into_iter().find(|t| t.as_str() == tag) else {
        return Err(ContentError::with_hint(
            format!("`{tag}` is not a CAA tag the API accepts"),
            "use `issue`, `issuewild` or `iodef`",
        ));
    };
    let value = caa_value(value.trim())?;
    check_caa_value(tag, &value)?;
    Ok((flags, tag, value))
}

/// The value, quoted (escapes resolved) or bare (one token, taken literally).
fn caa_value(text: &str) -> Result<String, ContentError> {
    if text.starts_with('"') {
        return parse_txt(text);
    }
    if text.contains(char::is_whitespace) {
        return Err(ContentError::with_hint(
            format!("the CAA value `{text}` contains spaces but is not quoted"),
            "put the value in double quotes",
        ));
    }
    Ok(text.to_string())
}

fn check_caa_value(tag: CaaTag, value: &str) -> Result<(), ContentError> {
    if tag == CaaTag::Iodef {
        let ok = ["mailto:", "http://", "https://"]
            .iter()
            .any(|scheme| value.len() > scheme.len() && value.starts_with(scheme));
        if !ok {
            return Err(ContentError::with_hint(
                format!("the iodef value `{value}` is not a URL"),
                "write `mailto:security@example.com` or an `https://` URL",
            ));
        }
        return Ok(());
    }
    // issue/issuewild: `;` alone (nobody may issue) or an issuer domain, then `; key=value`s.
    let issuer = value.split(';').next().unwrap_or_default().trim();
    if issuer.is_empty() {
        return Ok(());
    }
    check_host(issuer.trim_end_matches('.')).map_err(|reason| {
        ContentError::with_hint(
            format!("`{issuer}` is not an issuer domain: {reason}"),
            "write the CA's domain, e.g. `letsencrypt.org`, or `;` to forbid issuance",
        )
    })
}

/// The first whitespace-separated field and the rest (trimmed), if there is a rest.
fn split_field(text: &str) -> Option<(&str, &str)> {
    let (first, rest) = text.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    (!rest.is_empty()).then_some((first, rest))
}

#[cfg(test)]
mod tests;
