//! Record sets in `--changed-since` (issue 29, item 2): a set reaches its zones through their
//! `use:` lists, now and at the commit, not through the records it holds. The account: zones
//! `a` and `b` use the set `mail` (an MX and a TXT), zone `c` uses none.

use dnscron_emulator::{
    BackgroundEmulator, DomainSeed, RateLimit, RecordSeed, Seed, TokenSeed, ZoneSeed,
};

use super::{Change, Repo, TOKEN, changes, each, json_of, outcomes, ready, routes, scope};

const ZONES: [&str; 3] = ["a.example", "b.example", "c.example"];

const MAIL_SET: &str = "record_set: mail
records:
  - { name: \"@\", type: MX, content: \"10 mx.{zone}.\" }
  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\" }
";

fn zone_file(zone: &str, uses_mail: bool) -> String {
    let uses = if uses_mail { "use: [mail]\n" } else { "" };
    format!("zone: {zone}\n{uses}records:\n  - {{ name: www, type: A, content: 192.0.2.1 }}\n")
}

/// `dns/a.yaml`, `dns/b.yaml` (both `use: [mail]`), `dns/c.yaml` and `dns/sets/mail.yaml`,
/// committed.
fn repo() -> Repo {
    let repo = Repo {
        dir: tempfile::tempdir().unwrap(),
    };
    repo.git(&["init", "-q", "-b", "main"]);
    for zone in ZONES {
        repo.write(
            &format!("dns/{zone}.yaml"),
            &zone_file(zone, zone != "c.example"),
        );
    }
    repo.write("dns/sets/mail.yaml", MAIL_SET);
    repo.commit("zones and the mail set");
    repo
}

/// The account as the first commit declares it.
fn emulator() -> BackgroundEmulator {
    let mut seed = Seed::default().with_token(TokenSeed::full(TOKEN, "owner"));
    seed.rate_limit = RateLimit::off();
    for zone in ZONES {
        let mut z = ZoneSeed::new(zone)
            .with_record(RecordSeed::new("www", "A", "192.0.2.1").with_ttl(3600));
        if zone != "c.example" {
            z = z
                .with_record(RecordSeed::new("@", "MX", &format!("10 mx.{zone}.")).with_ttl(3600))
                .with_record(RecordSeed::new("@", "TXT", "v=spf1 mx -all").with_ttl(3600));
        }
        seed = seed.with_zone(z).with_domain(DomainSeed::new(zone));
    }
    dnscron_emulator::start_background(seed).unwrap()
}

/// The scope's targets, once the scoped plan is checked against the full plan restricted to
/// it.
fn zones_in_scope(repo: &Repo, emu: &BackgroundEmulator, since: &str) -> Vec<String> {
    super::assert_scoped_is_full_restricted(repo, emu, since);
    super::targets_in_scope(repo, emu, since)
}

/// The plan the pull request shows, saved: its changes are `expected`; then the merge apply as
/// the recipe runs it: it does them all.
fn review_then_merge_apply(repo: &Repo, emu: &BackgroundEmulator, expected: &[Change]) {
    let plan = [
        "plan",
        "dns",
        "--changed-since",
        "HEAD~1",
        "--out",
        "p.json",
    ];
    assert_eq!(changes(&json_of(repo, emu, &plan, 0)), ready(expected));
    let apply = [
        "apply",
        "dns",
        "--changed-since",
        "HEAD~1",
        "--reviewed",
        "p.json",
    ];
    let report = json_of(repo, emu, &apply, 0);
    assert_eq!(report["result"], "converged");
    assert_eq!(outcomes(&report), each(expected, "done"));
}

/// The set's records as a zone holds them live.
fn mx(zone: &str) -> Change {
    Change::delete(zone, "@ MX", 3600, &format!("10 mx.{zone}."))
}

fn spf(zone: &str) -> Change {
    Change::delete(zone, "@ TXT", 3600, "v=spf1 mx -all")
}

fn live_types(emu: &BackgroundEmulator, zone: &str) -> Vec<String> {
    let mut types: Vec<String> = emu.state().zones[zone]
        .iter()
        .map(|r| format!("{} {}", r.name, r.rtype))
        .collect();
    types.sort();
    types
}

#[test]
fn an_emptied_set_puts_its_zones_in_scope_and_the_merge_apply_deletes_its_records() {
    let repo = repo();
    repo.write("dns/sets/mail.yaml", "record_set: mail\nrecords: []\n");
    repo.commit("empty the mail set");
    let emu = emulator();
    assert_eq!(
        zones_in_scope(&repo, &emu, "HEAD~1"),
        ["zone a.example", "zone b.example"]
    );
    review_then_merge_apply(
        &repo,
        &emu,
        &[
            mx("a.example"),
            spf("a.example"),
            mx("b.example"),
            spf("b.example"),
        ],
    );
    for zone in ["a.example", "b.example"] {
        assert_eq!(live_types(&emu, zone), ["www A"], "{zone}");
    }
}

#[test]
fn a_record_dropped_from_a_set_is_deleted_from_every_zone_that_uses_it() {
    let repo = repo();
    let without_txt = MAIL_SET.lines().take(3).collect::<Vec<_>>().join("\n") + "\n";
    repo.write("dns/sets/mail.yaml", &without_txt);
    repo.commit("drop the SPF record from the mail set");
    let emu = emulator();
    assert_eq!(
        zones_in_scope(&repo, &emu, "HEAD~1"),
        ["zone a.example", "zone b.example"]
    );
    review_then_merge_apply(&repo, &emu, &[spf("a.example"), spf("b.example")]);
    for zone in ["a.example", "b.example"] {
        assert_eq!(live_types(&emu, zone), ["@ MX", "www A"], "{zone}");
    }
    assert_eq!(live_types(&emu, "c.example"), ["www A"]);
}

#[test]
fn a_set_whose_last_record_is_overridden_in_every_zone_still_reaches_them() {
    // Every record of the set is replaced by the zones' own: no zone holds a record from the
    // set file, yet a change of the set file is a change of what the zones declare.
    let repo = repo();
    for zone in ["a.example", "b.example"] {
        let text = zone_file(zone, true)
            + "  - { name: \"@\", type: MX, content: \"10 mx.{zone}.\", override: true }\n"
                .replace("{zone}", zone)
                .as_str()
            + "  - { name: \"@\", type: TXT, content: \"v=spf1 mx -all\", override: true }\n";
        repo.write(&format!("dns/{zone}.yaml"), &text);
    }
    repo.commit("override the set");
    repo.write(
        "dns/sets/mail.yaml",
        &format!("{MAIL_SET}  - {{ name: \"@\", type: TXT, content: \"hello\" }}\n"),
    );
    let emu = emulator();
    assert_eq!(
        zones_in_scope(&repo, &emu, "HEAD"),
        ["zone a.example", "zone b.example"]
    );
}

#[test]
fn a_change_to_a_set_no_zone_uses_changes_nothing() {
    let repo = repo();
    repo.write(
        "dns/sets/web.yaml",
        "record_set: web\nrecords:\n  - { name: www, type: A, content: 192.0.2.9 }\n",
    );
    repo.commit("a set for later");
    repo.write(
        "dns/sets/web.yaml",
        "record_set: web\nrecords:\n  - { name: www, type: A, content: 192.0.2.10 }\n",
    );
    let emu = emulator();
    super::assert_scoped_is_full_restricted(&repo, &emu, "HEAD");
    emu.reset_counters();
    let args = ["plan", "dns", "--changed-since", "HEAD", "--format", "json"];
    let out = repo.dnscron(&emu, &args).snapshot();
    assert!(
        out.starts_with("exit: Some(0)\n"),
        "the unused set is a warning, not an error: {out}"
    );
    let plan: serde_json::Value = serde_json::from_str(crate::common::stdout_of(&out)).unwrap();
    assert_eq!(changes(&plan), []);
    assert_eq!(scope(&plan).2, Vec::<String>::new());
    assert!(
        out.contains("\nwarning: dns/sets/web.yaml:1:13: record set `web` is used by no zone"),
        "{out}"
    );
    assert_eq!(emu.counters().requests, 0, "{:?}", routes(&emu.counters()));
}

#[test]
fn a_zone_that_stopped_using_a_set_is_in_scope_and_loses_its_records() {
    let repo = repo();
    repo.write("dns/b.example.yaml", &zone_file("b.example", false));
    repo.commit("b stops using the mail set");
    let emu = emulator();
    assert_eq!(zones_in_scope(&repo, &emu, "HEAD~1"), ["zone b.example"]);
    review_then_merge_apply(&repo, &emu, &[mx("b.example"), spf("b.example")]);
    assert_eq!(live_types(&emu, "b.example"), ["www A"]);
    assert_eq!(live_types(&emu, "a.example"), ["@ MX", "@ TXT", "www A"]);
}

#[test]
fn a_set_moved_to_another_file_still_reaches_its_zones() {
    // Git reports a rename: the file then and the file now both count.
    let repo = repo();
    repo.git(&["rm", "-q", "dns/sets/mail.yaml"]);
    repo.write("dns/sets/all.yaml", MAIL_SET);
    repo.commit("move the set");
    let emu = emulator();
    assert_eq!(
        zones_in_scope(&repo, &emu, "HEAD~1"),
        ["zone a.example", "zone b.example"]
    );
}
