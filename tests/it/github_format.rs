//! `--format github`: workflow-command annotations from validate and plan.

use dnscron_emulator::{RateLimit, Seed, SiteSeed};

use crate::common::emulator::start_emulator;
use crate::common::{Test, assert_cli_snapshot, stdout_of};

#[test]
fn validate_annotates_at_most_ten_errors_then_counts_the_rest() {
    // The log on stderr keeps the full report with snippets.
    let out = Test::new()
        .args([
            "validate",
            "--format",
            "github",
            "tests/it/fixtures/validate/many-mistakes.yaml",
        ])
        .snapshot();
    insta::assert_snapshot!("github_validate_errors", out);
    assert_eq!(
        stdout_of(&out)
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        10
    );
}

/// Valid files: no validation annotation, the findings the files prove (a warning, an info as
/// a notice) and the summary; exit 0.
#[test]
fn validate_of_valid_files_prints_their_findings_and_the_summary() {
    assert_cli_snapshot!(Test::new().args(["validate", "--format", "github", "examples/dns"]));
}

#[test]
fn errors_without_a_place_are_annotated_without_a_file() {
    assert_cli_snapshot!(Test::new().args(["validate", "--format", "github", "no/such/dir"]));
}

const BLOCKED_SITE: &str = "cron:
  - { schedule: \"0 1 * * *\", command: \"php a.php\" }
  - { schedule: \"0 2 * * *\", command: \"php b.php\" }
  - { schedule: \"0 3 * * *\", command: \"php c.php\" }
  - { schedule: \"0 4 * * *\", command: \"php d.php\" }
  - { schedule: \"0 5 * * *\", command: \"php e.php\" }
";

/// Three suspended sites (15 blocked cron creates and a blocked delete) and a nameserver change
/// under active DNSSEC (a portal step).
fn blocked_account() -> (tempfile::TempDir, dnscron_emulator::BackgroundEmulator) {
    let mut seed = Seed::example()
        .with_site(SiteSeed::new("old1").with_state("suspended"))
        .with_site(SiteSeed::new("old2").with_state("suspended"));
    seed.rate_limit = RateLimit::off();
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("sites")).unwrap();
    for slug in ["legacy", "old1", "old2"] {
        std::fs::write(
            dir.path().join(format!("sites/{slug}.yaml")),
            format!("site: {slug}\n{BLOCKED_SITE}"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("example.net.yaml"),
        "zone: example.net
nameservers:
  mode: custom
  hosts: [ns1.other-dns.net, ns2.other-dns.net]
records:
  - { name: \"@\", type: A, content: 203.0.113.50 }
  - { name: www, type: CNAME, content: example.net. }
",
    )
    .unwrap();
    (dir, emu)
}

#[test]
fn plan_annotates_blocked_changes_as_errors_and_portal_steps_as_warnings() {
    let (dir, emu) = blocked_account();
    // Changes are not errors: exit 0.
    let out = Test::new()
        .args(["plan", "--format", "github", "."])
        .api(&emu.base_url(), "readonly-token")
        .current_dir(dir.path())
        .snapshot();
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("github_plan_blocked", out);
    });
    assert_eq!(
        stdout_of(&out)
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        10
    );
}

/// Changes and error/warning findings: the closing notice's summary counts the findings too,
/// as text and markdown do.
#[test]
fn the_notice_of_a_plan_with_changes_counts_its_findings() {
    let mut seed = Seed::from_yaml_str(
        "tokens: [{token: t, user: u, scopes: [read]}]\n\
         sites: [{slug: shop, state: active}]\n",
    )
    .unwrap();
    seed.rate_limit = RateLimit::off();
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    // A schedule that never runs (error) and one that runs every minute of an hour (warning).
    std::fs::write(
        dir.path().join("shop.yaml"),
        "site: shop\ncron:\n  - {schedule: \"0 0 30 2 *\", command: php bin/leap.php}\n  \
         - {schedule: \"* 3 * * *\", command: php bin/night.php}\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", "--format", "github", "."])
            .api(&emu.base_url(), "t")
            .current_dir(dir.path())
            .plan_stamp()
    );
}

#[test]
fn a_plan_refused_by_the_safety_limits_is_annotated() {
    let (dir, emu) = blocked_account();
    std::fs::remove_dir_all(dir.path().join("sites")).unwrap();
    // Declares none of example.com's records: the plan would empty the zone.
    std::fs::write(
        dir.path().join("example.com.yaml"),
        "zone: example.com\nrecords: []\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", "--format", "github", "."])
            .api(&emu.base_url(), "readonly-token")
            .current_dir(dir.path())
    );
}

#[test]
fn plan_with_invalid_files_annotates_them_and_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "zone: example.com\nrecords:\n  - { name: www, type: A, content: 1.2.3 }\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", "--format", "github", "."])
            .api("http://127.0.0.1:9/api/v1", "demo-token")
            .current_dir(dir.path())
    );
}
