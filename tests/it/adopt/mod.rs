//! `dnscron adopt`: portal edits made through the emulator's API become edits of the files
//! that declare them, and `plan` afterwards shows no change for what was adopted (the careful
//! path decides). What is left is reported and exits 2; a misbehaving server, broken files, a
//! file changed on disk or a path out of the folder write nothing.

mod accounts;
mod refused;

use std::future::Future;
use std::path::Path;

use dnscron_emulator::{
    BackgroundEmulator, RateLimit, RecordSeed, Scope, Seed, SiteSeed, TokenSeed, ZoneSeed,
};
use serde_json::{Value, json};

use crate::common::Test;
use crate::common::emulator::{Api, start_emulator};

/// The token adopt runs with: it can only read.
const READ_TOKEN: &str = "tok_read";
/// The portal's: every scope.
const PORTAL_TOKEN: &str = "tok_portal";

/// A zone file in `fmt`'s canonical form (as `import` writes it), with comments.
const EXAMPLE_COM: &str = r#"# example.com: the web front
zone: example.com
defaults:
  ttl: 3600
records:
  # apex
  - { name: "@", type: A, content: "203.0.113.10" }
  - { name: "@", type: MX, content: "10 mail.example.com." } # primary mail
  - { name: old, type: A, content: "192.0.2.1", ttl: 300 }
  # the shop's front door
  - { name: www, type: CNAME, content: "example.com." }
"#;

fn seed() -> Seed {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(READ_TOKEN, "ops").with_scopes(&[Scope::Read]))
        .with_token(TokenSeed::full(PORTAL_TOKEN, "ops"))
        .with_zone(ZoneSeed::new("example.com").with_records([
            RecordSeed::new("@", "A", "203.0.113.10"),
            RecordSeed::new("@", "MX", "10 mail.example.com."),
            RecordSeed::new("old", "A", "192.0.2.1").with_ttl(300),
            RecordSeed::new("www", "CNAME", "example.com."),
        ]));
    seed.rate_limit = RateLimit::off();
    seed
}

fn block<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

/// Edits made in the portal: through the API, with the portal's token.
struct Portal {
    api: Api,
}

impl Portal {
    fn of(emu: &BackgroundEmulator) -> Portal {
        Portal {
            api: Api::new(&emu.base_url(), PORTAL_TOKEN),
        }
    }

    fn id(&self, zone: &str, name: &str, rtype: &str) -> i64 {
        let rows = block(
            self.api
                .get_all(&format!("/dns/{zone}/records"), "records", 100),
        );
        rows.iter()
            .find(|r| r["name"] == name && r["type"] == rtype)
            .and_then(|r| r["id"].as_i64())
            .unwrap_or_else(|| panic!("no {name} {rtype} in {zone}: {rows:?}"))
    }

    fn update(&self, zone: &str, name: &str, rtype: &str, content: &str, ttl: u32) {
        let id = self.id(zone, name, rtype);
        let body = json!({"name": name, "type": rtype, "content": content, "ttl": ttl});
        let resp = block(self.api.put(&format!("/dns/{zone}/records/{id}"), body));
        assert_eq!(resp.status, 200, "{:?}", resp.body);
    }

    fn create(&self, zone: &str, name: &str, rtype: &str, content: &str, ttl: u32) {
        let body = json!({"name": name, "type": rtype, "content": content, "ttl": ttl});
        let resp = block(self.api.post(&format!("/dns/{zone}/records"), body));
        assert_eq!(resp.status, 201, "{:?}", resp.body);
    }

    fn delete(&self, zone: &str, name: &str, rtype: &str) {
        let id = self.id(zone, name, rtype);
        let resp = block(self.api.delete(&format!("/dns/{zone}/records/{id}")));
        assert_eq!(resp.status, 200, "{:?}", resp.body);
    }
}

fn dnscron(emu: &BackgroundEmulator, dir: &Path, args: &[&str]) -> Test {
    Test::new()
        .args(args)
        .api(&emu.base_url(), READ_TOKEN)
        .current_dir(dir)
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

/// `plan --format json` in `dir`: its record changes as `action zone name type`.
fn planned_changes(emu: &BackgroundEmulator, dir: &Path) -> Vec<String> {
    let out = dnscron(emu, dir, &["plan", "--format", "json"]).snapshot();
    let json = crate::common::stdout_of(&out);
    let plan: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {out}"));
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {} {} {}",
                c["action"].as_str().unwrap(),
                c["target"]["name"].as_str().unwrap(),
                c["resource"]["name"].as_str().unwrap_or("-"),
                c["resource"]["type"].as_str().unwrap_or("-"),
            )
        })
        .collect()
}

fn portal_edits(emu: &BackgroundEmulator) {
    let portal = Portal::of(emu);
    portal.update("example.com", "www", "CNAME", "shop.example.net.", 3600);
    portal.update("example.com", "@", "MX", "10 mail.example.com.", 600);
    portal.delete("example.com", "old", "A");
    portal.create("example.com", "new", "TXT", "hello", 3600);
}

#[test]
fn portal_edits_are_adopted_in_place_and_plan_then_shows_none_of_them() {
    let emu = start_emulator(seed());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("example.com.yaml"), EXAMPLE_COM).unwrap();
    // The file starts in canonical form and in line with the account.
    dnscron(&emu, dir.path(), &["fmt", "--check"])
        .expect_stdout("1 of 1 file already in canonical form\n")
        .run();
    assert_eq!(planned_changes(&emu, dir.path()), Vec::<String>::new());
    portal_edits(&emu);
    let mut drift = planned_changes(&emu, dir.path());
    drift.sort();
    assert_eq!(
        drift,
        [
            "create example.com old A",
            "delete example.com new TXT",
            "update example.com @ MX",
            "update example.com www CNAME",
        ]
    );
    emu.reset_counters();
    let adopt = dnscron(&emu, dir.path(), &["adopt", "."])
        .expect_status(2)
        .run_for_stdout();
    insta::assert_snapshot!("adopt_stdout", adopt);
    // Read-only: adopt sent GETs only.
    let counters = emu.counters();
    assert!(
        counters.per_route.keys().all(|r| r.starts_with("GET ")),
        "{:?}",
        counters.per_route
    );
    let after = read(dir.path(), "example.com.yaml");
    assert_eq!(
        after,
        r#"# example.com: the web front
zone: example.com
defaults:
  ttl: 3600
records:
  # apex
  - { name: "@", type: A, content: "203.0.113.10" }
  - { name: "@", type: MX, content: "10 mail.example.com.", ttl: 600 } # primary mail
  # the shop's front door
  - { name: www, type: CNAME, content: "shop.example.net." }
"#
    );
    // The careful path: only the record adopt left (declared nowhere) is still planned.
    assert_eq!(
        planned_changes(&emu, dir.path()),
        ["delete example.com new TXT".to_string()]
    );
    // With --undeclared, it is added where `fmt` puts it; then nothing is left to plan.
    let adopt = dnscron(&emu, dir.path(), &["adopt", "--undeclared"]).run_for_stdout();
    insta::assert_snapshot!("adopt_undeclared_stdout", adopt);
    assert_eq!(
        read(dir.path(), "example.com.yaml"),
        after.replace(
            "  # the shop's front door\n",
            "  - { name: new, type: TXT, content: \"hello\" }\n  # the shop's front door\n"
        )
    );
    assert_eq!(planned_changes(&emu, dir.path()), Vec::<String>::new());
    dnscron(&emu, dir.path(), &["fmt", "--check"])
        .expect_stdout("1 of 1 file already in canonical form\n")
        .run();
    // Nothing drifted any more: adopt has nothing to do, exit 0.
    dnscron(&emu, dir.path(), &["adopt"])
        .expect_stdout("nothing to adopt: the live account matches the files\n")
        .run();
}

#[test]
fn untouched_lines_keep_their_spelling_and_the_json_says_what_was_done() {
    let emu = start_emulator(seed());
    let dir = tempfile::tempdir().unwrap();
    // Not canonical: order, quoting and spelling as someone wrote them.
    let written = "zone: Example.COM.\nrecords:\n  - name: www\n    # where the shop lives\n    type: CNAME\n    content: EXAMPLE.com\n  - {type: A, name: '@', content: 203.0.113.10}\n  - { name: \"@\", type: MX, content: \"10   Mail.example.com\" }\n  - { name: old, type: A, content: 192.0.2.1, ttl: 0x12c }\n";
    std::fs::write(dir.path().join("zone.yaml"), written).unwrap();
    assert_eq!(planned_changes(&emu, dir.path()), Vec::<String>::new());
    Portal::of(&emu).update("example.com", "www", "CNAME", "shop.example.net.", 3600);
    let json = dnscron(&emu, dir.path(), &["adopt", "--format", "json"]).run_for_stdout();
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["written"], json!(["./zone.yaml"]), "{json}");
    assert_eq!(report["left"], json!([]), "{json}");
    assert_eq!(
        report["adopted"],
        json!([{
            "zone": "example.com", "name": "www", "type": "CNAME", "action": "updated",
            "declared": {"ttl": 3600, "content": "example.com."},
            "live": {"ttl": 3600, "content": "shop.example.net."},
            "file": "./zone.yaml", "line": 3
        }]),
        "{json}"
    );
    // The edited item is written by the writer (its comment above it); every other line as it was.
    assert_eq!(
        read(dir.path(), "zone.yaml"),
        written.replace(
            "  - name: www\n    # where the shop lives\n    type: CNAME\n    content: EXAMPLE.com\n",
            "  # where the shop lives\n  - { name: www, type: CNAME, content: \"shop.example.net.\" }\n"
        )
    );
    assert_eq!(planned_changes(&emu, dir.path()), Vec::<String>::new());
}

#[test]
fn a_record_set_shared_by_zones_is_left_and_reported_never_copied_into_one_zone() {
    let mut seed = seed().with_zone(ZoneSeed::new("b.example").with_record(RecordSeed::new(
        "www",
        "A",
        "203.0.113.20",
    )));
    seed.zones[0]
        .records
        .push(RecordSeed::new("shop", "A", "203.0.113.20"));
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let set = "record_set: web\nrecords:\n  - { name: www, type: A, content: \"203.0.113.20\" }\n";
    std::fs::write(dir.path().join("web.yaml"), set).unwrap();
    let zone = EXAMPLE_COM.replace("zone: example.com\n", "zone: example.com\nuse: [web]\n")
        .replace("  # the shop's front door\n  - { name: www, type: CNAME, content: \"example.com.\" }\n", "  - { name: shop, type: A, content: \"203.0.113.20\" }\n");
    std::fs::write(dir.path().join("example.com.yaml"), &zone).unwrap();
    // A zone without a `records:` key: an added record brings the key.
    std::fs::write(dir.path().join("b.yaml"), "zone: b.example\nuse: [web]\n").unwrap();
    let portal = Portal::of(&emu);
    portal.delete("example.com", "www", "CNAME");
    portal.create("example.com", "www", "A", "203.0.113.20", 3600);
    portal.update("b.example", "www", "A", "203.0.113.99", 3600);
    portal.create("b.example", "mail", "A", "192.0.2.5", 3600);
    portal.update("example.com", "shop", "A", "203.0.113.21", 3600);
    let adopt = dnscron(&emu, dir.path(), &["adopt", "--undeclared"])
        .expect_status(2)
        .run_for_stdout();
    insta::assert_snapshot!("adopt_record_set_stdout", adopt);
    assert!(
        adopt.contains("left: zone b.example, www A (live 203.0.113.99 ttl 3600): in set `web`, used by 2 zones: edit the set or accept the drift\n"),
        "{}",
        adopt
    );
    assert_eq!(read(dir.path(), "web.yaml"), set);
    assert_eq!(
        read(dir.path(), "b.yaml"),
        "zone: b.example\nuse: [web]\nrecords:\n  - { name: mail, type: A, content: \"192.0.2.5\" }\n"
    );
    assert_eq!(
        read(dir.path(), "example.com.yaml"),
        zone.replace("\"203.0.113.20\" }\n", "\"203.0.113.21\" }\n")
    );
    assert_eq!(
        planned_changes(&emu, dir.path()),
        ["update b.example www A".to_string()]
    );
}

#[test]
fn cron_drift_is_reported_as_left() {
    let mut seed = seed()
        .with_site(SiteSeed::new("shop").with_cron("*/5 * * * *", "php artisan schedule:run"));
    seed.zones.clear();
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let site = "site: shop\ncron:\n  - { schedule: \"*/5 * * * *\", command: \"php artisan schedule:run\" }\n";
    std::fs::write(dir.path().join("shop.yaml"), site).unwrap();
    emu.remove_cron_job_in_portal("shop", 0).unwrap();
    dnscron(&emu, dir.path(), &["adopt", "shop.yaml"])
        .expect_status(2)
        .expect_stdout("left: site shop, cron job `*/5 * * * * php artisan schedule:run`: cron jobs are not adopted: copy the live job into the site's file, or let `apply` revert it\nadopted 0 changes into 0 files; left 1 (see above): `plan` still shows them\n")
        .run();
    assert_eq!(read(dir.path(), "shop.yaml"), site);
}

#[test]
fn a_live_value_the_files_would_refuse_is_left_never_written() {
    let mut seed = seed();
    seed.zones[0]
        .records
        .push(RecordSeed::new("note", "TXT", "\"unterminated"));
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let zone = EXAMPLE_COM.replace(
        "  # the shop's front door\n",
        "  - { name: note, type: TXT, content: \"fine\" }\n  # the shop's front door\n",
    );
    std::fs::write(dir.path().join("example.com.yaml"), &zone).unwrap();
    let adopt = dnscron(&emu, dir.path(), &["adopt"])
        .expect_status(2)
        .run_for_stdout();
    insta::assert_snapshot!("adopt_broken_live_stdout", adopt);
    assert_eq!(read(dir.path(), "example.com.yaml"), zone);
}

#[test]
fn help() {
    insta::assert_snapshot!(
        "adopt_help",
        Test::new().args(["adopt", "--help"]).run_for_stdout()
    );
}

#[test]
fn every_declaration_deleted_live_leaves_an_empty_list_with_its_comments_and_line_ends() {
    let mut seed = seed();
    seed.zones[0].records.clear();
    seed.zones[0]
        .records
        .push(RecordSeed::new("@", "A", "203.0.113.10"));
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    // Windows line ends, a comment inside a block item, no line break at the end.
    let zone = "zone: example.com\r\nrecords:\r\n  - name: \"@\"\r\n    # the web server\r\n    type: A\r\n    content: 203.0.113.10 # behind the proxy\r\n  - { name: old, type: A, content: 192.0.2.1 }";
    std::fs::write(dir.path().join("z.yaml"), zone).unwrap();
    Portal::of(&emu).delete("example.com", "@", "A");
    // A zone left with no records is past its safety limits (refused without the flag:
    // accounts::mass_adopt); asked for, this is the file adopt writes.
    let adopt = dnscron(&emu, dir.path(), &["adopt", "--allow-mass-changes"]).run_for_stdout();
    assert_eq!(
        adopt,
        "adopted: zone example.com, @ A: 203.0.113.10 ttl 3600 deleted live, its declaration removed (./z.yaml:3)\n\
         adopted: zone example.com, old A: 192.0.2.1 ttl 3600 deleted live, its declaration removed (./z.yaml:7)\n\
         adopted 2 changes into 1 file\n"
    );
    assert_eq!(
        read(dir.path(), "z.yaml"),
        "zone: example.com\r\nrecords: []\r\n  # the web server\r\n  # behind the proxy\r\n"
    );
    assert_eq!(planned_changes(&emu, dir.path()), Vec::<String>::new());
}

#[test]
fn a_live_rrset_with_two_ttls_is_left_with_the_loaders_words() {
    let mut seed = seed();
    seed.zones[0]
        .records
        .push(RecordSeed::new("pool", "A", "192.0.2.10"));
    seed.zones[0]
        .records
        .push(RecordSeed::new("pool", "A", "192.0.2.11"));
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    let zone = EXAMPLE_COM.replace(
        "  # the shop's front door\n",
        "  - { name: pool, type: A, content: \"192.0.2.10\" }\n  - { name: pool, type: A, content: \"192.0.2.11\" }\n  # the shop's front door\n",
    );
    std::fs::write(dir.path().join("example.com.yaml"), &zone).unwrap();
    // The portal retimes one record of the pair: files hold one TTL per name and type.
    let portal = Portal::of(&emu);
    let rows = block(
        portal
            .api
            .get_all("/dns/example.com/records", "records", 100),
    );
    let id = rows
        .iter()
        .find(|r| r["content"] == "192.0.2.11")
        .and_then(|r| r["id"].as_i64())
        .unwrap();
    let body = json!({"name": "pool", "type": "A", "content": "192.0.2.11", "ttl": 600});
    let resp = block(
        portal
            .api
            .put(&format!("/dns/example.com/records/{id}"), body),
    );
    assert_eq!(resp.status, 200, "{:?}", resp.body);
    let adopt = dnscron(&emu, dir.path(), &["adopt"])
        .expect_status(2)
        .run_for_stdout();
    insta::assert_snapshot!("adopt_two_ttls_stdout", adopt);
    assert!(
        adopt.contains("with the live value the files would not load: "),
        "{adopt}"
    );
    assert_eq!(read(dir.path(), "example.com.yaml"), zone);
}
