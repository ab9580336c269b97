//! The record types both sides support, as dnscontrol's capability tests hold its providers.
//! Both read the one list of the API's description (`dnscron_provider::RecordType`; the served
//! document is held to it in tests/it/provider.rs), and one record of every type goes the whole
//! way: written through the API by `apply`, answered by the emulator's DNS listener, and
//! compared with the files by `check`. Its list of
//! types is an exhaustive match, so adding a type to `RecordType` fails to compile here too.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use dnscron_core::dns::RecordType;
use dnscron_emulator::{self as emulator, BackgroundEmulator, RateLimit, Seed, ZoneSeed};

use crate::common::{Test, assert_cli_snapshot};

const ZONE: &str = "capability.test";

fn server_types() -> BTreeSet<&'static str> {
    emulator::RecordType::ALL
        .iter()
        .map(|t| t.as_str())
        .collect()
}

/// The type after `rtype` in this test's list. An exhaustive match, so a type added to
/// `RecordType` fails to compile here (and in [`sample`]) until this test covers it;
/// [`the_capability_list_names_every_record_type`] holds the chain to the client's whole list.
fn next_type(rtype: RecordType) -> Option<RecordType> {
    match rtype {
        RecordType::A => Some(RecordType::AAAA),
        RecordType::AAAA => Some(RecordType::CNAME),
        RecordType::CNAME => Some(RecordType::MX),
        RecordType::MX => Some(RecordType::TXT),
        RecordType::TXT => Some(RecordType::NS),
        RecordType::NS => Some(RecordType::SRV),
        RecordType::SRV => Some(RecordType::CAA),
        RecordType::CAA => Some(RecordType::PTR),
        RecordType::PTR => None,
    }
}

/// Every record type, as this test's exhaustive match lists them.
fn every_record_type() -> Vec<RecordType> {
    std::iter::successors(Some(RecordType::A), |t| next_type(*t)).collect()
}

#[test]
fn the_capability_list_names_every_record_type() {
    let listed = every_record_type();
    let names: BTreeSet<&str> = listed.iter().map(|t| t.as_str()).collect();
    assert_eq!(
        names.len(),
        listed.len(),
        "a type chained twice: {listed:?}"
    );
    assert_eq!(
        names,
        RecordType::ALL
            .iter()
            .map(|t| t.as_str())
            .collect::<BTreeSet<_>>(),
        "chain the new type into next_type, and give it a record in sample"
    );
}

/// Where the one record of `rtype` stands and what it holds. Each type has its own name, so no
/// CNAME shares one; SRV's name is `_service._proto`, as the rules require.
fn sample(rtype: RecordType) -> (&'static str, &'static str) {
    match rtype {
        RecordType::A => ("a", "192.0.2.10"),
        RecordType::AAAA => ("aaaa", "2001:db8::10"),
        RecordType::CNAME => ("cname", "target.capability.test."),
        RecordType::MX => ("mx", "10 mail.capability.test."),
        RecordType::TXT => ("txt", "v=spf1 -all"),
        RecordType::NS => ("delegated", "ns1.elsewhere.example."),
        RecordType::SRV => ("_sip._tcp", "10 60 5060 sip.capability.test."),
        RecordType::CAA => ("caa", "0 issue \"letsencrypt.org\""),
        RecordType::PTR => ("ptr", "host.capability.test."),
    }
}

/// The zone file: one record of every type the client supports.
fn every_type_file() -> String {
    let mut text = format!("zone: {ZONE}\ndefaults: {{ ttl: 300 }}\nrecords:\n");
    for rtype in every_record_type() {
        let (name, content) = sample(rtype);
        let content = serde_json::to_string(content).unwrap();
        text.push_str(&format!(
            "  - {{ name: \"{name}\", type: {rtype}, content: {content} }}\n"
        ));
    }
    text
}

fn start() -> BackgroundEmulator {
    let mut seed = Seed::example().with_zone(ZoneSeed::new(ZONE));
    seed.rate_limit = RateLimit::off();
    emulator::start_background_with_dns(seed).unwrap()
}

#[test]
fn one_record_of_every_type_is_written_served_and_checked_in_sync() {
    let emu = start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{ZONE}.yaml"));
    std::fs::write(&file, every_type_file()).unwrap();

    // A type added to the lists adds its line here: accept the new snapshot.
    assert_cli_snapshot!(
        "every_type_applied",
        Test::new()
            .args(["apply", "--yes"])
            .arg(&file)
            .api(&emu.base_url(), "demo-token")
            .plan_stamp()
    );
    let account = emu.state();
    let written: BTreeSet<&str> = account.zones[ZONE]
        .iter()
        .filter(|r| !r.hidden)
        .map(|r| r.rtype.as_str())
        .collect();
    assert_eq!(written, server_types());

    let dns: SocketAddr = emu.dns_addr().unwrap();
    let types = every_record_type().len();
    // The discovery of the NS, then per nameserver the SOA and one question per RRset.
    let queries = 1 + 2 * (1 + types);
    Test::new()
        .current_dir(dir.path())
        .args([
            "check".to_string(),
            format!("{ZONE}.yaml"),
            format!("--resolver={dns}"),
            format!("--nameserver-address=ns1.veldhost.net={dns}"),
            format!("--nameserver-address=ns2.veldhost.net={dns}"),
        ])
        .expect_stdout(format!(
            "{ZONE} (nameservers from the resolver {dns})\n  \
             ns1.veldhost.net {dns}: in sync (SOA + {types} RRsets)\n  \
             ns2.veldhost.net {dns}: in sync (SOA + {types} RRsets)\n\
             check: 1 of 1 zone in sync, 0 differences, {queries} DNS queries to 2 nameserver \
             addresses\n"
        ))
        .run();
}
