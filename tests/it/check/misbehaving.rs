//! `check` against nameservers on 127.0.0.1 written here that misbehave: silent, the wrong id,
//! garbage, not authoritative, REFUSED, escape codes in a TXT answer, and an answer cut at 512
//! octets that only TCP gives whole.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hickory_proto::op::{Message, ResponseCode};
use hickory_proto::rr::rdata::{SOA, TXT};
use hickory_proto::rr::{Name, RData, Record, RecordType};

use crate::common::Test;

/// How the fake server answers a decoded query: the datagrams to send back.
type Behaviour = fn(&Message) -> Vec<Vec<u8>>;

/// A UDP nameserver on 127.0.0.1 in a thread; stops when dropped (it polls a flag between
/// reads, at most every 20 ms) or after 200 queries.
struct FakeServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl FakeServer {
    fn start(behaviour: Behaviour) -> FakeServer {
        FakeServer::start_on(UdpSocket::bind("127.0.0.1:0").unwrap(), behaviour)
    }

    fn start_on(socket: UdpSocket, behaviour: Behaviour) -> FakeServer {
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let addr = socket.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 512];
            let mut served = 0;
            while !stopped.load(Ordering::Relaxed) && served < 200 {
                let Ok((len, peer)) = socket.recv_from(&mut buf) else {
                    continue;
                };
                served += 1;
                let Ok(query) = Message::from_vec(&buf[..len]) else {
                    continue;
                };
                for datagram in behaviour(&query) {
                    let _ = socket.send_to(&datagram, peer);
                }
            }
        });
        FakeServer { addr, stop }
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The answer to `query`: authoritative, with the zone's SOA for a SOA query and `txt` for a
/// TXT query.
fn answer(query: &Message, txt: &str) -> Message {
    let mut m = Message::response(query.metadata.id, query.metadata.op_code);
    m.add_queries(query.queries.iter().cloned());
    m.metadata.authoritative = true;
    let q = &query.queries[0];
    let name = q.name().clone();
    let host = |s: &str| Name::from_ascii(s).unwrap();
    let data = if q.query_type() == RecordType::SOA {
        RData::SOA(SOA::new(
            host("ns1.fake-dns.example."),
            host("hostmaster.fake.test."),
            1,
            3600,
            600,
            604_800,
            60,
        ))
    } else {
        RData::TXT(TXT::new(vec![txt.to_string()]))
    };
    m.add_answer(Record::from_rdata(name, 3600, data));
    m
}

fn bytes(m: Message) -> Vec<Vec<u8>> {
    vec![m.to_vec().unwrap()]
}

/// A zone with one TXT record, served by `ns1.fake-dns.example` mapped to `server`, asked with a
/// short timeout.
fn check(server: &FakeServer) -> (tempfile::TempDir, Test) {
    let dir = tempfile::tempdir().unwrap();
    let text = "zone: fake.test\n\
                nameservers: { mode: custom, hosts: [ns1.fake-dns.example, ns2.fake-dns.example] }\n\
                records:\n  \
                - { name: \"@\", type: TXT, content: \"hello\", ttl: 3600 }\n";
    std::fs::write(dir.path().join("fake.test.yaml"), text).unwrap();
    let addr = server.addr;
    let test = Test::new().current_dir(dir.path()).args([
        "check".to_string(),
        "fake.test.yaml".into(),
        "--dns-timeout=0.05".into(),
        format!("--nameserver-address=ns1.fake-dns.example={addr}"),
        format!("--nameserver-address=ns2.fake-dns.example={addr}"),
    ]);
    (dir, test)
}

const FAILED_HINT: &str = "hint: check the address (--nameserver-address HOST=IP[:PORT]), the \
                           resolver (--resolver) and the network; --dns-timeout gives slow \
                           servers longer\n";

/// `check` against `server` times out on both of its names: exit 1, whole output. Every answer
/// it sends is ignored, so each SOA question is sent twice.
fn expect_timeouts(server: &FakeServer) {
    let addr = server.addr;
    let reason = "no answer (timeout)";
    let (_dir, test) = check(server);
    test.expect_status(1)
        .expect_stdout(format!(
            "fake.test (nameservers from the files)\n  \
             ns1.fake-dns.example {addr}: could not be asked\n    @ SOA: {reason}\n  \
             ns2.fake-dns.example {addr}: could not be asked\n    @ SOA: {reason}\n\
             check: 0 of 1 zone in sync, 0 differences, 2 failures (the check did not run \
             there), 4 DNS queries to 2 nameserver addresses\n"
        ))
        .expect_stderr(format!(
            "error: the check did not run for ns1.fake-dns.example {addr} (fake.test), \
             ns2.fake-dns.example {addr} (fake.test)\n{FAILED_HINT}"
        ))
        .run();
}

#[test]
fn a_silent_server_times_out_and_the_check_does_not_run() {
    expect_timeouts(&FakeServer::start(|_| Vec::new()));
}

#[test]
fn answers_with_the_wrong_id_or_garbage_are_ignored() {
    expect_timeouts(&FakeServer::start(|q| {
        let mut m = answer(q, "hello");
        m.metadata.id = q.metadata.id.wrapping_add(1);
        bytes(m)
    }));
    // A response header with the right id, then a question count the bytes can't hold.
    expect_timeouts(&FakeServer::start(|q| {
        let id = q.metadata.id.to_be_bytes();
        vec![vec![id[0], id[1], 0x81, 0x80, 0xff, 0xff, 0, 1, 2, 3]]
    }));
}

/// `check` against `server` finds `line` on both of its names: exit 2, whole output.
fn expect_difference(server: &FakeServer, line: &str, queries: u32) {
    let addr = server.addr;
    let (_dir, test) = check(server);
    test.expect_status(2)
        .expect_stdout(format!(
            "fake.test (nameservers from the files)\n  \
             ns1.fake-dns.example {addr}: 1 difference\n    {line}\n  \
             ns2.fake-dns.example {addr}: 1 difference\n    {line}\n\
             check: 0 of 1 zone in sync, 2 differences, {queries} DNS queries to 2 nameserver \
             addresses\n"
        ))
        .run();
}

#[test]
fn a_server_that_is_not_authoritative_or_refuses_is_a_difference() {
    let lame = FakeServer::start(|q| {
        let mut m = answer(q, "hello");
        m.metadata.authoritative = false;
        bytes(m)
    });
    let line = "@ SOA: not authoritative for the zone (the answer's AA bit is clear)";
    expect_difference(&lame, line, 2);
    let refusing = FakeServer::start(|q| {
        let mut m = Message::response(q.metadata.id, q.metadata.op_code);
        m.add_queries(q.queries.iter().cloned());
        m.metadata.response_code = ResponseCode::Refused;
        bytes(m)
    });
    expect_difference(&refusing, "@ SOA: answers REFUSED", 2);
}

/// The TXT answer's ESC, bidi override, line break and workflow-command shape are escaped.
#[test]
fn escape_codes_in_an_answer_are_printed_escaped() {
    let hostile = FakeServer::start(|q| bytes(answer(q, "\u{1b}[31mred\u{202e}\n::warning::x")));
    let line = "@ TXT: serves \"\\u{1b}[31mred\\u{202e}\\u{a}::warning::x\" (not in the files), \
                lacks \"hello\" (fake.test.yaml:4:5)";
    expect_difference(&hostile, line, 4);
}

/// A UDP answer cut at 512 octets (TC set, the rest dropped mid-record, as a server without
/// EDNS sends a long DKIM key) and the whole answer over TCP on the same port, from threads
/// that stop when dropped.
struct CuttingServer {
    udp: FakeServer,
    tcp_stop: Arc<AtomicBool>,
}

impl CuttingServer {
    fn start() -> CuttingServer {
        // TCP first, then UDP on its port: a free TCP port may be taken for UDP, so retry.
        let (listener, socket) = (0..100)
            .find_map(|_| {
                let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
                let socket = UdpSocket::bind(listener.local_addr().unwrap()).ok()?;
                Some((listener, socket))
            })
            .expect("a port free for both TCP and UDP");
        let udp = FakeServer::start_on(socket, |q| {
            let mut m = dkim_answer(q);
            if q.queries[0].query_type() != RecordType::TXT {
                return bytes(m);
            }
            m.metadata.truncation = true;
            let mut cut = m.to_vec().unwrap();
            cut.truncate(512);
            assert!(Message::from_vec(&cut).is_err(), "cut mid-record");
            vec![cut]
        });
        let tcp_stop = Arc::new(AtomicBool::new(false));
        let stopped = tcp_stop.clone();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            for stream in listener.incoming() {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(mut stream) = stream else { continue };
                let mut len = [0u8; 2];
                if stream.read_exact(&mut len).is_err() {
                    continue;
                }
                let mut query = vec![0u8; usize::from(u16::from_be_bytes(len))];
                if stream.read_exact(&mut query).is_err() {
                    continue;
                }
                let Ok(query) = Message::from_vec(&query) else {
                    continue;
                };
                let whole = dkim_answer(&query).to_vec().unwrap();
                let _ = stream.write_all(&(whole.len() as u16).to_be_bytes());
                let _ = stream.write_all(&whole);
            }
        });
        CuttingServer { udp, tcp_stop }
    }
}

impl Drop for CuttingServer {
    fn drop(&mut self) {
        self.tcp_stop.store(true, Ordering::Relaxed);
        // Wakes the blocked accept, which then sees the flag.
        let _ = std::net::TcpStream::connect(self.udp.addr);
    }
}

/// A DKIM-sized TXT: its answer does not fit in 512 octets.
fn dkim() -> String {
    format!("v=DKIM1; k=rsa; p={}", "A".repeat(600))
}

/// [`answer`] with [`dkim`] as the TXT, in 255-octet character-strings as on the wire.
fn dkim_answer(query: &Message) -> Message {
    let mut m = answer(query, "");
    if query.queries[0].query_type() == RecordType::TXT {
        let text = dkim();
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(255).collect();
        let name = query.queries[0].name().clone();
        m.answers.clear();
        m.add_answer(Record::from_rdata(
            name,
            3600,
            RData::TXT(TXT::from_bytes(chunks)),
        ));
    }
    m
}

/// Before the header was read first, the cut answer was dropped as "not DNS" and both servers
/// were reported silent (exit 1): now the TXT is asked again over TCP and found in sync.
#[test]
fn an_answer_cut_at_512_octets_is_asked_again_over_tcp_and_in_sync() {
    let server = CuttingServer::start();
    let addr = server.udp.addr;
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "zone: fake.test\n\
         nameservers: {{ mode: custom, hosts: [ns1.fake-dns.example, ns2.fake-dns.example] }}\n\
         records:\n  \
         - {{ name: \"@\", type: TXT, content: \"{}\", ttl: 3600 }}\n",
        dkim()
    );
    std::fs::write(dir.path().join("fake.test.yaml"), text).unwrap();
    Test::new()
        .current_dir(dir.path())
        .args([
            "check".to_string(),
            "fake.test.yaml".into(),
            // Generous: the answer comes at once; only a regression would wait for it.
            "--dns-timeout=5".into(),
            format!("--nameserver-address=ns1.fake-dns.example={addr}"),
            format!("--nameserver-address=ns2.fake-dns.example={addr}"),
        ])
        .expect_status(0)
        .expect_stdout(format!(
            "fake.test (nameservers from the files)\n  \
             ns1.fake-dns.example {addr}: in sync (SOA + 1 RRset)\n  \
             ns2.fake-dns.example {addr}: in sync (SOA + 1 RRset)\n\
             check: 1 of 1 zone in sync, 0 differences, 6 DNS queries to 2 nameserver \
             addresses\n"
        ))
        .expect_stderr("")
        .run();
}
