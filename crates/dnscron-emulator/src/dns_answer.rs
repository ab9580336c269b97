//! Authoritative DNS answers from the account the API changes, so a write is visible to the
//! next query at once. Record content is parsed here, from the stored text, never by the
//! client's record code: a parsing mistake on one side must not be mirrored on the other.

use std::net::{Ipv4Addr, Ipv6Addr};

#[cfg(test)]
use hickory_proto::op::Query;
use hickory_proto::op::{Edns, Message, OpCode, ResponseCode};
use hickory_proto::rr::rdata::{A, AAAA, CNAME, MX, NS, NULL, PTR, SOA, SRV, TXT};
use hickory_proto::rr::{DNSClass, Name, RData, Record, RecordType as WireType};

use super::render::txt_logical;
use super::state::{State, StoredRecord, ZoneState};
use dnscron_provider::RecordType;

/// TTL of the synthesized SOA and apex NS records.
const SYSTEM_TTL: u32 = 3600;
/// The SOA's negative-caching TTL (RFC 2308), kept short so tests and demos see writes fast.
const NEGATIVE_TTL: u32 = 60;
/// One TXT character-string holds at most 255 octets (RFC 1035 3.3).
const TXT_CHUNK: usize = 255;

/// The answer to one decoded query message.
pub(crate) fn respond(state: &State, nameservers: &[String], request: &Message) -> Message {
    let mut response = Message::response(request.metadata.id, request.metadata.op_code);
    response.metadata.recursion_desired = request.metadata.recursion_desired;
    response.add_queries(request.queries.iter().cloned());
    // RFC 6891 6.1.1: a query with OPT gets an answer with OPT.
    if request.edns.is_some() {
        response.set_edns(Edns::new());
    }
    let query = match request.queries.as_slice() {
        _ if request.metadata.op_code != OpCode::Query => {
            return with_code(response, ResponseCode::NotImp);
        }
        [query] => query,
        _ => return with_code(response, ResponseCode::FormErr),
    };
    let qname = ascii_key(query.name());
    let zone = state
        .zones
        .iter()
        .filter(|(zone, _)| qname == **zone || qname.ends_with(&format!(".{zone}")))
        .max_by_key(|(zone, _)| zone.len());
    let Some((zone, zs)) = zone.filter(|_| query.query_class() == DNSClass::IN) else {
        return with_code(response, ResponseCode::Refused);
    };
    response.metadata.authoritative = true;
    let relative = match qname.strip_suffix(zone.as_str()) {
        Some("") | None => "@".to_string(),
        Some(prefix) => prefix.trim_end_matches('.').to_string(),
    };
    let found = rrsets_at(zs, zone, &relative, nameservers);
    let wanted: Vec<&(WireType, RData, u32)> = found
        .iter()
        .filter(|(rtype, ..)| *rtype == query.query_type() || query.query_type() == WireType::ANY)
        .collect();
    // A name that owns a CNAME owns nothing else: every other type is answered by the alias.
    let answers: Vec<&(WireType, RData, u32)> = if wanted.is_empty() {
        found
            .iter()
            .filter(|(t, ..)| *t == WireType::CNAME)
            .collect()
    } else {
        wanted
    };
    for (_, rdata, ttl) in &answers {
        response.add_answer(Record::from_rdata(
            query.name().clone(),
            *ttl,
            rdata.clone(),
        ));
    }
    if answers.is_empty() {
        if found.is_empty() && !has_descendant(zs, &relative) {
            response.metadata.response_code = ResponseCode::NXDomain;
        }
        response.add_authority(soa_record(zs, zone, nameservers));
    }
    response
}

fn with_code(mut response: Message, code: ResponseCode) -> Message {
    response.metadata.response_code = code;
    response
}

/// Lower case, without the final dot: the form the account's zone keys use.
fn ascii_key(name: &Name) -> String {
    name.to_lowercase()
        .to_ascii()
        .trim_end_matches('.')
        .to_string()
}

/// Every record owned by `relative` (`@` for the apex), the synthesized SOA and NS included.
fn rrsets_at(
    zs: &ZoneState,
    zone: &str,
    relative: &str,
    nameservers: &[String],
) -> Vec<(WireType, RData, u32)> {
    let mut out = Vec::new();
    if relative == "@" {
        let soa = soa_record(zs, zone, nameservers);
        out.push((WireType::SOA, soa.data, SYSTEM_TTL));
        for host in nameservers {
            if let Some(name) = host_name(host) {
                out.push((WireType::NS, RData::NS(NS(name)), SYSTEM_TTL));
            }
        }
    }
    let stored = zs
        .records
        .values()
        .filter(|r| r.name == relative && !(r.api_type() == Some(RecordType::NS) && r.name == "@"));
    out.extend(stored.filter_map(|r| rdata(r).map(|(t, d)| (t, d, r.ttl))));
    out
}

/// An empty non-terminal (`_tcp` under `_sip._tcp`) exists: it answers NODATA, not NXDOMAIN.
fn has_descendant(zs: &ZoneState, relative: &str) -> bool {
    let suffix = if relative == "@" {
        String::new()
    } else {
        format!(".{relative}")
    };
    zs.records
        .values()
        .any(|r| r.name != "@" && (suffix.is_empty() || r.name.ends_with(&suffix)))
}

/// The zone's SOA, synthesized: the serial counts the zone's record writes, so every API write
/// is a new serial.
fn soa_record(zs: &ZoneState, zone: &str, nameservers: &[String]) -> Record {
    let origin = host_name(zone).unwrap_or_else(Name::root);
    let primary = nameservers
        .first()
        .and_then(|h| host_name(h))
        .unwrap_or_else(|| origin.clone());
    let contact = host_name(&format!("hostmaster.{zone}")).unwrap_or_else(|| origin.clone());
    let serial = zs.writes.wrapping_add(1);
    let soa = SOA::new(primary, contact, serial, 3600, 600, 604_800, NEGATIVE_TTL);
    Record::from_rdata(origin, SYSTEM_TTL, RData::SOA(soa))
}

/// A host name as stored: with or without the final dot, it is fully qualified.
fn host_name(text: &str) -> Option<Name> {
    let mut name = Name::from_ascii(text.trim()).ok()?;
    name.set_fqdn(true);
    Some(name)
}

/// The wire form of one stored record; `None` for content the emulator cannot serve (types it
/// does not store, such as DNSSEC records, or content a seed wrote that no write would pass).
fn rdata(record: &StoredRecord) -> Option<(WireType, RData)> {
    let content = record.content.trim();
    let fields: Vec<&str> = content.split_whitespace().collect();
    let data = match record.api_type()? {
        RecordType::A => RData::A(A(content.parse::<Ipv4Addr>().ok()?)),
        RecordType::AAAA => RData::AAAA(AAAA(content.parse::<Ipv6Addr>().ok()?)),
        RecordType::CNAME => RData::CNAME(CNAME(host_name(content)?)),
        RecordType::NS => RData::NS(NS(host_name(content)?)),
        RecordType::PTR => RData::PTR(PTR(host_name(content)?)),
        RecordType::MX => mx(&fields)?,
        RecordType::SRV => srv(&fields)?,
        RecordType::CAA => caa(&fields, content)?,
        RecordType::TXT => txt(&txt_logical(content)),
    };
    Some((data.record_type(), data))
}

/// `preference host`.
fn mx(fields: &[&str]) -> Option<RData> {
    let [preference, host] = fields else {
        return None;
    };
    Some(RData::MX(MX::new(
        preference.parse().ok()?,
        host_name(host)?,
    )))
}

/// `priority weight port target`.
fn srv(fields: &[&str]) -> Option<RData> {
    let [priority, weight, port, target] = fields else {
        return None;
    };
    Some(RData::SRV(SRV::new(
        priority.parse().ok()?,
        weight.parse().ok()?,
        port.parse().ok()?,
        host_name(target)?,
    )))
}

/// The text split into 255-octet character-strings, as a zone file loader would.
fn txt(text: &str) -> RData {
    let chunks: Vec<&[u8]> = if text.is_empty() {
        vec![&[]]
    } else {
        text.as_bytes().chunks(TXT_CHUNK).collect()
    };
    RData::TXT(TXT::from_bytes(chunks))
}

/// CAA in its RFC 8659 wire form, written out here: flags, tag length, tag, value as stored
/// (quotes removed), so no value is reinterpreted on the way to the wire.
fn caa(fields: &[&str], content: &str) -> Option<RData> {
    let [flags, tag, ..] = fields else {
        return None;
    };
    let flag_bits: u8 = flags.parse().ok()?;
    let tag_len = u8::try_from(tag.len()).ok()?;
    // After the first two fields, however many spaces separate them (`0  iodef  "…"`).
    let rest = content
        .strip_prefix(flags)?
        .trim_start()
        .strip_prefix(tag)?
        .trim();
    let value = rest
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(rest);
    let mut wire = vec![flag_bits, tag_len];
    wire.extend_from_slice(tag.to_ascii_lowercase().as_bytes());
    wire.extend_from_slice(value.as_bytes());
    Some(RData::Unknown {
        code: WireType::CAA,
        rdata: NULL::with(wire),
    })
}

/// A query for the tests below.
#[cfg(test)]
fn query(name: &str, rtype: WireType) -> Message {
    let mut message = Message::query();
    if let Ok(name) = Name::from_ascii(name) {
        message.add_query(Query::query(name, rtype));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, rtype: &str, content: &str) -> StoredRecord {
        StoredRecord {
            name: name.into(),
            rtype: rtype.into(),
            ttl: 300,
            content: content.into(),
            hidden: false,
        }
    }

    #[test]
    fn content_the_emulator_cannot_serve_is_left_out() {
        assert_eq!(rdata(&record("@", "A", "not-an-address")), None);
        assert_eq!(rdata(&record("@", "MX", "mail.example.com.")), None);
        assert_eq!(rdata(&record("@", "DNSKEY", "257 3 13 AAAA")), None);
        assert!(rdata(&record("@", "MX", "10 mail.example.com.")).is_some());
    }

    #[test]
    fn caa_fields_may_be_separated_by_several_spaces() {
        let wire = |content| match rdata(&record("@", "CAA", content)) {
            Some((_, RData::Unknown { rdata, .. })) => rdata.anything,
            other => panic!("{other:?}"),
        };
        let mut expected = vec![0, 5];
        expected.extend_from_slice(b"iodefmailto:security@example.com");
        assert_eq!(wire(r#"0  iodef  "mailto:security@example.com""#), expected);
        assert_eq!(wire(r#"0 iodef "mailto:security@example.com""#), expected);
    }

    #[test]
    fn a_query_for_a_zone_not_held_is_refused_and_not_authoritative() {
        let state = State::default();
        let answer = respond(&state, &[], &query("example.org.", WireType::A));
        assert_eq!(answer.metadata.response_code, ResponseCode::Refused);
        assert!(!answer.metadata.authoritative);
    }
}
