//! Apply's DNS checks over real UDP/TCP on 127.0.0.1: after the writes, every nameserver of the
//! zone is asked until it serves them (live, late, never, unreachable); before a switch to
//! custom nameservers, those are asked whether they serve the zone (refused, allowed, ready).
//!
//! No outcome depends on the clock: the emulator's DNS lags by a count of questions, not time,
//! and the deadline (`--dns-wait`) is far off, so it never ends a check that will succeed;
//! where a nameserver is never live (a lag of `never`, a closed port) the deadline is 1 ms and
//! the check ends after its first round, whatever the clock says. The only real wait left is
//! the check's own 100 ms pause between two rounds, in the late case.

use std::net::{SocketAddr, UdpSocket};

use dnscron_emulator::{
    self as emulator, BackgroundEmulator, DnsLag, RateLimit, RecordSeed, Seed, ZoneSeed,
};

use super::support::write_files;
use crate::common::{Test, filters};

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    for (re, with) in filters() {
        s.add_filter(re, with);
    }
    // How fast loopback answers, and so how often a server was asked by the deadline.
    s.add_filter(
        r#""live_after_secs": [0-9.e-]+"#,
        r#""live_after_secs": [SECS]"#,
    );
    s.add_filter(r#""(polls|queries)": \d+"#, r#""$1": [N]"#);
    s.set_snapshot_path("snapshots");
    s
}

fn dns_emulator(seed: Seed) -> BackgroundEmulator {
    let mut seed = seed;
    seed.rate_limit = RateLimit::off();
    emulator::start_background_with_dns(seed).unwrap()
}

fn dns_addr(emu: &BackgroundEmulator) -> SocketAddr {
    emu.dns_addr().expect("the emulator serves DNS")
}

/// A loopback port nothing listens on (bound, then let go): questions sent there get no answer.
fn closed_port() -> SocketAddr {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.local_addr().unwrap()
}

/// One record more in example.com; the zone's other records are left alone.
const ONE_RECORD: &str = "zone: example.com
prune: false
records:
  - { name: dnscheck, type: A, ttl: 300, content: 192.0.2.44 }
";

/// example.org moves to other nameservers, and gets one record more.
const SWITCH: &str = "zone: example.org
prune: false
nameservers:
  mode: custom
  hosts: [ns1.other-dns.net, ns2.other-dns.net]
records:
  - { name: \"@\", type: A, content: 198.51.100.7 }
  - { name: dnscheck, type: A, ttl: 300, content: 192.0.2.45 }
";

/// `dnscron apply --yes` of `zone_file` with the DNS checks on, the service's nameservers
/// mapped to `service`.
fn apply(emu: &BackgroundEmulator, zone_file: &str, dir: &tempfile::TempDir) -> Test {
    let files = write_files(dir.path(), &[("zone.yaml".into(), zone_file.into())]);
    Test::new()
        .args(["apply", "--yes"])
        .arg(files.join("zone.yaml"))
        .api(&emu.base_url(), "demo-token")
        .plan_stamp()
        .env("DNSCRON_ALLOW_UNREADY_NAMESERVERS", "false")
        .env("DNSCRON_DNS_WAIT", FAR)
}

/// A deadline no check that will succeed comes near: it never decides an outcome.
const FAR: &str = "60s";

/// A deadline the first round of questions always passes: the check ends after it.
const AT_ONCE: &str = "1ms";

fn service_at(test: Test, ns1: SocketAddr, ns2: SocketAddr) -> Test {
    test.arg(format!("--nameserver-address=ns1.veldhost.net={ns1}"))
        .arg(format!("--nameserver-address=ns2.veldhost.net={ns2}"))
}

fn other_dns_at(test: Test, ns1: SocketAddr, ns2: SocketAddr) -> Test {
    test.arg(format!("--nameserver-address=ns1.other-dns.net={ns1}"))
        .arg(format!("--nameserver-address=ns2.other-dns.net={ns2}"))
}

/// The whole run of [`ONE_RECORD`] with both service nameservers answered by an emulator
/// whose DNS lags `lag` and `questions` behind its API, and a check deadline of `wait`.
fn one_record_with_lag(lag: DnsLag, questions: u64, wait: &str) -> String {
    let emu = dns_emulator(Seed::example());
    emu.set_dns_lag(lag);
    emu.set_dns_lag_queries(questions);
    let dir = tempfile::tempdir().unwrap();
    let at = dns_addr(&emu);
    let test = service_at(apply(&emu, ONE_RECORD, &dir), at, at).env("DNSCRON_DNS_WAIT", wait);
    test.snapshot()
}

#[test]
fn written_records_are_reported_live_on_every_nameserver() {
    let out = one_record_with_lag(DnsLag::None, 0, FAR);
    settings().bind(|| insta::assert_snapshot!("dns_live", out));
}

#[test]
fn a_lagging_nameserver_is_reported_live_after_the_wait() {
    // Both nameservers are the one emulator: the first round's two questions get the old
    // data, the second round's the new.
    let out = one_record_with_lag(DnsLag::None, 2, FAR);
    settings().bind(|| insta::assert_snapshot!("dns_late", out));
}

#[test]
fn a_nameserver_that_never_serves_the_write_is_a_warning_with_exit_0() {
    let out = one_record_with_lag(DnsLag::Never, 0, AT_ONCE);
    settings().bind(|| insta::assert_snapshot!("dns_never", out));
}

#[test]
fn an_unreachable_nameserver_is_reported_in_json_and_never_fatal() {
    let emu = dns_emulator(Seed::example());
    let dir = tempfile::tempdir().unwrap();
    let test = service_at(apply(&emu, ONE_RECORD, &dir), dns_addr(&emu), closed_port())
        .args(["--format", "json"])
        .env("DNSCRON_DNS_WAIT", AT_ONCE);
    let out = test.snapshot();
    settings().bind(|| insta::assert_snapshot!("dns_unreachable_json", out));
}

/// A second account whose DNS does not hold example.org (REFUSED), and a third that serves it
/// with other data.
fn elsewhere() -> (BackgroundEmulator, BackgroundEmulator) {
    let mut without = Seed::example();
    without.zones.retain(|z| z.zone != "example.org");
    let mut other = Seed::example();
    other.zones.retain(|z| z.zone != "example.org");
    let other = other.with_zone(ZoneSeed::new("example.org").with_record(RecordSeed::new(
        "@",
        "A",
        "203.0.113.99",
    )));
    (dns_emulator(without), dns_emulator(other))
}

/// The switch of [`SWITCH`] with its new nameservers in [`elsewhere`]: (the whole run, the
/// registry's nameservers afterwards).
fn switch_elsewhere(args: &[&str]) -> (String, Vec<String>) {
    let emu = dns_emulator(Seed::example());
    let (without, other) = elsewhere();
    let dir = tempfile::tempdir().unwrap();
    let at = dns_addr(&emu);
    let test = service_at(apply(&emu, SWITCH, &dir), at, at).args(args);
    let out = other_dns_at(test, dns_addr(&without), dns_addr(&other)).snapshot();
    let registry = emu.state().domains["example.org"]
        .registry_nameservers
        .clone();
    (out, registry)
}

#[test]
fn a_switch_to_nameservers_that_dont_serve_the_zone_is_not_done() {
    let (out, registry) = switch_elsewhere(&[]);
    settings().bind(|| insta::assert_snapshot!("dns_switch_refused", out));
    assert_eq!(registry, ["ns1.veldhost.net", "ns2.veldhost.net"]);
}

#[test]
fn allow_unready_nameservers_switches_anyway() {
    let (out, registry) = switch_elsewhere(&["--allow-unready-nameservers"]);
    settings().bind(|| insta::assert_snapshot!("dns_switch_allowed", out));
    assert_eq!(registry, ["ns1.other-dns.net", "ns2.other-dns.net"]);
}

#[test]
fn a_switch_to_nameservers_that_serve_the_zone_is_done() {
    let emu = dns_emulator(Seed::example());
    let dir = tempfile::tempdir().unwrap();
    let at = dns_addr(&emu);
    let test = service_at(apply(&emu, SWITCH, &dir), at, at);
    let out = other_dns_at(test, at, at).snapshot();
    settings().bind(|| insta::assert_snapshot!("dns_switch_ready", out));
    let registry = emu.state().domains["example.org"]
        .registry_nameservers
        .clone();
    assert_eq!(registry, ["ns1.other-dns.net", "ns2.other-dns.net"]);
}

#[test]
fn the_markdown_summary_names_the_refused_switch_and_the_dns_check() {
    let (out, _) = switch_elsewhere(&["--format", "markdown"]);
    settings().bind(|| insta::assert_snapshot!("dns_switch_refused_markdown", out));
}

#[test]
fn an_apply_that_writes_no_record_skips_the_check_with_a_note() {
    let emu = dns_emulator(Seed::example());
    let out = Test::new()
        .args(["apply", "--yes", "examples/dns/sites/blog.yaml"])
        .api(&emu.base_url(), "demo-token")
        .plan_stamp()
        .env("DNSCRON_ALLOW_UNREADY_NAMESERVERS", "false")
        .env("DNSCRON_DNS_WAIT", FAR)
        .snapshot();
    settings().bind(|| insta::assert_snapshot!("dns_skipped", out));
}

#[test]
fn a_nameserver_that_cant_be_resolved_is_a_warning_with_exit_0() {
    let emu = dns_emulator(Seed::example());
    let dir = tempfile::tempdir().unwrap();
    // Only ns1 is mapped, and the harness turns the system resolver off.
    let test = apply(&emu, ONE_RECORD, &dir).arg(format!(
        "--nameserver-address=ns1.veldhost.net={}",
        dns_addr(&emu)
    ));
    let out = test.snapshot();
    settings().bind(|| insta::assert_snapshot!("dns_unresolved", out));
}

/// `--resolver` is `check`'s (NS discovery); apply discovers no nameservers, so it refuses the
/// flag before reading anything, rather than ignore it. Without it, every test above runs.
#[test]
fn apply_refuses_resolver_and_sends_nothing() {
    let emu = dns_emulator(Seed::example());
    let dir = tempfile::tempdir().unwrap();
    let test = apply(&emu, ONE_RECORD, &dir).arg(format!("--resolver={}", dns_addr(&emu)));
    let out = test.snapshot();
    settings().bind(|| insta::assert_snapshot!("dns_resolver_refused", out));
    assert_eq!(emu.counters().requests, 0);
}

/// Two new nameserver names on one address that refuses the zone: each name's answers are its
/// own, so both are REFUSED (not the first name twice and the second "ready").
#[test]
fn two_new_nameservers_on_one_address_each_get_their_own_answers() {
    let emu = dns_emulator(Seed::example());
    let (without, _) = elsewhere();
    let dir = tempfile::tempdir().unwrap();
    let at = dns_addr(&emu);
    let test = service_at(apply(&emu, SWITCH, &dir), at, at);
    let refusing = dns_addr(&without);
    let out = other_dns_at(test, refusing, refusing).snapshot();
    settings().bind(|| insta::assert_snapshot!("dns_switch_shared_address", out));
    let registry = emu.state().domains["example.org"]
        .registry_nameservers
        .clone();
    assert_eq!(registry, ["ns1.veldhost.net", "ns2.veldhost.net"]);
}

/// example.org's switch declaring an apex SPF, with `ignore` rules `rules` (YAML flow list).
fn switch_with_spf(rules: &str) -> String {
    format!(
        "zone: example.org
prune: false
nameservers:
  mode: custom
  hosts: [ns1.other-dns.net, ns2.other-dns.net]
ignore: {rules}
records:
  - {{ name: \"@\", type: A, content: 198.51.100.7 }}
  - {{ name: \"@\", type: TXT, content: \"v=spf1 -all\" }}
"
    )
}

/// The apply of `zone_file` (a [`switch_with_spf`]) to nameservers that serve the declared
/// records and, beside the SPF, a site-verification TXT at the apex; then `check` of the same
/// file against them: (apply's run, check's run, the registry's nameservers afterwards).
fn switch_to_spf_and_verification(zone_file: &str) -> (String, String, Vec<String>) {
    let emu = dns_emulator(Seed::example());
    let mut new = Seed::example();
    new.zones.retain(|z| z.zone != "example.org");
    let new = dns_emulator(new.with_zone(ZoneSeed::new("example.org").with_records([
        RecordSeed::new("@", "A", "198.51.100.7"),
        RecordSeed::new("@", "TXT", "v=spf1 -all"),
        RecordSeed::new("@", "TXT", "google-site-verification=abc123"),
    ])));
    let dir = tempfile::tempdir().unwrap();
    let at = dns_addr(&emu);
    let elsewhere = dns_addr(&new);
    let test = service_at(apply(&emu, zone_file, &dir), at, at);
    let applied = other_dns_at(test, elsewhere, elsewhere).snapshot();
    let check = Test::new().arg("check").arg(dir.path().join("zone.yaml"));
    let checked = other_dns_at(check, elsewhere, elsewhere).snapshot();
    let registry = emu.state().domains["example.org"]
        .registry_nameservers
        .clone();
    (applied, checked, registry)
}

/// `check` and the check before a switch compare alike: a served value the zone's `ignore`
/// rules cover is no difference to either (accepted form), an uncovered one is to both.
#[test]
fn the_check_before_a_switch_leaves_out_what_the_zone_ignores_as_check_does() {
    let ignoring =
        switch_with_spf("[{ name: \"@\", type: TXT, content: \"google-site-verification=*\" }]");
    let (applied, checked, registry) = switch_to_spf_and_verification(&ignoring);
    settings().bind(|| {
        insta::assert_snapshot!("dns_switch_ignored_txt_ready", applied);
        insta::assert_snapshot!("dns_switch_ignored_txt_check", checked);
    });
    assert_eq!(registry, ["ns1.other-dns.net", "ns2.other-dns.net"]);

    let (applied, checked, registry) = switch_to_spf_and_verification(&switch_with_spf("[]"));
    settings().bind(|| {
        insta::assert_snapshot!("dns_switch_unignored_txt_not_ready", applied);
        insta::assert_snapshot!("dns_switch_unignored_txt_check", checked);
    });
    assert_eq!(registry, ["ns1.veldhost.net", "ns2.veldhost.net"]);
}
