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
    // What import writes is already in `fmt`'s canonical form.
    let fmt = dnscron(&emu, dir.path(), &["fmt", "--check"]).run_for_stdout();
    assert!(fmt.ends_with(" files already in canonical form\n"), "{fmt}");
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
    // The count is on the line under the finding's head line (`zone edge.example`).
    insta::with_settings!({ filters => vec![(r"(zone edge\.example\n\s+)\d+ live", "${1}[N] live")] }, {
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

/// Certificate tooling's `_acme-challenge` TXT records (at the apex and below) and a provider's
/// `_dnsauth` token are imported as ignore rules, never as records: the first plan shows no
/// changes, and after a renewal rewrote them (other content, another name) still none.
#[test]
fn an_imported_acme_challenge_is_left_to_automation() {
    use dnscron_emulator::{RecordSeed, Seed, TokenSeed, ZoneSeed};
    let r = |name: &str, t: &str, content: &str| RecordSeed::new(name, t, content);
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("tls.example").with_records([
            r("@", "A", "192.0.2.1"),
            r("_acme-challenge", "TXT", "gfj9Xq3v9dTg0mZ1bJc7rLk2pWs8").with_ttl(120),
            r("_acme-challenge.www", "TXT", "Lk2pWs8hYf4nAe6uIo5Xq3v9dTg0").with_ttl(120),
            r("_acme-challenge.api", "CNAME", "api.acme-dns.example."),
            r("_dnsauth.shop", "TXT", "_w3k9x2m1n8b7v6c5").with_ttl(3600),
        ]));
    let emu = crate::common::emulator::start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    dnscron(&emu, dir.path(), &["import", "--all", "--out", "dns"])
        .expect_stdout(
            "zone tls.example: 2 records
  ignore _acme-challenge* TXT: 2 live records (_acme-challenge, _acme-challenge.www), written by automation and left to it
  ignore _dnsauth* TXT: 1 live record (_dnsauth.shop), written by automation and left to it
wrote dns/zones/tls.example.yaml
wrote dns/dnscron.schema.json
next: `dnscron validate dns` and `dnscron plan dns` (it shows no changes);
  to start the drift job green, `dnscron baseline dns` accepts today's error findings
  and lists what no file declares as unmanaged (review it like any change)
",
        )
        .run();
    insta::assert_snapshot!(
        "import_acme_challenge_zone",
        read(dir.path(), "dns/zones/tls.example.yaml")
    );
    let quiet = "Live account: http://127.0.0.1:[PORT]/api/v1\n\nFindings:\n  i info [ignored-records-kept] zone tls.example\n      3 live record(s) not in the files match `ignore` rules and are left alone\n\nNo changes. The live account matches the files.\n";
    dnscron(&emu, dir.path(), &["plan", "dns", "--detailed-exitcode"])
        .expect_stdout(quiet)
        .run();
    // A renewal: the challenges are replaced, one more name is validated.
    let api = crate::common::emulator::Api::new(&emu.base_url(), "demo-token");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let records = api
            .get_all("/dns/tls.example/records", "records", 100)
            .await;
        for rec in records
            .iter()
            .filter(|r| r["name"].as_str().unwrap().starts_with("_acme-challenge"))
            .filter(|r| r["type"] == "TXT")
        {
            let id = rec["id"].as_i64().unwrap();
            let gone = api.delete(&format!("/dns/tls.example/records/{id}")).await;
            assert_eq!(gone.status, 200);
        }
        let body = serde_json::json!({"name": "_acme-challenge.shop", "type": "TXT", "ttl": 120, "content": "renewed-9dTg0mZ1bJc7"});
        assert_eq!(api.post("/dns/tls.example/records", body).await.status, 201);
    });
    dnscron(&emu, dir.path(), &["plan", "dns", "--detailed-exitcode"])
        .expect_stdout(quiet.replace("3 live record(s)", "2 live record(s)"))
        .run();
}
