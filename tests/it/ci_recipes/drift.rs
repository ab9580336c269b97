//! dnscron-drift.yml over time: one issue, opened on the first drift, left alone while the drift
//! stays the same, updated when it changes, closed when the account is back in line or when only
//! findings the files accept remain.

use serde_json::json;

use super::pull_request::ZONE_FILE;
use super::runner::Trigger;
use super::snapshot;
use super::{Files, Story, read};

fn scheduled(story: &Story, when: &str) -> String {
    scheduled_with(story, &Files::main(), when)
}

/// A scheduled run with `files` on main.
fn scheduled_with(story: &Story, files: &Files, when: &str) -> String {
    let main = story.commit("main", files);
    let trigger = Trigger {
        event: "schedule",
        sha: "d0d0d0d0",
        payload: json!({"schedule": "17 6 * * *"}),
        files: &main,
        base: None,
    };
    let run = story.world.run("dnscron-drift.yml", &trigger);
    assert!(run.succeeded(), "{}", run.log);
    let issue = story.world.gh_dir().join("issues/1");
    format!(
        "### {when}\n== steps\n{}== annotations\n{}== gh\n{}== issue 1: {}{}\n{}-- comments\n{}",
        run.steps_text(),
        run.annotations,
        story.world.take_gh_calls(),
        read(issue.join("state")),
        read(issue.join("title")).trim_end(),
        read(issue.join("body")),
        read(issue.join("comments")),
    )
}

#[test]
fn one_drift_issue_opened_kept_quiet_updated_and_closed() {
    let story = Story::new();
    let mut shown = scheduled(&story, "in line: nothing to report");
    let www = Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"web.example.com.\" }",
    );
    story.change_live(&www);
    shown += &scheduled(&story, "www changed in the portal: the issue is opened");
    shown += &scheduled(&story, "the same drift the next day: no update");
    let more = www.edit(
        ZONE_FILE,
        "records:\n",
        "records:\n  - { name: old, type: A, content: 192.0.2.1 }\n",
    );
    story.change_live(&more);
    shown += &scheduled(&story, "a record added too: the issue is updated");
    story.change_live(&Files::main());
    shown += &scheduled(&story, "put back: the issue is closed");
    snapshot!("drift_issue_lifecycle", &shown);
}

/// A 512-bit DKIM key: an error finding (`dkim-key-too-short`) with no change.
const SHORT_KEY: &str = "v=DKIM1; p=MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAO/R9lsJ3bgTPEfEKtfSEBX4CQpevF8qHJepMLfTZCg6G2GuC5VXDEM7Qwr7V4KfRD553ZXuy4zpqY+Bjc4LTKkCAwEAAQ==";

#[test]
fn the_drift_issue_closes_when_only_accepted_findings_remain() {
    let story = Story::new();
    let keyed = Files::main().edit(
        ZONE_FILE,
        "records:\n",
        &format!(
            "records:\n  - {{ name: mail._domainkey, type: TXT, content: \"{SHORT_KEY}\" }}\n"
        ),
    );
    let accepted = keyed.clone().edit(
        ZONE_FILE,
        "records:\n",
        "accept:\n  - { finding: dkim-key-too-short, name: mail._domainkey, reason: the provider rotates it in December }\nrecords:\n",
    );
    // The key is live before anyone reviewed it (apply holds a write of it unless accepted).
    story.change_live(&accepted);
    let mut shown = scheduled_with(
        &story,
        &keyed,
        "a provider's short DKIM key: the issue is opened",
    );
    shown += &scheduled_with(
        &story,
        &accepted,
        "accepted in the files: the issue is closed",
    );
    snapshot!("drift_issue_closed_by_an_acceptance", &shown);
}

/// The CronJob's container, run as the cluster would: its args with the mounts mapped to local
/// folders (the ConfigMap of files, the Secret with the read token), the API URL from env.
fn cronjob(story: &Story, files: &std::path::Path) -> crate::common::Test {
    let resolver = story.emulator.dns_addr().expect("the story's DNS listener");
    cronjob_at(
        &story.emulator.base_url(),
        &resolver,
        super::runner::READ_TOKEN,
        files,
    )
}

/// `resolver`: the pod's resolver, which the CronJob's `--resolver system` asks (here the
/// emulator's DNS listener, on loopback).
fn cronjob_at(
    base_url: &str,
    resolver: &std::net::SocketAddr,
    token: &str,
    files: &std::path::Path,
) -> crate::common::Test {
    let path = crate::common::repo_root().join("examples/ci/kubernetes/dnscron-drift-cronjob.yaml");
    let doc: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let container = &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0];
    let secrets = files.parent().unwrap().join("secrets");
    std::fs::create_dir_all(&secrets).unwrap();
    std::fs::write(secrets.join("token"), token).unwrap();
    let mounts = [("/dns", files.to_path_buf()), ("/secrets", secrets)];
    let args = container["args"].as_array().unwrap().iter().map(|a| {
        let arg = a.as_str().unwrap();
        mounts
            .iter()
            .find_map(|(at, local)| {
                arg.strip_prefix(at)
                    .map(|rest| format!("{}{rest}", local.display()))
            })
            .unwrap_or_else(|| arg.to_string())
    });
    crate::common::Test::new()
        .args(args.collect::<Vec<_>>())
        .env("DNSCRON_API_URL", base_url)
        .env("DNSCRON_SYSTEM_RESOLVER", resolver.to_string())
}

/// What `import --extract-sets` writes (zones/, sets/ and the schema) reaches the CronJob
/// through the volume the recipe projects from its ConfigMaps, and plans without a change.
#[test]
fn the_cronjob_plans_an_import_with_record_sets() {
    let emu = dnscron_emulator::start_background_with_dns(crate::import::extract_sets::seed())
        .expect("start the emulator");
    let repo = tempfile::tempdir().unwrap();
    crate::common::Test::new()
        .current_dir(repo.path())
        .api(&emu.base_url(), "demo-token")
        .args(["import", "--all", "--extract-sets", "--out", "dns"])
        .run_for_stdout();
    assert!(repo.path().join("dns/sets/shared.yaml").is_file());
    let mounted = repo.path().join("cluster/volume");
    super::kubernetes::projected_files(repo.path(), &mounted);
    // The pod's resolver (the emulator's DNS) refuses names outside the account, as a resolver
    // that can't reach a provider does: the include is asked, and said uncounted.
    let resolver = emu.dns_addr().expect("the emulator's DNS listener");
    let out = cronjob_at(&emu.base_url(), &resolver, "demo-token", &mounted).run_for_stdout();
    let out = crate::common::mask_ports(&out).replace(&repo.path().display().to_string(), "[REPO]");
    assert_eq!(
        out,
        "Live account: http://127.0.0.1:[PORT]/api/v1\n\n\
         Findings:\n  \
             i info [spf-lookups-uncounted] zone a.example, @ TXT at [REPO]/cluster/volume/shared.yaml:6:5\n      \
             the SPF record of a.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (the resolver did not answer: REFUSED)\n  \
             i info [spf-lookups-uncounted] zone b.example, @ TXT at [REPO]/cluster/volume/shared.yaml:6:5\n      \
             the SPF record of b.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (the resolver did not answer: REFUSED)\n  \
             i info [spf-lookups-uncounted] zone c.example, @ TXT at [REPO]/cluster/volume/shared.yaml:6:5\n      \
             the SPF record of c.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (the resolver did not answer: REFUSED)\n  \
             i info [spf-lookups-uncounted] zone d.example, @ TXT at [REPO]/cluster/volume/shared.yaml:6:5\n      \
             the SPF record of d.example needs at least 1 DNS lookup of the 10 receivers allow; not followed: include:_spf.mailhost.example (the resolver did not answer: REFUSED)\n\n\
             No changes. The live account matches the files.\n"
    );
}

#[test]
fn the_cronjob_exits_0_in_line_and_2_on_drift() {
    let story = Story::new();
    let files = story.commit("cluster", &Files::main()).join("dns");
    cronjob(&story, &files)
        .expect_stdout("Live account: http://127.0.0.1:[PORT]/api/v1\n\nNo changes. The live account matches the files.\n")
        .run();
    story.change_live(&Files::main().edit(
        ZONE_FILE,
        "content: \"example.com.\" }",
        "content: \"web.example.com.\" }",
    ));
    let drifted = cronjob(&story, &files).snapshot();
    snapshot!("cronjob_drift", drifted);
}

/// The recipes' account with example.com's registration expiring on 2026-01-20, auto-renew off:
/// `domain-expiring`, an error, with nothing else to change.
fn expiring_seed(expiry: &str) -> String {
    super::SEED.replace(
        "{domain: example.com, dnssec: true}",
        &format!("{{domain: example.com, dnssec: true, auto_renew: false, expiry: \"{expiry}\"}}"),
    )
}

/// The drift job's digest line in the issue's body.
fn digest(story: &Story) -> String {
    let body = read(story.world.gh_dir().join("issues/1/body"));
    body.lines()
        .find(|l| l.starts_with("<!-- dnscron-drift-digest: "))
        .unwrap_or_else(|| panic!("no digest in the issue's body:\n{body}"))
        .to_string()
}

#[test]
fn an_expiring_domain_keeps_the_drift_issue_as_it_was_from_one_day_to_the_next() {
    let story = Story::with_account(&expiring_seed("2026-01-20T00:00:00Z"), Files::main());
    story.world.set_timestamp("2026-01-02T06:17:00Z");
    let first = scheduled(&story, "day 1: the domain expires on 2026-01-20");
    let day1 = digest(&story);
    story.world.set_timestamp("2026-01-03T06:17:00Z");
    let second = scheduled(&story, "day 2: the same finding");
    assert_eq!(digest(&story), day1, "the digest moved with the clock");
    // The finding names the date, in every view: the issue's body holds no day count.
    let body = read(story.world.gh_dir().join("issues/1/body"));
    assert!(body.contains("expires on 2026-01-20"), "{body}");
    assert!(!body.contains(" days,") && !body.contains("(in "), "{body}");
    // Nothing new was posted on day 2: no edit, no comment.
    assert!(!second.contains("gh issue edit"), "{second}");
    assert!(!second.contains("gh issue comment"), "{second}");
    assert!(first.contains("gh issue create"), "{first}");
}

#[test]
fn the_drift_issue_is_updated_when_the_domain_has_expired() {
    // The refused form: what needs attention changed (the expiry date passed: `domain-expired`),
    // so the issue is updated and a comment says so.
    let story = Story::with_account(&expiring_seed("2026-01-20T00:00:00Z"), Files::main());
    story.world.set_timestamp("2026-01-19T06:17:00Z");
    scheduled(&story, "the domain expires tomorrow");
    let before = digest(&story);
    story.world.set_timestamp("2026-01-20T06:17:00Z");
    let shown = scheduled(&story, "the domain has expired");
    assert_ne!(digest(&story), before);
    assert!(shown.contains("gh issue edit"), "{shown}");
    assert!(shown.contains("The drift changed"), "{shown}");
    assert!(shown.contains("expired on 2026-01-20"), "{shown}");
}
