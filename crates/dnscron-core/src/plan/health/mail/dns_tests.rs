//! SPF includes outside the account read over DNS, from a scripted resolver on 127.0.0.1: each
//! name once per run however many zones include it, NXDOMAIN as a void lookup, and a resolver
//! that refuses as includes not followed, named with its answer.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hickory_proto::op::{Message, ResponseCode};
use hickory_proto::rr::rdata::TXT;
use hickory_proto::rr::{RData, Record};
use tokio::net::UdpSocket;

use super::{MailDns, mail_findings};
use crate::config::load_texts;
use crate::dnscheck::QueryOptions;
use crate::plan::model::Severity;

/// The TXT text a name has, `None`: NXDOMAIN.
fn served(name: &str) -> Option<&'static str> {
    match name {
        "_spf.provider.test." => {
            Some("v=spf1 include:_a.provider.test include:_b.provider.test ~all")
        }
        "_a.provider.test." => Some("v=spf1 ip4:192.0.2.0/24 -all"),
        "_b.provider.test." => Some("v=spf1 ip4:198.51.100.0/24 -all"),
        _ => None,
    }
}

/// A resolver answering [`served`] (or REFUSED to everything), counting the questions.
async fn resolver(refuse: bool) -> (SocketAddr, Arc<AtomicUsize>) {
    let socket = UdpSocket::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let addr = socket.local_addr().unwrap_or_else(|e| panic!("{e}"));
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 4096];
        while let Ok((len, peer)) = socket.recv_from(&mut buf).await {
            count.fetch_add(1, Ordering::SeqCst);
            let Ok(query) = Message::from_vec(&buf[..len]) else {
                continue;
            };
            let mut m = Message::response(query.metadata.id, query.metadata.op_code);
            m.add_queries(query.queries.iter().cloned());
            let name = query.queries[0].name().clone();
            match (refuse, served(&name.to_ascii())) {
                (true, _) => m.metadata.response_code = ResponseCode::Refused,
                (false, Some(text)) => {
                    m.add_answer(Record::from_rdata(
                        name,
                        60,
                        RData::TXT(TXT::new(vec![text.to_string()])),
                    ));
                }
                (false, None) => m.metadata.response_code = ResponseCode::NXDomain,
            }
            let Ok(bytes) = m.to_vec() else { continue };
            let _ = socket.send_to(&bytes, peer).await;
        }
    });
    (addr, asked)
}

/// 50 zones including the provider, and one including a name that does not exist.
fn files() -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = (0..50)
        .map(|i| {
            let text = format!(
                "zone: z{i}.test\nrecords:\n  - {{ name: \"@\", type: TXT, content: \"v=spf1 include:_spf.provider.test -all\" }}\n"
            );
            (PathBuf::from(format!("z{i}.yaml")), text)
        })
        .collect();
    files.push((
        PathBuf::from("gone.yaml"),
        "zone: gone.test\nrecords:\n  - { name: \"@\", type: TXT, content: \"v=spf1 include:gone.provider.test -all\" }\n".into(),
    ));
    files
}

fn dns(addr: SocketAddr) -> MailDns {
    let query = QueryOptions {
        timeout: Duration::from_secs(2),
        ..QueryOptions::default()
    };
    MailDns::new(addr, query)
}

#[tokio::test]
async fn each_name_is_asked_once_and_nxdomain_is_a_missing_spf() {
    let (addr, asked) = resolver(false).await;
    let desired = load_texts(&files()).unwrap_or_else(|d| panic!("{d:?}"));
    let got: Vec<(Severity, String)> = mail_findings(&desired, Some(&dns(addr)))
        .await
        .into_iter()
        .map(|f| (f.severity, f.message))
        .collect();
    assert_eq!(
        got,
        vec![(
            Severity::Error,
            "the SPF record of gone.test finds no SPF record there: gone.test → include:gone.provider.test; receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked; fix or remove that include".to_string()
        )]
    );
    // _spf, _a, _b and gone: 4 names, whatever the number of zones.
    assert_eq!(asked.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_resolver_that_refuses_leaves_the_includes_not_followed() {
    let (addr, _) = resolver(true).await;
    let files = vec![files().remove(0)];
    let desired = load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"));
    let got: Vec<(Severity, String)> = mail_findings(&desired, Some(&dns(addr)))
        .await
        .into_iter()
        .map(|f| (f.severity, f.message))
        .collect();
    assert_eq!(
        got,
        vec![(
            Severity::Info,
            "the SPF record of z0.test needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.provider.test (the resolver did not answer: REFUSED); lookups per record: z0.test: 1 (include:_spf.provider.test: not followed (the resolver did not answer: REFUSED))".to_string()
        )]
    );
}
