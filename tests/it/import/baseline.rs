//! `dnscron baseline DIR`, the first day (docs/ci.md, "Start green"; issue 28): right after an
//! import of part of an account, the drift job (`plan DIR --detailed-exitcode`) exits 2 on a
//! provider's short DKIM key and on the zone and site nobody imported; `baseline` accepts the
//! one and lists the others as unmanaged, keeping the file's bytes and comments, and the drift
//! job exits 0. Run again, it has nothing to take; an `accept:` in flow style is left to the
//! reader, with the entries to add, and nothing else is lost.

use dnscron_emulator::{BackgroundEmulator, RateLimit, Seed};

use crate::common::{Test, assert_cli_snapshot};

/// A 512-bit RSA key: `dkim-key-too-short`, an error finding.
const SHORT_KEY: &str = "v=DKIM1; p=MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAO/R9lsJ3bgTPEfEKtfSEBX4CQpevF8qHJepMLfTZCg6G2GuC5VXDEM7Qwr7V4KfRD553ZXuy4zpqY+Bjc4LTKkCAwEAAQ==";

/// The account: the zone the team imports, with its provider's short DKIM key, and a zone and a
/// site made in the portal that nobody imports.
fn emulator() -> BackgroundEmulator {
    let yaml = format!(
        "tokens: [{{token: t, user: u, scopes: [read]}}]\n\
         sites:\n  - slug: legacy\n\
         zones:\n  - zone: mailco.example\n    records:\n\
         \x20     - {{ name: \"@\", type: A, ttl: 3600, content: 192.0.2.1 }}\n\
         \x20     - {{ name: mail._domainkey, type: TXT, ttl: 3600, content: \"{SHORT_KEY}\" }}\n\
         \x20 - zone: portal.example\n    records:\n\
         \x20     - {{ name: \"@\", type: A, ttl: 3600, content: 192.0.2.2 }}\n"
    );
    let mut seed = Seed::from_yaml_str(&yaml).unwrap();
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

fn run(emu: &BackgroundEmulator, dir: &std::path::Path, args: &[&str]) -> Test {
    Test::new()
        .args(args)
        .api(&emu.base_url(), "t")
        .current_dir(dir)
        .plan_stamp()
}

/// Only mailco.example imported into `dns/`, as a team starts: the emulator, the folder and the
/// zone's file.
fn imported() -> (BackgroundEmulator, tempfile::TempDir, std::path::PathBuf) {
    let emu = emulator();
    let dir = tempfile::tempdir().unwrap();
    run(
        &emu,
        dir.path(),
        &["import", "--zone", "mailco.example", "--out", "dns"],
    )
    .run_for_stdout();
    let zone_file = dir.path().join("dns/zones/mailco.example.yaml");
    (emu, dir, zone_file)
}

#[test]
fn the_first_day_turns_a_fresh_import_green() {
    let (emu, dir, zone_file) = imported();
    let imported = std::fs::read_to_string(&zone_file).unwrap();
    let drift = ["plan", "dns", "--detailed-exitcode"];
    assert_cli_snapshot!("first_day_before", run(&emu, dir.path(), &drift));
    assert_cli_snapshot!(
        "first_day_baseline",
        run(&emu, dir.path(), &["baseline", "dns"])
    );
    let zone = std::fs::read_to_string(&zone_file).unwrap();
    assert_eq!(
        zone,
        format!(
            "{imported}accept:\n  - finding: dkim-key-too-short\n    name: \"mail._domainkey\"\n    reason: accepted at adoption\n    until: 2026-04-02\n    value: 512\n"
        ),
        "the import's bytes are kept and the entry added at the end"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("dns/unmanaged.yaml")).unwrap(),
        "unmanaged:\n  zones:\n    - { name: \"portal.example\", reason: accepted at adoption }\n  sites:\n    - { name: \"legacy\", reason: accepted at adoption }\n"
    );
    assert_cli_snapshot!("first_day_after", run(&emu, dir.path(), &drift));
    assert_cli_snapshot!(
        "first_day_again",
        run(&emu, dir.path(), &["baseline", "dns"])
    );
}

#[test]
fn an_accept_list_in_flow_style_is_left_to_the_reader_and_the_rest_is_written() {
    let (emu, dir, zone_file) = imported();
    let flow = format!(
        "{}accept: []\n",
        std::fs::read_to_string(&zone_file).unwrap()
    );
    std::fs::write(&zone_file, &flow).unwrap();
    assert_cli_snapshot!(
        "first_day_flow_accept",
        run(&emu, dir.path(), &["baseline", "dns"])
    );
    assert_eq!(std::fs::read_to_string(&zone_file).unwrap(), flow);
    assert!(dir.path().join("dns/unmanaged.yaml").is_file());
}

/// mailco.example's SPF: 7 lookups of its own and a provider's include of 4 more, served by the
/// emulator's DNS listener (provider.example is in no file): 11, known only through DNS.
fn spf_emulator() -> BackgroundEmulator {
    let hosts: String = (1..=6)
        .map(|i| format!("      - {{ name: h{i}, type: A, ttl: 3600, content: 192.0.2.{i} }}\n"))
        .collect();
    let yaml = format!(
        "tokens: [{{token: t, user: u, scopes: [read]}}]\n\
         zones:\n  - zone: mailco.example\n    records:\n\
         \x20     - {{ name: \"@\", type: A, ttl: 3600, content: 192.0.2.1 }}\n{hosts}\
         \x20     - {{ name: \"@\", type: TXT, ttl: 3600, content: \"v=spf1 a a:h1.mailco.example a:h2.mailco.example a:h3.mailco.example a:h4.mailco.example a:h5.mailco.example a:h6.mailco.example include:_spf.provider.example -all\" }}\n\
         \x20 - zone: provider.example\n    records:\n\
         \x20     - {{ name: out, type: A, ttl: 3600, content: 192.0.2.9 }}\n\
         \x20     - {{ name: _spf, type: TXT, ttl: 3600, content: \"v=spf1 include:_a.provider.example include:_b.provider.example ~all\" }}\n\
         \x20     - {{ name: _a, type: TXT, ttl: 3600, content: \"v=spf1 a:out.provider.example -all\" }}\n\
         \x20     - {{ name: _b, type: TXT, ttl: 3600, content: \"v=spf1 ip4:192.0.2.0/24 -all\" }}\n"
    );
    let mut seed = Seed::from_yaml_str(&yaml).unwrap();
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background_with_dns(seed).unwrap()
}

/// `baseline --resolver` follows providers' includes as the drift job's `plan --resolver` does,
/// so an SPF past 10 lookups inside them is accepted and the drift job starts green; without it,
/// that finding is never judged, so nothing accepts it and the drift job (with its resolver)
/// still exits 2.
#[test]
fn baseline_with_a_resolver_accepts_what_the_drift_job_judges_over_dns() {
    for with_resolver in [true, false] {
        let emu = spf_emulator();
        let resolver = format!("--resolver={}", emu.dns_addr().unwrap());
        let dir = tempfile::tempdir().unwrap();
        run(
            &emu,
            dir.path(),
            &["import", "--zone", "mailco.example", "--out", "dns"],
        )
        .run_for_stdout();
        let mut baseline = vec!["baseline", "dns"];
        if with_resolver {
            baseline.push(&resolver);
        }
        run(&emu, dir.path(), &baseline).run_for_stdout();
        let zone =
            std::fs::read_to_string(dir.path().join("dns/zones/mailco.example.yaml")).unwrap();
        assert_eq!(
            zone.contains("finding: spf-too-many-lookups-from-dns"),
            with_resolver,
            "{zone}"
        );
        let drift = ["plan", "dns", "--detailed-exitcode", &resolver];
        let out = run(&emu, dir.path(), &drift).snapshot();
        let expected = if with_resolver {
            "exit: Some(0)"
        } else {
            "exit: Some(2)"
        };
        assert!(out.starts_with(expected), "{out}");
    }
}
