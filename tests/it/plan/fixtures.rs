//! Builders for desired and live states, and the representative "example account" pair.

use std::path::Path;

use dnscron_api::WriteRequest;
use dnscron_api::payload;
use dnscron_core::config::model::{
    CronJobSpec, Desired, IgnoreRule, Location, NameserverMode, NameserversSpec, RecordSpec,
    SafetyLimits, SiteSpec, ZoneSpec,
};
use dnscron_core::dns::{RecordType, ZoneName, canonical_content};
use dnscron_core::plan::snapshot::{LiveDomain, LiveSite, LiveSnapshot, LiveZone};
use dnscron_core::plan::{Change, DiffOptions, Plan, PlanStamp, diff, request};

pub fn loc(file: &str, line: usize) -> Location {
    Location {
        file: Path::new(file).into(),
        line,
        col: 3,
    }
}

pub fn zname(name: &str) -> ZoneName {
    ZoneName::parse(name).unwrap()
}

pub fn t(s: &str) -> RecordType {
    s.parse().unwrap()
}

/// A desired zone with defaults: prune on, no ignore rules, default safety limits.
pub fn zone(name: &str, records: &[(&str, &str, u32, &str)]) -> ZoneSpec {
    let file = format!("zones/{name}.yaml");
    let z = zname(name);
    let records = records
        .iter()
        .enumerate()
        .map(|(i, (n, ty, ttl, content))| RecordSpec {
            name: n.to_string(),
            rtype: t(ty),
            ttl: *ttl,
            content: content.to_string(),
            canonical: canonical_content(t(ty), content, &z).unwrap(),
            location: loc(&file, 10 + i),
            set: None,
        })
        .collect();
    ZoneSpec {
        accept: Vec::new(),
        zone: z,
        location: loc(&file, 1),
        nameservers: None,
        prune: true,
        ignore: Vec::new(),
        records,
        uses: Vec::new(),
        safety: SafetyLimits::default(),
        registrar: None,
    }
}

pub fn hosted(zone: &mut ZoneSpec) {
    zone.nameservers = Some(NameserversSpec {
        mode: NameserverMode::Hosted,
        location: loc(&zone.location.file.display().to_string(), 2),
    });
}

pub fn custom(zone: &mut ZoneSpec, hosts: &[&str]) {
    zone.nameservers = Some(NameserversSpec {
        mode: NameserverMode::Custom(hosts.iter().map(|h| h.to_string()).collect()),
        location: loc(&zone.location.file.display().to_string(), 2),
    });
}

pub fn ignore(zone: &mut ZoneSpec, name: &str, rtype: Option<&str>, content: Option<&str>) {
    zone.ignore.push(IgnoreRule {
        name: name.into(),
        rtype: rtype.map(t),
        content: content.map(str::to_string),
        location: loc(&zone.location.file.display().to_string(), 5),
    });
}

pub const SERVICE_NS: [&str; 2] = ["ns1.veldhost.net", "ns2.veldhost.net"];

/// Live records get ids 1, 2, … in the given order.
pub fn live_zone(name: &str, records: &[(&str, &str, u32, &str)]) -> LiveZone {
    LiveZone {
        zone: zname(name),
        records: records
            .iter()
            .enumerate()
            .map(|(i, (n, ty, ttl, content))| payload::Record {
                id: i as i64 + 1,
                name: n.to_string(),
                rtype: ty.to_string(),
                ttl: *ttl,
                content: content.to_string(),
            })
            .collect(),
        service_nameservers: SERVICE_NS.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn live_domain(name: &str, registry: &[&str], dnssec: &str) -> LiveDomain {
    LiveDomain {
        domain: zname(name),
        registrar: payload::Registrar {
            nameservers: payload::RegistrarNameservers {
                registry: registry.iter().map(|s| s.to_string()).collect(),
                resolver: registry.iter().map(|s| s.to_string()).collect(),
                state: None,
            },
            dnssec: payload::RegistrarDnssec {
                state: Some(serde_json::json!(dnssec)),
                our_ds: None,
                registry_ds: None,
            },
            lock: None,
            whois_privacy: None,
        },
        service_nameservers: SERVICE_NS.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn site(slug: &str, jobs: &[(&str, &str)]) -> SiteSpec {
    let file = format!("sites/{slug}.yaml");
    SiteSpec {
        accept: Vec::new(),
        slug: slug.into(),
        location: loc(&file, 1),
        cron: Some(
            jobs.iter()
                .enumerate()
                .map(|(i, (s, c))| CronJobSpec {
                    schedule: s.to_string(),
                    command: c.to_string(),
                    location: loc(&file, 4 + i),
                })
                .collect(),
        ),
    }
}

/// Live jobs get indexes from `base` in the given order.
pub fn live_site(slug: &str, state: &str, base: i64, jobs: &[(&str, &str)]) -> LiveSite {
    LiveSite {
        slug: slug.into(),
        state: Some(state.into()),
        cron: Some(
            jobs.iter()
                .enumerate()
                .map(|(i, (s, c))| payload::CronJob {
                    index: base + i as i64,
                    schedule: s.to_string(),
                    command: c.to_string(),
                })
                .collect(),
        ),
    }
}

pub fn opts() -> DiffOptions {
    DiffOptions {
        api_url: "http://127.0.0.1:8080/api/v1".into(),
        // A fixed id and clock, so snapshots are stable.
        stamp: PlanStamp {
            id: "0123456789abcdef0123456789abcdef".into(),
            created_at: "2026-01-02T03:04:05Z".into(),
        },
        ..DiffOptions::default()
    }
}

pub fn plan_of(desired: &Desired, live: &LiveSnapshot) -> Plan {
    diff(desired, live, &opts()).unwrap()
}

/// The request apply sends for `change` (not a cron delete: that needs the live index).
pub fn request_of(plan: &Plan, change: &Change) -> WriteRequest {
    request::derive(change, &plan.options, None).unwrap()
}

pub fn dkim_key() -> String {
    let mut key = String::new();
    while key.len() < 400 {
        key.push_str("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu5Xz");
    }
    format!("v=DKIM1; k=rsa; p={key}")
}

/// The example account: desired files and a live account that differs realistically.
pub fn example_account() -> (Desired, LiveSnapshot) {
    let dkim = dkim_key();
    let mut com = zone(
        "example.com",
        &[
            ("@", "A", 3600, "203.0.113.10"),
            ("@", "AAAA", 3600, "2001:db8::10"),
            ("www", "CNAME", 300, "example.com."),
            ("@", "MX", 3600, "10 mail.example.com."),
            ("@", "MX", 3600, "20 mail2.example.com."),
            ("mail", "A", 3600, "203.0.113.25"),
            ("mail2", "A", 3600, "203.0.113.26"),
            (
                "@",
                "TXT",
                3600,
                "v=spf1 mx include:_spf.mailhost.example -all",
            ),
            ("default._domainkey", "TXT", 3600, &dkim),
            (
                "_dmarc",
                "TXT",
                3600,
                "v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com",
            ),
            ("@", "CAA", 3600, "0 issue \"letsencrypt.org\""),
            ("@", "CAA", 3600, "0 iodef \"mailto:security@example.com\""),
            ("_sip._tcp", "SRV", 3600, "10 60 5060 sip.example.com."),
            ("sip", "A", 3600, "203.0.113.30"),
            ("lab", "NS", 3600, "ns1.lab-dns.net."),
            ("host1", "PTR", 3600, "host1.example.com."),
        ],
    );
    hosted(&mut com);
    ignore(&mut com, "_acme-challenge*", Some("TXT"), None);
    let live_com = live_zone(
        "example.com",
        &[
            ("@", "A", 3600, "203.0.113.10"),
            ("example.com.", "AAAA", 3600, "2001:db8::10"),
            ("www", "A", 3600, "203.0.113.10"),
            ("@", "MX", 3600, "10 mail.example.com."),
            ("@", "MX", 600, "20 mail2.example.com."),
            ("mail.example.com.", "A", 3600, "203.0.113.25"),
            ("MAIL2", "A", 3600, "203.0.113.26"),
            (
                "@",
                "TXT",
                3600,
                "v=spf1 mx include:_spf.mailhost.example -all",
            ),
            (
                "_dmarc",
                "TXT",
                3600,
                "v=DMARC1; p=none; rua=mailto:dmarc@example.com",
            ),
            ("@", "CAA", 3600, "0 issue \"letsencrypt.org\""),
            ("@", "CAA", 3600, "0 iodef \"mailto:security@example.com\""),
            ("_sip._tcp", "SRV", 3600, "10 60 5060 sip.example.com."),
            ("sip", "A", 3600, "203.0.113.30"),
            ("lab", "NS", 3600, "ns1.lab-dns.net."),
            ("host1", "PTR", 3600, "host1.example.com."),
            ("old", "A", 3600, "192.0.2.99"),
            ("_acme-challenge", "TXT", 300, "token-from-certbot"),
            (
                "@",
                "SOA",
                3600,
                "ns1.veldhost.net. hostmaster.example.com. 1 7200 900 1209600 300",
            ),
            ("@", "NS", 3600, "ns1.veldhost.net."),
            ("@", "DNSKEY", 3600, "257 3 13 abc"),
        ],
    );

    let mut org = zone(
        "example.org",
        &[
            ("@", "A", 3600, "198.51.100.7"),
            ("www", "CNAME", 3600, "example.org."),
            ("@", "TXT", 3600, "google-site-verification=abc123XYZ"),
        ],
    );
    custom(&mut org, &["ns1.other-dns.net", "ns2.other-dns.net"]);
    ignore(&mut org, "_acme-challenge*", Some("TXT"), None);
    let live_org = live_zone(
        "example.org",
        &[
            ("@", "A", 3600, "198.51.100.7"),
            ("www", "CNAME", 3600, "example.org."),
            ("@", "TXT", 3600, "google-site-verification=old999XYZ"),
        ],
    );

    let mut net = zone("example.net", &[("@", "A", 3600, "198.51.100.20")]);
    custom(&mut net, &["ns1.other-dns.net", "ns2.other-dns.net"]);
    net.prune = false;
    let live_net = live_zone(
        "example.net",
        &[
            ("@", "A", 3600, "198.51.100.20"),
            ("legacy", "A", 3600, "198.51.100.21"),
        ],
    );

    let shop_jobs = [
        ("*/5 * * * *", "php artisan schedule:run"),
        ("30 2 * * 0", "php bin/cleanup.php --days=30"),
        ("0 1 * * *", "php bin/report.php"),
        ("0 4 * * *", "php bin/sitemap.php"),
        ("15 * * * *", "php bin/queue.php"),
    ];
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![com, org, net],
        sites: vec![
            site(
                "blog",
                &[
                    ("*/15 * * * *", "wp cron event run --due-now"),
                    ("0 3 * * *", "wp transient delete --expired"),
                ],
            ),
            site("shop", &shop_jobs),
            site("legacy", &[("0 0 * * *", "php legacy.php")]),
        ],
    };
    let live = LiveSnapshot {
        zones: vec![live_com, live_org, live_net],
        domains: vec![
            live_domain(
                "example.com",
                &["NS2.VELDHOST.NET.", "ns1.veldhost.net"],
                "active",
            ),
            live_domain(
                "example.org",
                &["ns1.veldhost.net", "ns2.veldhost.net"],
                "inactive",
            ),
            live_domain(
                "example.net",
                &["ns1.veldhost.net", "ns2.veldhost.net"],
                "active",
            ),
        ],
        sites: vec![
            live_site(
                "blog",
                "active",
                0,
                &[
                    ("*/15 * * * *", "wp cron event run --due-now"),
                    ("0 * * * *", "wp cache flush"),
                    ("0 3 * * *", "wp transient delete --expired"),
                ],
            ),
            live_site(
                "shop",
                "active",
                1,
                &[
                    ("*/5  *  * * *", "php artisan schedule:run"),
                    ("30 3 * * 0", "php bin/cleanup.php --days=30"),
                    ("0 1 * * *", "php bin/report.php"),
                    ("0 4 * * *", "php  bin/sitemap.php"),
                    ("15 * * * *", "php bin/queue.php"),
                ],
            ),
            live_site("legacy", "suspended", 0, &[]),
        ],
    };
    (desired, live)
}
