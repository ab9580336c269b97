//! The emulator's DNS listener: UDP and TCP on one port, answering from [`dns_answer`].
//! A small loop over hickory-proto's message codec rather than hickory-server: the emulator
//! needs a dozen lines of transport, not a zone catalogue, and the server crate would add its
//! own dependency tree to every emulator build.
//!
//! [`dns_answer`]: super::dns_answer

use std::net::SocketAddr;
use std::sync::Arc;

use hickory_proto::op::{Message, OpCode, ResponseCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::EmulatorError;
use super::dns_answer::respond;
use super::shared::Shared;

/// Without EDNS, a UDP answer holds at most 512 octets (RFC 1035 4.2.1).
const UDP_MIN_PAYLOAD: usize = 512;

/// Binds UDP and TCP on the same address; with port 0, the port TCP got is used for UDP too.
pub(crate) async fn bind(addr: SocketAddr) -> Result<(UdpSocket, TcpListener), EmulatorError> {
    let bind_error = |source| EmulatorError::Bind { addr, source };
    // With port 0 the port TCP picked may be taken for UDP: try a few.
    let attempts = if addr.port() == 0 { 8 } else { 1 };
    let mut last = None;
    for _ in 0..attempts {
        let tcp = TcpListener::bind(addr).await.map_err(bind_error)?;
        let local = tcp.local_addr().map_err(bind_error)?;
        match UdpSocket::bind(local).await {
            Ok(udp) => return Ok((udp, tcp)),
            Err(e) => last = Some(e),
        }
    }
    Err(bind_error(last.unwrap_or_else(|| {
        std::io::Error::other("no port free for both UDP and TCP")
    })))
}

pub(crate) async fn serve(
    udp: UdpSocket,
    tcp: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    let mut buf = vec![0u8; 65_535];
    loop {
        tokio::select! {
            received = udp.recv_from(&mut buf) => {
                if let Ok((len, peer)) = received
                    && let Some(answer) = answer(&shared, &buf[..len], true)
                {
                    let _ = udp.send_to(&answer, peer).await;
                }
            }
            accepted = tcp.accept() => {
                if let Ok((stream, _)) = accepted {
                    connections.spawn(connection(stream, shared.clone()));
                }
            }
            _ = shutdown.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.abort_all();
}

/// One TCP connection: two-octet length, message, as many times as the client asks.
async fn connection(mut stream: TcpStream, shared: Arc<Shared>) {
    loop {
        let Ok(len) = stream.read_u16().await else {
            return;
        };
        let mut request = vec![0u8; usize::from(len)];
        if stream.read_exact(&mut request).await.is_err() {
            return;
        }
        let Some(answer) = answer(&shared, &request, false) else {
            return;
        };
        let Ok(len) = u16::try_from(answer.len()) else {
            return;
        };
        if stream.write_u16(len).await.is_err() || stream.write_all(&answer).await.is_err() {
            return;
        }
    }
}

/// The encoded answer; `None` for bytes too short to carry an id (nothing to answer to).
fn answer(shared: &Shared, request: &[u8], udp: bool) -> Option<Vec<u8>> {
    let response = match Message::from_vec(request) {
        Ok(message) => {
            let nameservers = shared.settings().service_nameservers;
            let response = shared.with_dns_view(|state| respond(state, &nameservers, &message));
            let limit = usize::from(message.max_payload()).max(UDP_MIN_PAYLOAD);
            return encode(response, udp.then_some(limit));
        }
        Err(_) => {
            let id = u16::from_be_bytes([*request.first()?, *request.get(1)?]);
            Message::error_msg(id, OpCode::Query, ResponseCode::FormErr)
        }
    };
    encode(response, None)
}

/// Over UDP, an answer larger than the client takes is sent truncated (TC set, no records), so
/// the client retries over TCP.
fn encode(response: Message, udp_limit: Option<usize>) -> Option<Vec<u8>> {
    let bytes = response.to_vec().ok()?;
    match udp_limit {
        Some(limit) if bytes.len() > limit => response.truncate().to_vec().ok(),
        _ => Some(bytes),
    }
}
