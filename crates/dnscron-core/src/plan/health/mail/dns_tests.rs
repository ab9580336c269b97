//! SPF includes and `a`/`mx` hosts outside the account read over DNS, from a scripted resolver
//! on 127.0.0.1: each name once per run however many zones include it, NXDOMAIN as a void
//! lookup, a resolver that refuses as includes not followed (named with its answer), findings
//! that needed DNS answers under their own codes, and server text escaped in the messages.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hickory_proto::op::{Message, ResponseCode};
use hickory_proto::rr::rdata::{A, MX, TXT};
use hickory_proto::rr::{Name, RData, Record, RecordType};
use tokio::net::UdpSocket;

use super::{MailDns, mail_findings};
use crate::config::load_texts;
use crate::dnscheck::QueryOptions;
use crate::finding::FindingCode;

fn txt(text: &str) -> Option<Vec<RData>> {
    Some(vec![RData::TXT(TXT::new(vec![text.to_string()]))])
}

/// What the resolver answers for a name and type: `None` NXDOMAIN, empty NODATA.
fn served(name: &str, rtype: RecordType) -> Option<Vec<RData>> {
    match (name, rtype) {
        ("_spf.provider.test.", RecordType::TXT) => {
            txt("v=spf1 include:_a.provider.test include:_b.provider.test ~all")
        }
        ("_a.provider.test.", RecordType::TXT) => txt("v=spf1 ip4:192.0.2.0/24 -all"),
        ("_b.provider.test.", RecordType::TXT) => txt("v=spf1 ip4:198.51.100.0/24 -all"),
        // Six lookups in one record: with the five of the files, eleven.
        ("_six.provider.test.", RecordType::TXT) => txt("v=spf1 a a a a a a -all"),
        ("_six.provider.test.", RecordType::A) => {
            Some(vec![RData::A(A(Ipv4Addr::new(192, 0, 2, 6)))])
        }
        ("_esc.provider.test.", RecordType::TXT) => txt("v=spf1 \u{1b}[2J -all"),
        ("mail.provider.test.", RecordType::A) => {
            Some(vec![RData::A(A(Ipv4Addr::new(192, 0, 2, 25)))])
        }
        ("v6only.provider.test.", RecordType::A) => Some(Vec::new()),
        ("v6only.provider.test.", RecordType::AAAA) => {
            Some(vec![RData::AAAA(hickory_proto::rr::rdata::AAAA(
                "2001:db8::25".parse().unwrap_or_else(|e| panic!("{e}")),
            ))])
        }
        ("big.provider.test.", RecordType::MX) => Some(
            (0..11)
                .map(|i| {
                    let host = Name::from_ascii(format!("mx{i}.provider.test."))
                        .unwrap_or_else(|e| panic!("{e}"));
                    RData::MX(MX::new(i, host))
                })
                .collect(),
        ),
        ("nomx.provider.test.", RecordType::A) => {
            Some(vec![RData::A(A(Ipv4Addr::new(192, 0, 2, 7)))])
        }
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
            let rtype = query.queries[0].query_type();
            match (refuse, served(&name.to_ascii(), rtype)) {
                (true, _) => m.metadata.response_code = ResponseCode::Refused,
                (false, Some(data)) => {
                    for rdata in data {
                        m.add_answer(Record::from_rdata(name.clone(), 60, rdata));
                    }
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

/// The findings of `files` with the scripted resolver: code and message.
async fn asked(files: &[(PathBuf, String)], refuse: bool) -> (Vec<(FindingCode, String)>, usize) {
    let (addr, asked) = resolver(refuse).await;
    let desired = load_texts(files).unwrap_or_else(|d| panic!("{d:?}"));
    let got = mail_findings(&desired, Some(&dns(addr)))
        .await
        .into_iter()
        .map(|f| (f.code, f.message))
        .collect();
    (got, asked.load(Ordering::SeqCst))
}

fn zone(name: &str, spf: &str) -> Vec<(PathBuf, String)> {
    vec![(
        PathBuf::from(format!("{name}.yaml")),
        format!(
            "zone: {name}\nrecords:\n  - {{ name: \"@\", type: TXT, content: \"{spf}\" }}\n  - {{ name: \"@\", type: A, content: 192.0.2.1 }}\n"
        ),
    )]
}

const PERMERROR: &str = "receivers return permerror and treat the mail as unauthenticated, so it is often rejected or junked";

#[tokio::test]
async fn each_name_is_asked_once_and_nxdomain_is_a_missing_spf_told_from_dns() {
    let (got, questions) = asked(&files(), false).await;
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfIncludeBrokenFromDns,
            format!(
                "the SPF record of gone.test finds no SPF record there: gone.test → include:gone.provider.test; {PERMERROR}; fix or remove that include"
            )
        )]
    );
    // _spf, _a, _b and gone: 4 names, whatever the number of zones.
    assert_eq!(questions, 4);
}

#[tokio::test]
async fn a_resolver_that_refuses_leaves_the_includes_not_followed() {
    let (got, _) = asked(&[files().remove(0)], true).await;
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfLookupsUncounted,
            "the SPF record of z0.test needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.provider.test (the resolver did not answer: REFUSED)".to_string()
        )]
    );
}

/// Eleven lookups of which the files show five: the error needed DNS answers, so it has the
/// code that never stops a write; eleven in the files alone keep the files' code.
#[tokio::test]
async fn a_count_over_the_limit_only_with_dns_answers_has_its_own_code() {
    let (got, _) = asked(
        &zone("z.test", "v=spf1 a a a a include:_six.provider.test -all"),
        false,
    )
    .await;
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfTooManyLookupsFromDns,
            format!(
                "the SPF record of z.test needs 11 DNS lookups (counted with records read over DNS), more than the 10 receivers allow (RFC 7208 §4.6.4): {PERMERROR}; replace includes with the ip4:/ip6: ranges they list, or drop the ones no longer used. Lookups per record:\n\
             z.test                        5   total 5\n\
             \x20 include:_six.provider.test  6   total 11   from DNS"
            )
        )]
    );
    let (got, _) = asked(
        &zone(
            "z.test",
            "v=spf1 a a a a a a a a a a include:_six.provider.test -all",
        ),
        false,
    )
    .await;
    let codes: Vec<FindingCode> = got.into_iter().map(|f| f.0).collect();
    assert_eq!(codes, vec![FindingCode::SpfTooManyLookups]);
}

/// `a`/`mx` hosts outside the account are asked: A then AAAA for `a`, MX for `mx`.
#[tokio::test]
async fn a_and_mx_hosts_outside_the_account_are_asked_for_void_lookups_and_mx_hosts() {
    let (got, _) = asked(
        &zone(
            "z.test",
            "v=spf1 a:mail.provider.test a:v6only.provider.test a:gone.provider.test a:gone2.provider.test mx:nomx.provider.test mx:big.provider.test -all",
        ),
        false,
    )
    .await;
    assert_eq!(
        got,
        vec![
            (
                FindingCode::SpfTooManyVoidLookupsFromDns,
                "the SPF record of z.test makes 3 void lookups (names without records) (counted with answers read over DNS), more than the 2 receivers allow (RFC 7208 §4.6.4): they return permerror and treat the mail as unauthenticated; remove the terms that name hosts without records (includes of names that no longer publish SPF, `a:`/`mx:` of names that are gone). Lookups per record:\n\
                 z.test  6   total 6   void: a:gone.provider.test, a:gone2.provider.test, mx:nomx.provider.test; mx:big.provider.test: 11 MX hosts".to_string()
            ),
            (
                FindingCode::SpfMxTooManyHostsFromDns,
                format!("the SPF record of z.test has `mx:big.provider.test`, whose name has 11 MX hosts (the resolver lists), more than the 10 receivers look up for one `mx` (RFC 7208 §4.6.4): {PERMERROR}; list the mail servers' addresses with ip4:/ip6: instead")
            ),
        ]
    );
}

/// An escape sequence in a record DNS served reaches the message escaped.
#[tokio::test]
async fn server_text_in_an_included_record_is_escaped_in_the_message() {
    let (got, _) = asked(
        &zone("z.test", "v=spf1 include:_esc.provider.test -all"),
        false,
    )
    .await;
    assert_eq!(
        got,
        vec![(
            FindingCode::SpfIncludeBrokenFromDns,
            format!(
                "the SPF record of z.test finds an invalid SPF record there (`\\u{{1b}}[2J` is not an SPF mechanism or modifier): z.test → include:_esc.provider.test; {PERMERROR}; fix or remove that include"
            )
        )]
    );
    assert!(!got[0].1.contains('\u{1b}'));
}
