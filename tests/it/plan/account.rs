//! The account as a whole (docs/health.md#the-account-as-a-whole): a plan of a folder reports
//! every zone, domain and site of the account no file declares, once each, with the import that
//! adopts it, as drift; `unmanaged:` silences what is left out on purpose; single files and
//! scoped plans read none of the listings.

use std::collections::BTreeMap;
use std::path::Path;

use dnscron_emulator::{
    BackgroundEmulator, DomainSeed, RateLimit, RecordSeed, Seed, SiteSeed, TokenSeed, ZoneSeed,
};

use crate::client::stub::{CANARY, Reply, Stub};
use crate::common::Test;

const TOKEN: &str = "account-token";

/// The files declare `a.example` and the site `shop`; the portal made the zone `portal.example`
/// (its domain registered here too), the domain `parked.example` (its DNS elsewhere) and the site
/// `blog`.
fn emulator() -> BackgroundEmulator {
    let mut seed = Seed::default()
        .with_token(TokenSeed::full(TOKEN, "owner"))
        .with_zone(ZoneSeed::new("a.example").with_record(RecordSeed::new("@", "A", "192.0.2.1")))
        .with_zone(ZoneSeed::new("portal.example").with_record(RecordSeed::new(
            "@",
            "A",
            "192.0.2.2",
        )))
        .with_domain(DomainSeed::new("portal.example"))
        .with_domain(DomainSeed::new("parked.example"))
        .with_site(SiteSeed::new("shop").with_cron("0 3 * * *", "php bin/nightly.php"))
        .with_site(SiteSeed::new("blog"));
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

const ZONE_FILE: &str =
    "zone: a.example\nrecords:\n  - { name: \"@\", type: A, content: 192.0.2.1 }\n";
const SITE_FILE: &str =
    "site: shop\ncron:\n  - { schedule: \"0 3 * * *\", command: \"php bin/nightly.php\" }\n";

/// `dns/zones/a.example.yaml`, `dns/sites/shop.yaml` and, if given, `dns/unmanaged.yaml`.
fn files(unmanaged: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "dns/zones/a.example.yaml", ZONE_FILE);
    write(dir.path(), "dns/sites/shop.yaml", SITE_FILE);
    if let Some(text) = unmanaged {
        write(dir.path(), "dns/unmanaged.yaml", text);
    }
    dir
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn dnscron(emu: &BackgroundEmulator, dir: &Path, args: &[&str]) -> Test {
    Test::new()
        .current_dir(dir)
        .args(args)
        .api(&emu.base_url(), TOKEN)
        .plan_stamp()
}

/// The emulator's requests by route, without the `/api/v1` prefix.
fn routes(emu: &BackgroundEmulator) -> BTreeMap<String, u64> {
    emu.counters()
        .per_route
        .iter()
        .map(|(route, n)| (route.replacen("/api/v1", "", 1), *n))
        .collect()
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(r, n)| (r.to_string(), *n)).collect()
}

const HEAD: &str = "Live account: http://127.0.0.1:[PORT]/api/v1\n\nFindings:\n";

const UNDECLARED: &str = "  ! warning [zone-undeclared] zone portal.example
      the account has this DNS zone and registers its domain, but no file in dns declares it: its records and its registration are not checked
      adopt it: dnscron import --zone portal.example --out dns; or, to leave it alone, add to an `unmanaged:` document: `zones: [{ name: portal.example, reason: \"…\" }]`
  ! warning [domain-undeclared] domain parked.example
      the account registers this domain but has no DNS zone for it, so no file in dns can declare it: its registration (expiry, DNSSEC, transfer) is not checked
      move its DNS here: dnscron import --probe parked.example --out dns; or, to leave it alone, add to an `unmanaged:` document: `domains: [{ name: parked.example, reason: \"…\" }]`
  ! warning [site-undeclared] site blog
      the account has this site, but no file in dns declares it: its cron jobs are not checked
      adopt it: dnscron import --site blog --out dns; or, to leave it alone, add to an `unmanaged:` document: `sites: [{ name: blog, reason: \"…\" }]`
";

#[test]
fn a_portal_made_zone_domain_and_site_are_reported_once_each_as_drift() {
    let emu = emulator();
    let dir = files(None);
    dnscron(&emu, dir.path(), &["plan", "dns", "--detailed-exitcode"])
        .expect_status(2)
        .expect_stdout(format!(
            "{HEAD}{UNDECLARED}\nNo changes. The live account matches the files. Findings need attention: 3 warnings.\n"
        ))
        .run();
    // One listing each; the domain list is the one the registrar findings read anyway.
    assert_eq!(
        routes(&emu),
        counts(&[
            ("GET /dns", 1),
            ("GET /dns/{zone}/records", 1),
            ("GET /domains", 1),
            ("GET /sites", 1),
            ("GET /sites/{slug}/cron", 1),
        ])
    );
    dnscron(&emu, dir.path(), &["plan", "dns", "--format", "github"])
        .expect_stdout(
            "::warning title=dnscron plan%3A zone-undeclared::zone portal.example: the account has this DNS zone and registers its domain, but no file in dns declares it: its records and its registration are not checked; adopt it: dnscron import --zone portal.example --out dns; or, to leave it alone, add to an `unmanaged:` document: `zones: [{ name: portal.example, reason: \"…\" }]`
::warning title=dnscron plan%3A domain-undeclared::domain parked.example: the account registers this domain but has no DNS zone for it, so no file in dns can declare it: its registration (expiry, DNSSEC, transfer) is not checked; move its DNS here: dnscron import --probe parked.example --out dns; or, to leave it alone, add to an `unmanaged:` document: `domains: [{ name: parked.example, reason: \"…\" }]`
::warning title=dnscron plan%3A site-undeclared::site blog: the account has this site, but no file in dns declares it: its cron jobs are not checked; adopt it: dnscron import --site blog --out dns; or, to leave it alone, add to an `unmanaged:` document: `sites: [{ name: blog, reason: \"…\" }]`
::notice title=dnscron plan::No changes. The live account matches the files. Findings need attention: 3 warnings.
",
        )
        .run();
    let json = dnscron(&emu, dir.path(), &["plan", "dns", "--format", "json"]).run_for_stdout();
    let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
    let findings: Vec<String> = plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} into {}",
                f["code"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["target"]["kind"].as_str().unwrap(),
                f["target"]["name"].as_str().unwrap(),
                f["adopt_into"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        findings,
        [
            "zone-undeclared warning zone portal.example into dns",
            "domain-undeclared warning domain parked.example into dns",
            "site-undeclared warning site blog into dns",
        ]
    );
}

#[test]
fn the_import_it_names_adopts_the_zone_and_the_plan_is_quiet_again() {
    let emu = emulator();
    let dir = files(Some(
        "unmanaged:\n  domains: [parked.example]\n  sites: [blog]\n",
    ));
    dnscron(
        &emu,
        dir.path(),
        &["import", "--zone", "portal.example", "--out", "dns"],
    )
    .run_for_stdout();
    dnscron(&emu, dir.path(), &["plan", "dns", "--detailed-exitcode"])
        .expect_stdout(
            "Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n",
        )
        .run();
}

const UNMANAGED: &str = "unmanaged:
  zones:
    - { name: portal.example, reason: \"made by the agency, run by its tooling\" }
  domains: [parked.example]
  sites:
    - blog
";

#[test]
fn what_unmanaged_lists_is_silent() {
    let emu = emulator();
    let dir = files(Some(UNMANAGED));
    dnscron(&emu, dir.path(), &["plan", "dns", "--detailed-exitcode"])
        .expect_stdout(
            "Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n",
        )
        .run();
}

#[test]
fn an_unmanaged_entry_the_account_does_not_have_is_a_stale_warning_not_drift() {
    let emu = emulator();
    let dir = files(Some(&format!(
        "{UNMANAGED}    - {{ name: retired, reason: \"gone since May\" }}\n"
    )));
    dnscron(&emu, dir.path(), &["plan", "dns", "--detailed-exitcode"])
        .expect_stdout(format!(
            "{HEAD}  ! warning [unmanaged-stale] site retired at dns/unmanaged.yaml:7:15
      `unmanaged.sites` lists retired, but the account has no such site

No changes. The live account matches the files. Findings need attention: 1 warning.
"
        ))
        .run();
}

#[test]
fn a_single_file_plan_reads_no_listing_and_reports_nothing_undeclared() {
    let emu = emulator();
    let dir = files(None);
    dnscron(
        &emu,
        dir.path(),
        &["plan", "dns/zones/a.example.yaml", "dns/sites", "--detailed-exitcode"],
    )
    .expect_stdout(
        "Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n",
    )
    .run();
    assert_eq!(
        routes(&emu),
        counts(&[
            ("GET /dns/{zone}/records", 1),
            ("GET /domains", 1),
            ("GET /sites", 1),
            ("GET /sites/{slug}/cron", 1),
        ])
    );
}

#[test]
fn a_plan_of_what_changed_reads_no_listing_and_reports_nothing_undeclared() {
    let emu = emulator();
    let dir = files(None);
    let git = |args: &[&str]| crate::common::git::git(dir.path(), args);
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "files"]);
    write(
        dir.path(),
        "dns/zones/a.example.yaml",
        &format!("{ZONE_FILE}  - {{ name: www, type: A, content: 192.0.2.9 }}\n"),
    );
    dnscron(
        &emu,
        dir.path(),
        &["plan", "dns", "--changed-since", "HEAD", "--detailed-exitcode"],
    )
    .expect_status(2)
    .expect_stdout(format!(
        "Live account: http://127.0.0.1:[PORT]/api/v1\n\n\
         Only what changed since HEAD ({}): 1 zone. Nothing else was read: drift elsewhere is a full plan's to find.\n\n\
         zone a.example (dns/zones/a.example.yaml:1:7)\n  + www A 192.0.2.9 (ttl 3600)\n\n\
         Plan: 1 to create, 0 to update, 0 to delete.\n",
        &git(&["rev-parse", "HEAD"]).trim()[..12]
    ))
    .run();
    assert_eq!(
        routes(&emu),
        counts(&[("GET /dns/{zone}/records", 1), ("GET /domains/{domain}", 1)])
    );
    // What it says of its zone is what the full plan says (issue 36).
    crate::scope::assert_scoped_is_full_restricted_in(dir.path(), &emu, TOKEN, "HEAD");
}

/// A stand-in server whose `GET /dns` answers `dns`; everything else is an empty account but
/// the one declared zone.
fn stub_account(dns: Reply) -> (tokio::runtime::Runtime, Stub) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dns = std::sync::Mutex::new(Some(dns));
    let meta = serde_json::json!({"has_more": false, "next_cursor": null});
    let stub = rt.block_on(Stub::start(move |seen| match seen.path.as_str() {
        "/dns" => dns
            .lock()
            .unwrap()
            .take()
            .unwrap_or_else(|| Reply::error(500, "server_error", "asked twice")),
        "/dns/a.example/records" => Reply::ok(serde_json::json!({
            "records": [{"id": 1, "name": "@", "type": "A", "ttl": 3600, "content": "192.0.2.1"}],
            "nameservers": ["ns1.veldhost.net", "ns2.veldhost.net"],
            "meta": meta
        })),
        "/domains" => Reply::ok(serde_json::json!({"domains": [], "meta": meta})),
        "/sites" => Reply::ok(serde_json::json!({"sites": [], "meta": meta})),
        _ => Reply::error(404, "not_found", "no such thing"),
    }));
    (rt, stub)
}

/// `plan dns` of a folder declaring `a.example`, against the stub.
fn plan_zone_folder(stub: &Stub) -> (tempfile::TempDir, Test) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "dns/a.example.yaml", ZONE_FILE);
    let test = Test::new()
        .current_dir(dir.path())
        .args(["plan", "dns"])
        .api(&stub.base_url, CANARY);
    (dir, test)
}

#[test]
fn a_zone_list_the_server_refuses_fails_the_plan_saying_which_list() {
    let (_rt, stub) = stub_account(Reply::error(403, "forbidden", "no"));
    let (_dir, test) = plan_zone_folder(&stub);
    test.expect_status(1)
        .expect_stderr(
            "error: reading the zone list (GET /dns) failed: GET /dns: HTTP 403 forbidden: no\n  request_id: req_stub403\nhint: the token lacks a scope or this site is not pinned to it: edit the token in the portal under API tokens\n",
        )
        .run();
}

#[test]
fn a_zone_list_with_a_malformed_item_fails_the_plan() {
    let (_rt, stub) = stub_account(Reply::ok(serde_json::json!({
        "zones": [{"dnssec": "on"}],
        "meta": {"has_more": false, "next_cursor": null}
    })));
    let (_dir, test) = plan_zone_folder(&stub);
    test.expect_status(1)
        .expect_stderr(
            "error: reading the zone list (GET /dns) failed: GET /dns: the API answered 200 with a body dnscron can't read: field `zones[0]`: missing field `zone` (request_id req_stub200)\n",
        )
        .run();
}

#[test]
fn a_listed_zone_a_file_could_not_declare_is_reported_escaped_without_a_command() {
    let (_rt, stub) = stub_account(Reply::ok(serde_json::json!({
        "zones": [{"zone": "a.example"}, {"zone": "bad\u{1b}[31m..name"}],
        "meta": {"has_more": false, "next_cursor": null}
    })));
    let (_dir, test) = plan_zone_folder(&stub);
    test.expect_stdout(
            "Live account: http://127.0.0.1:[PORT]/api/v1\n\nFindings:\n  ! warning [zone-undeclared] zone bad\\u{1b}[31m..name\n      the account has this DNS zone, but no file in dns declares it: its records are not checked; its name is not one a file can declare\n\nNo changes. The live account matches the files. Findings need attention: 1 warning.\n",
        )
        .run();
}
