//! `dnscron import`: every selector, overwrite protection, the probe, and the round trip —
//! import, then `plan` on the result shows no changes — in every emulator gap setting.

use std::path::Path;

use dnscron::api::wire;
use dnscron::dns::{self, RecordType, ZoneName};
use dnscron::emulator::{
    BackgroundEmulator, CronIndexAfterDelete, DomainSeed, Gaps, HostnameEcho, RateLimit,
    RecordNames, RecordSeed, Seed, SiteSeed, TxtFormat, ZoneSeed,
};
use dnscron::import::{NsChoice, build_zone, render_zone};

use crate::common::Run;
use crate::common::emulator::start_emulator;

const LONG_TXT: &str = "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuuzYLsz/O9n7y4TX9QxyQhk02/BI9nU+6fCAzZ31zd1nlokEEEzq+rhmhfju/t4RlKLqMuCE513Z9SCI/70xY9JK5gcvAOcqZX49Fom2TwKg+0Vy8kOUK9VRRZzSx0xkwAc2xyUasbQNDfOnm+amPv7uV05p3qzqdyPMEWRYFxjnYPcKQm9GUl/Hi9nUKMScX7BZhu3+1JPvWqb24z2MMG12Ai/oqdBdDbRQtG44j22WiUMzhzHfVzYetl42oI0glaFShYMgB9KD1AcdMXgLnj4ws6HpE86hbuzaPb+Ax5W2Hd8MkKmUPpjVowqvZRw5Uz48E0C1mg7ZQLbUxMF613BAXQ7L";

/// Live contents that are easy to get wrong on the way to YAML and back.
fn tricky_records() -> Vec<RecordSeed> {
    let r = |name: &str, t: &str, content: &str| RecordSeed::new(name, t, content);
    vec![
        r("@", "A", "192.0.2.1").with_ttl(300),
        r("@", "AAAA", "2001:DB8:0:0::1").with_ttl(300),
        r("@", "MX", "20  MX2.Edge.Example."),
        r("@", "MX", "5 mx1.edge.example."),
        r("@", "TXT", LONG_TXT),
        r("@", "CAA", "0 issue \"ca.example; account=1\""),
        r("*", "A", "192.0.2.9").with_ttl(300),
        r("*.dev", "A", "192.0.2.10"),
        r("dev", "NS", "ns1.other-dns.net."),
        r("www", "CNAME", "edge.example."),
        r("_sip._tcp", "SRV", "10 60 5060 sip.edge.example."),
        r("quotes", "TXT", "say \"hi\" and 'bye'"),
        r("escaped", "TXT", r#""back\\slash \"q\" \059""#),
        r("unicode", "TXT", "grüße ✓ 日本語 — ok"),
        r("lead", "TXT", "\"  padded text  \""),
        r("startsquote", "TXT", r#""\"starts with a quote""#),
        r("yamlish", "TXT", "a: b # not a comment, - [x] {y} & *z %1"),
        r("control", "TXT", "\"tab\\009here\""),
        r("chunks", "TXT", "\"first chunk\" \"second chunk\""),
        r("true", "TXT", "yes"),
        r("1", "A", "192.0.2.11"),
        // Not declarable: kept away from the plan by an exact ignore rule.
        r("short", "A", "192.0.2.12").with_ttl(30),
        r("broken", "TXT", "\"unterminated"),
        // System records a server leaked into the listing: left out with a comment.
        RecordSeed {
            hidden: Some(false),
            ..r(
                "@",
                "SOA",
                "ns1.veldhost.net. hostmaster.veldhost.net. 1 3600 600 1209600 300",
            )
        },
        RecordSeed {
            hidden: Some(false),
            ..r("@", "NS", "ns1.veldhost.net.")
        },
    ]
}

/// The example account plus a zone of tricky contents (a registered domain on custom
/// nameservers), a zone whose domain is registered elsewhere, and a site without cron.
fn seed() -> Seed {
    let mut seed = Seed::example()
        .with_zone(ZoneSeed::new("edge.example").with_records(tricky_records()))
        .with_domain(
            DomainSeed::new("edge.example")
                .with_nameservers(&["NS1.Other-DNS.net.", "ns2.other-dns.net"]),
        )
        .with_zone(
            ZoneSeed::new("elsewhere.example").with_record(RecordSeed::new("@", "A", "192.0.2.50")),
        )
        .with_site(SiteSeed::new("quiet"))
        // More than two pages of 100, with names that sort differently as text and as numbers.
        .with_zone(ZoneSeed::new("big.example").with_records((0..250).map(|i| {
            RecordSeed::new(
                &format!("host{i}"),
                "A",
                &format!("10.0.{}.{}", i / 100, i % 100),
            )
            .with_ttl(if i % 3 == 0 { 300 } else { 600 })
        })));
    seed.rate_limit = RateLimit::off();
    seed
}

fn emulator(gaps: Gaps) -> BackgroundEmulator {
    let mut seed = seed();
    seed.gaps = gaps;
    start_emulator(seed)
}

fn dnscron(emu: &BackgroundEmulator, dir: &Path, args: &[&str]) -> crate::common::RunOutput {
    Run::new(args)
        .env("DNSCRON_API_URL", emu.base_url())
        .env("DNSCRON_TOKEN", "demo-token")
        .current_dir(dir)
        .output()
}

fn head(text: &str, lines: usize) -> String {
    let total = text.lines().count();
    let mut out: Vec<&str> = text.lines().take(lines).collect();
    let more = format!("… {} lines in all", total);
    out.push(&more);
    out.join("\n")
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["zones", "sites"] {
        if let Ok(entries) = std::fs::read_dir(dir.join(sub)) {
            for e in entries {
                out.push(format!(
                    "{sub}/{}",
                    e.unwrap().file_name().to_string_lossy()
                ));
            }
        }
    }
    out.sort();
    out
}

fn assert_round_trip(gaps: Gaps) {
    let emu = emulator(gaps.clone());
    let dir = tempfile::tempdir().unwrap();
    let import = dnscron(&emu, dir.path(), &["import", "--all"]);
    assert_eq!(import.code, Some(0), "{gaps:?}\n{}", import.snapshot());
    let validate = dnscron(&emu, dir.path(), &["validate"]);
    assert_eq!(validate.code, Some(0), "{gaps:?}\n{}", validate.snapshot());
    let plan = dnscron(&emu, dir.path(), &["plan", "--detailed-exitcode"]);
    assert_eq!(
        plan.code,
        Some(0),
        "{gaps:?}: plan after import is not empty\n{}\n{}",
        plan.snapshot(),
        read(dir.path(), "zones/edge.example.yaml")
    );
    assert!(plan.stdout.contains("No changes"), "{}", plan.stdout);
    // However the server spells names, host names, TXT quoting and cron indexes, the files of
    // ordinary zones are the same, byte for byte. (Not the edge zone: for exotic TXT escapes
    // such as `\009` the emulator's raw/quoted views decode differently, and import follows the
    // server.)
    insta::assert_snapshot!(
        "import_example_com",
        read(dir.path(), "zones/example.com.yaml")
    );
    insta::assert_snapshot!(
        "import_big_zone_head",
        head(&read(dir.path(), "zones/big.example.yaml"), 12)
    );
    let counters = emu.counters();
    assert!(
        counters
            .per_route
            .keys()
            .all(|r| r.starts_with("GET ") || r == "unmatched"),
        "import and plan only read: {:?}",
        counters.per_route
    );
}

#[test]
fn round_trip_with_the_default_settings() {
    assert_round_trip(Gaps::default());
}

#[test]
fn round_trip_with_cron_indexes_from_one_and_stable() {
    assert_round_trip(Gaps {
        cron_index_base: 1,
        cron_index_after_delete: CronIndexAfterDelete::Stable,
        ..Gaps::default()
    });
}

#[test]
fn round_trip_with_absolute_record_names() {
    for names in [RecordNames::Absolute, RecordNames::AbsoluteNoDot] {
        assert_round_trip(Gaps {
            record_names: names,
            ..Gaps::default()
        });
    }
}

#[test]
fn round_trip_with_txt_raw_and_quoted() {
    for txt in [TxtFormat::Raw, TxtFormat::Quoted] {
        assert_round_trip(Gaps {
            txt_format: txt,
            ..Gaps::default()
        });
    }
}

#[test]
fn round_trip_without_extra_fields_and_with_another_hosted_mode_value() {
    assert_round_trip(Gaps {
        extra_fields: false,
        hosted_mode_value: "acmehost".into(),
        ..Gaps::default()
    });
}

#[test]
fn round_trip_with_host_names_echoed_upper_or_without_final_dot() {
    for echo in [HostnameEcho::Upper, HostnameEcho::NoFinalDot] {
        assert_round_trip(Gaps {
            hostname_echo: echo,
            ..Gaps::default()
        });
    }
}

#[test]
fn round_trip_with_every_setting_changed_at_once() {
    assert_round_trip(Gaps {
        cron_index_base: 1,
        cron_index_after_delete: CronIndexAfterDelete::Stable,
        record_names: RecordNames::Absolute,
        txt_format: TxtFormat::Quoted,
        extra_fields: false,
        hosted_mode_value: "acmehost".into(),
        hostname_echo: HostnameEcho::Upper,
    });
}

#[test]
fn all_writes_every_zone_and_site_with_modes_and_comments() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--all"]);
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    assert_eq!(
        files_under(dir.path()),
        [
            "sites/blog.yaml",
            "sites/legacy.yaml",
            "sites/quiet.yaml",
            "sites/shop.yaml",
            "zones/big.example.yaml",
            "zones/edge.example.yaml",
            "zones/elsewhere.example.yaml",
            "zones/example.com.yaml",
            "zones/example.net.yaml",
            "zones/example.org.yaml",
        ]
    );
    assert!(dir.path().join("dnscron.schema.json").is_file());
    insta::assert_snapshot!("import_all_stdout", out.stdout);
    insta::assert_snapshot!(
        "import_edge_zone",
        read(dir.path(), "zones/edge.example.yaml")
    );
    insta::assert_snapshot!(
        "import_example_com",
        read(dir.path(), "zones/example.com.yaml")
    );
    // Registered elsewhere: no nameservers key at all.
    let elsewhere = read(dir.path(), "zones/elsewhere.example.yaml");
    assert!(!elsewhere.contains("nameservers"), "{elsewhere}");
    assert!(read(dir.path(), "sites/quiet.yaml").contains("cron: []"));
    let legacy = read(dir.path(), "sites/legacy.yaml");
    assert!(legacy.contains("the site is suspended"), "{legacy}");
}

#[test]
fn zone_and_site_selectors_write_only_what_was_asked() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(
        &emu,
        dir.path(),
        &[
            "import",
            "--zone",
            "Example.ORG.",
            "--zone",
            "example.net",
            "--out",
            "repo",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    let repo = dir.path().join("repo");
    assert_eq!(
        files_under(&repo),
        ["zones/example.net.yaml", "zones/example.org.yaml"]
    );
    let org = read(&repo, "zones/example.org.yaml");
    assert!(org.contains("nameservers:\n  mode: hosted\n"), "{org}");

    let out = dnscron(
        &emu,
        dir.path(),
        &["import", "--site", "shop", "--out", "repo"],
    );
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    assert!(files_under(&repo).contains(&"sites/shop.yaml".to_string()));
    insta::assert_snapshot!("import_site_shop", read(&repo, "sites/shop.yaml"));
    let plan = dnscron(&emu, dir.path(), &["plan", "repo", "--detailed-exitcode"]);
    assert_eq!(plan.code, Some(0), "{}", plan.snapshot());
}

#[test]
fn unknown_zones_and_sites_are_errors_that_write_nothing() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--zone", "nope.example"]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("no DNS zone `nope.example`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint: "), "{}", out.stderr);
    let out = dnscron(&emu, dir.path(), &["import", "--site", "nope"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("no site `nope`"), "{}", out.stderr);
    let out = dnscron(&emu, dir.path(), &["import", "--zone", "not a zone"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("--zone not a zone"), "{}", out.stderr);
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn selectors_are_required_and_exclusive() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["import"],
        vec!["import", "--all", "--zone", "example.com"],
        vec!["import", "--probe", "example.io", "--site", "shop"],
    ] {
        let out = Run::new(&args).current_dir(dir.path()).output();
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let first = dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--site", "blog"],
    );
    assert_eq!(first.code, Some(0), "{}", first.snapshot());
    let zone = dir.path().join("zones/example.com.yaml");
    std::fs::write(&zone, "# edited by hand\n").unwrap();
    std::fs::write(dir.path().join("dnscron.schema.json"), "{}").unwrap();

    let refused = dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--site", "blog"],
    );
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("zones/example.com.yaml"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("sites/blog.yaml"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    assert_eq!(
        std::fs::read_to_string(&zone).unwrap(),
        "# edited by hand\n"
    );

    // A new file beside the existing ones is fine, and the schema is never a reason to refuse.
    let other = dnscron(&emu, dir.path(), &["import", "--zone", "example.org"]);
    assert_eq!(other.code, Some(0), "{}", other.snapshot());
    assert_eq!(read(dir.path(), "dnscron.schema.json"), "{}");

    let forced = dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "example.com", "--force"],
    );
    assert_eq!(forced.code, Some(0), "{}", forced.snapshot());
    assert!(read(dir.path(), "zones/example.com.yaml").starts_with("# yaml-language-server"));
    assert!(read(dir.path(), "dnscron.schema.json").contains("\"$schema\""));
}

#[test]
fn probe_writes_the_import_plan_with_the_registrar_steps() {
    let mut seed = seed();
    seed.external_zones[0].dnssec = true;
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--probe", "example.io"]);
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    let file = read(dir.path(), "zones/example.io.yaml");
    insta::assert_snapshot!("import_probe_example_io", file);
    let validate = dnscron(&emu, dir.path(), &["validate"]);
    assert_eq!(validate.code, Some(0), "{}", validate.snapshot());
    assert!(
        validate.stdout.contains("1 zone, 3 records"),
        "{}",
        validate.stdout
    );
    let counters = emu.counters();
    assert_eq!(
        counters.per_route.get("POST /api/v1/dns/zones/probe"),
        Some(&1)
    );
    assert!(
        counters
            .per_route
            .keys()
            .all(|r| r.starts_with("GET ") || r.ends_with("/dns/zones/probe")),
        "{:?}",
        counters.per_route
    );
}

#[test]
fn probe_errors_name_the_cause() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let unknown = dnscron(&emu, dir.path(), &["import", "--probe", "unknown.example"]);
    assert_eq!(unknown.code, Some(1));
    assert!(unknown.stderr.contains("404"), "{}", unknown.stderr);
    let readonly = Run::new(["import", "--probe", "example.io"])
        .env("DNSCRON_API_URL", emu.base_url())
        .env("DNSCRON_TOKEN", "readonly-token")
        .current_dir(dir.path())
        .output();
    assert_eq!(readonly.code, Some(1));
    assert!(
        readonly.stderr.contains("needs the dns scope"),
        "{}",
        readonly.stderr
    );
    assert!(
        readonly.stderr.contains("hint: the token lacks a scope"),
        "{}",
        readonly.stderr
    );
    assert!(!readonly.stderr.contains("readonly-token"));
    assert!(files_under(dir.path()).is_empty());
}

/// Library-level: every odd content reloads through `config::load` to the canonical form the
/// planner computes from the live record.
#[test]
fn rendered_contents_reload_to_the_same_canonical_form() {
    let zone = ZoneName::parse("edge.example").unwrap();
    let mut live: Vec<wire::Record> = tricky_records()
        .into_iter()
        .enumerate()
        .map(|(i, r)| wire::Record {
            id: i as i64,
            name: r.name,
            rtype: r.rtype,
            ttl: r.ttl,
            content: r.content,
        })
        .collect();
    for (i, text) in [
        "line\nbreak",
        "bell\u{7}and\u{1b}[31mescape",
        " ",
        "\\",
        "#",
        "'single'",
        "\u{2028}separator",
        "x".repeat(1500).as_str(),
    ]
    .iter()
    .enumerate()
    {
        live.push(wire::Record {
            id: 100 + i as i64,
            name: format!("odd{i}"),
            rtype: "TXT".into(),
            ttl: 3600,
            content: dns::wire_content(RecordType::TXT, text),
        });
    }
    let file = build_zone(&zone, &live, NsChoice::Unmanaged(None));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edge.yaml");
    std::fs::write(&path, render_zone(&file)).unwrap();
    let desired = dnscron::config::load(std::slice::from_ref(&path))
        .unwrap_or_else(|d| panic!("{}\n{}", d, std::fs::read_to_string(&path).unwrap()));
    let loaded: Vec<(String, RecordType, u32, String)> = desired.zones[0]
        .records
        .iter()
        .map(|r| (r.name.clone(), r.rtype, r.ttl, r.canonical.clone()))
        .collect();
    let mut expected: Vec<(String, RecordType, u32, String)> = file
        .records
        .iter()
        .map(|r| (r.name.clone(), r.rtype, r.ttl, r.canonical.clone()))
        .collect();
    assert_eq!(loaded, expected);
    for raw in &live {
        let Ok(rtype) = raw.rtype.parse::<RecordType>() else {
            continue;
        };
        let name = dns::live_name_to_relative(&raw.name, &zone);
        let canonical = dns::canonical_live_content(rtype, &raw.content, &zone);
        let declared = expected
            .iter()
            .position(|e| e.0 == name && e.1 == rtype && e.3 == canonical);
        let ignored = desired.zones[0]
            .ignore
            .iter()
            .any(|rule| rule.matches(&name, rtype, &canonical));
        let system = rtype == RecordType::NS && name == "@";
        assert!(
            declared.is_some() || ignored || system,
            "{name} {rtype} {canonical:?} is neither declared nor ignored"
        );
        if let Some(i) = declared {
            expected.remove(i);
        }
    }
    assert!(expected.is_empty(), "declared but not live: {expected:?}");
}
