//! Asking one server one question: UDP first, TCP when the UDP answer is truncated or the UDP
//! socket fails. Every wait is bounded by the per-query timeout, so [`ask`] never hangs.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};
use tokio::time::{Instant, timeout, timeout_at};

use super::answer::{Answer, Outcome, Question, Transport};
use super::message::{matching_answer, outcome, query_id, query_message};

/// Without EDNS (dnscron sends none) a UDP answer is at most 512 octets (RFC 1035 4.2.1); a
/// server that sends more is read up to this many and then judged by what arrived.
const UDP_RECEIVE_LIMIT: usize = 4096;

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
pub async fn ask(server: SocketAddr, question: &Question, options: &QueryOptions) -> Answer {
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
        UdpResult::Truncated | UdpResult::Failed(_) => {
            let outcome = over_tcp(server, &query, id, question, options.timeout).await;
            let outcome = match (udp, outcome) {
                // Both failed: the UDP error is the first cause, and usually the same one.
                (UdpResult::Failed(udp), Outcome::Network(tcp)) => {
                    Outcome::Network(format!("{udp} (UDP); {tcp} (TCP)"))
                }
                (_, outcome) => outcome,
            };
            finish(outcome, Transport::Tcp, sent + 1)
        }
    }
}

enum UdpResult {
    Answer(Outcome),
    Truncated,
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
    let mut buf = vec![0u8; UDP_RECEIVE_LIMIT];
    loop {
        let len = match socket.recv(&mut buf).await {
            Ok(len) => len,
            Err(e) => return UdpResult::Failed(e.to_string()),
        };
        let Some(message) = matching_answer(&buf[..len], id, question) else {
            continue;
        };
        if message.metadata.truncation {
            return UdpResult::Truncated;
        }
        return UdpResult::Answer(outcome(&message, question));
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
