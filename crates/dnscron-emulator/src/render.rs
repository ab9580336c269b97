//! How stored data is written on the json_body, following the gap settings (`Gaps`).

use serde_json::{Value, json};

use super::settings::{Gaps, HostnameEcho, RecordNames, TxtFormat};
use super::state::StoredRecord;
use dnscron_provider::RecordType;

/// When `extra_fields` is on: a fixed timestamp, so responses stay deterministic.
const CREATED_AT: &str = "2026-01-15T09:30:00Z";

pub(crate) fn record(gaps: &Gaps, zone: &str, id: i64, r: &StoredRecord) -> Value {
    let mut value = json!({
        "id": id,
        "name": record_name(gaps, zone, &r.name),
        "type": r.rtype,
        "ttl": r.ttl,
        "content": content(gaps, r.api_type(), &r.content),
    });
    if gaps.extra_fields {
        add_extra(
            &mut value,
            json!({"zone": zone, "created_at": CREATED_AT, "proxied": false}),
        );
    }
    value
}

/// Adds unknown fields a client must ignore (spec, Versioning 2).
pub(crate) fn add_extra(value: &mut Value, extra: Value) {
    if let (Value::Object(map), Value::Object(extra)) = (value, extra) {
        for (k, v) in extra {
            map.entry(k).or_insert(v);
        }
    }
}

pub(crate) fn record_name(gaps: &Gaps, zone: &str, relative: &str) -> String {
    let absolute = if relative == "@" {
        zone.to_string()
    } else {
        format!("{relative}.{zone}")
    };
    match gaps.record_names {
        RecordNames::Relative => relative.to_string(),
        RecordNames::Absolute => format!("{absolute}."),
        RecordNames::AbsoluteNoDot => absolute,
    }
}

/// `rtype` `None`: a type only a seed stores, shown as stored.
pub(crate) fn content(gaps: &Gaps, rtype: Option<RecordType>, stored: &str) -> String {
    match rtype {
        Some(RecordType::TXT) => match gaps.txt_format {
            TxtFormat::AsStored => stored.to_string(),
            TxtFormat::Raw => txt_logical(stored),
            TxtFormat::Quoted => txt_quoted(&txt_logical(stored)),
        },
        Some(RecordType::CNAME | RecordType::NS | RecordType::PTR) => hostname(gaps, stored),
        Some(RecordType::MX | RecordType::SRV) => {
            let mut fields: Vec<String> = stored.split_whitespace().map(str::to_string).collect();
            if let Some(last) = fields.last_mut() {
                *last = hostname(gaps, last);
            }
            if gaps.hostname_echo == HostnameEcho::AsStored {
                stored.to_string()
            } else {
                fields.join(" ")
            }
        }
        Some(RecordType::A | RecordType::AAAA | RecordType::CAA) | None => stored.to_string(),
    }
}

pub(crate) fn hostname(gaps: &Gaps, host: &str) -> String {
    match gaps.hostname_echo {
        HostnameEcho::AsStored => host.to_string(),
        HostnameEcho::Upper => host.to_ascii_uppercase(),
        HostnameEcho::NoFinalDot if host != "." => host.trim_end_matches('.').to_string(),
        HostnameEcho::NoFinalDot => host.to_string(),
    }
}

pub(crate) fn hostnames(gaps: &Gaps, hosts: &[String]) -> Vec<String> {
    hosts.iter().map(|h| hostname(gaps, h)).collect()
}

/// The text of a TXT record: quoted strings joined, escapes resolved; unquoted text as is.
pub(crate) fn txt_logical(stored: &str) -> String {
    let trimmed = stored.trim();
    if !trimmed.starts_with('"') {
        return trimmed.to_string();
    }
    let mut out = String::new();
    let mut chars = trimmed.chars();
    let mut in_quotes = false;
    while let Some(c) = chars.next() {
        match (c, in_quotes) {
            ('"', _) => in_quotes = !in_quotes,
            ('\\', true) => {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            (c, true) => out.push(c),
            (_, false) => {}
        }
    }
    out
}

/// Quoted form: 255-octet strings (split on character boundaries), space separated.
pub(crate) fn txt_quoted(text: &str) -> String {
    let mut chunks: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if current.len() + c.len_utf8() > 255 {
            chunks.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    chunks.push(current);
    chunks
        .iter()
        .map(|chunk| format!("\"{}\"", chunk.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn txt_round_trip_and_chunking() {
        let long = "k".repeat(300);
        let quoted = txt_quoted(&long);
        assert_eq!(quoted.matches('"').count(), 4);
        assert_eq!(txt_logical(&quoted), long);
        assert_eq!(txt_logical("\"a \\\"b\\\"\" \"c\""), "a \"b\"c");
        assert_eq!(txt_logical("plain text"), "plain text");
    }

    #[test]
    fn names_follow_the_gap_setting() {
        let mut gaps = Gaps::default();
        assert_eq!(record_name(&gaps, "example.com", "www"), "www");
        gaps.record_names = RecordNames::Absolute;
        assert_eq!(record_name(&gaps, "example.com", "@"), "example.com.");
        gaps.record_names = RecordNames::AbsoluteNoDot;
        assert_eq!(record_name(&gaps, "example.com", "www"), "www.example.com");
    }

    #[test]
    fn hostnames_follow_the_echo_setting() {
        let mut gaps = Gaps {
            hostname_echo: HostnameEcho::Upper,
            ..Gaps::default()
        };
        assert_eq!(
            content(&gaps, Some(RecordType::MX), "10 mail.example.com."),
            "10 MAIL.EXAMPLE.COM."
        );
        gaps.hostname_echo = HostnameEcho::NoFinalDot;
        assert_eq!(
            content(&gaps, Some(RecordType::CNAME), "example.com."),
            "example.com"
        );
    }
}
