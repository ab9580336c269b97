//! `import --extract-sets`: records identical in 3 or more zones go into a record set the zones
//! `use:`, and `plan` on the written files shows no changes.

use dnscron_emulator::{RecordSeed, Seed, TokenSeed, ZoneSeed};

use super::{dnscron, read};
use crate::common::Test;
use crate::common::emulator::start_emulator;

/// Four zones share SPF, DMARC (the zone's own name in it) and `www`; three of them also share
/// their MX RRset (the fourth has a second MX, so its RRset differs and stays whole in it); two
/// share a CAA (too few: it stays in each); a fifth zone shares nothing.
pub(crate) fn seed() -> Seed {
    let r = |name: &str, t: &str, content: &str| RecordSeed::new(name, t, content);
    let shared = |zone: &str| {
        vec![
            r("@", "MX", "10 mx1.mailhost.example."),
            r("@", "TXT", "v=spf1 include:_spf.mailhost.example -all").with_ttl(300),
            r(
                "_dmarc",
                "TXT",
                &format!("v=DMARC1; p=quarantine; rua=mailto:dmarc@{zone}"),
            ),
            r("www", "A", "192.0.2.1"),
        ]
    };
    let mut seed = Seed::default().with_token(TokenSeed::full("demo-token", "demo"));
    for zone in ["a.example", "b.example", "c.example"] {
        let mut records = shared(zone);
        if zone != "c.example" {
            records.push(r("@", "CAA", "0 issue \"letsencrypt.org\""));
        }
        seed = seed.with_zone(ZoneSeed::new(zone).with_records(records));
    }
    let mut d = shared("d.example");
    d.push(r("@", "MX", "20 mx2.mailhost.example."));
    seed = seed.with_zone(ZoneSeed::new("d.example").with_records(d));
    seed.with_zone(ZoneSeed::new("lone.example").with_record(r("@", "A", "192.0.2.9")))
}

#[test]
fn records_shared_by_three_zones_become_a_set_and_plan_shows_no_changes() {
    let emu = start_emulator(seed());
    let dir = tempfile::tempdir().unwrap();
    dnscron(
        &emu,
        dir.path(),
        &["import", "--all", "--extract-sets", "--out", "repo"],
    )
    .expect_stdout(
        "zone a.example: 5 records\n\
             zone b.example: 5 records\n\
             zone c.example: 4 records\n\
             zone d.example: 5 records\n\
             zone lone.example: 1 record\n\
             record set shared: 3 records, identical in 4 zones\n\
             record set shared-2: 1 record, identical in 3 zones\n\
             wrote repo/zones/a.example.yaml\n\
             wrote repo/zones/b.example.yaml\n\
             wrote repo/zones/c.example.yaml\n\
             wrote repo/zones/d.example.yaml\n\
             wrote repo/zones/lone.example.yaml\n\
             wrote repo/sets/shared.yaml\n\
             wrote repo/sets/shared-2.yaml\n\
             wrote repo/dnscron.schema.json\n\
             next: `dnscron validate repo` and `dnscron plan repo` (it shows no changes);\n  \
             to start the drift job green, `dnscron baseline repo` accepts today's error findings\n  \
             and lists what no file declares as unmanaged (review it like any change)\n",
    )
    .run();
    let repo = dir.path().join("repo");
    let files = [
        "sets/shared.yaml",
        "sets/shared-2.yaml",
        "zones/a.example.yaml",
        "zones/c.example.yaml",
        "zones/d.example.yaml",
        "zones/lone.example.yaml",
    ]
    .map(|f| format!("===== {f}\n{}", read(&repo, f)))
    .join("");
    insta::assert_snapshot!(files);
    // What import writes, sets included, is already in `fmt`'s canonical form.
    Test::new()
        .args(["fmt", "--check", "repo"])
        .current_dir(dir.path())
        .expect_stdout("7 of 7 files already in canonical form\n")
        .run();
    dnscron(&emu, dir.path(), &["plan", "--detailed-exitcode", "repo"])
        .expect_stdout(
            concat!(
                "Live account: http://127.0.0.1:[PORT]/api/v1\n\n",
                "Findings:\n",
                "  i info [spf-not-followed] zone a.example, @ TXT at repo/sets/shared.yaml:6:5\n      the SPF record of a.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask); a resolver would settle them\n",
                "  i info [spf-not-followed] zone b.example, @ TXT at repo/sets/shared.yaml:6:5\n      the SPF record of b.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask); a resolver would settle them\n",
                "  i info [spf-not-followed] zone c.example, @ TXT at repo/sets/shared.yaml:6:5\n      the SPF record of c.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask); a resolver would settle them\n",
                "  i info [spf-not-followed] zone d.example, @ TXT at repo/sets/shared.yaml:6:5\n      the SPF record of d.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (outside the account, no resolver to ask); a resolver would settle them\n\n",
                "No changes. The live account matches the files.\n",
            ),
        )
        .run();
}

/// Without the flag, nothing is factored out: each zone declares its own records.
#[test]
fn without_the_flag_every_zone_keeps_its_records() {
    let emu = start_emulator(seed());
    let dir = tempfile::tempdir().unwrap();
    let out = dnscron(&emu, dir.path(), &["import", "--all", "--out", "repo"]).run_for_stdout();
    assert!(!out.contains("record set"), "{out}");
    assert!(!dir.path().join("repo/sets").exists());
    assert!(!read(&dir.path().join("repo"), "zones/a.example.yaml").contains("use:"));
}
