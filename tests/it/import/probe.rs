//! `import --probe`: POST /dns/zones/probe → a zone file with the registrar steps.

use dnscron::emulator::Gaps;

use super::{dnscron, emulator, files_under, read, seed};
use crate::common::Run;
use crate::common::emulator::start_emulator;

#[test]
fn probe_writes_the_import_plan_with_the_registrar_steps() {
    let mut seed = seed();
    seed.external_zones[0].dnssec = true;
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--probe", "example.io"]);
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "zone example.io: 3 records, 2 records left out (see the file)\n\
         wrote ./zones/example.io.yaml\n\
         wrote ./dnscron.schema.json\n\
         next: example.io is not in this account yet, so `dnscron plan` can't read it (404):\n  \
         1. add the zone example.io in the portal (the API can't create zones);\n  \
         2. `dnscron validate .`, `dnscron plan .` and `dnscron apply .`;\n  \
         3. then take the steps listed at the top of ./zones/example.io.yaml.\n"
    );
    // What the next step says: until the zone is added, plan can't read it.
    let plan = dnscron(&emu, dir.path(), &["plan"]);
    assert_eq!(plan.code, Some(1), "{}", plan.snapshot());
    assert_eq!(plan.stdout, "");
    assert_eq!(
        plan.stderr,
        "error: ./zones/example.io.yaml:8:7: the account has no DNS zone `example.io` \
         (GET /dns/example.io/records answered 404)\n\
         hint: check the zone name in the file, or add the zone to the account in the portal \
         (DNS), or remove the file\n"
    );
    let file = read(dir.path(), "zones/example.io.yaml");
    insta::assert_snapshot!("import_probe_example_io", file);
    let validate = dnscron(&emu, dir.path(), &["validate"]);
    assert_eq!(validate.code, Some(0), "{}", validate.snapshot());
    assert!(
        validate.stdout.contains("1 zone, 3 records"),
        "{}",
        validate.stdout
    );
    let counters = emu.counters();
    assert_eq!(
        counters.per_route.get("POST /api/v1/dns/zones/probe"),
        Some(&1)
    );
    assert!(
        counters
            .per_route
            .keys()
            .all(|r| r.starts_with("GET ") || r.ends_with("/dns/zones/probe")),
        "{:?}",
        counters.per_route
    );
}

#[test]
fn probe_of_a_zone_already_hosted_points_at_import_zone() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--probe", "example.org"]);
    assert_eq!(out.code, Some(0), "{}", out.snapshot());
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "zone example.org: 3 records\n\
         wrote ./zones/example.org.yaml\n\
         wrote ./dnscron.schema.json\n\
         next: `dnscron validate .` and `dnscron plan .` (it shows no changes)\n"
    );
    let file = read(dir.path(), "zones/example.org.yaml");
    assert!(
        file.contains("# example.org is already hosted here: `dnscron import --zone example.org`"),
        "{file}"
    );
    assert!(file.contains("# Registrar steps: none."), "{file}");
    let plan = dnscron(&emu, dir.path(), &["plan", "--detailed-exitcode"]);
    assert_eq!(plan.code, Some(0), "{}", plan.snapshot());
}

#[test]
fn probe_errors_name_the_cause() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let unknown = dnscron(&emu, dir.path(), &["import", "--probe", "unknown.example"]);
    assert_eq!(unknown.code, Some(1));
    assert!(unknown.stderr.contains("404"), "{}", unknown.stderr);
    let readonly = Run::new(["import", "--probe", "example.io"])
        .env("DNSCRON_API_URL", emu.base_url())
        .env("DNSCRON_TOKEN", "readonly-token")
        .current_dir(dir.path())
        .output();
    assert_eq!(readonly.code, Some(1));
    assert!(
        readonly.stderr.contains("needs the dns scope"),
        "{}",
        readonly.stderr
    );
    assert!(
        readonly.stderr.contains("hint: the token lacks a scope"),
        "{}",
        readonly.stderr
    );
    assert!(!readonly.stderr.contains("readonly-token"));
    assert!(files_under(dir.path()).is_empty());
}
