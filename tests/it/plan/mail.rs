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
