//! Import, then `plan` on the result shows no changes, in every emulator gap setting.

use dnscron_emulator::{CronIndexAfterDelete, Gaps, HostnameEcho, RecordNames, TxtFormat};

use super::{dnscron, emulator, head, read};

fn assert_round_trip(gaps: Gaps) {
    let emu = emulator(gaps.clone());
    let dir = tempfile::tempdir().unwrap();
    let import = dnscron(&emu, dir.path(), &["import", "--all"]).run_for_stdout();
    // The edge zone's line counts what each setting lets import keep (see below); every
    // other line is the same in every setting.
    let ordinary: Vec<&str> = import
        .lines()
        .filter(|l| !l.starts_with("zone edge.example: "))
        .collect();
    insta::assert_snapshot!("import_all_stdout", ordinary.join("\n"));
    let validate = dnscron(&emu, dir.path(), &["validate"]).run_for_stdout();
    // After the findings the files prove (the example's SPF near its limit), the summary.
    let summary = validate.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("valid: 7 zones, ")
            && summary.ends_with(" records, 4 sites, 6 cron jobs; findings: 1 warning"),
        "{validate}"
    );
    let plan = crate::common::mask_ports(
        &dnscron(&emu, dir.path(), &["plan", "--detailed-exitcode"]).snapshot(),
    );
    // How many edge records are ignored depends on the setting, as above.
    insta::with_settings!({ filters => vec![(r"(\[ignored-records-kept\] zone edge\.example\n +)\d+ live", "$1[N] live")] }, {
        insta::assert_snapshot!("round_trip_plan_after_import", plan);
    });
    // However the server spells names, host names, TXT quoting and cron indexes, the files of
    // ordinary zones are the same, byte for byte. (Not the edge zone: for exotic TXT escapes
    // such as `\009` the emulator's raw/quoted views decode differently, and import follows the
    // server.)
    insta::assert_snapshot!(
        "import_example_com",
        read(dir.path(), "zones/example.com.yaml")
    );
    insta::assert_snapshot!(
        "import_big_zone_head",
        head(&read(dir.path(), "zones/big.example.yaml"), 12)
    );
    let counters = emu.counters();
    assert!(
        counters
            .per_route
            .keys()
            .all(|r| r.starts_with("GET ") || r == "unmatched"),
        "import and plan only read: {:?}",
        counters.per_route
    );
}

#[test]
fn round_trip_with_the_default_settings() {
    assert_round_trip(Gaps::default());
}

#[test]
fn round_trip_with_cron_indexes_from_one_and_stable() {
    assert_round_trip(Gaps {
        cron_index_base: 1,
        cron_index_after_delete: CronIndexAfterDelete::Stable,
        ..Gaps::default()
    });
}

#[test]
fn round_trip_with_absolute_record_names() {
    for names in [RecordNames::Absolute, RecordNames::AbsoluteNoDot] {
        assert_round_trip(Gaps {
            record_names: names,
            ..Gaps::default()
        });
    }
}

#[test]
fn round_trip_with_txt_raw_and_quoted() {
    for txt in [TxtFormat::Raw, TxtFormat::Quoted] {
        assert_round_trip(Gaps {
            txt_format: txt,
            ..Gaps::default()
        });
    }
}

#[test]
fn round_trip_without_extra_fields_and_with_another_hosted_mode_value() {
    assert_round_trip(Gaps {
        extra_fields: false,
        hosted_mode_value: "acmehost".into(),
        ..Gaps::default()
    });
}

#[test]
fn round_trip_with_host_names_echoed_upper_or_without_final_dot() {
    for echo in [HostnameEcho::Upper, HostnameEcho::NoFinalDot] {
        assert_round_trip(Gaps {
            hostname_echo: echo,
            ..Gaps::default()
        });
    }
}

#[test]
fn round_trip_with_every_setting_changed_at_once() {
    assert_round_trip(Gaps {
        cron_index_base: 1,
        cron_index_after_delete: CronIndexAfterDelete::Stable,
        record_names: RecordNames::Absolute,
        txt_format: TxtFormat::Quoted,
        extra_fields: false,
        hosted_mode_value: "acmehost".into(),
        hostname_echo: HostnameEcho::Upper,
        cron_delete_answer: dnscron_emulator::CronDeleteAnswer::Empty,
    });
}
