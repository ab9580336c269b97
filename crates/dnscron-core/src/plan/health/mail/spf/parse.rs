//! The text of an SPF record (RFC 7208 §4.5, §5, §6, §7.1): its terms, what evaluating it
//! costs in DNS lookups, and the names it leads to.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::super::account::host;

/// Whether a TXT text is an SPF record (§4.5: `v=spf1` then a space or the end).
pub(crate) fn is_spf(text: &str) -> bool {
    let t = text.as_bytes();
    t.len() >= 6 && t[..6].eq_ignore_ascii_case(b"v=spf1") && (t.len() == 6 || t[6] == b' ')
}

/// A domain an `include:` or `redirect=` names: `host` is `None` for a macro (`%{d}`), which
/// only a receiver can expand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) text: String,
    pub(crate) host: Option<String>,
}

/// What evaluating a record costs, read from its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// `include`, `a`, `mx`, `ptr`, `exists`, and `redirect` when it is followed.
    pub(crate) lookups: usize,
    pub(crate) includes: Vec<Target>,
    /// Ignored by receivers when the record has an `all` (§6.1).
    pub(crate) redirect: Option<Target>,
    /// `a` and `mx` terms: their word and the domain they name (`None`: the record's own).
    pub(crate) hosts: Vec<HostTerm>,
}

/// An `a` or `mx` term, whose lookup is void when the name has no address (or no MX).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HostTerm {
    pub(crate) mx: bool,
    pub(crate) word: String,
    pub(crate) target: Option<Target>,
}

/// The record's terms, or the first one a receiver rejects (permerror), in our words.
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
                "exp" => std::mem::replace(&mut exp, domain_spec(word, value).is_ok()),
                // §6: receivers ignore modifiers they don't know.
                _ => false,
            };
            if seen {
                return Err(format!("`{name}=` appears twice"));
            }
            continue;
        }
        all |= mechanism(word, &mut parsed)?;
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
    let rest = word.strip_prefix(['+', '-', '~', '?']).unwrap_or(word);
    let split = rest.find([':', '/']).unwrap_or(rest.len());
    let (name, arg) = rest.split_at(split);
    match name.to_ascii_lowercase().as_str() {
        "all" if arg.is_empty() => return Ok(true),
        "include" | "exists" => {
            let value = arg
                .strip_prefix(':')
                .ok_or_else(|| format!("`{word}` needs a domain (`{name}:domain`)"))?;
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
                return Err(format!("`{word}`: `ptr` takes no prefix length"));
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
        _ => return Err(format!("`{word}` is not an SPF mechanism or modifier")),
    }
    Ok(false)
}

/// `/24`, `//64` or `/24//64` after `a` or `mx`.
fn dual_cidr(word: &str, cidr: &str) -> Result<(), String> {
    let (v4, v6) = match cidr.split_once("//") {
        Some((v4, v6)) => (v4, Some(v6)),
        None => (cidr, None),
    };
    let bad = || format!("`{word}` has an invalid prefix length");
    if !v4.is_empty() {
        prefix(v4.strip_prefix('/').ok_or_else(bad)?, 32).ok_or_else(bad)?;
    }
    if let Some(v6) = v6 {
        prefix(v6, 128).ok_or_else(bad)?;
    }
    Ok(())
}

fn prefix(text: &str, max: u8) -> Option<u8> {
    let n: u8 = text.parse().ok()?;
    (text.len() <= 3 && !text.starts_with('+') && n <= max).then_some(n)
}

fn address(word: &str, name: &str, arg: &str) -> Result<(), String> {
    let bad = || format!("`{word}` needs an address (`{name}:address` or `{name}:address/bits`)");
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
        prefix(bits, max).ok_or_else(bad)?;
    }
    Ok(())
}

/// A domain-spec (§7.1): a host name of at least two labels, or text with macros.
fn domain_spec(word: &str, value: &str) -> Result<Target, String> {
    let text = value.to_string();
    if value.contains('%') {
        return macros(value)
            .map(|()| Target { text, host: None })
            .map_err(|why| format!("`{word}`: {why}"));
    }
    match host(value) {
        Some(h) if h.contains('.') => Ok(Target {
            text,
            host: Some(h),
        }),
        _ => Err(format!("`{word}`: `{value}` is not a domain name")),
    }
}

/// `%{s}`, `%{d4r.}`, `%%`, `%_`, `%-` (§7.1).
fn macros(value: &str) -> Result<(), String> {
    let mut rest = value;
    while let Some(at) = rest.find('%') {
        rest = &rest[at + 1..];
        if let Some(after) = rest.strip_prefix(['%', '_', '-']) {
            rest = after;
            continue;
        }
        let body = rest
            .strip_prefix('{')
            .and_then(|r| r.split_once('}'))
            .filter(|(m, _)| {
                let mut c = m.chars();
                c.next()
                    .is_some_and(|l| "slodiphcrtv".contains(l.to_ascii_lowercase()))
            })
            .ok_or_else(|| {
                format!(
                    "`%{}` is not a macro",
                    rest.chars().take(4).collect::<String>()
                )
            })?;
        rest = body.1;
    }
    Ok(())
}
