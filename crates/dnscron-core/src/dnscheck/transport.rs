//! Asking one server one question: UDP first, TCP when the UDP answer is truncated or the UDP
//! socket fails. Every wait is bounded by the per-query timeout, so [`ask`] never hangs.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};
use tokio::time::{Instant, timeout, timeout_at};

use super::answer::{Answer, Outcome, Question, Transport};
use super::message::{matching_answer, outcome, query_id, query_message};

/// Without EDNS (dnscron sends none) a UDP answer is at most 512 octets (RFC 1035 4.2.1). A
/// server that sends more than this many is not trusted over UDP (on a real network such a
/// datagram is fragmented and often lost): the question is asked again over TCP.
const UDP_RECEIVE_LIMIT: usize = 4096;

/// The receive buffer: the largest UDP payload, so the kernel never cuts a datagram silently
/// and an oversized answer is seen as oversized, not as bytes that aren't DNS.
const UDP_DATAGRAM_MAX: usize = 65_535;

/// The fixed DNS header (RFC 1035 4.1.1): id, flags, four counts.
const HEADER_LEN: usize = 12;

/// How one question is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryOptions {
    /// The wait for one answer (each UDP attempt, and the whole TCP exchange).
    pub timeout: Duration,
    /// UDP sends before giving up (the same id each time, so a late answer to an earlier send
    /// still counts); at least 1.
    pub attempts: u32,
    /// The RD bit: off for authoritative servers, on when asking a resolver.
    pub recursion_desired: bool,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            timeout: Duration::from_secs(2),
            attempts: 2,
            recursion_desired: false,
        }
    }
}

/// Asks `server` the `question`. Never fails and never waits longer than
/// `attempts × timeout + timeout`: every failure is an [`Outcome`].
pub(crate) async fn ask(server: SocketAddr, question: &Question, options: &QueryOptions) -> Answer {
    let id = query_id();
    let finish = |outcome: Outcome, transport, queries_sent| {
        // The outcome's Display escapes server text.
        tracing::debug!(%server, %question, ?transport, queries_sent, "DNS answer: {outcome}");
        Answer {
            server,
            question: question.clone(),
            outcome,
            transport,
            queries_sent,
        }
    };
    let query = match query_message(id, question, options.recursion_desired) {
        Ok(query) => query,
        Err(reason) => return finish(Outcome::Malformed(reason), Transport::Udp, 0),
    };
    let (udp, sent) = over_udp(server, &query, id, question, options).await;
    match udp {
        UdpResult::Answer(outcome) => finish(outcome, Transport::Udp, sent),
        UdpResult::Timeout => finish(Outcome::Timeout, Transport::Udp, sent),
        UdpResult::Truncated | UdpResult::Oversized(_) | UdpResult::Failed(_) => {
            let outcome = over_tcp(server, &query, id, question, options.timeout).await;
            let outcome = match (udp, outcome) {
                // Both failed: the UDP error is the first cause, and usually the same one.
                (UdpResult::Failed(udp), Outcome::Network(tcp)) => {
                    Outcome::Network(format!("{udp} (UDP); {tcp} (TCP)"))
                }
                // The server did answer, so "timeout" or a bare TCP error would hide that the
                // answer it sent could not be used.
                (UdpResult::Oversized(len), tcp) if tcp.unreachable() => {
                    Outcome::Malformed(format!(
                        "the UDP answer has {len} octets, more than the {UDP_RECEIVE_LIMIT} \
                         accepted without EDNS, and TCP gave no answer: {tcp}"
                    ))
                }
                (_, outcome) => outcome,
            };
            finish(outcome, Transport::Tcp, sent + 1)
        }
    }
}

enum UdpResult {
    Answer(Outcome),
    /// TC set: the answer did not fit (it may be cut mid-record, so not decodable).
    Truncated,
    /// An answer to our query larger than [`UDP_RECEIVE_LIMIT`]; its length in octets.
    Oversized(usize),
    Timeout,
    Failed(String),
}

/// Up to `attempts` sends, each waiting `timeout` for the answer; returns what came and how
/// many datagrams were sent.
async fn over_udp(
    server: SocketAddr,
    query: &[u8],
    id: u16,
    question: &Question,
    options: &QueryOptions,
) -> (UdpResult, u32) {
    let local: SocketAddr = if server.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let socket = match UdpSocket::bind(local).await {
        Ok(socket) => socket,
        Err(e) => return (UdpResult::Failed(e.to_string()), 0),
    };
    // A connected socket takes datagrams from the server's address only: the source check.
    if let Err(e) = socket.connect(server).await {
        return (UdpResult::Failed(e.to_string()), 0);
    }
    let mut sent = 0;
    for _ in 0..options.attempts.max(1) {
        if let Err(e) = socket.send(query).await {
            return (UdpResult::Failed(e.to_string()), sent);
        }
        sent += 1;
        let deadline = Instant::now() + options.timeout;
        match timeout_at(deadline, receive(&socket, id, question)).await {
            Ok(result) => return (result, sent),
            Err(_elapsed) => continue,
        }
    }
    (UdpResult::Timeout, sent)
}

/// Reads datagrams until one answers our query; strays are dropped.
async fn receive(socket: &UdpSocket, id: u16, question: &Question) -> UdpResult {
    let mut buf = vec![0u8; UDP_DATAGRAM_MAX];
    loop {
        let len = match socket.recv(&mut buf).await {
            Ok(len) => len,
            Err(e) => return UdpResult::Failed(e.to_string()),
        };
        if let Some(result) = judge_datagram(&buf[..len], id, question) {
            return result;
        }
    }
}

/// What one datagram means for our query; `None` for a stray. The header is read first: a
/// server may cut a truncated answer anywhere (at 512 octets, mid-record), so its id, QR and
/// TC bits are all there is to go by, and an oversized one is not worth decoding.
fn judge_datagram(datagram: &[u8], id: u16, question: &Question) -> Option<UdpResult> {
    let header = AnswerHeader::read(datagram, id)?;
    if datagram.len() > UDP_RECEIVE_LIMIT {
        return Some(UdpResult::Oversized(datagram.len()));
    }
    match matching_answer(datagram, id, question) {
        Some(message) if message.metadata.truncation => Some(UdpResult::Truncated),
        Some(message) => Some(UdpResult::Answer(outcome(&message, question))),
        // Cut where it could not be decoded, or a truncated answer echoing no question: TCP
        // asks again and checks the whole answer strictly.
        None if header.truncated => Some(UdpResult::Truncated),
        None => None,
    }
}

/// The header bits of a datagram that claims to answer our query (our id, QR set, opcode
/// QUERY); read without decoding the rest.
struct AnswerHeader {
    truncated: bool,
}

impl AnswerHeader {
    fn read(datagram: &[u8], id: u16) -> Option<AnswerHeader> {
        let header = datagram.get(..HEADER_LEN)?;
        let flags = header[2];
        let is_response = flags & 0x80 != 0;
        let opcode = (flags >> 3) & 0x0f;
        (u16::from_be_bytes([header[0], header[1]]) == id && is_response && opcode == 0).then_some(
            AnswerHeader {
                truncated: flags & 0x02 != 0,
            },
        )
    }
}

/// One exchange over TCP (two-octet length, message), all within `limit`.
async fn over_tcp(
    server: SocketAddr,
    query: &[u8],
    id: u16,
    question: &Question,
    limit: Duration,
) -> Outcome {
    match timeout(limit, tcp_exchange(server, query)).await {
        Err(_elapsed) => Outcome::Timeout,
        Ok(Err(e)) => Outcome::Network(e.to_string()),
        Ok(Ok(bytes)) => match matching_answer(&bytes, id, question) {
            None => Outcome::Malformed(
                "the TCP answer is not an answer to the query (id, question or header differ)"
                    .into(),
            ),
            Some(message) if message.metadata.truncation => {
                Outcome::Malformed("the answer is truncated even over TCP".into())
            }
            Some(message) => outcome(&message, question),
        },
    }
}

async fn tcp_exchange(server: SocketAddr, query: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(server).await?;
    let len = u16::try_from(query.len()).map_err(std::io::Error::other)?;
    let mut framed = len.to_be_bytes().to_vec();
    framed.extend_from_slice(query);
    stream.write_all(&framed).await?;
    // The length prefix bounds the read: at most 65,535 octets.
    let len = stream.read_u16().await?;
    let mut answer = vec![0u8; usize::from(len)];
    stream.read_exact(&mut answer).await?;
    Ok(answer)
}
