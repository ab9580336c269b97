//! Issue 36: `--changed-since` narrows what is read from the API, never what is known from the
//! files. The account: `alpha.example` and `beta.example`; beta's `_spf` holds 6 lookups that
//! alpha's SPF includes.

use dnscron_emulator::{
    BackgroundEmulator, DomainSeed, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed,
};

use serde_json::json;

use super::{
    Change, Repo, TOKEN, assert_scoped_is_full_restricted, changes, finding, findings, json_of,
    refusal, routes,
};

/// 1 (`a`) + 1 (the include) + 6 (beta's `_spf`) + 4 (`a:x1` … `a:x4`) = 12 lookups.
const ALPHA_SPF_12: &str = "v=spf1 a include:_spf.beta.example a:x1.alpha.example a:x2.alpha.example a:x3.alpha.example a:x4.alpha.example -all";
const ALPHA_SPF_2: &str = "v=spf1 a include:_spf.beta.example -all";
const BETA_SPF: &str = "v=spf1 a:h1.beta.example a:h2.beta.example a:h3.beta.example a:h4.beta.example a:h5.beta.example a:h6.beta.example -all";

/// A records every `a:` term above finds (no void lookups), as `(name, address)`.
fn hosts(prefix: &str, n: usize) -> Vec<(String, String)> {
    (1..=n)
        .map(|i| (format!("{prefix}{i}"), format!("192.0.2.{i}")))
        .collect()
}

fn alpha_yaml(spf: &str, accept: &str) -> String {
    let mut text = String::from("zone: alpha.example\nrecords:\n");
    text.push_str("  - { name: \"@\", type: A, content: 192.0.2.10 }\n");
    text.push_str(&format!(
        "  - {{ name: \"@\", type: TXT, content: \"{spf}\" }}\n"
    ));
    for (name, ip) in hosts("x", 4) {
        text.push_str(&format!("  - {{ name: {name}, type: A, content: {ip} }}\n"));
    }
    text.push_str(accept);
    text
}

fn beta_yaml(accept: &str) -> String {
    let mut text = String::from("zone: beta.example\nrecords:\n");
    text.push_str(&format!(
        "  - {{ name: _spf, type: TXT, content: \"{BETA_SPF}\" }}\n"
    ));
    for (name, ip) in hosts("h", 6) {
        text.push_str(&format!("  - {{ name: {name}, type: A, content: {ip} }}\n"));
    }
    text.push_str("  - { name: \"@\", type: MX, content: \"10 mail.beta.example.\" }\n");
    text.push_str("  - { name: mail, type: CNAME, content: h1.beta.example. }\n");
    text.push_str(accept);
    text
}

/// The account as `alpha_yaml(ALPHA_SPF_2)` and `beta_yaml` declare it.
fn emulator() -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full(TOKEN, "owner"));
    seed.rate_limit = RateLimit::off();
    let mut alpha = ZoneSeed::new("alpha.example")
        .with_record(RecordSeed::new("@", "A", "192.0.2.10"))
        .with_record(RecordSeed::new("@", "TXT", ALPHA_SPF_2));
    for (name, ip) in hosts("x", 4) {
        alpha = alpha.with_record(RecordSeed::new(&name, "A", &ip));
    }
    let mut beta = ZoneSeed::new("beta.example")
        .with_record(RecordSeed::new("_spf", "TXT", BETA_SPF))
        .with_record(RecordSeed::new("@", "MX", "10 mail.beta.example."))
        .with_record(RecordSeed::new("mail", "CNAME", "h1.beta.example."));
    for (name, ip) in hosts("h", 6) {
        beta = beta.with_record(RecordSeed::new(&name, "A", &ip));
    }
    for (zone, domain) in [(alpha, "alpha.example"), (beta, "beta.example")] {
        seed = seed.with_zone(zone).with_domain(DomainSeed::new(domain));
    }
    dnscron_emulator::start_background(seed).unwrap()
}

/// Both files committed as the account has them; then alpha's SPF grows to 12 lookups in a
/// second commit (the pull request), with `alpha_accept` added to alpha's file and
/// `beta_accept` to beta's in the first.
fn repo(alpha_accept: &str, beta_accept: &str) -> Repo {
    let repo = Repo {
        dir: tempfile::tempdir().unwrap(),
    };
    repo.git(&["init", "-q", "-b", "main"]);
    repo.write("dns/alpha.yaml", &alpha_yaml(ALPHA_SPF_2, alpha_accept));
    repo.write("dns/beta.yaml", &beta_yaml(beta_accept));
    repo.commit("alpha and beta");
    repo.write("dns/alpha.yaml", &alpha_yaml(ALPHA_SPF_12, alpha_accept));
    repo.commit("alpha's SPF grows");
    repo
}

#[test]
fn an_include_into_another_zone_is_followed_and_the_scoped_plan_holds_what_the_full_plan_holds() {
    let repo = repo("", "");
    let emu = emulator();
    let scoped = assert_scoped_is_full_restricted(&repo, &emu, "HEAD~1");
    // The change is held by the finding the full plan gives, in both plans.
    let held = Change::update(
        "alpha.example",
        "@ TXT",
        (3600, ALPHA_SPF_2),
        (3600, ALPHA_SPF_12),
    );
    assert_eq!(changes(&scoped), [(held, "held_by_finding".into())]);
    assert_eq!(
        findings(&scoped),
        ["spf-too-many-lookups error zone alpha.example dns/alpha.yaml:4:5"]
    );
    let lookups = finding(&scoped, "spf-too-many-lookups", "alpha.example");
    assert_eq!(
        (&lookups["figure"], &lookups["change_ids"]),
        (&json!({ "lookups": 12 }), &json!([1]))
    );
    let plan = [
        "plan",
        "dns",
        "--changed-since",
        "HEAD~1",
        "--out",
        "p.json",
        "--detailed-exitcode",
    ];
    let saved = json_of(&repo, &emu, &plan, 2);
    assert_eq!(saved["summary"]["held"], 1);
    emu.reset_counters();
    let apply = [
        "apply",
        "dns",
        "--reviewed",
        "p.json",
        "--changed-since",
        "HEAD~1",
    ];
    // Exit 4: held by a finding.
    let refused = refusal(&repo, &emu, &apply, 4);
    assert!(refused.contains("[spf-too-many-lookups]"), "{refused}");
    assert!(
        routes(&emu.counters()).keys().all(|r| r.starts_with("GET")),
        "nothing was written: {:?}",
        routes(&emu.counters())
    );
    let live = emu.state();
    assert!(
        live.zones["alpha.example"]
            .iter()
            .all(|r| r.content != ALPHA_SPF_12),
        "the 12-lookup SPF record is not live"
    );
}

#[test]
fn an_accepted_finding_is_accepted_and_an_acceptance_elsewhere_is_not_called_unused() {
    // alpha accepts the 12 lookups (the accepted form: the change is not held), which only
    // beta's records make 12; beta accepts its MX to a CNAME, a finding a plan of alpha does
    // not hold, and must not be told to remove it.
    let alpha_accept = "accept:\n  - { finding: spf-too-many-lookups, name: \"@\", reason: migrating off the old relay }\n";
    let beta_accept =
        "accept:\n  - { finding: mx-target-is-cname, name: \"@\", reason: the provider's setup }\n";
    let repo = repo(alpha_accept, beta_accept);
    let emu = emulator();
    let scoped = assert_scoped_is_full_restricted(&repo, &emu, "HEAD~1");
    let findings = scoped["findings"].as_array().unwrap();
    let lookups = findings
        .iter()
        .find(|f| f["code"] == "spf-too-many-lookups")
        .unwrap();
    assert_eq!(lookups["accepted"]["reason"], "migrating off the old relay");
    assert!(
        findings.iter().all(|f| f["code"] != "acceptance-unused"),
        "{findings:#?}"
    );
    assert!(
        scoped["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] != "held_by_finding")
    );
}

#[test]
fn apply_judges_the_reviewed_change_over_every_file_as_it_is_at_merge() {
    // Reviewed when beta's `_spf` needed no lookup (alpha's SPF: 6), merged after another pull
    // request gave beta's `_spf` its 6: alpha's record now needs 12, and apply of alpha's
    // reviewed plan alone reads only alpha, yet judges it with beta's records as they are now.
    let repo = Repo {
        dir: tempfile::tempdir().unwrap(),
    };
    repo.git(&["init", "-q", "-b", "main"]);
    let beta_empty = beta_yaml("").replace(BETA_SPF, "v=spf1 -all");
    repo.write("dns/alpha.yaml", &alpha_yaml(ALPHA_SPF_2, ""));
    repo.write("dns/beta.yaml", &beta_empty);
    repo.commit("alpha and beta");
    repo.write("dns/alpha.yaml", &alpha_yaml(ALPHA_SPF_12, ""));
    repo.commit("alpha's SPF grows");
    let emu = emulator();
    super::save_plan_since(&repo, &emu, "HEAD~1");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo.file("p.json")).unwrap()).unwrap();
    assert_eq!(saved["summary"]["held"], 0, "6 lookups then: nothing held");
    repo.write("dns/beta.yaml", &beta_yaml(""));
    repo.commit("beta's _spf grows");
    emu.reset_counters();
    let apply = ["apply", "dns", "--reviewed", "p.json"];
    let refused = refusal(&repo, &emu, &apply, 4);
    assert!(refused.contains("[spf-too-many-lookups]"), "{refused}");
    assert!(
        routes(&emu.counters()).keys().all(|r| r.starts_with("GET")),
        "nothing was written"
    );
    // The careful path says the same: the full plan of the merged files holds the change.
    let full = json_of(&repo, &emu, &["plan", "dns", "--detailed-exitcode"], 2);
    let held = Change::update(
        "alpha.example",
        "@ TXT",
        (3600, ALPHA_SPF_2),
        (3600, ALPHA_SPF_12),
    );
    assert_eq!(changes(&full), [(held, "held_by_finding".into())]);
    assert_eq!(
        findings(&full),
        [
            "spf-too-many-lookups error zone alpha.example dns/alpha.yaml:4:5",
            // Beta's live MX, not a change: it holds nothing.
            "mx-target-is-cname error zone beta.example dns/beta.yaml:10:5"
        ]
    );
}
