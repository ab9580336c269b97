//! Registrar and cron findings (docs/health.md) end to end: `dnscron plan` against an emulator
//! seeded with every registrar state, each finding present and absent, in every format.

use dnscron_emulator::{BackgroundEmulator, RateLimit, Seed};

use crate::common::emulator::start_emulator;
use crate::common::{Test, assert_cli_snapshot};

/// An emulator on 127.0.0.1 from a seed's YAML, rate limit off.
fn emulator(yaml: &str) -> BackgroundEmulator {
    let mut seed = Seed::from_yaml_str(yaml).unwrap();
    seed.rate_limit = RateLimit::off();
    start_emulator(seed)
}

/// A `dnscron plan` run, with the emulator and files it needs kept alive until the test ends.
struct Case {
    test: Test,
    _emu: BackgroundEmulator,
    _dir: tempfile::TempDir,
}

/// Seed domains (YAML list items) beside one zone per domain, each with one A record, and the
/// same zones in files (`registrar` keys from `expectations`). Plans at 2026-01-02T03:04:05Z.
fn plan_of(domains: &str, zones: &[&str], expectations: &[(&str, &str)], extra: &[&str]) -> Case {
    let zone_seeds: String = zones
        .iter()
        .map(|z| {
            format!("  - {{zone: {z}, records: [{{name: \"@\", type: A, content: 192.0.2.1}}]}}\n")
        })
        .collect();
    let domains: String = domains
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("  {}\n", l.trim()))
        .collect();
    let yaml = format!(
        "service_nameservers: [ns1.veldhost.net, ns2.veldhost.net]\n\
         tokens: [{{token: t, user: u, scopes: [read]}}]\n\
         domains:\n{domains}zones:\n{zone_seeds}"
    );
    let emu = emulator(&yaml);
    let dir = tempfile::tempdir().unwrap();
    for z in zones {
        let registrar = expectations
            .iter()
            .find(|(name, _)| name == z)
            .map(|(_, r)| format!("registrar: {r}\n"))
            .unwrap_or_default();
        let file = format!(
            "zone: {z}\n{registrar}records:\n  - {{name: \"@\", type: A, content: 192.0.2.1}}\n"
        );
        std::fs::write(dir.path().join(format!("{z}.yaml")), file).unwrap();
    }
    let test = Test::new()
        .args(["plan", "."])
        .args(extra)
        .current_dir(dir.path())
        .api(&emu.base_url(), "t")
        .plan_stamp();
    Case {
        test,
        _emu: emu,
        _dir: dir,
    }
}

const EVERY_FINDING: &str = "\
  - {domain: ds-mismatch.example, dnssec: true, our_ds: [\"111 13 2 AAAA\"], registry_ds: [\"999 13 2 FFFF\"]}
  - {domain: ds-unpublished.example, dnssec: true, our_ds: [\"111 13 2 AAAA\"], registry_ds: []}
  - {domain: ds-rollover.example, dnssec: true, our_ds: [\"111 13 2 AAAA\", \"222 13 2 BBBB\"], registry_ds: [\"111 13 2 AAAA\"]}
  - {domain: ds-leftover.example, dnssec: false, registry_ds: [\"999 13 2 FFFF\"]}
  - {domain: delegating.example, resolver_nameservers: [ns1.old-dns.example, ns2.old-dns.example]}
  - {domain: pending.example, nameserver_state: propagating}
  - {domain: idle.example, nameserver_state: idle}
  - {domain: transfer.example, transfer_state: pending_approval}
  - {domain: odd-transfer.example, transfer_state: on-hold}
  - {domain: expiring.example, expiry: \"2026-01-20\", auto_renew: false}
  - {domain: expired.example, expiry: \"2025-12-24\", auto_renew: false}
  - {domain: expect.example, auto_renew: false, lock: false, whois_privacy: false}
";

const EVERY_ZONE: &[&str] = &[
    "delegating.example",
    "ds-leftover.example",
    "ds-mismatch.example",
    "ds-rollover.example",
    "ds-unpublished.example",
    "expect.example",
    "expired.example",
    "expiring.example",
    "idle.example",
    "odd-transfer.example",
    "pending.example",
    "transfer.example",
    "unregistered.example",
];

const EVERY_EXPECTATION: &[(&str, &str)] = &[
    (
        "expect.example",
        "{auto_renew: true, lock: true, whois_privacy: true}",
    ),
    ("unregistered.example", "{lock: true}"),
];

/// Every finding, with no change at all: the error findings alone make the drift job exit 2.
#[test]
fn every_registrar_finding_is_reported_and_errors_alert_the_drift_job() {
    let case = plan_of(
        EVERY_FINDING,
        EVERY_ZONE,
        EVERY_EXPECTATION,
        &["--detailed-exitcode"],
    );
    assert_cli_snapshot!(case.test);
}

#[test]
fn registrar_findings_in_markdown_and_github_formats() {
    let domains = "\
  - {domain: ds-mismatch.example, dnssec: true, our_ds: [\"111 13 2 AAAA\"], registry_ds: [\"999 13 2 FFFF\"]}
  - {domain: delegating.example, resolver_nameservers: [ns1.old-dns.example, ns2.old-dns.example]}
  - {domain: idle.example, nameserver_state: idle}
";
    let zones = ["delegating.example", "ds-mismatch.example", "idle.example"];
    assert_cli_snapshot!(
        "markdown",
        plan_of(domains, &zones, &[], &["--format", "markdown"]).test
    );
    assert_cli_snapshot!(
        "github",
        plan_of(domains, &zones, &[], &["--format", "github"]).test
    );
}

/// The same kinds of value, each on the healthy side of its rule; case, order, final dots and
/// spacing differ from what the signals compare. No finding, and the drift job stays at 0.
#[test]
fn healthy_registrations_raise_no_finding() {
    let domains = "\
  - {domain: ds-match.example, dnssec: true, our_ds: [\"111 13 2 AAAA\", \"222 13 2 BBBB\"], registry_ds: [\"222  13 2 bb bb.\", \"111 13 2 aaaa\"]}
  - {domain: ds-off.example, dnssec: false, registry_ds: []}
  - {domain: same-ns.example, nameservers: [NS2.Other-DNS.net., ns1.other-dns.net], resolver_nameservers: [ns1.other-dns.net, ns2.other-dns.net], nameserver_state: Synced}
  - {domain: renewing.example, expiry: \"2026-01-10\", auto_renew: true, transfer_state: none}
  - {domain: far.example, expiry: \"2026-01-20\", auto_renew: false}
  - {domain: expect.example, auto_renew: true, lock: true, whois_privacy: true}
";
    let zones = [
        "ds-match.example",
        "ds-off.example",
        "expect.example",
        "far.example",
        "hosting-only.example",
        "renewing.example",
        "same-ns.example",
    ];
    let expectations = [
        (
            "expect.example",
            "{auto_renew: true, lock: true, whois_privacy: true}",
        ),
        ("far.example", "{expiry_warning_days: 10}"),
    ];
    plan_of(domains, &zones, &expectations, &["--detailed-exitcode"])
        .test
        .expect_stdout("Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n")
        .run();
}

/// A warning alone (a delegation still propagating) is shown but does not alert.
#[test]
fn a_warning_alone_leaves_the_drift_job_at_zero() {
    let domains = "  - {domain: delegating.example, resolver_nameservers: [ns1.old-dns.example, ns2.old-dns.example]}\n";
    plan_of(domains, &["delegating.example"], &[], &["--detailed-exitcode"])
        .test
        .expect_stdout(
            "Live account: http://127.0.0.1:[PORT]/api/v1\n\nFindings:\n  \
             ! warning [delegation-changing] domain delegating.example at ./delegating.example.yaml:1:7\n      the delegation of delegating.example is changing: \
             resolvers still see ns1.old-dns.example, ns2.old-dns.example (live), the registry delegates \
             to ns1.veldhost.net, ns2.veldhost.net (pending); resolvers follow within the old NS records' \
             TTL (up to 2 days), so both sets must serve the zone until then\n\n\
             No changes. The live account matches the files. Findings need attention: 1 warning.\n",
        )
        .run();
}

/// Created jobs show their next three runs (UTC, from the plan's time); a schedule that never
/// runs is an error finding, one that runs every minute a warning, an ordinary one neither.
#[test]
fn cron_jobs_show_their_next_runs_and_odd_schedules_are_findings() {
    let seed = "service_nameservers: [ns1.veldhost.net, ns2.veldhost.net]\n\
                tokens: [{token: t, user: u, scopes: [read]}]\n\
                sites: [{slug: shop, state: active, cron: [{schedule: \"* * * * *\", command: php artisan schedule:run}]}]\n";
    let emu = emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("shop.yaml"),
        "site: shop\ncron:\n  - {schedule: \"* * * * *\", command: php artisan schedule:run}\n  \
         - {schedule: \"0 0 30 2 *\", command: php bin/leap.php}\n  \
         - {schedule: \"*/20 9 * * MON\", command: wp cron event run --due-now}\n  \
         - {schedule: \"* 3 * * *\", command: php bin/night.php}\n",
    )
    .unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["plan", ".", "--detailed-exitcode"])
            .current_dir(dir.path())
            .api(&emu.base_url(), "t")
            .plan_stamp()
    );
}

/// The registrar findings' cost, exactly: one `GET /domains` for the plan, one registrar read
/// per registered zone without `nameservers:` (the snapshot's read is reused for the others),
/// nothing for a zone the account does not register.
#[test]
fn registrar_findings_cost_one_domain_list_and_one_read_per_unread_registered_zone() {
    let seed = "service_nameservers: [ns1.veldhost.net, ns2.veldhost.net]\n\
                tokens: [{token: t, user: u, scopes: [read]}]\n\
                domains: [{domain: reg.example}, {domain: ns.example}]\n\
                zones: [{zone: reg.example}, {zone: ns.example}, {zone: hosting.example}]\n";
    let emu = emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("zones.yaml"),
        "zone: reg.example\n---\nzone: ns.example\nnameservers: {mode: hosted}\n---\nzone: hosting.example\n",
    )
    .unwrap();
    Test::new()
        .args(["plan", "."])
        .current_dir(dir.path())
        .api(&emu.base_url(), "t")
        .plan_stamp()
        .expect_stdout("Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n")
        .run();
    let routes: Vec<(String, u64)> = emu.counters().per_route.into_iter().collect();
    assert_eq!(
        routes,
        // The domain list serves the account as a whole too; a folder's plan adds the zone and
        // site lists to it (docs/health.md#the-account-as-a-whole).
        [
            ("GET /api/v1/dns".to_string(), 1),
            ("GET /api/v1/dns/{zone}/records".to_string(), 3),
            ("GET /api/v1/domains".to_string(), 1),
            ("GET /api/v1/domains/{domain}/registrar".to_string(), 2),
            ("GET /api/v1/sites".to_string(), 1),
        ]
    );
}

/// docs/health.md lists every finding code once, in the code's order, with its severity and
/// what it is judged from: the table is what `accept:` users read, so it can't drift.
#[test]
fn every_finding_code_is_documented_once_with_its_severity_and_basis() {
    use dnscron_core::plan::{Basis, FindingCode, Severity};
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/health.md")).unwrap();
    let section = doc
        .split("## Finding codes")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap();
    let documented: Vec<(String, String, String)> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (
                cells[1].trim_matches('`').to_string(),
                cells[2].to_string(),
                cells[3].to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String, String)> = FindingCode::ALL
        .iter()
        .map(|code| {
            let severity = match code.severity() {
                Severity::Info => "info",
                Severity::NeedsPortalStep => "needs_portal_step",
                Severity::Blocked => "blocked",
                Severity::Warning => "warning",
                Severity::Error => "error",
            };
            let basis = match code.basis() {
                Basis::Files => "files",
                Basis::Dns => "dns",
                Basis::Account => "account",
            };
            (code.as_str().to_string(), severity.into(), basis.into())
        })
        .collect();
    assert_eq!(documented, expected);
}
