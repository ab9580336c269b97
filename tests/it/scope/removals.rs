//! Issue 36: a pull request that removes a declaration (a zone's file, a site's file, a zone's
//! `nameservers` key) says what follows: the target leaves management, its live state stays,
//! and the drift job reports it until `unmanaged:` lists it; the plan gives the line to add,
//! with the finding the full plan gives. The account: zones `a.example` and `b.example` (both
//! registered here) and the site `shop`, declared in `dns/`.

use serde_json::json;

use dnscron_emulator::{
    BackgroundEmulator, DomainSeed, RateLimit, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed,
};

use super::{
    Repo, TOKEN, assert_scoped_is_full_restricted, finding, findings, json_of, routes, scope,
};

const A_FILE: &str =
    "zone: a.example\nrecords:\n  - { name: \"@\", type: A, content: 192.0.2.1 }\n";
const B_FILE: &str = "zone: b.example\nnameservers: { mode: hosted }\nrecords:\n  - { name: \"@\", type: A, content: 192.0.2.2 }\n";
const SITE_FILE: &str =
    "site: shop\ncron:\n  - { schedule: \"0 3 * * *\", command: \"php bin/nightly.php\" }\n";

fn emulator() -> BackgroundEmulator {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(TOKEN, "owner"))
        .with_zone(ZoneSeed::new("a.example").with_record(RecordSeed::new("@", "A", "192.0.2.1")))
        .with_zone(ZoneSeed::new("b.example").with_record(RecordSeed::new("@", "A", "192.0.2.2")))
        .with_domain(DomainSeed::new("a.example"))
        .with_domain(DomainSeed::new("b.example"))
        .with_site(SiteSeed::new("shop").with_cron("0 3 * * *", "php bin/nightly.php"));
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

/// Every file committed as the account has it.
fn repo() -> Repo {
    let repo = Repo {
        dir: tempfile::tempdir().unwrap(),
    };
    repo.git(&["init", "-q", "-b", "main"]);
    repo.write("dns/zones/a.example.yaml", A_FILE);
    repo.write("dns/zones/b.example.yaml", B_FILE);
    repo.write("dns/sites/shop.yaml", SITE_FILE);
    repo.commit("the account");
    repo
}

/// `plan dns --changed-since HEAD~1 --detailed-exitcode --format json`, which exits `status`.
fn plan(repo: &Repo, emu: &BackgroundEmulator, status: i32) -> serde_json::Value {
    let args = [
        "plan",
        "dns",
        "--changed-since",
        "HEAD~1",
        "--detailed-exitcode",
    ];
    json_of(repo, emu, &args, status)
}

/// The message of the finding `code` about `name`.
fn message<'a>(plan: &'a serde_json::Value, code: &str, name: &str) -> &'a str {
    finding(plan, code, name)["message"].as_str().unwrap()
}

#[test]
fn a_removed_zone_file_leaves_management_and_the_plan_gives_the_line_to_add() {
    let repo = repo();
    repo.git(&["rm", "-q", "dns/zones/a.example.yaml"]);
    repo.commit("stop managing a.example");
    let emu = emulator();
    assert_scoped_is_full_restricted(&repo, &emu, "HEAD~1");
    emu.reset_counters();
    // A warning: the drift job's exit code until `unmanaged:` lists the zone.
    let plan = plan(&repo, &emu, 2);
    assert_eq!(
        routes(&emu.counters()),
        super::route_counts(&[("GET /dns/{zone}/records", 1), ("GET /domains/{domain}", 1)]),
        "whether the account still has the zone and its domain: no listing"
    );
    assert_eq!(scope(&plan).2, ["zone a.example"]);
    assert_eq!(
        plan["scope"]["removed"],
        json!([{ "kind": "zone", "name": "a.example" }])
    );
    assert_eq!(plan["changes"], json!([]));
    assert_eq!(
        findings(&plan),
        [
            "zone-undeclared warning zone a.example",
            "declaration-removed info zone a.example"
        ]
    );
    let removed = message(&plan, "declaration-removed", "a.example");
    assert!(
        removed.contains("nothing is deleted")
            && removed.contains("add `zones: [{ name: a.example, reason: \"…\" }]`"),
        "{removed}"
    );
    // The merge deletes nothing: the zone's records stay as they are.
    let before = emu.state().zones["a.example"].clone();
    super::save_plan_since(&repo, &emu, "HEAD~1");
    emu.reset_counters();
    let apply = [
        "apply",
        "dns",
        "--reviewed",
        "p.json",
        "--changed-since",
        "HEAD~1",
    ];
    repo.dnscron(&emu, &apply).run_for_stdout();
    assert!(routes(&emu.counters()).keys().all(|r| r.starts_with("GET")));
    assert_eq!(emu.state().zones["a.example"], before);
}

#[test]
fn a_removal_made_with_its_unmanaged_entry_plans_clean() {
    let repo = repo();
    repo.git(&["rm", "-q", "dns/zones/a.example.yaml"]);
    repo.write(
        "dns/unmanaged.yaml",
        "unmanaged:\n  zones:\n    - { name: a.example, reason: moved to the other team's account }\n",
    );
    repo.commit("leave a.example to the other team");
    let emu = emulator();
    assert_scoped_is_full_restricted(&repo, &emu, "HEAD~1");
    let plan = plan(&repo, &emu, 0);
    assert_eq!(findings(&plan), ["declaration-removed info zone a.example"]);
    let removed = message(&plan, "declaration-removed", "a.example");
    assert!(
        removed.contains("`unmanaged.zones` lists it at dns/unmanaged.yaml:3:15"),
        "{removed}"
    );
}

#[test]
fn a_removed_site_file_leaves_its_jobs_as_they_are() {
    let repo = repo();
    repo.git(&["rm", "-q", "dns/sites/shop.yaml"]);
    repo.commit("stop managing the shop's jobs");
    let emu = emulator();
    assert_scoped_is_full_restricted(&repo, &emu, "HEAD~1");
    let plan = plan(&repo, &emu, 2);
    assert_eq!(scope(&plan).2, ["site shop"]);
    assert_eq!(plan["changes"], json!([]));
    assert_eq!(
        findings(&plan),
        [
            "site-undeclared warning site shop",
            "declaration-removed info site shop"
        ]
    );
    let removed = message(&plan, "declaration-removed", "shop");
    assert!(
        removed.contains("its cron jobs stay as they are")
            && removed.contains("add `sites: [{ name: shop, reason: \"…\" }]`"),
        "{removed}"
    );
}

#[test]
fn a_removed_nameservers_key_leaves_the_mode_as_it_is() {
    let repo = repo();
    repo.write(
        "dns/zones/b.example.yaml",
        &B_FILE.replace("nameservers: { mode: hosted }\n", ""),
    );
    repo.commit("stop managing b's nameservers");
    let emu = emulator();
    assert_scoped_is_full_restricted(&repo, &emu, "HEAD~1");
    let plan = plan(&repo, &emu, 0);
    assert_eq!(scope(&plan).2, ["zone b.example", "domain b.example"]);
    assert_eq!(plan["changes"], json!([]));
    assert_eq!(
        findings(&plan),
        ["declaration-removed info domain b.example"]
    );
    let removed = message(&plan, "declaration-removed", "b.example");
    assert!(removed.contains("nothing is sent"), "{removed}");
}
