//! `--all`, `--zone`, `--site`, their errors, and overwrite protection. What import writes is
//! checked as data (the files read as YAML, the plan of them as JSON): the words of its
//! summary and of a whole file are the views of `round_trip.rs`.

use std::path::Path;

use dnscron_emulator::{BackgroundEmulator, Gaps};
use serde_json::{Value, json};

use super::{dnscron, emulator, files_under, read};
use crate::common::{Test, assert_cli_snapshot};

/// A file import wrote, read as data.
fn yaml(dir: &Path, rel: &str) -> Value {
    serde_saphyr::from_str(&read(dir, rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `plan FOLDER --detailed-exitcode --format json` in `dir`, which exits `status`: the plan of
/// what import wrote.
fn plan_of(emu: &BackgroundEmulator, dir: &Path, folder: &str, status: i32) -> Value {
    let args = ["plan", folder, "--detailed-exitcode", "--format", "json"];
    let out = dnscron(emu, dir, &args)
        .expect_status(status)
        .run_for_stdout();
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// A JSON plan's findings as `code kind name`, in its order.
fn findings(plan: &Value) -> Vec<String> {
    plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let target = &f["target"];
            format!(
                "{} {} {}",
                f["code"].as_str().unwrap(),
                target["kind"].as_str().unwrap(),
                target["name"].as_str().unwrap()
            )
        })
        .collect()
}

/// The plan's desired zones as `(zone, records, ignore rules)`, and its desired sites with
/// their cron jobs as `schedule command`.
type Desired = (Vec<(String, usize, usize)>, Vec<(String, Vec<String>)>);

fn desired(plan: &Value) -> Desired {
    let desired = &plan["desired"];
    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
    let zones = desired["zones"].as_array().unwrap().iter().map(|z| {
        let name = z["zone"].as_str().unwrap().to_string();
        (name, len(&z["records"]), len(&z["ignore"]))
    });
    let sites = desired["sites"].as_array().unwrap().iter().map(|s| {
        let jobs = s["cron"].as_array().unwrap().iter().map(|j| {
            format!(
                "{} {}",
                j["schedule"].as_str().unwrap(),
                j["command"].as_str().unwrap()
            )
        });
        (s["slug"].as_str().unwrap().to_string(), jobs.collect())
    });
    (zones.collect(), sites.collect())
}

fn zones(list: &[(&str, usize, usize)]) -> Vec<(String, usize, usize)> {
    list.iter()
        .map(|(z, r, i)| (z.to_string(), *r, *i))
        .collect()
}

fn shop() -> (String, Vec<String>) {
    (
        "shop".into(),
        vec![
            "*/5 * * * * php artisan schedule:run".into(),
            "30 3 * * 0 php bin/cleanup.php --days=30".into(),
        ],
    )
}

#[test]
fn all_writes_every_zone_and_site_with_modes_and_comments() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    dnscron(&emu, dir.path(), &["import", "--all"]).run_for_stdout();
    assert_eq!(
        files_under(dir.path()),
        [
            "sites/blog.yaml",
            "sites/legacy.yaml",
            "sites/quiet.yaml",
            "sites/shop.yaml",
            "zones/agency.example.yaml",
            "zones/big.example.yaml",
            "zones/edge.example.yaml",
            "zones/elsewhere.example.yaml",
            "zones/example.com.yaml",
            "zones/example.net.yaml",
            "zones/example.org.yaml",
        ]
    );
    assert!(dir.path().join("dnscron.schema.json").is_file());
    // The careful path: the plan of what import wrote has no change, and holds every record
    // and job of the account (those the API can't take back, as ignore rules).
    let plan = plan_of(&emu, dir.path(), ".", 0);
    assert_eq!(plan["changes"], json!([]));
    let (zones_planned, sites) = desired(&plan);
    assert_eq!(
        zones_planned,
        zones(&[
            ("agency.example", 9, 0),
            ("big.example", 250, 0),
            ("edge.example", 21, 2),
            ("elsewhere.example", 1, 0),
            ("example.com", 12, 3),
            ("example.net", 2, 0),
            ("example.org", 3, 0),
        ])
    );
    let blog = [
        "*/15 * * * * wp cron event run --due-now",
        "0 3 * * * wp transient delete --expired",
        "0 * * * * wp cache flush",
    ];
    assert_eq!(
        sites,
        [
            ("blog".into(), blog.map(String::from).to_vec()),
            (
                "legacy".into(),
                vec!["0 4 * * * php legacy/nightly.php".into()]
            ),
            ("quiet".into(), vec![]),
            shop(),
        ]
    );
    assert_eq!(
        findings(&plan),
        [
            "service-records-left-alone zone edge.example",
            "ignored-records-kept zone edge.example",
            "ignored-records-kept zone example.com",
            "delegation-changing domain example.org",
            "spf-lookups-near-limit zone agency.example",
            "spf-not-followed zone example.com",
        ]
    );
    // Each zone's nameserver mode as the registrar has it; none where the domain is
    // registered elsewhere.
    let mode = |zone: &str| yaml(dir.path(), &format!("zones/{zone}.yaml"))["nameservers"].clone();
    assert_eq!(
        mode("edge.example"),
        json!({ "mode": "custom", "hosts": ["ns1.other-dns.net", "ns2.other-dns.net"] })
    );
    assert_eq!(mode("example.com"), json!({ "mode": "hosted" }));
    assert_eq!(mode("elsewhere.example"), Value::Null);
    // No cron jobs: `cron: []`, so the file still owns the (empty) list.
    assert_eq!(yaml(dir.path(), "sites/quiet.yaml")["cron"], json!([]));
    // A suspended site says so, above its jobs.
    let legacy = read(dir.path(), "sites/legacy.yaml");
    assert!(
        legacy.contains("\n# the site is suspended: the API refuses cron changes until it is active again\ncron:\n"),
        "{legacy}"
    );
    // The one view of a zone file with every kind of comment: ignored records with their
    // reasons, records left out, custom nameservers, escapes (round_trip.rs leaves this zone
    // out: its file depends on the emulator's settings).
    insta::assert_snapshot!(
        "import_edge_zone",
        read(dir.path(), "zones/edge.example.yaml")
    );
}

#[test]
fn zone_and_site_selectors_write_only_what_was_asked() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let zones_args = [
        "import",
        "--zone",
        "Example.ORG.",
        "--zone",
        "example.net",
        "--out",
        "repo",
    ];
    dnscron(&emu, dir.path(), &zones_args).run_for_stdout();
    let repo = dir.path().join("repo");
    assert_eq!(
        files_under(&repo),
        ["zones/example.net.yaml", "zones/example.org.yaml"]
    );
    // Hosted here: `nameservers: { mode: hosted }`.
    assert_eq!(
        yaml(&repo, "zones/example.org.yaml")["nameservers"],
        json!({ "mode": "hosted" })
    );

    dnscron(
        &emu,
        dir.path(),
        &["import", "--site", "shop", "--out", "repo"],
    )
    .run_for_stdout();
    assert_eq!(
        files_under(&repo),
        [
            "sites/shop.yaml",
            "zones/example.net.yaml",
            "zones/example.org.yaml"
        ]
    );
    // The plan of the folder: no change, what was imported planned, the rest of the account
    // undeclared.
    let plan = plan_of(&emu, dir.path(), "repo", 2);
    assert_eq!(plan["changes"], json!([]));
    assert_eq!(
        desired(&plan),
        (
            zones(&[("example.net", 2, 0), ("example.org", 3, 0)]),
            vec![shop()]
        )
    );
    assert_eq!(
        findings(&plan),
        [
            "delegation-changing domain example.org",
            "zone-undeclared zone agency.example",
            "zone-undeclared zone big.example",
            "zone-undeclared zone edge.example",
            "zone-undeclared zone elsewhere.example",
            "zone-undeclared zone example.com",
            "site-undeclared site blog",
            "site-undeclared site legacy",
            "site-undeclared site quiet",
        ]
    );
}

#[test]
fn unknown_zones_and_sites_are_errors_that_write_nothing() {
    // Each error's words are its view: these tests alone show them.
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "nope.example"]
    ));
    assert_cli_snapshot!(dnscron(&emu, dir.path(), &["import", "--site", "nope"]));
    assert_cli_snapshot!(dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "not a zone"]
    ));
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn selectors_are_required_and_exclusive() {
    let dir = tempfile::tempdir().unwrap();
    for (args, refusal) in [
        (
            vec!["import"],
            "error: the following required arguments were not provided:",
        ),
        (
            vec!["import", "--all", "--zone", "example.com"],
            "error: the argument '--all' cannot be used with '--zone <ZONE>'",
        ),
        (
            vec!["import", "--probe", "example.io", "--site", "shop"],
            "error: the argument '--probe <DOMAIN>' cannot be used with '--site <SLUG>'",
        ),
    ] {
        // clap's usage errors, before any request (no API is given): exit 1.
        let out = Test::new().args(&args).current_dir(dir.path()).snapshot();
        let head = format!("exit: Some(1)\n--- stdout\n--- stderr\n{refusal}\n");
        assert!(out.starts_with(&head), "{args:?}: {out}");
    }
    assert!(files_under(dir.path()).is_empty());
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let emu = emulator(Gaps::default());
    let dir = tempfile::tempdir().unwrap();
    let both = ["import", "--zone", "example.com", "--site", "blog"];
    dnscron(&emu, dir.path(), &both).run_for_stdout();
    assert_eq!(
        files_under(dir.path()),
        ["sites/blog.yaml", "zones/example.com.yaml"]
    );
    let imported = read(dir.path(), "zones/example.com.yaml");
    let zone = dir.path().join("zones/example.com.yaml");
    std::fs::write(&zone, "# edited by hand\n").unwrap();
    std::fs::write(dir.path().join("dnscron.schema.json"), "{}").unwrap();

    // Names both files and --force (the one view of this refusal).
    assert_cli_snapshot!(dnscron(&emu, dir.path(), &both));
    assert_eq!(
        std::fs::read_to_string(&zone).unwrap(),
        "# edited by hand\n"
    );

    // A new file beside the existing ones is fine, and the schema is never a reason to refuse.
    dnscron(&emu, dir.path(), &["import", "--zone", "example.org"]).run_for_stdout();
    assert_eq!(
        files_under(dir.path()),
        [
            "sites/blog.yaml",
            "zones/example.com.yaml",
            "zones/example.org.yaml"
        ]
    );
    assert_eq!(read(dir.path(), "dnscron.schema.json"), "{}");

    let forced = ["import", "--zone", "example.com", "--force"];
    dnscron(&emu, dir.path(), &forced).run_for_stdout();
    assert_eq!(
        read(dir.path(), "zones/example.com.yaml"),
        imported,
        "--force writes what the first import wrote"
    );
    assert_eq!(
        read(dir.path(), "dnscron.schema.json"),
        read(&crate::common::repo_root(), "schema/dnscron.schema.json")
    );
}
