//! `adopt` where the live account differs from the files past a zone's safety limits: what a
//! token or URL of another account holding a zone of the same name looks like. Refused, nothing
//! written, unless `--allow-mass-changes`; a drift within the limits is adopted as before.

use dnscron_emulator::{RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::write_repo;
use crate::common::Test;

const FILE: &str = "zone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.9 }\n";

/// example.com live with `www` at 192.0.2.1 and `extra` more A records no file declares.
fn live(extra: usize) -> dnscron_emulator::BackgroundEmulator {
    let mut zone =
        ZoneSeed::new("example.com").with_record(RecordSeed::new("www", "A", "192.0.2.1"));
    for n in 0..extra {
        zone = zone.with_record(RecordSeed::new(&format!("host{n}"), "A", "192.0.2.50"));
    }
    let mut seed = Seed::default()
        .with_token(TokenSeed::full("tok", "owner"))
        .with_zone(zone);
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

fn adopt(
    dir: &std::path::Path,
    emu: &dnscron_emulator::BackgroundEmulator,
    args: &[&str],
) -> String {
    Test::new()
        .current_dir(dir)
        .arg("adopt")
        .args(args)
        .api(&emu.base_url(), "tok")
        .snapshot()
}

#[test]
fn an_adoption_past_the_safety_limits_is_refused_unless_allowed() {
    let emu = live(7);
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("dns/example.com.yaml", FILE)]);
    let refused = adopt(dir.path(), &emu, &["dns", "--undeclared"]);
    assert!(refused.starts_with("exit: Some(1)"), "{refused}");
    assert!(
        refused.contains(
            "error: refusing to adopt: the live account differs from the files past the zones' \
             safety limits, as plan would refuse to change it; nothing was written:\n  zone \
             example.com (dns/example.com.yaml:1:7): would delete 7 of 8 live records"
        ),
        "{refused}"
    );
    assert!(
        refused.contains("hint: check that the token and API URL are this account's"),
        "{refused}"
    );
    let file = std::fs::read_to_string(dir.path().join("dns/example.com.yaml")).unwrap();
    assert_eq!(file, FILE, "nothing written");
    // Asked for: adopted, and the files then plan to no change.
    let allowed = adopt(
        dir.path(),
        &emu,
        &["dns", "--undeclared", "--allow-mass-changes"],
    );
    assert!(allowed.starts_with("exit: Some(0)"), "{allowed}");
    let file = std::fs::read_to_string(dir.path().join("dns/example.com.yaml")).unwrap();
    assert!(
        file.contains("192.0.2.1") && file.contains("host6"),
        "{file}"
    );
    let plan = Test::new()
        .current_dir(dir.path())
        .args(["plan", "dns", "--detailed-exitcode"])
        .api(&emu.base_url(), "tok")
        .snapshot();
    assert!(plan.starts_with("exit: Some(0)"), "{plan}");
}

#[test]
fn an_adoption_within_the_limits_needs_no_flag() {
    let emu = live(2);
    let dir = tempfile::tempdir().unwrap();
    write_repo(dir.path(), &[("dns/example.com.yaml", FILE)]);
    let adopted = adopt(dir.path(), &emu, &["dns", "--undeclared"]);
    assert!(adopted.starts_with("exit: Some(0)"), "{adopted}");
    let file = std::fs::read_to_string(dir.path().join("dns/example.com.yaml")).unwrap();
    assert!(
        file.contains("192.0.2.1") && file.contains("host1"),
        "{file}"
    );
}
