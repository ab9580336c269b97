//! `dnscron check` against the emulator's DNS listener over real UDP and TCP on 127.0.0.1:
//! in sync, drifted after an API write, NXDOMAIN/NODATA, long chunked TXT over TCP, a custom
//! nameserver zone, JSON, and the refused flag values. Servers that misbehave: `misbehaving`.
//!
//! Every run maps every nameserver with `--nameserver-address` and finds hosted zones'
//! nameservers with `--resolver`; `common::command` also sets DNSCRON_NO_SYSTEM_RESOLVER, so
//! no test can fall back to the system resolver.

mod accounts;
mod misbehaving;

use std::net::SocketAddr;
use std::path::Path;

use dnscron_emulator::{self as emulator, Emulator, RecordSeed, Seed, ZoneSeed};
use serde_json::json;

use crate::common::emulator::Api;
use crate::common::{Test, assert_cli_snapshot};

/// The emulator with its own runtime (kept alive with it) and its DNS listener.
struct DnsEmulator {
    emu: Emulator,
    runtime: tokio::runtime::Runtime,
}

impl DnsEmulator {
    fn start(zone: ZoneSeed) -> DnsEmulator {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let local: SocketAddr = ([127, 0, 0, 1], 0).into();
        let seed = Seed::example().with_zone(zone);
        let emu = runtime
            .block_on(emulator::start_with_dns(seed, local, Some(local)))
            .unwrap();
        DnsEmulator { emu, runtime }
    }

    fn dns(&self) -> SocketAddr {
        self.emu.dns_addr().unwrap()
    }

    /// `check` with the service's nameservers mapped to the listener and it as the resolver.
    fn check(&self, dir: &Path) -> Test {
        let dns = self.dns();
        Test::new().current_dir(dir).args([
            "check".to_string(),
            "check.test.yaml".into(),
            format!("--resolver={dns}"),
            format!("--nameserver-address=ns1.veldhost.net={dns}"),
            format!("--nameserver-address=NS2.Veldhost.NET.={dns}"),
        ])
    }

    /// Replaces the content of the one `name`/`rtype` record through the API.
    fn update(&self, name: &str, rtype: &str, ttl: u32, content: &str) {
        let id = self.emu.state().zones["check.test"]
            .iter()
            .find(|r| r.name == name && r.rtype == rtype)
            .unwrap()
            .id;
        let api = Api::new(&self.emu.base_url(), "demo-token");
        let body = json!({"name": name, "type": rtype, "ttl": ttl, "content": content});
        let path = format!("/dns/check.test/records/{id}");
        let resp = self.runtime.block_on(api.put(&path, body));
        assert_eq!(resp.status, 200);
    }
}

/// 600 octets: served as three character-strings, and the TXT answer needs TCP.
fn long_text() -> String {
    "k".repeat(600)
}

fn zone() -> ZoneSeed {
    ZoneSeed::new("check.test").with_records([
        RecordSeed::new("@", "A", "192.0.2.1").with_ttl(300),
        RecordSeed::new("@", "A", "192.0.2.2").with_ttl(300),
        RecordSeed::new("@", "MX", "10 mail.check.test."),
        RecordSeed::new("@", "CAA", "0 issue \"letsencrypt.org\""),
        RecordSeed::new("@", "TXT", "\"v=spf1 -all\""),
        RecordSeed::new("@", "TXT", "google-site-verification=abc"),
        RecordSeed::new("www", "CNAME", "check.test."),
        RecordSeed::new("mail", "A", "192.0.2.25").with_ttl(600),
        RecordSeed::new("_sip._tcp", "SRV", "10 60 5060 sip.check.test."),
        RecordSeed::new("v6", "AAAA", "2001:db8::1"),
        RecordSeed::new("long", "TXT", &long_text()),
    ])
}

/// The files for [`zone`], written differently where DNS says it is the same (case, final
/// dots, quoting) and ignoring the verification TXT.
fn files(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"zone: check.test
defaults: {{ ttl: 3600 }}
ignore:
  - {{ name: "@", type: TXT, content: "google-site-verification=*" }}
records:
  - {{ name: "@", type: A, content: 192.0.2.2, ttl: 300 }}
  - {{ name: "@", type: A, content: 192.0.2.1, ttl: 300 }}
  - {{ name: "@", type: MX, content: "10 MAIL.check.test" }}
  - {{ name: "@", type: CAA, content: '0 ISSUE letsencrypt.org' }}
  - {{ name: "@", type: TXT, content: "v=spf1 -all" }}
  - {{ name: www, type: CNAME, content: Check.Test }}
  - {{ name: mail, type: A, content: 192.0.2.25, ttl: 600 }}
  - {{ name: _sip._tcp, type: SRV, content: "10 60 5060 sip.check.test." }}
  - {{ name: v6, type: AAAA, content: "2001:0db8:0::1" }}
  - {{ name: long, type: TXT, content: "{}" }}
{extra}"#,
        long_text()
    );
    std::fs::write(dir.path().join("check.test.yaml"), text).unwrap();
    dir
}

/// 23 queries: the NS discovery, then per nameserver the SOA and 9 RRsets, and the long TXT
/// twice (its UDP answer is truncated, so it is asked again over TCP).
#[test]
fn every_nameserver_in_sync_exits_0() {
    let emu = DnsEmulator::start(zone());
    let dir = files("");
    let dns = emu.dns();
    emu.check(dir.path())
        .expect_stdout(format!(
            "check.test (nameservers from the resolver {dns})\n  \
             ns1.veldhost.net {dns}: in sync (SOA + 9 RRsets)\n  \
             ns2.veldhost.net {dns}: in sync (SOA + 9 RRsets)\n\
             check: 1 of 1 zone in sync, 0 differences, 23 DNS queries to 2 nameserver \
             addresses\n"
        ))
        .run();
}

#[test]
fn a_record_changed_through_the_api_is_a_difference_exit_2() {
    let emu = DnsEmulator::start(zone());
    emu.update("mail", "A", 60, "192.0.2.99");
    let dir = files(
        "  - { name: gone, type: A, content: 192.0.2.7 }\n  \
         - { name: mail, type: TXT, content: \"no TXT here\" }\n",
    );
    let dns = emu.dns();
    let differences = "    mail A: serves 192.0.2.99 (not in the files), lacks 192.0.2.25 \
                       (check.test.yaml:12:5)\n    \
                       gone A: lacks 192.0.2.7 (the server answers NXDOMAIN) \
                       (check.test.yaml:16:5)\n    \
                       mail TXT: lacks \"no TXT here\" (the server answers NODATA) \
                       (check.test.yaml:17:5)\n";
    emu.check(dir.path())
        .expect_status(2)
        .expect_stdout(format!(
            "check.test (nameservers from the resolver {dns})\n  \
             ns1.veldhost.net {dns}: 3 differences\n{differences}  \
             ns2.veldhost.net {dns}: 3 differences\n{differences}\
             check: 0 of 1 zone in sync, 6 differences, 27 DNS queries to 2 nameserver \
             addresses\n"
        ))
        .run();
    let annotations = |host: &str| {
        let at = "::error file=check.test.yaml";
        let who = format!("title=dnscron check::{host} {dns} (check.test)");
        format!(
            "{at},line=12,col=5,{who}: mail A: serves 192.0.2.99 (not in the files), lacks \
             192.0.2.25\n\
             {at},line=16,col=5,{who}: gone A: lacks 192.0.2.7 (the server answers NXDOMAIN)\n\
             {at},line=17,col=5,{who}: mail TXT: lacks \"no TXT here\" (the server answers \
             NODATA)\n"
        )
    };
    emu.check(dir.path())
        .arg("--format=github")
        .expect_status(2)
        .expect_stdout(format!(
            "{}{}::notice::check: 0 of 1 zone in sync, 6 differences, 27 DNS queries to 2 \
             nameserver addresses\n",
            annotations("ns1.veldhost.net"),
            annotations("ns2.veldhost.net"),
        ))
        .run();
}

#[test]
fn a_ttl_alone_is_a_lesser_difference_listed_last() {
    let emu = DnsEmulator::start(zone());
    emu.update("@", "MX", 120, "10 mail.check.test.");
    emu.update("v6", "AAAA", 3600, "2001:db8::2");
    let dir = files("");
    let stdout = emu
        .check(dir.path())
        .arg("--format=json")
        .expect_status(2)
        .run_for_stdout();
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let dns = emu.dns().to_string();
    let differences = json!([
        {"name": "v6", "type": "AAAA", "location": "check.test.yaml:14:5", "kind": "values",
         "missing": ["2001:db8::1"], "extra": ["2001:db8::2"]},
        {"name": "@", "type": "MX", "location": "check.test.yaml:8:5", "kind": "ttl",
         "value": "10 mail.check.test.", "expected": 3600, "served": 120},
    ]);
    let server = |host: &str| json!({"host": host, "address": dns, "status": "differs", "differences": differences});
    assert_eq!(
        report,
        json!({
            "version": 1,
            "zones": [{
                "zone": "check.test",
                "nameservers_from": {"from": "resolver", "address": dns},
                "nameservers": [server("ns1.veldhost.net"), server("ns2.veldhost.net")],
                "rrsets": 9,
            }],
            "summary": {"zones": 1, "zones_in_sync": 0, "nameservers": 2, "differences": 4,
                        "failures": 0},
            "queries": 23,
            "findings": [],
        })
    );
}

#[test]
fn custom_nameservers_come_from_the_files_and_are_mapped() {
    let emu = DnsEmulator::start(zone());
    let dir = files("nameservers: { mode: custom, hosts: [a.ns.example, b.ns.example] }\n");
    let dns = emu.dns();
    // No --resolver: custom hosts need none. b's mapping points where nothing listens.
    let closed = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    Test::new()
        .current_dir(dir.path())
        .args([
            "check".to_string(),
            "check.test.yaml".into(),
            format!("--nameserver-address=a.ns.example={dns}"),
            format!("--nameserver-address=b.ns.example={closed}"),
        ])
        .expect_status(1)
        .expect_stdout(format!(
            "check.test (nameservers from the files)\n  \
             a.ns.example {dns}: in sync (SOA + 9 RRsets)\n  \
             b.ns.example {closed}: could not be asked\n    \
             @ SOA: network error: Connection refused (os error 111) (UDP); Connection \
             refused (os error 111) (TCP)\n\
             check: 0 of 1 zone in sync, 0 differences, 1 failure (the check did not run \
             there), 13 DNS queries to 2 nameserver addresses\n"
        ))
        .expect_stderr(format!(
            "error: the check did not run for b.ns.example {closed} (check.test)\n\
             hint: check the address (--nameserver-address HOST=IP[:PORT]), the resolver \
             (--resolver) and the network; --dns-timeout gives slow servers longer\n"
        ))
        .run();
}

#[test]
fn without_a_resolver_or_a_mapping_the_check_does_not_run() {
    let emu = DnsEmulator::start(zone());
    let dir = files("");
    Test::new()
        .current_dir(dir.path())
        .args(["check", "check.test.yaml"])
        .expect_status(1)
        .expect_stdout(
            "check.test (nameservers not found)\n  \
             x no --resolver given and the system resolver is turned off; give --resolver \
             IP[:PORT], or list check.test's nameservers with `nameservers: {mode: custom, \
             hosts: [...]}`\n\
             check: 0 of 1 zone in sync, 0 differences, 1 failure (the check did not run \
             there), 0 DNS queries to 0 nameserver addresses\n",
        )
        .expect_stderr(
            "error: the check did not run for check.test's nameservers (not found)\n\
             hint: check the address (--nameserver-address HOST=IP[:PORT]), the resolver \
             (--resolver) and the network; --dns-timeout gives slow servers longer\n",
        )
        .run();
    let dns = emu.dns();
    Test::new()
        .current_dir(dir.path())
        .args([
            "check".to_string(),
            "check.test.yaml".into(),
            format!("--resolver={dns}"),
            format!("--nameserver-address=ns1.veldhost.net={dns}"),
        ])
        .expect_status(1)
        .expect_stdout(format!(
            "check.test (nameservers from the resolver {dns})\n  \
             ns1.veldhost.net {dns}: in sync (SOA + 9 RRsets)\n  \
             ns2.veldhost.net: could not be asked\n    \
             x nameserver `ns2.veldhost.net` has no --nameserver-address and the system \
             resolver is turned off; add --nameserver-address ns2.veldhost.net=IP[:PORT]\n\
             check: 0 of 1 zone in sync, 0 differences, 1 failure (the check did not run \
             there), 12 DNS queries to 2 nameserver addresses\n"
        ))
        .expect_stderr(
            "error: the check did not run for ns2.veldhost.net (check.test)\n\
             hint: check the address (--nameserver-address HOST=IP[:PORT]), the resolver \
             (--resolver) and the network; --dns-timeout gives slow servers longer\n",
        )
        .run();
}

#[test]
fn a_resolver_that_does_not_know_the_zone_stops_the_check() {
    let emu = DnsEmulator::start(zone());
    let dir = files("");
    let text = std::fs::read_to_string(dir.path().join("check.test.yaml")).unwrap();
    let elsewhere = text.replace("zone: check.test", "zone: elsewhere.test");
    std::fs::write(dir.path().join("check.test.yaml"), elsewhere).unwrap();
    let dns = emu.dns();
    emu.check(dir.path())
        .expect_status(1)
        .expect_stdout(format!(
            "elsewhere.test (nameservers not found)\n  \
             x no resolver could say which nameservers serve elsewhere.test: {dns} answered \
             REFUSED; check that the zone is delegated, or give a resolver that knows it with \
             --resolver IP[:PORT]\n\
             check: 0 of 1 zone in sync, 0 differences, 1 failure (the check did not run \
             there), 1 DNS query to 0 nameserver addresses\n"
        ))
        .expect_stderr(
            "error: the check did not run for elsewhere.test's nameservers (not found)\n\
             hint: check the address (--nameserver-address HOST=IP[:PORT]), the resolver \
             (--resolver) and the network; --dns-timeout gives slow servers longer\n",
        )
        .run();
}

/// The example files against the example account: what `check` sees of the drift `plan`
/// shows (the DKIM key, the CNAME, the MX TTL, example.org's TXT), and not what it can't
/// (the extra `old` A record). example.org is checked on its files' custom nameservers.
#[test]
fn the_example_account_drifts_as_plan_says() {
    let emu = DnsEmulator::start(zone());
    let dns = emu.dns();
    let test = Test::new().args([
        "check".to_string(),
        "examples/dns".into(),
        format!("--resolver={dns}"),
        format!("--nameserver-address=ns1.veldhost.net={dns}"),
        format!("--nameserver-address=ns2.veldhost.net={dns}"),
        format!("--nameserver-address=ns1.other-dns.net={dns}"),
        format!("--nameserver-address=ns2.other-dns.net={dns}"),
    ]);
    assert_cli_snapshot!(test.expect_status(2));
}

#[test]
fn a_bad_nameserver_address_or_resolver_is_a_usage_error() {
    Test::new()
        .args(["check", "--nameserver-address", "ns1.example.net:5353"])
        .expect_status(1)
        .expect_stderr(
            "error: invalid value 'ns1.example.net:5353' for '--nameserver-address \
             <HOST=IP[:PORT]>': `ns1.example.net:5353` is not a nameserver address: no `=`; \
             expected HOST=IP or HOST=IP:PORT (e.g. ns1.example.net=192.0.2.53, \
             ns1.example.net=127.0.0.1:5353, ns1.example.net=[::1]:5353)\n\n\
             For more information, try '--help'.\n",
        )
        .run();
    Test::new()
        .args(["check", "--resolver", "dns.example"])
        .expect_status(1)
        .expect_stderr(
            "error: invalid value 'dns.example' for '--resolver <IP[:PORT]>': `dns.example` \
             is not a resolver address; expected IP or IP:PORT (e.g. 192.0.2.53, \
             127.0.0.1:5353, [::1]:5353)\n\n\
             For more information, try '--help'.\n",
        )
        .run();
    Test::new()
        .args(["check", "--dns-timeout", "0"])
        .expect_status(1)
        .expect_stderr(
            "error: invalid value '0' for '--dns-timeout <SECONDS>': 0 s is out of range: \
             give 0.01 to 60 seconds\n\n\
             For more information, try '--help'.\n",
        )
        .run();
}
