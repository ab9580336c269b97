//! One zone → an RFC 1035 master file: `$ORIGIN`, `$TTL`, then every record on one line with
//! its absolute owner, TTL and class, rdata in presentation form (RFC 1035 §5.1): TXT as quoted
//! character-strings of at most 255 octets, `"` and `\` escaped, every octet outside printable
//! ASCII as `\DDD`.
//!
//! named loads a zone only with an SOA and apex NS records. The files declare them only when
//! the domain uses custom nameservers (`nameservers: custom`): those hosts become the apex NS
//! records and the SOA's primary. Otherwise the zone is served by the hosting service's own
//! nameservers, which no file names, and the file says what to add rather than invent them.

use std::collections::BTreeMap;

use crate::config::model::{NameserverMode, RecordSpec, ZoneSpec};
use crate::dns::{RecordData, RecordType};
use crate::import::OutFile;
use crate::import::from_files::bind::IGNORE_COMMENT;

/// The SOA timers written with custom nameservers: refresh, retry, expire, negative TTL
/// (RFC 1912 §2.2's ranges).
const SOA_TIMERS: &str = "3600 600 1209600 300";
/// The longest character-string (RFC 1035 §3.3).
const MAX_STRING: usize = 255;

pub(super) fn zone_file(zone: &ZoneSpec) -> OutFile {
    let apex = format!("{}.", zone.zone.as_str());
    let mut text = format!(
        "; zone {}, written by `dnscron export --to bind` from the dnscron files.\n",
        zone.zone.as_str()
    );
    text.push_str(&ignore_comments(zone));
    text.push_str(&format!("$ORIGIN {apex}\n$TTL {}\n", usual_ttl(zone)));
    text.push_str(&soa_and_ns(zone, &apex));
    for record in super::sorted(zone) {
        let owner = match record.name.as_str() {
            "@" => apex.clone(),
            name => format!("{name}.{apex}"),
        };
        text.push_str(&format!(
            "{owner} {} IN {} {}\n",
            record.ttl,
            record.rtype.as_str(),
            rdata(record, zone)
        ));
    }
    OutFile {
        path: super::file_name(&zone.zone, ".zone"),
        text,
        keep_existing: false,
    }
}

/// The zone's `ignore:` rules as comments, one JSON object a line, so dnscron's own round trip
/// (`import --from bind`) keeps them exactly; any other reader of the file skips them, and the
/// export's stderr says what that costs.
fn ignore_comments(zone: &ZoneSpec) -> String {
    let mut text = String::new();
    if zone.ignore.is_empty() {
        return text;
    }
    text.push_str(
        "; The zone's `ignore:` rules: live records dnscron leaves alone, which this file does not\n\
         ; hold. A server or tool applying this file as the whole zone deletes them.\n",
    );
    for rule in &zone.ignore {
        let json = serde_json::json!({
            "name": rule.name,
            "type": rule.rtype.map(|t| t.as_str()),
            "content": rule.content,
        });
        text.push_str(&format!("{IGNORE_COMMENT}{json}\n"));
    }
    text
}

/// The custom nameservers of the zone's domain, absolute: the apex NS records it needs.
pub(super) fn apex_hosts(zone: &ZoneSpec) -> Option<Vec<String>> {
    match &zone.nameservers.as_ref()?.mode {
        NameserverMode::Custom(hosts) => Some(hosts.iter().map(|h| format!("{h}.")).collect()),
        NameserverMode::Hosted => None,
    }
}

fn soa_and_ns(zone: &ZoneSpec, apex: &str) -> String {
    let ttl = usual_ttl(zone);
    let Some(hosts) = apex_hosts(zone) else {
        return format!(
            "; No SOA or apex NS: the files name no nameservers for this zone (a hosted zone is on\n\
             ; the service's own). named loads a zone only with both: add those of the server\n\
             ; that will serve it, e.g.\n\
             ; {apex} {ttl} IN SOA ns1.example.net. hostmaster.{apex} 1 {SOA_TIMERS}\n\
             ; {apex} {ttl} IN NS ns1.example.net.\n"
        );
    };
    let mut text = format!(
        "; SOA and apex NS from the domain's custom nameservers (`nameservers:`), for named to\n\
         ; load the zone: set the SOA's contact and raise its serial on every change.\n\
         {apex} {ttl} IN SOA {} hostmaster.{apex} 1 {SOA_TIMERS}\n",
        hosts.first().map_or("", String::as_str)
    );
    for host in &hosts {
        text.push_str(&format!("{apex} {ttl} IN NS {host}\n"));
    }
    text
}

/// The TTL most records have (the smaller on a tie), else 3600: what `$TTL` says, though every
/// record line carries its own.
fn usual_ttl(zone: &ZoneSpec) -> u32 {
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for record in &zone.records {
        *counts.entry(record.ttl).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|(ta, a), (tb, b)| a.cmp(b).then(tb.cmp(ta)))
        .map_or(3600, |(ttl, _)| ttl)
}

/// The record's rdata in presentation form, from its canonical content.
fn rdata(record: &RecordSpec, zone: &ZoneSpec) -> String {
    if record.rtype == RecordType::TXT {
        // The canonical form of a TXT record is its text itself (parsing it again would read
        // a leading quote as a quoted string).
        return txt(&record.canonical);
    }
    match RecordData::parse(record.rtype, &record.canonical, &zone.zone) {
        Ok(RecordData::CAA { flags, tag, value }) => {
            format!("{flags} {} \"{}\"", tag.as_str(), escaped(value.as_bytes()))
        }
        // Every other canonical form is already the presentation form: addresses, host names
        // with their final dot, numbers.
        Ok(
            RecordData::A(_)
            | RecordData::AAAA(_)
            | RecordData::CNAME(_)
            | RecordData::MX { .. }
            | RecordData::TXT(_)
            | RecordData::NS(_)
            | RecordData::SRV { .. }
            | RecordData::PTR(_),
        )
        | Err(_) => record.canonical.clone(),
    }
}

/// TXT text as quoted character-strings of at most 255 octets, split between characters.
pub(super) fn txt(text: &str) -> String {
    let mut chunks: Vec<String> = Vec::new();
    let mut start = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if i + c.len_utf8() - start > MAX_STRING {
            chunks.push(escaped(&text.as_bytes()[start..end]));
            start = i;
        }
        end = i + c.len_utf8();
    }
    chunks.push(escaped(&text.as_bytes()[start..end]));
    chunks
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Octets inside a quoted string: `"` and `\` escaped, anything outside printable ASCII as
/// `\DDD` (RFC 1035 §5.1), so the file is ASCII whatever the text holds.
fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03}")),
        }
    }
    out
}
