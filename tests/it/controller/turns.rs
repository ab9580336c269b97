//! A revision that waits takes its turn (issue #37): a portal step or nameservers not ready are
//! tried once an interval (or on SIGHUP), a failed write after a backoff of its own, never in
//! a loop; the drift sweep and newer revisions go on meanwhile. On tokio's paused clock.

use std::time::Duration;

use dnscron_core::controller::{Pending, Settings, Trigger, readiness_check};
use dnscron_core::dnscheck::AddressBook;

use super::rig::{Rig, round, zone_file};
use super::run_loop::Running;

const CUSTOM: &str =
    "nameservers:\n  mode: custom\n  hosts: [ns1.other-dns.net, ns2.other-dns.net]\n";
const API: &str = "  - {name: api, type: A, content: 192.0.2.7, ttl: 300}\n";

/// `zone`'s file switched to custom nameservers.
fn switched(zone: &str) -> String {
    zone_file(zone, "").replace("records:", &format!("{CUSTOM}records:"))
}

fn nameserver_puts(rig: &Rig) -> u64 {
    rig.routes()
        .iter()
        .filter(|(route, _)| route.starts_with("PUT ") && route.ends_with("/nameservers"))
        .map(|(_, n)| n)
        .sum()
}

fn count(lines: &[String], line: &str) -> usize {
    lines.iter().filter(|l| *l == line).count()
}

/// The repro: a nameserver change while DNSSEC is active is a portal step. It is sent
/// once an interval (not 35 times in 90 s), the sweep goes on, a newer revision is acted on at
/// once, and SIGHUP tries it at once.
#[tokio::test(start_paused = true)]
async fn a_portal_step_is_tried_once_an_interval_while_the_sweep_goes_on() {
    let rig = Rig::start(&["a.example", "b.example"]).await;
    assert!(rig.emu.set_dnssec("a.example", true));
    let settings = Settings {
        interval: Duration::from_secs(60),
        // The portal step comes after the switch check: let it through.
        dns: None,
        ..rig.settings()
    };
    let controller = rig.controller_with("apply", true, rig.config(), settings);
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(1)).await;
    rig.write("a.example.yaml", &switched("a.example"));
    tokio::time::sleep(Duration::from_secs(90)).await;
    // At the revision, then one interval later.
    assert_eq!(nameserver_puts(&rig), 2);
    // A newer revision is acted on within a second; it still holds the switch.
    rig.write("b.example.yaml", &zone_file("b.example", API));
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        rig.live("b.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
    assert_eq!(nameserver_puts(&rig), 3);
    // SIGHUP: once more, at once.
    running.round_now.notify_one();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(nameserver_puts(&rig), 4);
    let lines = running.stop().await;
    assert_eq!(count(&lines, "round applied pending"), 4, "{lines:#?}");
    // The sweep went on between the tries: whole sweeps at the start and after the interval.
    assert!(count(&lines, "round swept drift") >= 1, "{lines:#?}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("alert Pending"))
            .count(),
        1,
        "told once: {lines:#?}"
    );
}

/// A switch to nameservers that don't serve the zone is not sent: the revision is pending
/// `{kind: nameservers}`, tried again at the interval; allowed unready, the switch is sent.
#[tokio::test(start_paused = true)]
async fn a_switch_to_unready_nameservers_is_pending_until_allowed() {
    let rig = Rig::start(&["a.example"]).await;
    let settings = Settings {
        interval: Duration::from_secs(60),
        ..rig.settings()
    };
    let mut controller = rig.controller_with("apply", true, rig.config(), settings.clone());
    round(&mut controller, Trigger::Start).await;
    rig.write("a.example.yaml", &switched("a.example"));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "pending")
    );
    assert_eq!(controller.status().pending, Some(Pending::Nameservers));
    assert_eq!(nameserver_puts(&rig), 0);
    // Not its turn before the interval: the round sweeps.
    assert_eq!(round(&mut controller, Trigger::Interval).await.0, "swept");
    tokio::time::sleep(Duration::from_secs(61)).await;
    assert_eq!(
        round(&mut controller, Trigger::Interval).await,
        ("applied", "pending")
    );
    assert_eq!(nameserver_puts(&rig), 0);
    // `--allow-unready-nameservers`: the same revision is switched.
    drop(controller);
    let allowed = Settings {
        dns: None,
        ..settings
    };
    let mut controller = rig.controller_with("apply", true, rig.config(), allowed);
    assert_eq!(
        round(&mut controller, Trigger::Start).await,
        ("applied", "converged")
    );
    assert_eq!(nameserver_puts(&rig), 1);
    let state = rig.emu.state();
    assert_eq!(
        state.domains["a.example"].registry_nameservers,
        ["ns1.other-dns.net", "ns2.other-dns.net"]
    );
}

/// A write the server keeps refusing: the revision is tried after a backoff of its own
/// (750 ms doubling), the sweep goes on between the tries, and once the server accepts it the
/// revision converges.
#[tokio::test(start_paused = true)]
async fn a_failing_write_is_retried_with_backoff_while_the_sweep_goes_on() {
    let rig = Rig::start(&["a.example", "b.example"]).await;
    let settings = Settings {
        interval: Duration::from_secs(30),
        ..rig.settings()
    };
    let controller = rig.controller_with("apply", true, rig.config(), settings);
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(1)).await;
    rig.emu.fail_next_writes(u32::MAX);
    rig.write("a.example.yaml", &zone_file("a.example", API));
    tokio::time::sleep(Duration::from_secs(600)).await;
    rig.emu.fail_next_writes(0);
    tokio::time::sleep(dnscron_core::controller::LONGEST_WAIT).await;
    let lines = running.stop().await;
    let failed = count(&lines, "round applied failed");
    // 750 ms doubling: about 10 tries in 10 minutes, never a loop.
    assert!((6..=12).contains(&failed), "{failed} tries: {lines:#?}");
    let swept = lines
        .iter()
        .filter(|l| l.starts_with("round swept"))
        .count();
    assert!(swept >= 10, "{lines:#?}");
    assert_eq!(count(&lines, "round applied converged"), 1, "{lines:#?}");
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
}

/// A broken commit is told once (no "rounds fail" and "succeed again" around it), stays
/// reported while it is the newest revision, and is cleared once when a fix loads.
#[tokio::test(start_paused = true)]
async fn a_broken_revision_is_told_once_and_cleared_once_without_a_failing_round() {
    let rig = Rig::start(&["a.example"]).await;
    let controller = rig.controller("apply", true);
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(2)).await;
    rig.write("a.example.yaml", "zone: a.example\nrecords: [\n");
    tokio::time::sleep(Duration::from_secs(700)).await;
    rig.write("a.example.yaml", &zone_file("a.example", API));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let lines = running.stop().await;
    let told: Vec<&String> = lines.iter().filter(|l| l.starts_with("alert ")).collect();
    assert_eq!(
        told,
        [
            "alert BrokenRevision Raised",
            "alert BrokenRevision Cleared"
        ],
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.ends_with(" failed")), "{lines:#?}");
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.1"]
    );
}

/// Suspended, a revision waits and the sweep tells its changes apart from drift: `unapplied`
/// holds only the revision's own change, a portal edit on the same zone stays drift (its alert
/// not cleared); removing the file resumes writes within a second.
#[tokio::test(start_paused = true)]
async fn suspension_keeps_drift_as_drift_and_its_removal_resumes_within_a_second() {
    let rig = Rig::start(&["a.example"]).await;
    let suspend = rig.repo().parent().unwrap().join("suspend");
    let settings = Settings {
        suspend_file: Some(suspend.clone()),
        interval: Duration::from_secs(60),
        ..rig.settings()
    };
    let mut controller = rig.controller_with("apply", true, rig.config(), settings.clone());
    round(&mut controller, Trigger::Start).await;
    super::rounds::portal_edit(&rig, "a.example", "192.0.2.99").await;
    std::fs::write(&suspend, "").unwrap();
    rig.write("a.example.yaml", &zone_file("a.example", API));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("swept", "drift")
    );
    let status = controller.status();
    let only = |map: &std::collections::BTreeMap<_, Vec<dnscron_core::plan::Change>>| {
        map.values()
            .flatten()
            .map(|c| format!("{:?} {:?}", c.action, c.after))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        only(&status.unapplied),
        ["Create Some(Record { ttl: 300, content: \"192.0.2.7\" })"]
    );
    assert_eq!(
        only(&status.drift),
        ["Update Some(Record { ttl: 300, content: \"192.0.2.1\" })"]
    );
    assert_eq!(rig.writes(), 1, "the portal edit only");
    // The loop: drift raised once and never cleared while suspended; the file's removal
    // starts a round within a second.
    let running = Running::spawn(controller);
    tokio::time::sleep(Duration::from_secs(200)).await;
    std::fs::remove_file(&suspend).unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(
        rig.live("a.example"),
        ["api A 192.0.2.7", "www A 192.0.2.99"]
    );
    let lines = running.stop().await;
    assert!(
        lines.contains(&"start SuspendFile".to_string()),
        "{lines:#?}"
    );
    let drift: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("alert Drift"))
        .collect();
    assert_eq!(drift, ["alert Drift Raised"], "{lines:#?}");
}

/// Suspension through a failing server (an outage, a 429 storm), in both orders of its end:
/// the server recovers while the file is still there, or the file goes while the server is
/// still down. `unapplied` holds only the revision's change and the portal edit stays drift
/// (its alert raised once, never cleared while rounds fail); nothing is written while the file
/// is there, even once the server answers again (an outage fails rounds; a 429 storm is waited
/// out within them). Recovered first, the file's removal writes
/// within a second; removed first, the revision is tried at once, fails, and is written at its
/// next try after recovery (its own backoff).
#[tokio::test(start_paused = true)]
async fn suspension_through_a_failing_server_keeps_drift_and_writes_nothing_until_both_end() {
    for (fault, recovered_first) in [
        ("outage", true),
        ("outage", false),
        ("429 storm", true),
        ("429 storm", false),
    ] {
        let case = format!("{fault}, recovered first: {recovered_first}");
        let rig = Rig::start(&["a.example"]).await;
        let suspend = rig.repo().parent().unwrap().join("suspend");
        let settings = Settings {
            suspend_file: Some(suspend.clone()),
            interval: Duration::from_secs(60),
            ..rig.settings()
        };
        let mut controller = rig.controller_with("apply", true, rig.config(), settings);
        round(&mut controller, Trigger::Start).await;
        super::rounds::portal_edit(&rig, "a.example", "192.0.2.99").await;
        std::fs::write(&suspend, "").unwrap();
        rig.write("a.example.yaml", &zone_file("a.example", API));
        assert_eq!(
            round(&mut controller, Trigger::Revision).await,
            ("swept", "drift"),
            "{case}"
        );
        let status = controller.status();
        assert_eq!(status.unapplied.values().flatten().count(), 1, "{case}");
        assert_eq!(status.drift.values().flatten().count(), 1, "{case}");
        let writes = rig.writes();
        let fail = |on: bool| match fault {
            "outage" => rig.emu.set_outage(on),
            _ => rig.emu.force_rate_limited(if on { u32::MAX } else { 0 }),
        };
        fail(true);
        let running = Running::spawn(controller);
        tokio::time::sleep(Duration::from_secs(200)).await;
        if recovered_first {
            fail(false);
            tokio::time::sleep(dnscron_core::controller::LONGEST_WAIT).await;
            assert_eq!(
                rig.writes(),
                writes,
                "{case}: nothing written while suspended"
            );
            std::fs::remove_file(&suspend).unwrap();
            tokio::time::sleep(Duration::from_millis(1100)).await;
        } else {
            std::fs::remove_file(&suspend).unwrap();
            tokio::time::sleep(Duration::from_secs(200)).await;
            assert_eq!(rig.live("a.example"), ["www A 192.0.2.99"], "{case}");
            fail(false);
            tokio::time::sleep(dnscron_core::controller::LONGEST_WAIT).await;
        }
        assert_eq!(
            rig.live("a.example"),
            ["api A 192.0.2.7", "www A 192.0.2.99"],
            "{case}"
        );
        assert_eq!(
            rig.writes(),
            writes + 1,
            "{case}: the revision's create, once"
        );
        let lines = running.stop().await;
        // An outage fails rounds; 429s are waited out within a round (its requests answered
        // 429 until the storm ends).
        match fault {
            "outage" => assert!(
                lines.iter().any(|l| l.ends_with(" failed")),
                "{case}: {lines:#?}"
            ),
            _ => assert!(rig.emu.counters().faults.forced_429 > 0, "{case}"),
        }
        let drift: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("alert Drift"))
            .collect();
        assert!(
            drift.iter().all(|l| *l != "alert Drift Cleared"),
            "{case}: {lines:#?}"
        );
    }
}

/// A nameserver on 127.0.0.1 in this runtime that answers every question SERVFAIL
/// (`servfail`), or never answers.
async fn misbehaving_nameserver(servfail: bool) -> std::net::SocketAddr {
    use hickory_proto::op::{Message, ResponseCode};
    let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    tokio::spawn(async move {
        let mut buf = [0u8; 512];
        while let Ok((len, peer)) = socket.recv_from(&mut buf).await {
            let Ok(query) = Message::from_vec(&buf[..len]) else {
                continue;
            };
            if servfail {
                let mut m = Message::response(query.metadata.id, query.metadata.op_code);
                m.add_queries(query.queries.iter().cloned());
                m.metadata.response_code = ResponseCode::ServFail;
                let _ = socket.send_to(&m.to_vec().unwrap(), peer).await;
            }
        }
    });
    addr
}

/// Settings whose switch check reaches both new nameservers at `addr`.
fn asking(rig: &Rig, addr: std::net::SocketAddr) -> Settings {
    let book = AddressBook::new(
        ["ns1.other-dns.net", "ns2.other-dns.net"]
            .iter()
            .map(|host| format!("{host}={addr}").parse().unwrap())
            .collect(),
    )
    .without_system_resolver();
    Settings {
        interval: Duration::from_secs(60),
        dns: Some(readiness_check(book)),
        ..rig.settings()
    }
}

/// The switch check against nameservers that serve the zone lets the switch through; against
/// nameservers that answer SERVFAIL or never answer, the revision is pending
/// `{kind: nameservers}`, nothing is sent, and the next try (the interval) asks again.
#[tokio::test(start_paused = true)]
async fn a_switch_is_sent_only_when_the_new_nameservers_answer_for_the_zone() {
    for servfail in [true, false] {
        let rig = Rig::start(&["a.example"]).await;
        let addr = misbehaving_nameserver(servfail).await;
        let mut controller = rig.controller_with("apply", true, rig.config(), asking(&rig, addr));
        round(&mut controller, Trigger::Start).await;
        rig.write("a.example.yaml", &switched("a.example"));
        assert_eq!(
            round(&mut controller, Trigger::Revision).await,
            ("applied", "pending"),
            "servfail: {servfail}"
        );
        assert_eq!(controller.status().pending, Some(Pending::Nameservers));
        tokio::time::sleep(Duration::from_secs(61)).await;
        assert_eq!(
            round(&mut controller, Trigger::Interval).await,
            ("applied", "pending")
        );
        assert_eq!(nameserver_puts(&rig), 0, "servfail: {servfail}");
        assert_eq!(rig.writes(), 0);
    }
    // Nameservers that serve the zone (the emulator's own DNS, answering for the account):
    // the switch is sent once and the revision converges.
    let rig = Rig::start_with_dns(&["a.example"]).await;
    let dns = rig.emu.dns_addr().unwrap();
    let mut controller = rig.controller_with("apply", true, rig.config(), asking(&rig, dns));
    round(&mut controller, Trigger::Start).await;
    rig.write("a.example.yaml", &switched("a.example"));
    assert_eq!(
        round(&mut controller, Trigger::Revision).await,
        ("applied", "converged")
    );
    assert_eq!(nameserver_puts(&rig), 1);
    assert_eq!(controller.status().pending, None);
}

/// What was told lives in the process (docs/controller.md, "Drift"): a restarted controller
/// tells once more the drift that is still there, and once only.
#[tokio::test(start_paused = true)]
async fn a_restarted_controller_tells_the_drift_still_there_once_more() {
    let rig = Rig::start(&["a.example"]).await;
    super::rounds::portal_edit(&rig, "a.example", "192.0.2.99").await;
    for run in ["first", "restarted"] {
        let running = Running::spawn(rig.controller("apply", true));
        tokio::time::sleep(Duration::from_secs(600)).await;
        let lines = running.stop().await;
        let drift: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("alert Drift"))
            .collect();
        assert_eq!(drift, ["alert Drift Raised"], "{run}: {lines:#?}");
    }
}
