//! A plan file reproduces the files exactly: for generated desired states (TXT text with
//! surrounding spaces, quotes, backslashes, control characters, non-ASCII, past one chunk; A,
//! AAAA, MX, CNAME, CAA and SRV with stray spacing and case; cron commands and ignore globs with
//! odd characters; nameservers, registrar expectations, safety limits), what the loader made of
//! them goes through the plan file and back byte for byte, changes' values included, and what
//! apply sends for each record reads back to its canonical value.
//!
//! Generated with a seeded `fastrand` (already a dependency) rather than a property-testing
//! crate: the seeds are fixed, so a failure names the seed and reproduces.

use std::path::Path;
use std::sync::Arc;

use super::{load, to_json};
use crate::config::{self, model as cfg};
use crate::dns::{self, RecordType, ZoneName};
use crate::plan::model::{self as plan, Action};
use crate::plan::{Exceeded, OverLimits};

/// Characters that broke or could break the round trip: YAML's and JSON's special ones, the
/// TXT presentation form's, whitespace of every kind, controls YAML forbids, non-ASCII.
const POOL: &[char] = &[
    'a', 'Z', '0', '9', ' ', ' ', '\t', '"', '\\', ';', '#', ':', '-', '{', '}', '[', ']', ',',
    '\'', '&', '*', '!', '|', '>', '%', '@', '`', '\n', '\r', '\u{7f}', '\u{1b}', '\u{0}',
    '\u{85}', '\u{a0}', '\u{2028}', '\u{feff}', '\u{fffe}', 'é', '€', '😀',
];

fn text(rng: &mut fastrand::Rng, max: usize) -> String {
    let len = rng.usize(0..=max);
    (0..len).map(|_| POOL[rng.usize(..POOL.len())]).collect()
}

fn spaced(rng: &mut fastrand::Rng, core: &str) -> String {
    let pad = |rng: &mut fastrand::Rng| " ".repeat(rng.usize(0..3));
    format!("{}{core}{}", pad(rng), pad(rng))
}

fn at(line: usize) -> cfg::Location {
    cfg::Location {
        file: Arc::from(Path::new("zones/example.com.yaml")),
        line,
        col: 3,
    }
}

fn zone_name() -> ZoneName {
    ZoneName::parse("example.com").unwrap_or_else(|e| panic!("{e}"))
}

/// A record as a file could declare it: raw content, canonical as the loader computes it.
/// `None` when the loader would refuse the content (e.g. an unclosed quoted TXT chunk).
fn record(rng: &mut fastrand::Rng, i: usize) -> Option<cfg::RecordSpec> {
    let (rtype, content) = match rng.usize(0..10) {
        0 | 1 => (RecordType::TXT, text(rng, 24)),
        2 => (RecordType::TXT, format!("\"{}\"", text(rng, 12))),
        // Past one 255-octet chunk.
        6 => (RecordType::TXT, text(rng, 600)),
        7 => {
            let caa = format!(
                "0  ISSUE  \"{}\"",
                ["letsencrypt.org", "ca.example; x=1"][rng.usize(0..2)]
            );
            (RecordType::CAA, spaced(rng, &caa))
        }
        8 => (RecordType::SRV, spaced(rng, "10 60  5060 Sip.Example.com.")),
        9 => (RecordType::AAAA, spaced(rng, "2001:0DB8:0:0::10")),
        3 => {
            let address = format!("192.0.2.{}", rng.u8(..));
            (RecordType::A, spaced(rng, &address))
        }
        4 => {
            let mx = format!("{}  Mail.Example.COM.", rng.u16(..));
            (RecordType::MX, spaced(rng, &mx))
        }
        _ => (RecordType::CNAME, spaced(rng, "Target.Example.net.")),
    };
    let canonical = dns::canonical_content(rtype, &content, &zone_name()).ok()?;
    Some(cfg::RecordSpec {
        // One name per record: no duplicate or CNAME-beside-other rule drops one.
        name: match rtype {
            RecordType::SRV => format!("_s{i}._tcp"),
            RecordType::A
            | RecordType::AAAA
            | RecordType::CNAME
            | RecordType::MX
            | RecordType::TXT
            | RecordType::NS
            | RecordType::CAA
            | RecordType::PTR => format!("r{i}"),
        },
        rtype,
        ttl: 60 + rng.u32(..600_000),
        content,
        canonical,
        location: at(10 + i),
        // Every third record as if from a record set: the set must survive the round trip.
        set: i.is_multiple_of(3).then(|| "mail".into()),
    })
}

fn cron_job(rng: &mut fastrand::Rng, i: usize) -> Option<cfg::CronJobSpec> {
    let schedule = crate::cron::normalize_schedule(&spaced(rng, "*/5  *  * * *")).ok()?;
    let raw = format!("php bin/task{i}.php {}", text(rng, 16));
    let command = crate::cron::normalize_command(&raw).ok()?;
    Some(cfg::CronJobSpec {
        schedule,
        command,
        location: at(200 + i),
    })
}

fn desired(rng: &mut fastrand::Rng) -> cfg::Desired {
    let records: Vec<cfg::RecordSpec> = (0..rng.usize(1..12))
        .filter_map(|i| record(rng, i))
        .collect();
    let ignore = vec![cfg::IgnoreRule {
        name: "_acme*".into(),
        rtype: None,
        content: Some(text(rng, 10)),
        location: at(5),
    }];
    let cron: Vec<cfg::CronJobSpec> = (0..rng.usize(0..5))
        .filter_map(|i| cron_job(rng, i))
        .collect();
    let accept_spec =
        |rng: &mut fastrand::Rng, finding: crate::plan::FindingCode, name: &str, line: usize| {
            cfg::AcceptSpec {
                finding,
                // A figure of the kind the code measures, when it measures one.
                figure: crate::finding::FigureKind::of(finding)
                    .filter(|_| rng.bool())
                    .and_then(|kind| {
                        let value = match kind {
                            crate::finding::FigureKind::Lookups
                            | crate::finding::FigureKind::KeyBits => rng.u32(0..5000).to_string(),
                            crate::finding::FigureKind::DmarcPolicy => "quarantine".to_string(),
                            crate::finding::FigureKind::Expires => "2026-02-01".to_string(),
                        };
                        crate::plan::Figure::parse(kind, &value)
                    }),
                name: name.into(),
                // The loader trims a reason; what it keeps inside is anything.
                reason: format!("x{}x", text(rng, 20)),
                until: rng
                    .bool()
                    .then(|| chrono::NaiveDate::from_ymd_opt(2026, 12, 31))
                    .flatten(),
                location: at(line),
            }
        };
    let accept = |rng: &mut fastrand::Rng, name: &str, line: usize| {
        let finding =
            crate::plan::FindingCode::ALL[rng.usize(..crate::plan::FindingCode::ALL.len())];
        accept_spec(rng, finding, name, line)
    };
    cfg::Desired {
        unmanaged: Default::default(),
        zones: vec![cfg::ZoneSpec {
            accept: vec![accept(rng, "mail._domainkey", 6), accept(rng, "@", 7)],
            zone: zone_name(),
            location: at(1),
            nameservers: Some(cfg::NameserversSpec {
                mode: if rng.bool() {
                    cfg::NameserverMode::Hosted
                } else {
                    cfg::NameserverMode::Custom(vec![
                        "ns1.other-dns.net".into(),
                        "ns2.other-dns.net".into(),
                    ])
                },
                location: at(2),
            }),
            prune: rng.bool(),
            ignore,
            records,
            uses: Vec::new(),
            safety: cfg::SafetyLimits {
                max_deletes: rng.usize(0..1000),
                allow_empty: rng.bool(),
                ..cfg::SafetyLimits::default()
            },
            registrar: Some(cfg::RegistrarExpectations {
                auto_renew: Some(rng.bool()),
                lock: None,
                whois_privacy: Some(rng.bool()),
                expiry_warning_days: Some(rng.u32(1..365)),
                location: at(3),
            }),
        }],
        sites: vec![cfg::SiteSpec {
            accept: vec![accept(rng, "php artisan run", 8)],
            slug: "shop".into(),
            location: cfg::Location {
                file: Arc::from(Path::new("sites/shop.yaml")),
                line: 1,
                col: 1,
            },
            cron: Some(cron),
        }],
    }
}

/// One create per record, carrying its canonical value as the planner would.
fn creates(desired: &cfg::Desired) -> Vec<plan::Change> {
    let zone = plan::TargetRef {
        kind: plan::TargetKind::Zone,
        name: "example.com".into(),
    };
    desired.zones[0]
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| plan::Change {
            id: i + 1,
            ..plan::Change::new(
                Action::Create,
                zone.clone(),
                plan::Resource::Record {
                    name: r.name.clone(),
                    rtype: r.rtype,
                    record_id: None,
                },
                None,
                Some(plan::Value::Record {
                    ttl: r.ttl,
                    content: r.canonical.clone(),
                }),
            )
            .declared(&r.location)
            .from_set(r.set.as_deref())
        })
        .collect()
}

fn a_plan(desired: cfg::Desired, allow_mass_changes: bool) -> plan::Plan {
    let changes = creates(&desired);
    plan::Plan {
        plan_id: "0123456789abcdef0123456789abcdef".into(),
        created_at: "2026-01-02T03:04:05Z".into(),
        api_url: "http://127.0.0.1:8080/api/v1".into(),
        options: plan::PlanOptions {
            hosted_mode_wire_value: "veldhost".into(),
            allow_mass_changes,
        },
        targets: Vec::new(),
        summary: plan::Summary::of(&changes),
        changes,
        findings: Vec::new(),
        desired,
        scope: None,
        over_limits: approved_over_limits(allow_mass_changes),
    }
}

/// What a plan made with the limits lifted records (here: a changed default TTL).
fn approved_over_limits(allow_mass_changes: bool) -> Vec<OverLimits> {
    let zone = OverLimits {
        zone: "example.com".into(),
        declared_at: "zones/example.com.yaml:1:1".into(),
        exceeded: vec![Exceeded::TtlUpdatePercent {
            ttl_updates: 24,
            live: 26,
            floor: 10,
            max_percent: 50,
        }],
    };
    match allow_mass_changes {
        true => vec![zone],
        false => Vec::new(),
    }
}

#[test]
fn generated_desired_states_come_back_from_the_plan_file_byte_for_byte() {
    let mut accepted = 0;
    for seed in 0..300u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let files = desired(&mut rng);
        // What the loader itself makes of these declarations: the desired state a plan holds.
        let loaded = config::revalidate(&files)
            .unwrap_or_else(|d| panic!("seed {seed}: the loader refused {files:#?}: {d}"));
        assert_eq!(
            loaded, files,
            "seed {seed}: the loader changed a declaration"
        );
        let plan = a_plan(loaded, rng.bool());
        let json = to_json(&plan).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let back = load(&json, "plan.json").unwrap_or_else(|e| panic!("seed {seed}: {e}\n{json}"));
        assert_eq!(back, plan, "seed {seed}");
        accepted += plan.desired.zones[0].records.len();
        for r in &plan.desired.zones[0].records {
            // What apply sends for it reads back to the same text and holds nothing the API
            // refuses (a control character).
            let wire = dns::wire_content(r.rtype, &r.canonical);
            assert!(!wire.chars().any(char::is_control), "seed {seed}: {wire:?}");
            let read_back = dns::canonical_content(r.rtype, &wire, &zone_name());
            assert_eq!(
                read_back.as_ref(),
                Ok(&r.canonical),
                "seed {seed}: {wire:?}"
            );
        }
    }
    assert!(
        accepted > 1000,
        "too few records survived generation: {accepted}"
    );
}

#[test]
fn the_reported_txt_values_round_trip() {
    for content in [
        "\" hello \"",
        " hello ",
        "a\u{7f}b",
        "\"a\\127b\"",
        "tab\tend\u{85}",
    ] {
        let canonical = dns::canonical_content(RecordType::TXT, content, &zone_name())
            .unwrap_or_else(|e| panic!("{content:?}: {e}"));
        let files = cfg::Desired {
            unmanaged: Default::default(),
            zones: vec![cfg::ZoneSpec {
                accept: Vec::new(),
                zone: zone_name(),
                location: at(1),
                nameservers: None,
                prune: true,
                ignore: Vec::new(),
                records: vec![cfg::RecordSpec {
                    name: "txt".into(),
                    rtype: RecordType::TXT,
                    ttl: 300,
                    content: content.into(),
                    canonical,
                    location: at(4),
                    set: None,
                }],
                uses: Vec::new(),
                safety: cfg::SafetyLimits::default(),
                registrar: None,
            }],
            sites: Vec::new(),
        };
        let plan = a_plan(files, false);
        let json = to_json(&plan).unwrap_or_else(|e| panic!("{e}"));
        let back = load(&json, "plan.json").unwrap_or_else(|e| panic!("{content:?}: {e}"));
        assert_eq!(back.desired, plan.desired, "{content:?}");
    }
}
