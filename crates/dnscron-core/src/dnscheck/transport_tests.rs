//! [`ask`] against small servers on 127.0.0.1 written here: each gets the decoded query and
//! returns the datagrams to send back (over UDP) or the one answer (over TCP).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hickory_proto::op::{Message, ResponseCode};
use hickory_proto::rr::rdata::{A, TXT};
use hickory_proto::rr::{RData, Record};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};

use super::answer::Transport;
use super::discover::zone_nameservers;
use super::*;
use crate::dns::{RecordType, ZoneName};

type Reply = Arc<dyn Fn(&Message) -> Vec<Vec<u8>> + Send + Sync>;

/// A UDP server (and, when `tcp` is given, a TCP server on the same port) answering with
/// `udp(query)` datagrams; returns its address.
async fn server(udp: Reply, tcp: Option<Reply>) -> SocketAddr {
    // A free TCP port may be taken for UDP (by another process): try another.
    let mut bound = None;
    for _ in 0..100 {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        if let Ok(socket) = UdpSocket::bind(addr).await {
            bound = Some((listener, addr, socket));
            break;
        }
    }
    let (listener, addr, socket) = bound.expect("a port free for both TCP and UDP");
    tokio::spawn(async move {
        let mut buf = vec![0u8; 4096];
        while let Ok((len, peer)) = socket.recv_from(&mut buf).await {
            let query = Message::from_vec(&buf[..len]).unwrap();
            for datagram in udp(&query) {
                socket.send_to(&datagram, peer).await.unwrap();
            }
        }
    });
    if let Some(tcp) = tcp {
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let len = stream.read_u16().await.unwrap();
                let mut query = vec![0u8; usize::from(len)];
                stream.read_exact(&mut query).await.unwrap();
                let answer = tcp(&Message::from_vec(&query).unwrap()).remove(0);
                stream.write_u16(answer.len() as u16).await.unwrap();
                stream.write_all(&answer).await.unwrap();
            }
        });
    }
    addr
}

fn reply(f: impl Fn(&Message) -> Vec<Vec<u8>> + Send + Sync + 'static) -> Reply {
    Arc::new(f)
}

/// The authoritative answer to `query` with `records` A records (192.0.2.1, .2, …) at its name.
fn answer(query: &Message, records: u8) -> Message {
    let mut m = Message::response(query.metadata.id, query.metadata.op_code);
    m.add_queries(query.queries.iter().cloned());
    m.metadata.authoritative = true;
    let name = query.queries[0].name().clone();
    for i in 1..=records {
        m.add_answer(Record::from_rdata(
            name.clone(),
            300,
            RData::A(A::new(192, 0, 2, i)),
        ));
    }
    m
}

fn question() -> Question {
    let zone = ZoneName::parse("example.com").unwrap();
    Question::new(zone, "www", QueryType::Record(RecordType::A))
}

fn served(last_octet: u8) -> Served {
    Served {
        rtype: "A".into(),
        value: format!("192.0.2.{last_octet}"),
        ttl: 300,
    }
}

fn short() -> QueryOptions {
    QueryOptions {
        timeout: Duration::from_secs(2),
        attempts: 1,
        recursion_desired: false,
    }
}

#[tokio::test]
async fn strays_are_ignored_and_the_real_answer_taken() {
    let addr = server(
        reply(|q| {
            let mut wrong_id = answer(q, 1);
            wrong_id.metadata.id = q.metadata.id.wrapping_add(1);
            vec![
                b"garbage".to_vec(),
                wrong_id.to_vec().unwrap(),
                answer(q, 2).to_vec().unwrap(),
            ]
        }),
        None,
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(
        got,
        Answer {
            server: addr,
            question: question(),
            outcome: Outcome::Records {
                authoritative: true,
                records: vec![served(1), served(2)],
            },
            transport: Transport::Udp,
            queries_sent: 1,
        }
    );
}

#[tokio::test]
async fn a_truncated_answer_is_asked_again_over_tcp() {
    let addr = server(
        reply(|q| {
            let mut truncated = answer(q, 0);
            truncated.metadata.truncation = true;
            vec![truncated.to_vec().unwrap()]
        }),
        Some(reply(|q| vec![answer(q, 40).to_vec().unwrap()])),
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(got.transport, Transport::Tcp);
    assert_eq!(got.queries_sent, 2);
    assert_eq!(
        got.outcome,
        Outcome::Records {
            authoritative: true,
            records: (1..=40).map(served).collect(),
        }
    );
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_times_out_after_every_attempt() {
    let addr = server(reply(|_| Vec::new()), None).await;
    let options = QueryOptions {
        attempts: 3,
        ..short()
    };
    let started = tokio::time::Instant::now();
    let got = ask(addr, &question(), &options).await;
    assert_eq!((got.outcome, got.queries_sent), (Outcome::Timeout, 3));
    assert_eq!(started.elapsed(), Duration::from_secs(6));
}

#[tokio::test(start_paused = true)]
async fn a_server_answering_only_with_the_wrong_id_times_out() {
    let addr = server(
        reply(|q| {
            let mut wrong = answer(q, 1);
            wrong.metadata.id = q.metadata.id ^ 0xffff;
            vec![wrong.to_vec().unwrap()]
        }),
        None,
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(got.outcome, Outcome::Timeout);
}

#[tokio::test]
async fn rcodes_and_the_aa_bit_come_through() {
    let addr = server(
        reply(|q| {
            let mut refused = answer(q, 0);
            refused.metadata.response_code = ResponseCode::Refused;
            refused.metadata.authoritative = false;
            vec![refused.to_vec().unwrap()]
        }),
        None,
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(got.outcome, Outcome::Rcode("REFUSED".into()));
    let lame = server(
        reply(|q| {
            let mut m = answer(q, 1);
            m.metadata.authoritative = false;
            vec![m.to_vec().unwrap()]
        }),
        None,
    )
    .await;
    let got = ask(lame, &question(), &short()).await;
    assert_eq!(
        got.outcome,
        Outcome::Records {
            authoritative: false,
            records: vec![served(1)],
        }
    );
}

#[tokio::test]
async fn nothing_listening_is_a_network_error_over_udp_and_tcp() {
    // Bound and dropped: nothing listens on the port any more, so UDP gets ICMP port
    // unreachable and TCP a refused connection.
    let addr = UdpSocket::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(got.transport, Transport::Tcp);
    assert_eq!(
        got.outcome,
        Outcome::Network(
            "Connection refused (os error 111) (UDP); Connection refused (os error 111) (TCP)"
                .into()
        )
    );
}

#[tokio::test]
async fn long_txt_chunks_are_joined() {
    let long = "v".repeat(400);
    let addr = server(
        reply(|q| {
            let mut truncated = answer(q, 0);
            truncated.metadata.truncation = true;
            vec![truncated.to_vec().unwrap()]
        }),
        Some(reply(move |q| {
            let mut m = answer(q, 0);
            let chunks = vec![&long.as_bytes()[..255], &long.as_bytes()[255..]];
            let name = q.queries[0].name().clone();
            m.add_answer(Record::from_rdata(
                name,
                60,
                RData::TXT(TXT::from_bytes(chunks)),
            ));
            vec![m.to_vec().unwrap()]
        })),
    )
    .await;
    let zone = ZoneName::parse("example.com").unwrap();
    let q = Question::new(zone, "@", QueryType::Record(RecordType::TXT));
    let got = ask(addr, &q, &short()).await;
    assert_eq!(
        got.outcome.values_of("TXT"),
        vec![&Served {
            rtype: "TXT".into(),
            value: "v".repeat(400),
            ttl: 60,
        }]
    );
}

#[tokio::test]
async fn ask_all_keeps_the_job_order_and_counts_the_queries() {
    let addr = server(reply(|q| vec![answer(q, 1).to_vec().unwrap()]), None).await;
    let zone = ZoneName::parse("example.com").unwrap();
    let names = ["a", "b", "c", "d", "e"];
    let jobs: Vec<(SocketAddr, Question)> = names
        .iter()
        .map(|n| {
            (
                addr,
                Question::new(zone.clone(), *n, QueryType::Record(RecordType::A)),
            )
        })
        .collect();
    let answers = ask_all(jobs, &short(), 2).await;
    let asked: Vec<String> = answers.iter().map(|a| a.question.name.clone()).collect();
    assert_eq!(asked, names);
    assert_eq!(queries_sent(&answers), 5);
}

#[tokio::test]
async fn nameservers_come_from_the_first_resolver_that_names_them() {
    use hickory_proto::rr::rdata::NS;
    let refusing = server(
        reply(|q| {
            let mut m = answer(q, 0);
            m.metadata.response_code = ResponseCode::Refused;
            vec![m.to_vec().unwrap()]
        }),
        None,
    )
    .await;
    let knowing = server(
        reply(|q| {
            let mut m = answer(q, 0);
            if !q.metadata.recursion_desired {
                // A resolver answers only what it is asked to resolve.
                m.metadata.response_code = ResponseCode::Refused;
                return vec![m.to_vec().unwrap()];
            }
            m.metadata.authoritative = false;
            m.metadata.recursion_available = true;
            let name = q.queries[0].name().clone();
            for host in ["NS2.Example.NET.", "ns1.example.net."] {
                let ns = RData::NS(NS(hickory_proto::rr::Name::from_ascii(host).unwrap()));
                m.add_answer(Record::from_rdata(name.clone(), 3600, ns));
            }
            vec![m.to_vec().unwrap()]
        }),
        None,
    )
    .await;
    let zone = ZoneName::parse("example.com").unwrap();
    let (hosts, answers) = zone_nameservers(&zone, &[refusing, knowing], &short()).await;
    assert_eq!(
        hosts,
        Ok(vec![
            "ns1.example.net".to_string(),
            "ns2.example.net".to_string()
        ])
    );
    assert_eq!(queries_sent(&answers), 2);
    let (hosts, _) = zone_nameservers(&zone, &[refusing], &short()).await;
    assert_eq!(
        hosts.unwrap_err().to_string(),
        format!(
            "no resolver could say which nameservers serve example.com: {refusing} answered \
             REFUSED"
        )
    );
}

/// `answer(q, 40)` with TC set, cut at 512 octets mid-record, as a server without EDNS sends it.
fn cut_at_512(q: &Message) -> Vec<u8> {
    let mut whole = answer(q, 40);
    whole.metadata.truncation = true;
    let mut bytes = whole.to_vec().unwrap();
    bytes.truncate(512);
    bytes
}

// One UDP attempt: before the header was read first, the cut answer was dropped and this
// ended in a timeout.
#[tokio::test]
async fn an_answer_cut_at_512_octets_with_tc_is_asked_again_over_tcp() {
    assert!(
        Message::from_vec(&cut_at_512(&probe())).is_err(),
        "the cut answer must not decode as a whole message"
    );
    let addr = server(
        reply(|q| vec![cut_at_512(q)]),
        Some(reply(|q| vec![answer(q, 40).to_vec().unwrap()])),
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(
        got,
        Answer {
            server: addr,
            question: question(),
            outcome: Outcome::Records {
                authoritative: true,
                records: (1..=40).map(served).collect(),
            },
            transport: Transport::Tcp,
            queries_sent: 2,
        }
    );
}

#[tokio::test(start_paused = true)]
async fn a_cut_datagram_without_tc_or_with_another_id_is_a_stray() {
    let addr = server(
        reply(|q| {
            let mut no_tc = answer(q, 40).to_vec().unwrap();
            no_tc.truncate(512);
            let mut other_id = cut_at_512(q);
            other_id[0] ^= 0xff;
            vec![no_tc, other_id]
        }),
        Some(reply(|q| vec![answer(q, 40).to_vec().unwrap()])),
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(
        (got.outcome, got.transport, got.queries_sent),
        (Outcome::Timeout, Transport::Udp, 1)
    );
}

/// `answer(q, 2)` padded with a TXT record to more than 4,096 octets.
fn oversized(q: &Message) -> Vec<u8> {
    let mut m = answer(q, 2);
    let chunk = [b'p'; 255];
    let chunks: Vec<&[u8]> = (0..20).map(|_| &chunk[..]).collect();
    let name = q.queries[0].name().clone();
    m.add_answer(Record::from_rdata(
        name,
        300,
        RData::TXT(TXT::from_bytes(chunks)),
    ));
    let bytes = m.to_vec().unwrap();
    assert!(bytes.len() > 4096, "{} octets", bytes.len());
    bytes
}

#[tokio::test]
async fn an_answer_over_4096_octets_is_asked_again_over_tcp() {
    let addr = server(
        reply(|q| vec![oversized(q)]),
        Some(reply(|q| vec![answer(q, 2).to_vec().unwrap()])),
    )
    .await;
    let got = ask(addr, &question(), &short()).await;
    assert_eq!(
        (got.outcome, got.transport, got.queries_sent),
        (
            Outcome::Records {
                authoritative: true,
                records: vec![served(1), served(2)],
            },
            Transport::Tcp,
            2
        )
    );
}

#[tokio::test]
async fn an_answer_over_4096_octets_without_tcp_is_unusable_not_a_timeout() {
    let addr = server(reply(|q| vec![oversized(q)]), None).await;
    let got = ask(addr, &question(), &short()).await;
    let len = oversized(&probe()).len();
    assert_eq!(
        (got.outcome, got.transport, got.queries_sent),
        (
            Outcome::Malformed(format!(
                "the UDP answer has {len} octets, more than the 4096 accepted without EDNS, and TCP \
                 gave no answer: network error: Connection refused (os error 111)"
            )),
            Transport::Tcp,
            2
        )
    );
}

/// A query for [`question`], to build answers outside a server.
fn probe() -> Message {
    let mut m = Message::response(7, hickory_proto::op::OpCode::Query);
    m.metadata.message_type = hickory_proto::op::MessageType::Query;
    let name = hickory_proto::rr::Name::from_ascii(question().fqdn()).unwrap();
    m.add_query(hickory_proto::op::Query::query(
        name,
        hickory_proto::rr::RecordType::A,
    ));
    m
}
