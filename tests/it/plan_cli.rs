//! `dnscron plan` end to end: the binary against the emulator on 127.0.0.1.

use dnscron_core::plan_file as file;
use dnscron_emulator::{
    CronIndexAfterDelete, Gaps, HostnameEcho, RecordNames, RecordSeed, Seed, SiteSeed, TokenSeed,
    TxtFormat, ZoneSeed,
};

use crate::common::emulator::{example_emulator, start_emulator};
use crate::common::{Test, assert_cli_snapshot, filters};

fn plan_examples(base_url: &str, extra: &[&str]) -> Test {
    // The test-only stamp (docs/plan.md): each of these emulators sees at most this one plan
    // applied, so a fixed id can't make keys collide.
    Test::new()
        .args(["plan", "examples/dns"])
        .args(extra)
        .api(base_url, "demo-token")
        .env("DNSCRON_PLAN_ID", "0123456789abcdef0123456789abcdef")
        .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
}

#[test]
fn text_plan_of_the_example_account() {
    let emu = example_emulator();
    assert_cli_snapshot!(plan_examples(&emu.base_url(), &[]));
}

#[test]
fn markdown_plan_of_the_example_account() {
    let emu = example_emulator();
    let stdout = plan_examples(&emu.base_url(), &["--format", "markdown"]).run_for_stdout();
    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!(stdout);
    });
}

#[test]
fn json_plan_round_trips_through_out_file() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plan.json");
    let stdout = plan_examples(
        &emu.base_url(),
        &["--format", "json", "--out", file.to_str().unwrap()],
    )
    .run_for_stdout();
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(saved, stdout, "--out writes what --format json prints");
    let version =
        serde_json::from_str::<serde_json::Value>(&saved).unwrap()["format_version"].clone();
    assert_eq!(version, 5);
    let plan = file::load(&saved, "plan.json").unwrap();
    assert_eq!(plan.plan_id, "0123456789abcdef0123456789abcdef");
    assert_eq!(plan.created_at, "2026-01-02T03:04:05Z");
    assert_eq!(plan.api_url, emu.base_url());
    assert_eq!(plan.targets.len(), 7, "3 zones, 2 domains, 2 sites");
    assert!(
        plan.targets
            .iter()
            .all(|t| t.fingerprint.starts_with("sha256:"))
    );
    let json: serde_json::Value = serde_json::from_str(&saved).unwrap();
    insta::with_settings!({ filters => filters() }, {
        insta::assert_json_snapshot!(json);
    });
}

#[test]
fn detailed_exitcode_is_2_with_changes_and_0_without() {
    let emu = example_emulator();
    // The same text as without the flag, exit 2.
    let text = plan_examples(&emu.base_url(), &[]).run_for_stdout();
    plan_examples(&emu.base_url(), &["--detailed-exitcode"])
        .expect_status(2)
        .expect_stdout(text)
        .run();

    let (emu, dir) = matching_account();
    Test::new()
        .args(["plan", dir.path().to_str().unwrap(), "--detailed-exitcode"])
        .api(&emu.base_url(), "demo-token")
        .expect_stdout("Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n")
        .run();
    // A usage error is 1, never 2: a drift job must not read a typo as drift.
    Test::new()
        .args(["plan", "--detailed-exitcode", "--format", "markdwon"])
        .api(&emu.base_url(), "demo-token")
        .expect_status(1)
        .expect_stderr(
            "error: invalid value 'markdwon' for '--format <FORMAT>'\n  [possible values: text, json, markdown, github]\n\n  tip: a similar value exists: 'markdown'\n\nFor more information, try '--help'.\n",
        )
        .run();
}

#[test]
fn plan_sends_only_gets() {
    let emu = example_emulator();
    let out = plan_examples(&emu.base_url(), &["--stats"]).snapshot();
    let counters = emu.counters();
    assert!(counters.requests > 0);
    for route in counters.per_route.keys() {
        assert!(route.starts_with("GET "), "plan sent {route}");
    }
    // The stats on stderr (after the plan on stdout).
    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!(out);
    });
}

/// Whatever the server's choices where the spec is silent, the plan is the same.
#[test]
fn plan_is_the_same_in_every_gap_setting() {
    let emu = example_emulator();
    let reference = summary_of(&emu.base_url());
    for gaps in every_gap_setting() {
        emu.set_gaps(gaps.clone());
        assert_eq!(summary_of(&emu.base_url()), reference, "with {gaps:?}");
    }
}

fn summary_of(base_url: &str) -> Vec<String> {
    let stdout = plan_examples(base_url, &["--format", "json"]).run_for_stdout();
    let plan = file::load(&stdout, "-").unwrap();
    plan.changes
        .iter()
        .map(|c| {
            format!(
                "{} {} {:?} {:?} {:?}",
                c.action.as_str(),
                c.target,
                c.resource,
                c.before,
                c.after
            )
        })
        .collect()
}

pub fn every_gap_setting() -> Vec<Gaps> {
    let mut all = Vec::new();
    for record_names in [
        RecordNames::Relative,
        RecordNames::Absolute,
        RecordNames::AbsoluteNoDot,
    ] {
        for txt_format in [TxtFormat::AsStored, TxtFormat::Raw, TxtFormat::Quoted] {
            for hostname_echo in [
                HostnameEcho::AsStored,
                HostnameEcho::Upper,
                HostnameEcho::NoFinalDot,
            ] {
                all.push(Gaps {
                    record_names,
                    txt_format,
                    hostname_echo,
                    cron_index_base: 1,
                    cron_index_after_delete: CronIndexAfterDelete::Stable,
                    extra_fields: true,
                    hosted_mode_value: "acmehost".into(),
                    // Plan sends no delete: its answer's shape plays no part.
                    ..Gaps::default()
                });
            }
        }
    }
    all
}

/// A small account and files that describe it exactly.
fn matching_account() -> (dnscron_emulator::BackgroundEmulator, tempfile::TempDir) {
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(
            ZoneSeed::new("example.com")
                .with_record(RecordSeed::new("@", "A", "203.0.113.10"))
                .with_record(RecordSeed::new("@", "TXT", "\"v=spf1 -all\"")),
        )
        .with_site(SiteSeed::new("shop").with_cron("*/5 * * * *", "php artisan schedule:run"));
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("dns.yaml"),
        "zone: example.com\nrecords:\n  - { name: \"@\", type: A, content: 203.0.113.10 }\n  - { name: \"@\", type: TXT, content: v=spf1 -all }\n---\nsite: shop\ncron:\n  - { schedule: \"*/5 * * * *\", command: php artisan schedule:run }\n",
    )
    .unwrap();
    (emu, dir)
}

#[test]
fn a_ten_thousand_record_zone_plans_in_the_minimum_of_requests() {
    let records = (0..10_000).map(|i| {
        RecordSeed::new(
            &format!("h{i}"),
            "A",
            &format!("10.0.{}.{}", i / 256, i % 256),
        )
    });
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("big.example").with_records(records));
    let mut seed = seed;
    seed.rate_limit = dnscron_emulator::RateLimit::off();
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let mut yaml = String::from("zone: big.example\nrecords:\n");
    for i in 0..10_000 {
        yaml.push_str(&format!(
            "  - {{ name: h{i}, type: A, content: 10.0.{}.{} }}\n",
            i / 256,
            i % 256
        ));
    }
    // One record differs, so the plan has exactly one update.
    yaml = yaml.replace("content: 10.0.0.7 }", "content: 10.9.9.9 }");
    std::fs::write(dir.path().join("big.yaml"), yaml).unwrap();
    let stdout = Test::new()
        .args(["plan", dir.path().to_str().unwrap(), "--format", "json"])
        .api(&emu.base_url(), "demo-token")
        .run_for_stdout();
    let plan = file::load(&stdout, "-").unwrap();
    assert_eq!(plan.summary.update, 1);
    assert_eq!(plan.changes.len(), 1);
    let counters = emu.counters();
    assert_eq!(
        counters.requests, 103,
        "ceil(10000/100) pages, one GET /domains (big.example is not a registered domain, so no registrar read), and the zone and site lists a folder's plan reads: {:?}",
        counters.per_route
    );
}

#[test]
fn plan_without_a_token_says_how_to_give_one() {
    let emu = example_emulator();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", "examples/dns"])
            .env("DNSCRON_API_URL", emu.base_url())
    );
    assert_eq!(
        emu.counters().requests,
        0,
        "nothing is sent without a token"
    );
}

#[test]
fn plan_refuses_plain_http_to_a_remote_host() {
    let out = Test::new()
        .args(["plan", "examples/dns"])
        .api("http://192.0.2.1/api/v1", "secret-token-value")
        .snapshot();
    assert!(!out.contains("secret-token-value"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn plan_with_invalid_files_sends_nothing() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "zone: example.com\nrecords:\n  - { name: www, type: A, content: 1.2.3 }\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", dir.path().to_str().unwrap()])
            .api(&emu.base_url(), "demo-token")
    );
    assert_eq!(emu.counters().requests, 0);
}

#[test]
fn plan_names_the_file_of_a_zone_the_account_lacks() {
    let emu = example_emulator();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("missing.yaml"),
        "zone: nowhere.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", dir.path().to_str().unwrap()])
            .api(&emu.base_url(), "demo-token")
    );
}
