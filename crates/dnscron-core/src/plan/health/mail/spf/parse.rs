//! The text of an SPF record (RFC 7208 §4.5, §5, §6, §7.1, §12): its terms, what evaluating it
//! costs in DNS lookups, and the names it leads to. Every term is checked for syntax (§4.6: a
//! syntax error anywhere is a permerror), but only the mechanisms before `all` are evaluated
//! (§5.1), so only those are counted and followed.

use std::net::{Ipv4Addr, Ipv6Addr};

use dnscron_api::untrusted::escape;

use super::super::account::host;

/// Whether a TXT text is an SPF record (§4.5: `v=spf1` then a space or the end).
pub(crate) fn is_spf(text: &str) -> bool {
    let t = text.as_bytes();
    t.len() >= 6 && t[..6].eq_ignore_ascii_case(b"v=spf1") && (t.len() == 6 || t[6] == b' ')
}

/// A domain an `include:`, `redirect=`, `a:` or `mx:` names: `host` is `None` for a macro
/// (`%{d}`), which only a receiver can expand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) text: String,
    pub(crate) host: Option<String>,
}

/// What evaluating a record costs, read from its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// `include`, `a`, `mx`, `ptr`, `exists` before `all`, and `redirect` when it is followed.
    pub(crate) lookups: usize,
    pub(crate) includes: Vec<Target>,
    /// Ignored by receivers when the record has an `all` (§6.1).
    pub(crate) redirect: Option<Target>,
    /// `a` and `mx` terms before `all`: their word and the domain they name (`None`: the
    /// record's own).
    pub(crate) hosts: Vec<HostTerm>,
    /// The mechanisms after `all`, which receivers never evaluate (§5.1), as written.
    pub(crate) after_all: Vec<String>,
}

/// An `a` or `mx` term, whose lookup is void when the name has no address (or no MX).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HostTerm {
    pub(crate) mx: bool,
    pub(crate) word: String,
    pub(crate) target: Option<Target>,
}

/// The record's terms, or the first one a receiver rejects (permerror), in our words; record
/// text inside those words is escaped for display.
pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut all = false;
    let mut exp = false;
    for word in text.split(' ').filter(|w| !w.is_empty()).skip(1) {
        if let Some((name, value)) = word.split_once('=')
            && is_modifier_name(name)
        {
            let name = name.to_ascii_lowercase();
            let seen = match name.as_str() {
                "redirect" => parsed.redirect.replace(domain_spec(word, value)?).is_some(),
                "exp" => {
                    domain_spec(word, value)?;
                    std::mem::replace(&mut exp, true)
                }
                // §6: receivers ignore modifiers they don't know.
                _ => false,
            };
            if seen {
                return Err(format!("`{name}=` appears twice"));
            }
            continue;
        }
        if all {
            // Checked like any term (a syntax error anywhere is a permerror), never counted.
            mechanism(word, &mut Parsed::default())?;
            parsed.after_all.push(word.to_string());
            continue;
        }
        all = mechanism(word, &mut parsed)?;
    }
    if all {
        parsed.redirect = None;
    }
    if parsed.redirect.is_some() {
        parsed.lookups += 1;
    }
    Ok(parsed)
}

fn is_modifier_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// One mechanism; `Ok(true)` for `all`.
fn mechanism(word: &str, parsed: &mut Parsed) -> Result<bool, String> {
    let shown = escape(word);
    let rest = word.strip_prefix(['+', '-', '~', '?']).unwrap_or(word);
    let split = rest.find([':', '/']).unwrap_or(rest.len());
    let (name, arg) = rest.split_at(split);
    match name.to_ascii_lowercase().as_str() {
        "all" if arg.is_empty() => return Ok(true),
        "include" | "exists" => {
            let name = escape(name);
            let value = arg
                .strip_prefix(':')
                .ok_or_else(|| format!("`{shown}` needs a domain (`{name}:domain`)"))?;
            let target = domain_spec(word, value)?;
            if name.eq_ignore_ascii_case("include") {
                parsed.includes.push(target);
            }
            parsed.lookups += 1;
        }
        "a" | "mx" | "ptr" => {
            let (target, cidr) = match arg.strip_prefix(':') {
                Some(value) => {
                    let end = value.find('/').unwrap_or(value.len());
                    (Some(domain_spec(word, &value[..end])?), &value[end..])
                }
                None => (None, arg),
            };
            let lower = name.to_ascii_lowercase();
            if lower == "ptr" && !cidr.is_empty() {
                return Err(format!("`{shown}`: `ptr` takes no prefix length"));
            }
            dual_cidr(word, cidr)?;
            parsed.lookups += 1;
            if lower != "ptr" {
                parsed.hosts.push(HostTerm {
                    mx: lower == "mx",
                    word: word.to_string(),
                    target,
                });
            }
        }
        "ip4" | "ip6" => address(word, name, arg)?,
        _ => return Err(format!("`{shown}` is not an SPF mechanism or modifier")),
    }
    Ok(false)
}

/// `/24`, `//64` or `/24//64` after `a` or `mx`.
fn dual_cidr(word: &str, cidr: &str) -> Result<(), String> {
    let (v4, v6) = match cidr.split_once("//") {
        Some((v4, v6)) => (v4, Some(v6)),
        None => (cidr, None),
    };
    if !v4.is_empty() {
        let bits = v4
            .strip_prefix('/')
            .ok_or_else(|| format!("`{}` has an invalid prefix length", escape(word)))?;
        prefix(bits, 32).map_err(|why| prefix_error(word, bits, why))?;
    }
    if let Some(v6) = v6 {
        prefix(v6, 128).map_err(|why| prefix_error(word, v6, why))?;
    }
    Ok(())
}

fn prefix_error(word: &str, bits: &str, why: &str) -> String {
    format!(
        "`{}`: the prefix length `{}` {why}",
        escape(word),
        escape(bits)
    )
}

/// A prefix length as §12 writes it: `ip4-cidr-length = "/" ("0" / %x31-39 0*1DIGIT)`, and
/// for IPv6 up to three digits; no leading zero, no sign, at most `max`.
fn prefix(text: &str, max: u8) -> Result<u8, &'static str> {
    let digits = if max == 32 { 2 } else { 3 };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("is not a number");
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err("has a leading zero (RFC 7208 §12)");
    }
    match text.parse::<u8>() {
        Ok(n) if text.len() <= digits && n <= max => Ok(n),
        _ if max == 32 => Err("is over 32"),
        _ => Err("is over 128"),
    }
}

fn address(word: &str, name: &str, arg: &str) -> Result<(), String> {
    let shown = escape(word);
    let name = escape(name);
    let bad = || format!("`{shown}` needs an address (`{name}:address` or `{name}:address/bits`)");
    let value = arg.strip_prefix(':').ok_or_else(bad)?;
    let (ip, bits) = match value.split_once('/') {
        Some((ip, bits)) => (ip, Some(bits)),
        None => (value, None),
    };
    let max = if name.eq_ignore_ascii_case("ip4") {
        ip.parse::<Ipv4Addr>().map_err(|_| bad())?;
        32
    } else {
        ip.parse::<Ipv6Addr>().map_err(|_| bad())?;
        128
    };
    if let Some(bits) = bits {
        prefix(bits, max).map_err(|why| prefix_error(word, bits, why))?;
    }
    Ok(())
}

/// A domain-spec (§7.1): a host name of at least two labels, or text with macros.
fn domain_spec(word: &str, value: &str) -> Result<Target, String> {
    let shown = escape(word);
    let text = value.to_string();
    if value.is_empty() {
        return Err(format!("`{shown}` needs a domain"));
    }
    if value.contains('%') {
        return macros(value)
            .map(|()| Target { text, host: None })
            .map_err(|why| format!("`{shown}`: {why}"));
    }
    match host(value) {
        Some(h) if h.contains('.') => Ok(Target {
            text,
            host: Some(h),
        }),
        _ => Err(format!(
            "`{shown}`: `{}` is not a domain name",
            escape(value)
        )),
    }
}

/// The macro letters a domain-spec may use (§7.1; `c`, `r` and `t` only in explanation text).
const LETTERS: &str = "slodiphv";
/// What may follow the number of parts and `r` in a macro (§7.1 `delimiter`).
const DELIMITERS: &str = ".-+,/_=";

/// `%{s}`, `%{d4r.}`, `%%`, `%_`, `%-` (§7.1: `"%{" macro-letter transformers *delimiter "}"`).
fn macros(value: &str) -> Result<(), String> {
    let mut rest = value;
    while let Some(at) = rest.find('%') {
        rest = &rest[at + 1..];
        if let Some(after) = rest.strip_prefix(['%', '_', '-']) {
            rest = after;
            continue;
        }
        let Some((body, after)) = rest.strip_prefix('{').and_then(|r| r.split_once('}')) else {
            let start: String = rest.chars().take(4).collect();
            return Err(format!(
                "`%{}` is not a macro (`%{{letter}}`, `%%`, `%_` or `%-`)",
                escape(&start)
            ));
        };
        macro_body(body)?;
        rest = after;
    }
    Ok(())
}

/// One letter, then an optional non-zero number of parts, an optional `r`, and delimiters.
fn macro_body(body: &str) -> Result<(), String> {
    let shown = || format!("`%{{{}}}`", escape(body));
    let mut chars = body.chars();
    let letter = chars.next().map(|c| c.to_ascii_lowercase());
    match letter {
        Some(l) if LETTERS.contains(l) => {}
        Some(l @ ('c' | 'r' | 't')) => {
            return Err(format!(
                "{}: the macro letter `{l}` is allowed only in explanation text (RFC 7208 §7.1)",
                shown()
            ));
        }
        _ => {
            return Err(format!(
                "{} is not a macro: it starts with one of the letters s, l, o, d, i, p, h, v",
                shown()
            ));
        }
    }
    let rest = chars.as_str();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (number, rest) = rest.split_at(digits);
    if !number.is_empty() && number.bytes().all(|b| b == b'0') {
        return Err(format!(
            "{}: the number of parts must not be zero (RFC 7208 §7.3)",
            shown()
        ));
    }
    let rest = rest.strip_prefix(['r', 'R']).unwrap_or(rest);
    if !rest.chars().all(|c| DELIMITERS.contains(c)) {
        return Err(format!(
            "{}: after its one letter a macro takes only a number of parts, `r` and the delimiters {DELIMITERS} (RFC 7208 §7.1)",
            shown()
        ));
    }
    Ok(())
}
