//! `dnscron import`: every selector, overwrite protection, the probe, and the round trip —
//! import, then `plan` on the result shows no changes — in every emulator gap setting.

use std::path::Path;

use dnscron_emulator::{
    BackgroundEmulator, DomainSeed, Gaps, RateLimit, RecordSeed, Seed, SiteSeed, ZoneSeed,
};

use crate::common::Test;
use crate::common::emulator::start_emulator;

mod baseline;
mod bind_differential;
mod bind_refused;
mod dnscontrol_differential;
mod dnscontrol_meaning;
mod dnscontrol_refused;
pub(crate) mod extract_sets;
mod octodns_differential;
mod octodns_refused;
mod probe;
mod progress;
mod reload;
mod round_trip;
mod selectors;

const LONG_TXT: &str = "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuuzYLsz/O9n7y4TX9QxyQhk02/BI9nU+6fCAzZ31zd1nlokEEEzq+rhmhfju/t4RlKLqMuCE513Z9SCI/70xY9JK5gcvAOcqZX49Fom2TwKg+0Vy8kOUK9VRRZzSx0xkwAc2xyUasbQNDfOnm+amPv7uV05p3qzqdyPMEWRYFxjnYPcKQm9GUl/Hi9nUKMScX7BZhu3+1JPvWqb24z2MMG12Ai/oqdBdDbRQtG44j22WiUMzhzHfVzYetl42oI0glaFShYMgB9KD1AcdMXgLnj4ws6HpE86hbuzaPb+Ax5W2Hd8MkKmUPpjVowqvZRw5Uz48E0C1mg7ZQLbUxMF61wIDAQAB";

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

fn dnscron(emu: &BackgroundEmulator, dir: &Path, args: &[&str]) -> Test {
    Test::new()
        .args(args)
        .api(&emu.base_url(), "demo-token")
        .current_dir(dir)
}

/// `plan out` in `dir` against `emu`, as JSON: it exits 0 and holds no change. Its findings,
/// each as `code target [declared_at]`, in the plan's order.
fn unchanged_plan_findings(emu: &BackgroundEmulator, dir: &Path) -> Vec<String> {
    let args = ["plan", "out", "--format", "json", "--detailed-exitcode"];
    let json = dnscron(emu, dir, &args).run_for_stdout();
    let plan: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(plan["changes"], serde_json::json!([]), "{json}");
    plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let at = f["declared_at"].as_str().map(|at| format!(" {at}"));
            format!(
                "{} {}{}",
                f["code"].as_str().unwrap(),
                f["target"]["name"].as_str().unwrap(),
                at.unwrap_or_default()
            )
        })
        .collect()
}

/// `import --from FORMAT ARGS… --out out` in `dir`.
fn import_from(format: &str, dir: &Path, args: &[&str]) -> Test {
    Test::new()
        .args(["import", "--from", format])
        .args(args)
        .args(["--out", "out"])
        .current_dir(dir)
}

/// `zone Z from F: N records of M (a left out, b not imported)` → (Z, (N, M, a + b)).
fn zone_counts(line: &str) -> (&str, (usize, usize, usize)) {
    let (zone, _) = line.trim_start_matches("zone ").split_once(' ').unwrap();
    let (_, counts) = line.split_once(": ").unwrap();
    let numbers: Vec<usize> = counts
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (zone, (numbers[0], numbers[1], numbers.iter().skip(2).sum()))
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

/// The cutover after `import --from` wrote `dir/out`, against `emu`'s empty zones: the first
/// plan creates every record, apply writes them (snapshots `{prefix}_cutover_first_plan` and
/// `{prefix}_cutover_apply` of `module`, the caller's `module_path!()`), and the plan after
/// shows no changes.
fn assert_cutover(module: &str, prefix: &str, dir: &Path, emu: &BackgroundEmulator) {
    let run = |args: &[&str]| dnscron(emu, dir, args).plan_stamp().snapshot();
    let name = |what: &str| format!("{}__{prefix}_cutover_{what}", module.replace("::", "__"));
    insta::with_settings!({ filters => crate::common::filters(), prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name("first_plan"), run(&["plan", "out", "--detailed-exitcode"]));
        insta::assert_snapshot!(name("apply"), run(&["apply", "out", "--yes"]));
    });
    dnscron(emu, dir, &["plan", "out", "--detailed-exitcode"]).run_for_stdout();
}
