//! Query and answer messages: building the one query, deciding whether a message is the answer
//! to it (id, QR bit, opcode, question echoed) and reading it into an [`Outcome`].

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::rdata::{A, AAAA, CAA, CNAME, MX, NS, PTR, SRV, TXT};
use hickory_proto::rr::{DNSClass, Name, RData, Record, RecordData as _, RecordType as WireType};

use super::answer::{Outcome, QueryType, Question, Served};
use crate::dns::{RecordData, RecordType, ZoneName, canonical_live_content};

/// A fresh query id, from a source that cannot fail.
///
/// hickory's `Message::query()` draws its id from `rand`'s `ThreadRng`, which panics when the
/// OS gives no randomness: a static binary finds no `getrandom` in libc, falls back to
/// `/dev/random`, and a root without device nodes has none. Here std's `RandomState` keys
/// (drawn once per thread with the raw `getrandom` system call, or `/dev/urandom`: the source
/// every `HashMap` dnscron builds before any query already needs) hash a process-wide counter,
/// the clock and the process id. That is enough for a DNS id: it only has to be unguessable
/// to an off-path sender of forged answers, and an answer must also echo our question
/// ([`matching_answer`]).
pub(super) fn query_id() -> u16 {
    static QUERIES: AtomicU64 = AtomicU64::new(0);
    let n = QUERIES.fetch_add(1, Ordering::Relaxed);
    let hash = RandomState::new().hash_one((n, Instant::now(), std::process::id()));
    let [a, b, ..] = hash.to_le_bytes();
    u16::from_le_bytes([a, b])
}

/// The query message, or why the question can't be put on the wire (a name too long).
pub(super) fn query_message(
    id: u16,
    question: &Question,
    recursion: bool,
) -> Result<Vec<u8>, String> {
    let name = Name::from_ascii(question.fqdn())
        .map_err(|e| format!("`{}` is not a DNS name: {e}", question.fqdn()))?;
    // Not `Message::query()`: it draws an id from `rand` (see `query_id`).
    let mut message = Message::new(id, MessageType::Query, OpCode::Query);
    message.metadata.recursion_desired = recursion;
    message.add_query(Query::query(name, wire_type(question.qtype)));
    message
        .to_vec()
        .map_err(|e| format!("can't encode the query for {question}: {e}"))
}

pub(super) fn wire_type(qtype: QueryType) -> WireType {
    match qtype {
        QueryType::Soa => WireType::SOA,
        QueryType::Record(t) => match t {
            RecordType::A => WireType::A,
            RecordType::AAAA => WireType::AAAA,
            RecordType::CNAME => WireType::CNAME,
            RecordType::MX => WireType::MX,
            RecordType::TXT => WireType::TXT,
            RecordType::NS => WireType::NS,
            RecordType::SRV => WireType::SRV,
            RecordType::CAA => WireType::CAA,
            RecordType::PTR => WireType::PTR,
        },
    }
}

/// The decoded message if it answers our query; `None` for anything else (a stray or forged
/// packet, another query's answer, bytes that aren't DNS), which the caller ignores.
pub(super) fn matching_answer(bytes: &[u8], id: u16, question: &Question) -> Option<Message> {
    let message = Message::from_vec(bytes).ok()?;
    let meta = &message.metadata;
    if meta.id != id || meta.message_type != MessageType::Response || meta.op_code != OpCode::Query
    {
        return None;
    }
    // A server that answers a broken query with FORMERR may echo no question; an id match on
    // an error without a question is still ours.
    if message.queries.is_empty() && meta.response_code != ResponseCode::NoError {
        return Some(message);
    }
    let name = Name::from_ascii(question.fqdn()).ok()?;
    match message.queries.as_slice() {
        [q] if q.name().eq_ignore_root(&name)
            && q.query_type() == wire_type(question.qtype)
            && q.query_class() == DNSClass::IN =>
        {
            Some(message)
        }
        _ => None,
    }
}

/// What the answer says about the question.
pub(super) fn outcome(message: &Message, question: &Question) -> Outcome {
    let authoritative = message.metadata.authoritative;
    // Every code but these two is an error whatever its name, so no list of codes is kept.
    let code = message.metadata.response_code;
    if code == ResponseCode::NXDomain {
        return Outcome::NxDomain { authoritative };
    }
    if code != ResponseCode::NoError {
        return Outcome::Rcode(rcode_name(code));
    }
    let owner = Name::from_ascii(question.fqdn()).ok();
    let records: Vec<Served> = message
        .answers
        .iter()
        .filter(|r| r.dns_class == DNSClass::IN)
        .filter(|r| owner.as_ref().is_some_and(|o| r.name.eq_ignore_root(o)))
        .map(|r| served(r, &question.zone))
        .collect();
    if records.is_empty() {
        Outcome::NoData { authoritative }
    } else {
        Outcome::Records {
            authoritative,
            records,
        }
    }
}

/// The DNS mnemonic (`REFUSED`), the form `dig` prints and operators search for.
pub(super) fn rcode_name(code: ResponseCode) -> String {
    match code {
        ResponseCode::NoError => "NOERROR".into(),
        ResponseCode::FormErr => "FORMERR".into(),
        ResponseCode::ServFail => "SERVFAIL".into(),
        ResponseCode::NXDomain => "NXDOMAIN".into(),
        ResponseCode::NotImp => "NOTIMP".into(),
        ResponseCode::Refused => "REFUSED".into(),
        ResponseCode::NotAuth => "NOTAUTH".into(),
        code @ (ResponseCode::YXDomain
        | ResponseCode::YXRRSet
        | ResponseCode::NXRRSet
        | ResponseCode::NotZone
        | ResponseCode::BADVERS
        | ResponseCode::BADSIG
        | ResponseCode::BADKEY
        | ResponseCode::BADTIME
        | ResponseCode::BADMODE
        | ResponseCode::BADNAME
        | ResponseCode::BADALG
        | ResponseCode::BADTRUNC
        | ResponseCode::BADCOOKIE
        | ResponseCode::Unknown(_)) => format!("RCODE {}", u16::from(code)),
    }
}

fn served(record: &Record, zone: &ZoneName) -> Served {
    let rtype = record.record_type();
    Served {
        rtype: rtype.to_string(),
        value: canonical_value(&record.data, zone),
        ttl: record.ttl,
    }
}

/// The canonical form the files' content has (`RecordData`'s `Display`), built from the wire
/// data. Types dnscron does not manage, and data hickory could not read as its type, keep
/// hickory's presentation form: nothing in the files compares with them.
pub(super) fn canonical_value(data: &RData, zone: &ZoneName) -> String {
    managed_type(data.record_type())
        .and_then(|rtype| canonical_managed(rtype, data, zone))
        .unwrap_or_else(|| data.to_string())
}

/// Our type for a wire type: the inverse of [`wire_type`], so the two can't disagree.
fn managed_type(wire: WireType) -> Option<RecordType> {
    RecordType::ALL
        .iter()
        .copied()
        .find(|t| wire_type(QueryType::Record(*t)) == wire)
}

/// One arm per type dnscron manages, so a new type must say here how its live answers
/// canonicalize: hickory's form would show as a false difference against the files.
fn canonical_managed(rtype: RecordType, data: &RData, zone: &ZoneName) -> Option<String> {
    let host = |name: &Name| canonical_live_content(rtype, &name.to_ascii(), zone);
    Some(match rtype {
        RecordType::A => A::try_borrow(data)?.0.to_string(),
        RecordType::AAAA => AAAA::try_borrow(data)?.0.to_string(),
        RecordType::CNAME => host(&CNAME::try_borrow(data)?.0),
        RecordType::NS => host(&NS::try_borrow(data)?.0),
        RecordType::PTR => host(&PTR::try_borrow(data)?.0),
        RecordType::MX => {
            let mx = MX::try_borrow(data)?;
            let text = format!("{} {}", mx.preference, mx.exchange.to_ascii());
            canonical_live_content(rtype, &text, zone)
        }
        RecordType::SRV => {
            let srv = SRV::try_borrow(data)?;
            let text = format!(
                "{} {} {} {}",
                srv.priority,
                srv.weight,
                srv.port,
                srv.target.to_ascii()
            );
            canonical_live_content(rtype, &text, zone)
        }
        // The logical text: character-strings joined, as `dns::txt` reads the files' TXT.
        // Never re-parsed: a text starting with `"` would be read as quoted.
        RecordType::TXT => {
            let bytes: Vec<u8> = TXT::try_borrow(data)?
                .txt_data
                .iter()
                .flat_map(|c| c.iter().copied())
                .collect();
            RecordData::TXT(String::from_utf8_lossy(&bytes).into_owned()).to_string()
        }
        RecordType::CAA => {
            let caa = CAA::try_borrow(data)?;
            let flags = u8::from(caa.issuer_critical) << 7 | caa.reserved_flags;
            let value = String::from_utf8_lossy(&caa.value);
            let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
            let text = format!("{flags} {} \"{quoted}\"", caa.tag);
            canonical_live_content(rtype, &text, zone)
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use hickory_proto::rr::rdata::HINFO;

    use super::*;

    fn zone() -> ZoneName {
        ZoneName::parse("example.com").unwrap()
    }

    fn question(name: &str, rtype: RecordType) -> Question {
        Question::new(zone(), name, QueryType::Record(rtype))
    }

    fn answer_to(id: u16, qname: &str, qtype: WireType) -> Message {
        let mut m = Message::response(id, OpCode::Query);
        m.add_query(Query::query(Name::from_ascii(qname).unwrap(), qtype));
        m.metadata.authoritative = true;
        m
    }

    #[test]
    fn the_query_carries_the_id_given_and_ids_vary() {
        let q = question("www", RecordType::A);
        let bytes = query_message(0xbeef, &q, false).unwrap();
        assert_eq!(Message::from_vec(&bytes).unwrap().metadata.id, 0xbeef);
        let ids: std::collections::HashSet<u16> = (0..64).map(|_| query_id()).collect();
        // 64 draws from 65,536 values: a collision or two at most, unless ids repeat.
        assert!(ids.len() > 60, "{ids:?}");
    }

    #[test]
    fn only_the_answer_to_our_query_is_taken() {
        let q = question("www", RecordType::A);
        let ours = answer_to(7, "WWW.Example.COM.", WireType::A);
        let bytes = ours.to_vec().unwrap();
        assert!(matching_answer(&bytes, 7, &q).is_some());
        assert!(matching_answer(&bytes, 8, &q).is_none(), "wrong id");
        let other_name = answer_to(7, "mail.example.com.", WireType::A)
            .to_vec()
            .unwrap();
        assert!(matching_answer(&other_name, 7, &q).is_none());
        let other_type = answer_to(7, "www.example.com.", WireType::MX)
            .to_vec()
            .unwrap();
        assert!(matching_answer(&other_type, 7, &q).is_none());
        let mut query = Message::new(7, MessageType::Query, OpCode::Query);
        query.add_query(Query::query(
            Name::from_ascii("www.example.com.").unwrap(),
            WireType::A,
        ));
        assert!(
            matching_answer(&query.to_vec().unwrap(), 7, &q).is_none(),
            "not a response"
        );
        assert!(matching_answer(b"\x00\x07garbage", 7, &q).is_none());
    }

    #[test]
    fn records_at_the_name_become_canonical_values() {
        let q = question("www", RecordType::TXT);
        let mut m = answer_to(1, "www.example.com.", WireType::TXT);
        let owner = Name::from_ascii("WWW.example.com.").unwrap();
        let long = "x".repeat(300);
        let chunks = vec![&long.as_bytes()[..255], &long.as_bytes()[255..]];
        m.add_answer(Record::from_rdata(
            owner.clone(),
            300,
            RData::TXT(TXT::from_bytes(chunks)),
        ));
        let quoted = RData::TXT(TXT::new(vec!["\"starts with a quote".into()]));
        m.add_answer(Record::from_rdata(owner, 300, quoted));
        let elsewhere = Name::from_ascii("other.example.com.").unwrap();
        m.add_answer(Record::from_rdata(
            elsewhere,
            300,
            RData::A(A::new(192, 0, 2, 1)),
        ));
        let served = |value: &str| Served {
            rtype: "TXT".into(),
            value: value.into(),
            ttl: 300,
        };
        assert_eq!(
            outcome(&m, &q),
            Outcome::Records {
                authoritative: true,
                records: vec![served(&long), served("\"starts with a quote")],
            }
        );
    }

    #[test]
    fn host_names_fold_case_and_keep_the_final_dot() {
        let mx = MX::new(10, Name::from_ascii("Mail.Example.COM.").unwrap());
        assert_eq!(
            canonical_value(&RData::MX(mx), &zone()),
            "10 mail.example.com."
        );
        let cname = CNAME(Name::from_ascii("Target.example.NET").unwrap());
        assert_eq!(
            canonical_value(&RData::CNAME(cname), &zone()),
            "target.example.net."
        );
    }

    #[test]
    fn each_managed_type_reads_as_the_files_write_it_and_others_keep_hickorys_form() {
        let host = |s: &str| Name::from_ascii(s).unwrap();
        let cases = [
            (RData::A(A::new(192, 0, 2, 1)), "192.0.2.1"),
            (
                RData::AAAA(AAAA::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x10)),
                "2001:db8::10",
            ),
            (RData::NS(NS(host("NS1.Example.NET"))), "ns1.example.net."),
            (
                RData::PTR(PTR(host("Host.Example.com."))),
                "host.example.com.",
            ),
            (
                RData::SRV(SRV::new(10, 60, 5060, host("Sip.Example.COM."))),
                "10 60 5060 sip.example.com.",
            ),
        ];
        for (data, canonical) in cases {
            assert_eq!(canonical_value(&data, &zone()), canonical, "{data:?}");
        }
        let hinfo = RData::HINFO(HINFO::new("Some CPU".into(), "Some OS".into()));
        assert_eq!(canonical_value(&hinfo, &zone()), hinfo.to_string());
    }

    #[test]
    fn every_managed_type_maps_to_its_wire_type_and_back() {
        for rtype in RecordType::ALL {
            let wire = wire_type(QueryType::Record(*rtype));
            assert_eq!(managed_type(wire), Some(*rtype));
        }
        assert_eq!(managed_type(WireType::SOA), None);
        assert_eq!(managed_type(WireType::HINFO), None);
    }

    #[test]
    fn rcodes_read_as_outcomes() {
        let q = question("www", RecordType::A);
        let mut m = answer_to(1, "www.example.com.", WireType::A);
        assert_eq!(
            outcome(&m, &q),
            Outcome::NoData {
                authoritative: true
            }
        );
        m.metadata.response_code = ResponseCode::NXDomain;
        m.metadata.authoritative = false;
        assert_eq!(
            outcome(&m, &q),
            Outcome::NxDomain {
                authoritative: false
            }
        );
        m.metadata.response_code = ResponseCode::Refused;
        assert_eq!(outcome(&m, &q), Outcome::Rcode("REFUSED".into()));
        m.metadata.response_code = ResponseCode::Unknown(23);
        assert_eq!(outcome(&m, &q), Outcome::Rcode("RCODE 23".into()));
    }
}
