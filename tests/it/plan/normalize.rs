//! Normalization end to end through the diff: the same content written two ways is no change,
//! in both directions (either form in the files, the other returned by the server); truly
//! different content is a change.

use dnscron_core::config::model::Desired;
use dnscron_core::plan::snapshot::LiveSnapshot;
use dnscron_core::plan::{Action, Plan};

use super::fixtures::*;

fn plan1(name: &str, rtype: &str, desired: &str, live_name: &str, live: &str) -> Plan {
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone("example.com", &[(name, rtype, 3600, desired)])],
        sites: vec![],
    };
    let live = LiveSnapshot {
        zones: vec![live_zone("example.com", &[(live_name, rtype, 3600, live)])],
        ..Default::default()
    };
    plan_of(&desired, &live)
}

fn long_text() -> String {
    (0..30)
        .map(|i| format!("word{i:02}-abcdef"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `(type, one form, another form)`: equal contents written differently.
fn equal_pairs() -> Vec<(&'static str, String, String)> {
    let long = long_text();
    assert!(long.len() > 255);
    let chunked = format!("\"{}\" \"{}\"", &long[..255], &long[255..]);
    vec![
        ("TXT", "v=spf1 mx -all".into(), "\"v=spf1 mx -all\"".into()),
        ("TXT", long.clone(), chunked),
        ("TXT", "say \"hi\"".into(), "\"say \\\"hi\\\"\"".into()),
        ("A", "192.0.2.1".into(), " 192.0.2.1 ".into()),
        (
            "AAAA",
            "2001:db8::10".into(),
            "2001:0DB8:0000:0000:0000:0000:0000:0010".into(),
        ),
        ("CNAME", "www.example.org.".into(), "WWW.Example.ORG".into()),
        (
            "MX",
            "10 mail.example.com.".into(),
            "10   MAIL.example.com".into(),
        ),
        (
            "SRV",
            "10 60 5060 sip.example.com.".into(),
            "10  60 5060 SIP.EXAMPLE.COM.".into(),
        ),
        (
            "CAA",
            "0 issue \"letsencrypt.org\"".into(),
            "0  ISSUE \"letsencrypt.org\"".into(),
        ),
        (
            "CAA",
            "0 issue \"letsencrypt.org\"".into(),
            "0 issue letsencrypt.org".into(),
        ),
        ("NS", "ns1.lab-dns.net.".into(), "NS1.LAB-DNS.NET".into()),
        (
            "PTR",
            "host1.example.com.".into(),
            "Host1.Example.Com.".into(),
        ),
    ]
}

/// `(type, one form, a truly different one)`.
fn different_pairs() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("TXT", "v=spf1 mx -all", "V=SPF1 MX -all"),
        ("TXT", "a  b", "a b"),
        ("TXT", "v=spf1 mx -all", "\"v=spf1 mx ~all\""),
        ("A", "192.0.2.1", "192.0.2.10"),
        ("AAAA", "2001:db8::10", "2001:db8::11"),
        ("CNAME", "www.example.org.", "www.example.net."),
        ("MX", "10 mail.example.com.", "20 mail.example.com."),
        (
            "SRV",
            "10 60 5060 sip.example.com.",
            "10 60 5061 sip.example.com.",
        ),
        (
            "CAA",
            "0 issue \"letsencrypt.org\"",
            "0 issue \"LetsEncrypt.org\"",
        ),
        ("NS", "ns1.lab-dns.net.", "ns2.lab-dns.net."),
    ]
}

#[test]
fn equal_content_written_differently_is_no_change_both_ways() {
    for (rtype, a, b) in equal_pairs() {
        for (desired, live) in [(&a, &b), (&b, &a)] {
            let plan = plan1("sub", rtype, desired, "sub", live);
            assert!(
                plan.is_empty(),
                "{rtype}: files `{desired}` vs server `{live}` planned {:?}",
                plan.changes
            );
        }
    }
}

#[test]
fn truly_different_content_is_an_update_both_ways() {
    for (rtype, a, b) in different_pairs() {
        for (desired, live) in [(a, b), (b, a)] {
            let plan = plan1("sub", rtype, desired, "sub", live);
            let actions: Vec<Action> = plan.changes.iter().map(|c| c.action).collect();
            assert_eq!(
                actions,
                vec![Action::Update],
                "{rtype}: files `{desired}` vs server `{live}`"
            );
        }
    }
}

#[test]
fn record_names_compare_in_relative_form() {
    for (desired, live) in [
        ("www", "WWW.example.com."),
        ("www", "www.example.com"),
        ("@", "example.com."),
        ("@", "EXAMPLE.COM"),
        ("@", "@"),
        ("*.dev", "*.DEV.example.com."),
        ("_sip._tcp", "_SIP._TCP"),
    ] {
        let plan = plan1(desired, "A", "192.0.2.1", live, "192.0.2.1");
        assert!(
            plan.is_empty(),
            "files `{desired}` vs server `{live}`: {:?}",
            plan.changes
        );
    }
    let plan = plan1("www", "A", "192.0.2.1", "www2.example.com.", "192.0.2.1");
    let actions: Vec<Action> = plan.changes.iter().map(|c| c.action).collect();
    assert_eq!(actions, vec![Action::Create, Action::Delete]);
}

#[test]
fn the_example_account_shows_only_real_changes() {
    let (desired, live) = example_account();
    let plan = plan_of(&desired, &live);
    assert_eq!(
        (
            plan.summary.create,
            plan.summary.update,
            plan.summary.delete
        ),
        (4, 5, 4),
        "{:#?}",
        plan.changes
    );
}

/// A 10,000-record zone whose server spells every record differently (absolute upper-case
/// names, quoted TXT, long IPv6) plans nothing, and one real difference among them is found.
#[test]
fn a_ten_thousand_record_zone_spelled_differently_is_unchanged() {
    let rows: Vec<(String, &str, String, String)> = (0..10_000)
        .map(|i| {
            let name = format!("h{i:05}");
            match i % 3 {
                0 => (
                    name,
                    "A",
                    format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256),
                    String::new(),
                ),
                1 => (
                    name,
                    "AAAA",
                    format!("2001:db8::{i:x}"),
                    format!("2001:0db8:0000:0000:0000:0000:0000:{i:04x}"),
                ),
                _ => (name, "TXT", format!("token {i}"), format!("\"token {i}\"")),
            }
        })
        .collect();
    let desired: Vec<(&str, &str, u32, &str)> = rows
        .iter()
        .map(|(n, t, c, _)| (n.as_str(), *t, 3600, c.as_str()))
        .collect();
    let live_names: Vec<String> = rows
        .iter()
        .map(|(n, ..)| format!("{}.EXAMPLE.COM.", n.to_uppercase()))
        .collect();
    let mut live: Vec<(&str, &str, u32, &str)> = rows
        .iter()
        .zip(&live_names)
        .map(|((_, t, c, alt), n)| {
            (
                n.as_str(),
                *t,
                3600,
                if alt.is_empty() {
                    c.as_str()
                } else {
                    alt.as_str()
                },
            )
        })
        .collect();
    let plan = plan_of(
        &Desired {
            unmanaged: Default::default(),
            zones: vec![zone("example.com", &desired)],
            sites: vec![],
        },
        &LiveSnapshot {
            zones: vec![live_zone("example.com", &live)],
            ..Default::default()
        },
    );
    assert!(plan.is_empty(), "{:?}", plan.changes.first());

    live[4241].3 = "\"token 4241 \"";
    let plan = plan_of(
        &Desired {
            unmanaged: Default::default(),
            zones: vec![zone("example.com", &desired)],
            sites: vec![],
        },
        &LiveSnapshot {
            zones: vec![live_zone("example.com", &live)],
            ..Default::default()
        },
    );
    assert_eq!(plan.changes.len(), 1);
    assert_eq!(
        request_of(&plan, &plan.changes[0]).path(),
        "/dns/example.com/records/4242"
    );
}
