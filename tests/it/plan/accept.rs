//! Accepting a finding in the files (docs/health.md#accepting-a-finding), issue 28 item 2. Right
//! after `import`, `plan --detailed-exitcode` exits 2 on an error finding (a provider's DKIM key,
//! 512 bits): with an `accept:` entry it exits 0 and shows the finding as accepted with its
//! reason; past the entry's `until` (judged at the plan's time, `DNSCRON_TIMESTAMP`) it exits 2
//! and says the acceptance expired; an entry matching nothing is a warning. A saved plan keeps
//! the judgement it was made with. `validate` shows the offline findings with the acceptances;
//! every broken entry is a located loader error.

use std::path::{Path, PathBuf};

use dnscron_emulator::{BackgroundEmulator, RateLimit, Seed};

use crate::common::{Test, assert_cli_snapshot};

/// A 512-bit RSA key: under the 1024 bits receivers accept, so `dkim-key-too-short` (an error).
const SHORT_KEY: &str = "v=DKIM1; p=MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAO/R9lsJ3bgTPEfEKtfSEBX4CQpevF8qHJepMLfTZCg6G2GuC5VXDEM7Qwr7V4KfRD553ZXuy4zpqY+Bjc4LTKkCAwEAAQ==";

/// The account: a zone whose provider-made DKIM key is too short, and a site whose queue
/// worker runs every minute.
fn emulator() -> BackgroundEmulator {
    let yaml = format!(
        "tokens: [{{token: t, user: u, scopes: [read]}}]\n\
         sites:\n  - slug: shop\n    cron: [{{schedule: \"* * * * *\", command: \"php artisan queue:work\"}}]\n\
         zones:\n  - zone: mailco.example\n    records:\n\
         \x20     - {{ name: \"@\", type: A, ttl: 3600, content: 192.0.2.1 }}\n\
         \x20     - {{ name: mail._domainkey, type: TXT, ttl: 3600, content: \"{SHORT_KEY}\" }}\n"
    );
    let mut seed = Seed::from_yaml_str(&yaml).unwrap();
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

/// The account imported into `repo/` of a temporary folder, as a team adopting dnscron starts.
struct Imported {
    emu: BackgroundEmulator,
    dir: tempfile::TempDir,
}

fn imported() -> Imported {
    let emu = emulator();
    let dir = tempfile::tempdir().unwrap();
    Test::new()
        .args(["import", "--all", "--out", "repo"])
        .api(&emu.base_url(), "t")
        .current_dir(dir.path())
        .run_for_stdout();
    Imported { emu, dir }
}

impl Imported {
    fn zone_file(&self) -> PathBuf {
        self.dir.path().join("repo/zones/mailco.example.yaml")
    }

    fn site_file(&self) -> PathBuf {
        self.dir.path().join("repo/sites/shop.yaml")
    }

    /// Appends `text` (an `accept:` list) to the file at `path`.
    fn append(&self, path: &Path, text: &str) {
        let mut file = std::fs::read_to_string(path).unwrap();
        file.push_str(text);
        std::fs::write(path, file).unwrap();
    }

    fn plan(&self) -> Test {
        Test::new()
            .args(["plan", "repo", "--detailed-exitcode"])
            .api(&self.emu.base_url(), "t")
            .current_dir(self.dir.path())
            .plan_stamp()
    }

    /// A plan made at `time` (RFC 3339), whatever the test's usual plan time.
    fn plan_at(&self, time: &str) -> Test {
        self.plan().env("DNSCRON_TIMESTAMP", time)
    }
}

/// Imported, and the DKIM finding accepted until the end of 2026.
fn imported_and_accepted() -> Imported {
    let account = imported();
    account.append(&account.zone_file(), ACCEPT_DKIM);
    account
}

const ACCEPT_DKIM: &str = "accept:\n  - finding: dkim-key-too-short\n    name: mail._domainkey\n    reason: \"provider rotates it in December (ticket 4411)\"\n    until: 2026-12-31\n";

const ACCEPT_WORKER: &str = "accept:\n  - { finding: cron-every-minute, name: php artisan queue:work, reason: the queue worker polls every minute }\n";

#[test]
fn right_after_import_a_providers_dkim_key_is_an_error_finding_and_exit_2() {
    assert_cli_snapshot!(imported().plan());
}

#[test]
fn an_accepted_finding_is_shown_with_its_reason_and_exits_0() {
    let account = imported_and_accepted();
    account.append(&account.site_file(), ACCEPT_WORKER);
    assert_cli_snapshot!(account.plan());
    assert_cli_snapshot!(account.plan().args(["--format", "markdown"]));
    assert_cli_snapshot!(account.plan().args(["--format", "github"]));
}

#[test]
fn an_acceptance_past_its_until_is_expired_and_exits_2() {
    // The plan is made the day after the acceptance's last day.
    assert_cli_snapshot!(imported_and_accepted().plan_at("2027-01-01T00:00:00Z"));
}

#[test]
fn on_its_last_day_an_acceptance_still_holds() {
    let account = imported_and_accepted();
    let plan = account
        .plan_at("2026-12-31T23:59:59Z")
        .args(["--format", "json"]);
    let json: serde_json::Value =
        serde_json::from_str(crate::common::stdout_of(&plan.snapshot())).unwrap();
    let dkim = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "dkim-key-too-short")
        .unwrap();
    assert_eq!(
        dkim["accepted"],
        serde_json::json!({
            "reason": "provider rotates it in December (ticket 4411)",
            "until": "2026-12-31",
            "declared_at": "repo/zones/mailco.example.yaml:12:5"
        })
    );
}

/// A warning, which changes no exit code: the one error is accepted.
#[test]
fn an_acceptance_that_matches_nothing_is_a_warning() {
    let account = imported_and_accepted();
    account.append(
        &account.zone_file(),
        "  - { finding: dkim-key-too-short, name: old._domainkey, reason: the old provider's key }\n",
    );
    assert_cli_snapshot!(account.plan());
}

#[test]
fn a_saved_plan_keeps_the_acceptance_judged_when_it_was_made() {
    let account = imported_and_accepted();
    account
        .plan()
        .args(["--out", "plan.json", "--format", "json"])
        .run_for_stdout();
    // Shown a year later (the clock of `show` is not the plan's): still accepted.
    let show = Test::new()
        .args(["show", "plan.json"])
        .current_dir(account.dir.path())
        .env("DNSCRON_TIMESTAMP", "2028-01-01T00:00:00Z");
    assert_cli_snapshot!(show);
}

const BROKEN: &str = "\
zone: mailco.example
records:
  - { name: mail._domainkey, type: TXT, content: \"v=DKIM1; p=AAAA\" }
accept:
  - { finding: dkim-key-to-short, name: mail._domainkey, reason: typo in the code }
  - { finding: dkim-key-unusable, name: mail._domainkey, reason: a bad day, until: 31.12.2026 }
  - { finding: dkim-key-unusable, name: mail._domainkey }
  - { finding: dkim-key-unusable, name: mail._domainkey, reason: first }
  - { finding: dkim-key-unusable, name: MAIL._domainkey, reason: second }
";

#[test]
fn every_broken_acceptance_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mailco.example.yaml"), BROKEN).unwrap();
    assert_cli_snapshot!(
        Test::new()
            .args(["validate", "mailco.example.yaml"])
            .current_dir(dir.path())
    );
}

#[test]
fn validate_shows_the_offline_findings_with_their_acceptances_and_exits_0() {
    let account = imported();
    account.append(&account.site_file(), ACCEPT_WORKER);
    let validate = |format: &str| {
        Test::new()
            .args(["validate", "repo", "--format", format])
            .current_dir(account.dir.path())
            .plan_stamp()
    };
    assert_cli_snapshot!(validate("text"));
    assert_cli_snapshot!(validate("github"));
}

/// Issue 36: an acceptance covers what was accepted. The zone's SPF grew from 11 lookups to 14
/// and its DMARC policy went from `quarantine` to `none` since the entries recorded them: both
/// count again, each with a warning saying by how much; recorded as they are now, both are
/// accepted.
#[test]
fn a_finding_worse_than_its_acceptance_records_counts_again_and_says_so() {
    let hosts: Vec<String> = (1..=13).map(|i| format!("a:h{i}.worse.example")).collect();
    let records: String = (1..=13)
        .map(|i| format!("  - {{ name: h{i}, type: A, content: 192.0.2.{i} }}\n"))
        .collect();
    let zone = |lookups: &str, policy: &str| {
        format!(
            "zone: worse.example\nrecords:\n  - {{ name: \"@\", type: A, content: 192.0.2.99 }}\n  - {{ name: \"@\", type: TXT, content: \"v=spf1 a {} -all\" }}\n  - {{ name: _dmarc, type: TXT, content: \"v=DMARC1; p=none; rua=https://reports.worse.example/\" }}\n{records}accept:\n  - {{ finding: spf-too-many-lookups, name: \"@\", reason: the relay goes in March, value: {lookups} }}\n  - {{ finding: dmarc-report-uri-not-mailto, name: _dmarc, reason: the collector takes https, value: {policy} }}\n",
            hosts.join(" ")
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let validate = |text: String| {
        std::fs::write(dir.path().join("worse.yaml"), text).unwrap();
        Test::new()
            .args(["validate", "worse.yaml"])
            .current_dir(dir.path())
            .plan_stamp()
    };
    assert_cli_snapshot!("got_worse", validate(zone("11", "quarantine")));
    assert_cli_snapshot!("recorded_as_now", validate(zone("14", "none")));
}
