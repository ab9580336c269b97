//! Mail findings (docs/health.md#mail-findings) as users see them: an SPF that reaches 11 DNS
//! lookups through includes in the files and includes a nameserver on 127.0.0.1 serves, with
//! and without a resolver, in `plan` and in `check` (text, JSON, GitHub); and the refused and
//! accepted forms of the DMARC, DKIM and MX rules. The rules' every case is unit-tested beside
//! the code (crates/dnscron-core/src/plan/health/mail/tests.rs, dns_tests.rs).

use dnscron_emulator::{BackgroundEmulator, RateLimit, Seed};

use crate::common::{Test, assert_cli_snapshot};

/// The account's zone: 3 + 2 lookups here, 1 in `_relay`, and `_spf.provider.test` (served
/// by the nameserver, not in the files) adds 2, its `_a` 1 and its `_b` 1, which includes
/// `_c.chain.test` back in the files: 1 more. 11 in all.
const CHAIN: &[(&str, &str)] = &[
    ("@", "v=spf1 a mx include:_spf.chain.test -all"),
    (
        "_spf",
        "v=spf1 include:_spf.provider.test include:_relay.chain.test -all",
    ),
    ("_relay", "v=spf1 mx:relay.example -all"),
    ("_c", "v=spf1 exists:%{i}._ip.chain.test -all"),
];

/// chain.test's `a` and `mx` find records: no void lookups beside the count.
const CHAIN_HOSTS: &str = concat!(
    "{ name: \"@\", type: A, ttl: 3600, content: 192.0.2.1 }",
    "|{ name: \"@\", type: MX, ttl: 3600, content: \"10 mail.chain.test.\" }",
    "|{ name: mail, type: A, ttl: 3600, content: 192.0.2.25 }",
);

const PROVIDER: &[(&str, &str)] = &[
    (
        "_spf",
        "v=spf1 include:_a.provider.test include:_b.provider.test ~all",
    ),
    ("_a", "v=spf1 a:out.provider.test -all"),
    ("_b", "v=spf1 ip4:192.0.2.0/24 include:_c.chain.test -all"),
    // An escape sequence in a record the nameserver serves (YAML's `\e` is ESC).
    ("_esc", "v=spf1 \\e[2J -all"),
];

fn seed_zone(zone: &str, records: &[(&str, &str)], hosts: &str) -> String {
    let mut out = format!("  - zone: {zone}\n    records:\n");
    for line in hosts.split('|').filter(|l| !l.is_empty()) {
        out.push_str(&format!("      - {line}\n"));
    }
    for (name, text) in records {
        out.push_str(&format!(
            "      - {{ name: \"{name}\", type: TXT, ttl: 3600, content: \"{text}\" }}\n"
        ));
    }
    out
}

/// The emulator (API and DNS on 127.0.0.1) holding both zones, and the files of chain.test
/// (plus `extra` zone files) in a folder.
struct Account {
    emu: BackgroundEmulator,
    dir: tempfile::TempDir,
}

fn account(extra: &[(&str, &str)]) -> Account {
    let yaml = format!(
        "service_nameservers: [ns1.veldhost.net, ns2.veldhost.net]\n\
         tokens: [{{token: t, user: u, scopes: [read]}}]\n\
         zones:\n{}{}",
        seed_zone("chain.test", CHAIN, CHAIN_HOSTS),
        seed_zone("provider.test", PROVIDER, ""),
    );
    let mut seed = Seed::from_yaml_str(&yaml).unwrap();
    seed.rate_limit = RateLimit::off();
    for (zone, _) in extra {
        seed.zones.push(dnscron_emulator::ZoneSeed::new(zone));
    }
    let emu = dnscron_emulator::start_background_with_dns(seed).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut file = "zone: chain.test\nrecords:\n".to_string();
    for line in CHAIN_HOSTS.split('|') {
        file.push_str(&format!("  - {line}\n"));
    }
    for (name, text) in CHAIN {
        file.push_str(&format!(
            "  - {{ name: \"{name}\", type: TXT, content: \"{text}\" }}\n"
        ));
    }
    std::fs::write(dir.path().join("chain.test.yaml"), file).unwrap();
    for (zone, records) in extra {
        let text = format!("zone: {zone}\nrecords:\n{records}");
        std::fs::write(dir.path().join(format!("{zone}.yaml")), text).unwrap();
    }
    Account { emu, dir }
}

impl Account {
    fn plan(&self) -> Test {
        Test::new()
            .args(["plan", "."])
            .current_dir(self.dir.path())
            .api(&self.emu.base_url(), "t")
            .plan_stamp()
    }

    fn resolver(&self) -> String {
        format!("--resolver={}", self.emu.dns_addr().unwrap())
    }
}

#[test]
fn an_spf_of_11_lookups_through_files_and_a_nameserver_is_an_error_naming_the_chain() {
    let account = account(&[]);
    let test = account
        .plan()
        .args(["--detailed-exitcode", &account.resolver()]);
    assert_cli_snapshot!(test);
}

#[test]
fn without_a_resolver_the_count_names_the_includes_it_could_not_follow() {
    let account = account(&[]);
    assert_cli_snapshot!(account.plan().args(["--detailed-exitcode"]));
}

impl Account {
    /// `check` of chain.test with the listener as resolver and both service nameservers.
    fn check(&self, format: &str) -> Test {
        let dns = self.emu.dns_addr().unwrap();
        Test::new().current_dir(self.dir.path()).args([
            "check".to_string(),
            "chain.test.yaml".into(),
            format!("--format={format}"),
            self.resolver(),
            format!("--nameserver-address=ns1.veldhost.net={dns}"),
            format!("--nameserver-address=ns2.veldhost.net={dns}"),
        ])
    }
}

#[test]
fn check_reports_the_same_findings_from_the_files_and_exits_2_on_an_error() {
    let account = account(&[]);
    assert_cli_snapshot!(account.check("text"));
}

/// The files accept the SPF error: check shows it as accepted with its reason (text, JSON with
/// `accepted`, an annotation as a notice) and exits 0, as nothing else differs.
#[test]
fn check_honours_an_acceptance_of_a_mail_finding() {
    let account = account(&[]);
    let path = account.dir.path().join("chain.test.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "accept:\n  - { finding: spf-too-many-lookups, name: \"@\", reason: the provider trims its includes in March }\n",
    );
    std::fs::write(&path, text).unwrap();
    assert_cli_snapshot!(account.check("text"));
    assert_cli_snapshot!(account.check("json"));
    assert_cli_snapshot!(account.check("github"));
}

#[test]
fn check_json_and_github_carry_the_findings() {
    let account = account(&[]);
    assert_cli_snapshot!(account.check("json"));
    assert_cli_snapshot!(account.check("github"));
}

const REFUSED: &str = concat!(
    "  - { name: _dmarc, type: TXT, content: \"p=reject; v=DMARC1\" }\n",
    "  - { name: _dmarc.shop, type: TXT, content: \"v=DMARC1; rua=mailto:d@refused.test\" }\n",
    "  - { name: _dmarc.news, type: TXT, content: \"v=DMARC1; p=quarantine; rua=mailto:d@chain.test\" }\n",
    "  - { name: weak._domainkey, type: TXT, content: \"v=DKIM1; p=MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAO/R9lsJ3bgTPEfEKtfSEBX4CQpevF8qHJepMLfTZCg6G2GuC5VXDEM7Qwr7V4KfRD553ZXuy4zpqY+Bjc4LTKkCAwEAAQ==\" }\n",
    "  - { name: broken._domainkey, type: TXT, content: \"v=DKIM1; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\" }\n",
    "  - { name: old._domainkey, type: TXT, content: \"v=DKIM1; p=\" }\n",
    "  - { name: \"@\", type: MX, content: \"10 mail.refused.test.\" }\n",
    "  - { name: mail, type: CNAME, content: mx.provider.test. }\n",
    "  - { name: shop, type: MX, content: \"0 .\" }\n",
    "  - { name: shop, type: MX, content: \"10 mx.provider.test.\" }\n",
);

const ACCEPTED: &str = concat!(
    "  - { name: _dmarc, type: TXT, content: \"v=DMARC1; p=reject; rua=mailto:d@accepted.test,mailto:d@chain.test\" }\n",
    "  - { name: sel._domainkey, type: TXT, content: \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArfj1/bsNl91o3k/EssP9Fg3CTj0fg1aF/W7tlPbnwBvmI1dkVdtr6gqHxhS3BD+ax5CLvNUDqKmF6cUXsX1hJbq7YvLya9XoWNSKtYlHDhH2cMTEwUajX0UTJk87KQlpT3wFTaW+ySm+EAShv8dfqubF4qrKTqGCM2KN4trM9UJg3OiqUAaOe0CXCzFEA3SGI05afo1lIYOwjpiI023+6c/2VsqXCUGkxgtgClm4WYa30WbdTUscAN5Koo16d/BbUZTIcD9VAjkbyeR6eESysWNvQH/bd3h8EHocvkf6KXU5ehsuEZVScP+3OOxLKG61AlYo1u/Sh4OpXaOVdhw7HQIDAQAB\" }\n",
    "  - { name: \"@\", type: MX, content: \"10 mail.accepted.test.\" }\n",
    "  - { name: mail, type: A, content: 192.0.2.25 }\n",
    "  - { name: nomail, type: MX, content: \"0 .\" }\n",
);

/// chain.test gives accepted.test consent for its DMARC reports, not refused.test.
const CONSENT: &str =
    "  - { name: accepted.test._report._dmarc, type: TXT, content: \"v=DMARC1\" }\n";

#[test]
fn refused_dmarc_dkim_and_mx_records_are_findings_at_their_lines() {
    let account = account(&[("refused.test", REFUSED)]);
    let test = account
        .plan()
        .args(["--detailed-exitcode", &account.resolver()]);
    assert_cli_snapshot!(test);
}

/// Plan creates the records (the seed's zone is empty) and finds nothing about them; the one
/// finding left is chain.test's SPF.
#[test]
fn accepted_dmarc_dkim_and_mx_records_are_no_findings() {
    let account = account(&[("accepted.test", ACCEPTED)]);
    // The consent record goes into chain.test's file, which is otherwise as the seed has it.
    let path = account.dir.path().join("chain.test.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(CONSENT);
    std::fs::write(&path, text).unwrap();
    assert_cli_snapshot!(account.plan().args([account.resolver()]));
}

#[test]
fn a_resolver_that_is_not_an_address_is_a_usage_error() {
    assert_cli_snapshot!(Test::new().args(["plan", "--resolver=ns1.example", "."]));
    assert_cli_snapshot!(Test::new().args([
        "plan",
        "--resolver=127.0.0.1",
        "--dns-timeout=0",
        "."
    ]));
}

/// octoDNS's `\;`, terms after `all` and an include whose served record holds an ESC byte: the
/// findings in the plan's JSON and check's JSON, the ESC escaped in `message` as in every view.
const ESCAPES: &str = concat!(
    "  - { name: \"@\", type: TXT, content: \"v=spf1 include:_esc.provider.test -all\" }\n",
    "  - { name: shop, type: TXT, content: \"v=spf1 ip4:192.0.2.1 -all include:_spf.chain.test\" }\n",
    "  - { name: _dmarc, type: TXT, content: \"v=DMARC1\\\\; p=reject\" }\n",
);

#[test]
fn json_messages_carry_no_escape_sequence_read_from_dns() {
    let account = account(&[("escapes.test", ESCAPES)]);
    let plan = account
        .plan()
        .args(["--format=json", "--detailed-exitcode", &account.resolver()]);
    let out = plan.snapshot();
    // `\u001b` would be ESC again once a script decodes the string (`jq -r`).
    assert!(!out.contains("\\u001b"), "an ESC in the JSON: {out}");
    assert!(out.contains("\\\\u{1b}[2J"), "{out}");
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(out);
    });
    let dns = account.emu.dns_addr().unwrap();
    let check = Test::new().current_dir(account.dir.path()).args([
        "check".to_string(),
        "escapes.test.yaml".into(),
        "--format=json".into(),
        account.resolver(),
        format!("--nameserver-address=ns1.veldhost.net={dns}"),
        format!("--nameserver-address=ns2.veldhost.net={dns}"),
    ]);
    assert_cli_snapshot!(check);
}

/// held.test (empty in the account) gets an SPF of 5 lookups of its own and a provider's
/// include of 6 more, served by the nameserver: 11, known only through DNS.
const HELD_BY_DNS: &str = concat!(
    "  - { name: \"@\", type: A, content: 192.0.2.1 }\n",
    "  - { name: h1, type: A, content: 192.0.2.1 }\n",
    "  - { name: h2, type: A, content: 192.0.2.1 }\n",
    "  - { name: h3, type: A, content: 192.0.2.1 }\n",
    "  - { name: h4, type: A, content: 192.0.2.1 }\n",
    "  - { name: \"@\", type: TXT, content: \"v=spf1 a a:h1.held.test a:h2.held.test a:h3.held.test a:h4.held.test include:_spf.provider.test -all\" }\n",
);

/// The statuses of the plan's TXT changes in held.test, its error findings there, its exit code.
fn held_by_dns(account: &Account, extra: &[&str]) -> (Vec<String>, Vec<String>, i32) {
    let out = account
        .plan()
        .args(["--format", "json", "--detailed-exitcode"])
        .args(extra)
        .snapshot();
    let plan: serde_json::Value = serde_json::from_str(crate::common::stdout_of(&out))
        .unwrap_or_else(|e| panic!("{e}: {out}"));
    let code: i32 = out
        .strip_prefix("exit: Some(")
        .and_then(|rest| rest.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    let statuses = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["resource"]["type"] == "TXT" && c["target"]["name"] == "held.test")
        .map(|c| c["status"].as_str().unwrap().to_string())
        .collect();
    let errors = plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error" && f["target"]["name"] == "held.test")
        .map(|f| {
            let accepted = if f["accepted"].is_null() {
                ""
            } else {
                " (accepted)"
            };
            format!("{}{accepted}", f["code"].as_str().unwrap())
        })
        .collect();
    (statuses, errors, code)
}

/// An error judged from DNS on a record the plan writes holds that change (a pull request's
/// check fails on it), unless the files accept it; without a resolver it is not judged at all.
#[test]
fn an_spf_error_judged_from_dns_holds_the_change_that_writes_it_unless_accepted() {
    let account = account(&[("held.test", HELD_BY_DNS)]);
    let resolver = account.resolver();
    let (statuses, errors, code) = held_by_dns(&account, &[&resolver]);
    assert_eq!(statuses, ["held_by_finding"]);
    assert_eq!(errors, ["spf-too-many-lookups-from-dns"]);
    assert_eq!(code, 2);
    // Without a resolver the provider's include is not followed: nothing to hold.
    let (statuses, errors, _) = held_by_dns(&account, &[]);
    assert_eq!(statuses, ["ready"]);
    assert_eq!(errors, Vec::<String>::new());
    // Accepted in the files: the change is ready, the finding shown as accepted.
    let path = account.dir.path().join("held.test.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("accept:\n  - { finding: spf-too-many-lookups-from-dns, name: \"@\", reason: the provider trims its includes in March }\n");
    std::fs::write(&path, text).unwrap();
    let (statuses, errors, _) = held_by_dns(&account, &[&resolver]);
    assert_eq!(statuses, ["ready"]);
    assert_eq!(errors, ["spf-too-many-lookups-from-dns (accepted)"]);
}

/// In comments (Markdown), `spf-not-followed` is one line per include across the account, with
/// the records it leaves uncounted; JSON keeps one finding per record.
#[test]
fn spf_not_followed_is_one_markdown_line_per_include_and_one_json_finding_per_record() {
    let spf =
        "  - { name: \"@\", type: TXT, content: \"v=spf1 include:_spf.mailhost.example -all\" }\n";
    let account = account(&[("a.test", spf), ("b.test", spf), ("c.test", spf)]);
    let markdown = account
        .plan()
        .args(["--format", "markdown"])
        .run_for_stdout();
    let lines: Vec<&str> = markdown
        .lines()
        .filter(|l| l.contains("spf-not-followed") && l.contains("_spf.mailhost.example"))
        .collect();
    assert_eq!(
        lines,
        [
            "- note \\[spf-not-followed\\] <code>include:\\_spf.mailhost.example</code>: not followed (outside the account, no resolver to ask), so the lookups of 3 SPF records are not all counted: @ TXT (a.test) at ./a.test.yaml:3:5; @ TXT (b.test) at ./b.test.yaml:3:5; @ TXT (c.test) at ./c.test.yaml:3:5"
        ],
        "{markdown}"
    );
    let json = account.plan().args(["--format", "json"]).run_for_stdout();
    let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
    let per_record = plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["code"] == "spf-not-followed"
                && f["message"]
                    .as_str()
                    .unwrap()
                    .contains("_spf.mailhost.example")
        })
        .count();
    assert_eq!(per_record, 3);
    // The text view keeps one finding per record too.
    let text = account.plan().run_for_stdout();
    for zone in ["a.test", "b.test", "c.test"] {
        let head = format!("[spf-not-followed] zone {zone}");
        assert_eq!(text.matches(&head).count(), 1, "{text}");
    }
}
