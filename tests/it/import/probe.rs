//! `import --probe`: POST /dns/zones/probe → a zone file with the registrar steps.

use dnscron_emulator::Gaps;

use super::{dnscron, emulator, files_under, read, seed};
use crate::common::assert_cli_snapshot;
use crate::common::emulator::start_emulator;

#[test]
fn probe_writes_the_import_plan_with_the_registrar_steps() {
    let mut seed = seed();
    seed.external_zones[0].dnssec = true;
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--probe", "example.io"]
    ));
    // As the next step says: until the zone is in the account, plan can't read it.
    assert_cli_snapshot!(dnscron(&emu, dir.path(), &["plan"]));
    let file = read(dir.path(), "zones/example.io.yaml");
    insta::assert_snapshot!("import_probe_example_io", file);
    dnscron(&emu, dir.path(), &["validate"])
        .expect_stdout("valid: 1 zone, 3 records, 0 sites, 0 cron jobs\n")
        .run();
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
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--probe", "example.org"]
    ));
    // Points at `import --zone` and lists no registrar steps.
    insta::assert_snapshot!(read(dir.path(), "zones/example.org.yaml"));
    assert_cli_snapshot!(dnscron(&emu, dir.path(), &["plan", "--detailed-exitcode"]));
}

#[test]
fn probe_errors_name_the_cause() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--probe", "unknown.example"]
    ));
    let readonly = dnscron(&emu, dir.path(), &["import", "--probe", "example.io"])
        .api(&emu.base_url(), "readonly-token")
        .snapshot();
    assert!(!readonly.contains("readonly-token"), "{readonly}");
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(readonly);
    });
    assert!(files_under(dir.path()).is_empty());
}
