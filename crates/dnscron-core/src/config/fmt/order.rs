//! The order of a zone's records, one for `import` and `fmt`: apex first, then the wildcard,
//! then names in byte order; within a name by type, content (numbers by value) and TTL.

use std::cmp::Ordering;

use crate::dns::RecordType;

/// What a record item is sorted by: its relative name, type, canonical content and TTL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RecordKey<'a> {
    pub name: &'a str,
    pub rtype: RecordType,
    pub content: &'a str,
    pub ttl: Option<u32>,
}

pub(crate) fn record_order(a: &RecordKey, b: &RecordKey) -> Ordering {
    name_order(a.name, b.name)
        .then(a.rtype.cmp(&b.rtype))
        .then_with(|| natural(a.content, b.content))
        .then(a.ttl.cmp(&b.ttl))
}

/// Apex first, then the wildcard, then names in byte order.
pub(crate) fn name_order(a: &str, b: &str) -> Ordering {
    let rank = |n: &str| match n {
        "@" => 0,
        "*" => 1,
        _ => 2,
    };
    rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
}

/// Digit runs compare as numbers, so `5 mx` sorts before `10 mx`; ties fall back to bytes.
fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.chars().next(), y.chars().next()) {
            (None, None) => return a.cmp(b),
            (None, _) => return Ordering::Less,
            (_, None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (nx, rx) = split_digits(x);
                let (ny, ry) = split_digits(y);
                let trimmed = (nx.trim_start_matches('0'), ny.trim_start_matches('0'));
                let ord = trimmed
                    .0
                    .len()
                    .cmp(&trimmed.1.len())
                    .then(trimmed.0.cmp(trimmed.1));
                if ord != Ordering::Equal {
                    return ord;
                }
                (x, y) = (rx, ry);
            }
            (Some(c), Some(d)) if c != d => return c.cmp(&d),
            (Some(c), Some(_)) => {
                x = &x[c.len_utf8()..];
                y = &y[c.len_utf8()..];
            }
        }
    }
}

fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}
