//! A repository of 50 zones sharing one mail set: the plan attributes every set record to the
//! set and its file, apply of the saved plan writes them all, and the account then matches the
//! files.

use dnscron_emulator::{RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::Test;

const ZONES: usize = 50;

const MAIL_SET: &str = "\
record_set: mail
records:
  - { name: \"@\", type: MX, content: \"10 mx1.mailhost.example.\" }
  - { name: \"@\", type: MX, content: \"20 mx2.mailhost.example.\" }
  - { name: \"@\", type: TXT, content: \"v=spf1 include:_spf.mailhost.example -all\" }
  - { name: _dmarc, type: TXT, content: \"v=DMARC1; p=quarantine; rua=mailto:dmarc@{zone}\" }
  - { name: autodiscover, type: CNAME, content: autodiscover.mailhost.example. }
";

/// Where each set record is declared, in the order of `MAIL_SET`.
const SET_PLACES: [(&str, &str, &str); 5] = [
    ("@", "MX", "./sets/mail.yaml:3:5"),
    ("@", "MX", "./sets/mail.yaml:4:5"),
    ("@", "TXT", "./sets/mail.yaml:5:5"),
    ("_dmarc", "TXT", "./sets/mail.yaml:6:5"),
    ("autodiscover", "CNAME", "./sets/mail.yaml:7:5"),
];

fn zone_name(i: usize) -> String {
    format!("shop{i:02}.example")
}

#[test]
fn fifty_zones_sharing_a_mail_set_plan_with_attribution_and_apply() {
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    let mut files = vec![("sets/mail.yaml".to_string(), MAIL_SET.to_string())];
    for i in 0..ZONES {
        let zone = zone_name(i);
        seed = seed.with_zone(ZoneSeed::new(&zone));
        files.push((
            format!("zones/{zone}.yaml"),
            format!(
                "zone: {zone}\nuse: [mail]\nrecords:\n  - {{ name: www, type: A, content: 192.0.2.{i} }}\n"
            ),
        ));
    }
    let emu = emulator_with(seed, gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), &files);

    let plan = dnscron(&emu, &["plan", "--format", "json", "."])
        .current_dir(dir.path())
        .run_for_stdout();
    let saved = plan.clone();
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    let changes = plan["changes"].as_array().unwrap();
    assert_eq!(changes.len(), ZONES * 6);
    for change in changes {
        let zone = change["target"]["name"].as_str().unwrap();
        let name = change["resource"]["name"].as_str().unwrap();
        let rtype = change["resource"]["type"].as_str().unwrap();
        let at = change["declared_at"].as_str().unwrap();
        let content = change["after"]["content"].as_str().unwrap();
        if (name, rtype) == ("www", "A") {
            assert_eq!(change.get("from_set"), None, "{change}");
            assert_eq!(at, format!("./zones/{zone}.yaml:4:5"));
            continue;
        }
        assert_eq!(change["from_set"], "mail", "{change}");
        assert!(
            SET_PLACES
                .iter()
                .any(|(n, t, place)| (*n, *t) == (name, rtype) && *place == at),
            "{change}"
        );
        if name == "_dmarc" {
            assert_eq!(
                content,
                format!("v=DMARC1; p=quarantine; rua=mailto:dmarc@{zone}")
            );
        }
    }
    // The saved plan's desired state keeps the set of every set record, for a reviewed apply.
    let records = plan["desired"]["zones"][0]["records"].as_array().unwrap();
    let sets: Vec<Option<&str>> = records.iter().map(|r| r["set"].as_str()).collect();
    assert_eq!(
        sets,
        [
            None,
            Some("mail"),
            Some("mail"),
            Some("mail"),
            Some("mail"),
            Some("mail")
        ]
    );

    // The saved plan is applied: its desired state, set records included, goes back through the
    // loader's rules (`config::revalidate`) before anything is sent.
    std::fs::write(dir.path().join("plan.json"), saved).unwrap();
    let applied = dnscron(
        &emu,
        &["apply", "--yes", "--format", "json", "--plan", "plan.json"],
    )
    .current_dir(dir.path())
    .expect_stderr(apply_progress())
    .run_for_stdout();
    let applied: serde_json::Value = serde_json::from_str(&applied).unwrap();
    assert_eq!(applied["result"], "converged", "{applied}");
    assert_eq!(writes(&emu), (ZONES * 6) as u64);

    // From the emulator's own state: every zone holds its record and the set's five.
    let desired = load(&[dir.path().to_path_buf()]);
    assert_eq!(desired.zones.len(), ZONES);
    assert!(desired.zones.iter().all(|z| z.records.len() == 6));
    assert_state_matches(
        &emu.state(),
        &desired,
        &["ns1.veldhost.net", "ns2.veldhost.net"],
    );

    Test::new()
        .args(["plan", "--detailed-exitcode", "."])
        .api(&emu.base_url(), "demo-token")
        .plan_stamp()
        .current_dir(dir.path())
        .expect_stdout(format!(
            "Live account: http://127.0.0.1:[PORT]/api/v1\n\nFindings:\n{}\nNo changes. The live account matches the files.\n",
            // Each zone is told about its own record (the set's, at the set's line).
            (0..ZONES)
                .map(|i| format!(
                    "  i info [spf-not-followed] zone shop{i:02}.example, @ TXT at ./sets/mail.yaml:5:5\n      the SPF record of shop{i:02}.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask); a resolver would settle them\n"
                ))
                .collect::<String>()
        ))
        .run();
}

/// What apply prints on stderr: one line per change, in plan order (zone by zone, the set's
/// records then the zone's own), each with the emulator's request id.
fn apply_progress() -> String {
    let mut out = String::new();
    let total = ZONES * 6;
    // The reads (the plan's, with the account's zone and site lists of a folder's plan, then
    // apply's of the live state it checks the saved plan against) took the first request ids.
    let first = 104;
    let mut request = first;
    for i in 0..ZONES {
        let zone = zone_name(i);
        let lines = [
            "@ MX 10 mx1.mailhost.example.".to_string(),
            "@ MX 20 mx2.mailhost.example.".to_string(),
            "@ TXT \"v=spf1 include:_spf.mailhost.example -all\"".to_string(),
            format!("_dmarc TXT \"v=DMARC1; p=quarantine; rua=mailto:dmarc@{zone}\""),
            "autodiscover CNAME autodiscover.mailhost.example.".to_string(),
            format!("www A 192.0.2.{i}"),
        ];
        for line in lines {
            let n = request - first + 1;
            out.push_str(&format!(
                "apply [{n}/{total}] zone {zone}: + {line} (ttl 3600) — done (req_{request:06})\n"
            ));
            request += 1;
        }
    }
    out.push_str("apply: verifying: reading the changed targets again\n");
    out
}

/// The text and Markdown plans say which set and file a change comes from; a GitHub
/// annotation (here of a create blocked by a live record the zone keeps) is placed in the
/// set's file and names the set.
#[test]
fn text_markdown_and_github_plans_name_the_set_and_its_file() {
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("shop00.example").with_record(RecordSeed::new(
            "autodiscover",
            "A",
            "192.0.2.9",
        )));
    let emu = emulator_with(seed, gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("sets/mail.yaml".to_string(), MAIL_SET.to_string()),
            (
                "zones/shop00.example.yaml".to_string(),
                "zone: shop00.example\nprune: false\nuse: [mail]\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n".to_string(),
            ),
        ],
    );
    let mut outs = String::new();
    for format in ["text", "markdown", "github"] {
        let out = dnscron(&emu, &["plan", "--format", format, "."])
            .current_dir(dir.path())
            .run_for_stdout();
        outs.push_str(&format!("===== {format}\n{out}"));
    }
    settings().bind(|| insta::assert_snapshot!("plan_formats_name_the_set", outs));
}
