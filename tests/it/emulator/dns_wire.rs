//! The emulator's DNS listener over real UDP and TCP on 127.0.0.1: every stored type, the
//! synthesized SOA and NS, NXDOMAIN vs NODATA, case, TXT chunks, truncation, REFUSED outside its
//! zones, and an API write visible to the very next query.

use std::net::SocketAddr;
use std::time::Duration;

use dnscron_emulator::{self as emulator, Emulator, RecordSeed, Seed, ZoneSeed};
use hickory_proto::op::{Message, Query};
use hickory_proto::rr::{Name, RData, RecordType};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use super::demo;

/// Guards a broken listener from hanging the suite; answers come in microseconds.
const NO_ANSWER: Duration = Duration::from_secs(5);

fn zone() -> ZoneSeed {
    ZoneSeed::new("wire.test").with_records([
        RecordSeed::new("@", "A", "192.0.2.1"),
        RecordSeed::new("@", "AAAA", "2001:db8::1"),
        RecordSeed::new("@", "MX", "10 mail.wire.test."),
        RecordSeed::new("@", "CAA", "0 issue \"letsencrypt.org\""),
        RecordSeed::new("@", "TXT", "\"v=spf1 -all\""),
        RecordSeed::new("www", "CNAME", "wire.test."),
        RecordSeed::new("mail", "A", "192.0.2.25").with_ttl(600),
        RecordSeed::new("sub", "NS", "ns.elsewhere.example."),
        RecordSeed::new("_sip._tcp", "SRV", "10 60 5060 sip.wire.test."),
        RecordSeed::new("1", "PTR", "host.wire.test."),
        RecordSeed::new("long", "TXT", &"k".repeat(600)),
    ])
}

async fn start() -> Emulator {
    let local: SocketAddr = ([127, 0, 0, 1], 0).into();
    emulator::start_with_dns(Seed::example().with_zone(zone()), local, Some(local))
        .await
        .unwrap()
}

fn query(name: &str, rtype: RecordType) -> Vec<u8> {
    let mut message = Message::query();
    message.metadata.id = 4711;
    message.add_query(Query::query(Name::from_ascii(name).unwrap(), rtype));
    message.to_vec().unwrap()
}

async fn udp(emu: &Emulator, name: &str, rtype: RecordType) -> Message {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket
        .send_to(&query(name, rtype), emu.dns_addr().unwrap())
        .await
        .unwrap();
    let mut buf = vec![0u8; 65_535];
    let (len, _) = tokio::time::timeout(NO_ANSWER, socket.recv_from(&mut buf))
        .await
        .unwrap()
        .unwrap();
    Message::from_vec(&buf[..len]).unwrap()
}

async fn tcp(emu: &Emulator, name: &str, rtype: RecordType) -> Message {
    let mut stream = TcpStream::connect(emu.dns_addr().unwrap()).await.unwrap();
    let request = query(name, rtype);
    stream.write_u16(request.len() as u16).await.unwrap();
    stream.write_all(&request).await.unwrap();
    let read = async {
        let len = stream.read_u16().await.unwrap();
        let mut buf = vec![0u8; usize::from(len)];
        stream.read_exact(&mut buf).await.unwrap();
        buf
    };
    let buf = tokio::time::timeout(NO_ANSWER, read).await.unwrap();
    Message::from_vec(&buf).unwrap()
}

/// The whole answer as text: header flags and code, then every record of every section.
fn describe(message: &Message) -> String {
    let meta = &message.metadata;
    let mut out = format!(
        "id={} {:?} aa={} tc={}\n",
        meta.id, meta.response_code, meta.authoritative, meta.truncation
    );
    for (section, records) in [
        ("answer", &message.answers),
        ("authority", &message.authorities),
        ("additional", &message.additionals),
    ] {
        for record in records {
            out.push_str(&format!("{section}: {record}\n"));
        }
    }
    out
}

#[tokio::test]
async fn every_stored_type_is_answered_authoritatively_over_udp() {
    let emu = start().await;
    let mut got = String::new();
    for (name, rtype) in [
        ("wire.test.", RecordType::A),
        ("wire.test.", RecordType::AAAA),
        ("wire.test.", RecordType::MX),
        ("wire.test.", RecordType::CAA),
        ("wire.test.", RecordType::TXT),
        ("www.wire.test.", RecordType::CNAME),
        ("mail.wire.test.", RecordType::A),
        ("sub.wire.test.", RecordType::NS),
        ("_sip._tcp.wire.test.", RecordType::SRV),
        ("1.wire.test.", RecordType::PTR),
    ] {
        got.push_str(&describe(&udp(&emu, name, rtype).await));
    }
    assert_eq!(
        got,
        concat!(
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN A 192.0.2.1\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN AAAA 2001:db8::1\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN MX 10 mail.wire.test.\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN CAA 0 issue \"letsencrypt.org\"\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN TXT v=spf1 -all\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: www.wire.test. 3600 IN CNAME wire.test.\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: mail.wire.test. 600 IN A 192.0.2.25\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: sub.wire.test. 3600 IN NS ns.elsewhere.example.\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: _sip._tcp.wire.test. 3600 IN SRV 10 60 5060 sip.wire.test.\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: 1.wire.test. 3600 IN PTR host.wire.test.\n",
        )
    );
}

#[tokio::test]
async fn the_apex_has_a_synthesized_soa_and_the_service_nameservers_over_tcp() {
    let emu = start().await;
    let soa = tcp(&emu, "wire.test.", RecordType::SOA).await;
    let ns = tcp(&emu, "wire.test.", RecordType::NS).await;
    assert_eq!(
        describe(&soa) + &describe(&ns),
        concat!(
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN SOA ns1.veldhost.net. hostmaster.wire.test. 1 3600 600 604800 60\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN NS ns1.veldhost.net.\n",
            "answer: wire.test. 3600 IN NS ns2.veldhost.net.\n",
        )
    );
}

#[tokio::test]
async fn a_missing_name_is_nxdomain_and_a_missing_type_is_nodata() {
    let emu = start().await;
    let mut got = String::new();
    for (name, rtype) in [
        ("nothing.wire.test.", RecordType::A),
        ("mail.wire.test.", RecordType::AAAA),
        // An empty non-terminal: `_tcp` owns nothing but `_sip._tcp` exists below it.
        ("_tcp.wire.test.", RecordType::SRV),
    ] {
        got.push_str(&describe(&udp(&emu, name, rtype).await));
    }
    assert_eq!(
        got,
        concat!(
            "id=4711 NXDomain aa=true tc=false\n",
            "authority: wire.test. 3600 IN SOA ns1.veldhost.net. hostmaster.wire.test. 1 3600 600 604800 60\n",
            "id=4711 NoError aa=true tc=false\n",
            "authority: wire.test. 3600 IN SOA ns1.veldhost.net. hostmaster.wire.test. 1 3600 600 604800 60\n",
            "id=4711 NoError aa=true tc=false\n",
            "authority: wire.test. 3600 IN SOA ns1.veldhost.net. hostmaster.wire.test. 1 3600 600 604800 60\n",
        )
    );
}

#[tokio::test]
async fn names_match_in_any_case_and_an_alias_answers_for_other_types() {
    let emu = start().await;
    let upper = udp(&emu, "MAIL.Wire.TEST.", RecordType::A).await;
    let alias = udp(&emu, "www.wire.test.", RecordType::A).await;
    assert_eq!(
        describe(&upper) + &describe(&alias),
        concat!(
            "id=4711 NoError aa=true tc=false\n",
            "answer: MAIL.Wire.TEST. 600 IN A 192.0.2.25\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: www.wire.test. 3600 IN CNAME wire.test.\n",
        )
    );
}

#[tokio::test]
async fn long_txt_is_split_into_255_octet_chunks_and_too_big_for_udp_is_truncated() {
    let emu = start().await;
    let answer = tcp(&emu, "long.wire.test.", RecordType::TXT).await;
    let chunks: Vec<usize> = answer
        .answers
        .iter()
        .flat_map(|r| {
            let RData::TXT(txt) = &r.data else {
                panic!("not TXT: {:?}", r.data)
            };
            txt.txt_data.iter().map(|c| c.len()).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(chunks, [255, 255, 90]);
    let truncated = udp(&emu, "long.wire.test.", RecordType::TXT).await;
    assert_eq!(describe(&truncated), "id=4711 NoError aa=true tc=true\n");
}

#[tokio::test]
async fn an_api_write_is_answered_by_the_next_query_with_a_new_serial() {
    let emu = start().await;
    let before = udp(&emu, "new.wire.test.", RecordType::A).await;
    let resp = demo(&emu)
        .post(
            "/dns/wire.test/records",
            json!({"name": "new", "type": "A", "ttl": 120, "content": "192.0.2.99"}),
        )
        .await;
    assert_eq!(resp.status, 201, "{}", resp.body);
    let after = udp(&emu, "new.wire.test.", RecordType::A).await;
    let soa = udp(&emu, "wire.test.", RecordType::SOA).await;
    assert_eq!(
        describe(&before) + &describe(&after) + &describe(&soa),
        concat!(
            "id=4711 NXDomain aa=true tc=false\n",
            "authority: wire.test. 3600 IN SOA ns1.veldhost.net. hostmaster.wire.test. 1 3600 600 604800 60\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: new.wire.test. 120 IN A 192.0.2.99\n",
            "id=4711 NoError aa=true tc=false\n",
            "answer: wire.test. 3600 IN SOA ns1.veldhost.net. hostmaster.wire.test. 2 3600 600 604800 60\n",
        )
    );
}

#[tokio::test]
async fn names_outside_the_zones_are_refused() {
    let emu = start().await;
    let outside = udp(&emu, "example.invalid.", RecordType::A).await;
    // A suffix match on labels, not on text: `notwire.test` is not inside `wire.test`.
    let lookalike = tcp(&emu, "notwire.test.", RecordType::A).await;
    assert_eq!(
        describe(&outside) + &describe(&lookalike),
        concat!(
            "id=4711 Refused aa=false tc=false\n",
            "id=4711 Refused aa=false tc=false\n",
        )
    );
}
