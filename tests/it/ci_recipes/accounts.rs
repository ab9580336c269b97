//! The recipes over a repository of several accounts: `dns/dnscron-accounts.yaml` names `acme`
//! (folder dns/acme) and `shop` (dns/shop), each at its own emulator with its own tokens, each
//! token a secret of its own that the recipe's step names (the commented lines of each recipe,
//! uncommented: [`super::runner::several_accounts_form`]). The pull request's comment and the
//! drift issue group by account, the saved plan is one format-6 file, an account that can't be
//! planned fails the check with nothing saved, and the adopt pull request adopts every
//! account's live changes into its own folder.

use std::collections::BTreeMap;

use dnscron_emulator::{BackgroundEmulator, Seed};
use serde_json::json;

use super::pull_request::push;
use super::runner::{JobRun, Trigger, World};
use super::snapshot;
use super::{FIRST, Files, Story, read};

/// An account's live state: its read and write tokens, and its zone `NAME.example` whose apex
/// is `ip` and whose `www` points to it.
fn seed(name: &str, ip: &str) -> Seed {
    Seed::from_yaml_str(&format!(
        "tokens:
  - {{token: {name}-read-token, user: ci, scopes: [read]}}
  - {{token: {name}-apply-token, user: ci, scopes: [read, dns, manage]}}
zones:
  - zone: {name}.example
    records:
      - {{name: \"@\", type: A, content: {ip}}}
      - {{name: www, type: CNAME, content: {name}.example.}}
rate_limit: {{enabled: false}}
"
    ))
    .unwrap()
}

pub const ACME_FILE: &str = "dns/acme/zones/acme.example.yaml";
pub const SHOP_FILE: &str = "dns/shop/zones/shop.example.yaml";

/// Each account's read token a repository secret, its write token a secret of the
/// environment `dnscron-apply`, named as the recipes' comments name them.
const SECRETS: [(&str, &str, bool); 4] = [
    ("DNSCRON_READ_TOKEN_ACME", "acme-read-token", false),
    ("DNSCRON_READ_TOKEN_SHOP", "shop-read-token", false),
    ("DNSCRON_APPLY_TOKEN_ACME", "acme-apply-token", true),
    ("DNSCRON_APPLY_TOKEN_SHOP", "shop-apply-token", true),
];

/// A story of two accounts: `acme` is [`Story::emulator`] (its DNS listener the runner's
/// resolver), `shop` the first of [`Story::others`]; main's first commit matches both.
pub fn story() -> Story {
    let acme = dnscron_emulator::start_background_with_dns(seed("acme", "203.0.113.10"))
        .expect("start acme's emulator");
    let shop = dnscron_emulator::start_background(seed("shop", "198.51.100.10"))
        .expect("start shop's emulator");
    let resolver = acme.dns_addr().expect("acme's DNS listener");
    let world = World::new(&acme.base_url(), &resolver.to_string());
    world.several_accounts(&SECRETS);
    let story = Story {
        emulator: acme,
        world,
        others: vec![shop],
    };
    let main = main(&story);
    story.commit(FIRST, &main);
    let paths: Vec<&str> = main.0.keys().map(String::as_str).collect();
    story.world.push_main(FIRST, &paths);
    story
}

fn shop(story: &Story) -> &BackgroundEmulator {
    &story.others[0]
}

/// main's files: the accounts file (each account's API URL, its token's variable) and one zone
/// file per account, matching the live accounts.
pub fn main(story: &Story) -> Files {
    let accounts = format!(
        "accounts:\n  - name: acme\n    folder: acme\n    api_url: {}\n    token_env: DNSCRON_TOKEN_ACME\n  - name: shop\n    folder: shop\n    api_url: {}\n    token_env: DNSCRON_TOKEN_SHOP\n",
        story.emulator.base_url(),
        shop(story).base_url()
    );
    let files: BTreeMap<String, String> = [
        ("dns/dnscron-accounts.yaml", accounts.as_str()),
        (
            ACME_FILE,
            "zone: acme.example\nrecords:\n  - { name: \"@\", type: A, content: \"203.0.113.10\" }\n  - { name: www, type: CNAME, content: \"acme.example.\" }\n",
        ),
        (
            SHOP_FILE,
            "zone: shop.example\nrecords:\n  - { name: \"@\", type: A, content: \"198.51.100.10\" }\n  - { name: www, type: CNAME, content: \"shop.example.\" }\n",
        ),
    ]
    .into_iter()
    .map(|(p, c)| (p.to_string(), c.to_string()))
    .collect();
    Files(files)
}

/// The edits of the stories: acme's `www` moved, a `mail` record added to shop, shop's apex
/// moved (a portal edit).
pub fn acme_www(files: Files) -> Files {
    files.edit(
        ACME_FILE,
        "content: \"acme.example.\" }",
        "content: \"web.acme.example.\" }",
    )
}

pub fn shop_mail(files: Files) -> Files {
    files.edit(
        SHOP_FILE,
        "records:\n",
        "records:\n  - { name: mail, type: A, content: 198.51.100.25 }\n",
    )
}

pub fn shop_apex_moved(files: Files) -> Files {
    files.edit(
        SHOP_FILE,
        "content: \"198.51.100.10\" }",
        "content: \"198.51.100.99\" }",
    )
}

/// What a person does outside the pipeline: `dnscron apply --yes` of `files` over both
/// accounts with their write tokens (a change in the portal, or putting it back).
pub fn change_live(story: &Story, files: &Files) {
    let dir = story.commit("by-hand", files);
    let out = crate::common::command()
        .args(["apply", "--yes", "-q"])
        .arg(dir.join("dns"))
        .env("DNSCRON_TOKEN_ACME", "acme-apply-token")
        .env("DNSCRON_TOKEN_SHOP", "shop-apply-token")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// Both live accounts' records, one line each.
pub fn live(story: &Story) -> String {
    let mut out = String::new();
    for (name, emulator, zone) in [
        ("acme", &story.emulator, "acme.example"),
        ("shop", shop(story), "shop.example"),
    ] {
        for r in emulator.state().visible_records(zone) {
            out.push_str(&format!("{name}: {} {} {}\n", r.name, r.rtype, r.content));
        }
    }
    out
}

/// The plan check of a pull request that changes both accounts: one comment grouped by
/// account (a table, then each account's plan), the annotations titled by account, and one
/// saved plan of format 6 holding each account's changes under its name. A later push whose
/// run holds a wrong token for `shop` fails the check: the comment says which account could
/// not be planned and why, and no plan is saved for that head (a review covers every account).
#[test]
fn the_plan_check_groups_by_account_and_fails_when_one_account_cannot_be_planned() {
    let story = story();
    let files = shop_mail(acme_www(main(&story)));
    let (run, first) = push(&story, 1, "a1a1a1a1", &files);
    assert!(run.succeeded(), "{}", run.log);
    let saved = story
        .world
        .artifacts()
        .join("dnscron-plan-1-a1a1a1a1/plan.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap();
    assert_eq!(saved["format_version"], 6);
    let names: Vec<&str> = saved["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["acme", "shop"]);

    // A push that takes shop's change back out: shop is planned (its part of the saved plan
    // is there, with no change), only acme's change is shown.
    let acme_only = acme_www(main(&story));
    let (run, shown) = push(&story, 1, "a3a3a3a3", &acme_only);
    assert!(run.succeeded(), "{}", run.log);
    let shop_row = shown
        .lines()
        .find(|l| l.starts_with("| <code>shop</code> |"))
        .unwrap();
    assert!(
        shop_row.ends_with("| No changes. The live account matches the files. |"),
        "{shown}"
    );
    let saved = story
        .world
        .artifacts()
        .join("dnscron-plan-1-a3a3a3a3/plan.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap();
    let counts: Vec<(String, usize)> = saved["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let n = a["plan"]["changes"].as_array().unwrap().len();
            (a["name"].as_str().unwrap().to_string(), n)
        })
        .collect();
    assert_eq!(counts, [("acme".to_string(), 1), ("shop".to_string(), 0)]);

    // shop's read token was rotated and the secret not updated.
    let mut secrets = SECRETS;
    secrets[1].1 = "shop-revoked-token";
    story.world.several_accounts(&secrets);
    let (run, second) = push(&story, 1, "a2a2a2a2", &files);
    assert!(!run.succeeded(), "{}", run.log);
    assert!(
        !story
            .world
            .artifacts()
            .join("dnscron-plan-1-a2a2a2a2")
            .exists()
    );
    let shown = format!(
        "### push 1: both accounts planned\n{first}\n### push 2: shop's token is wrong\n{second}"
    );
    snapshot!("accounts_pr_plan", &mask_merge_commit(&shown));
}

/// The test merge commit's name, which moves with the accounts file's ports, and request ids
/// as Markdown escapes them (`req\_…`), which the common filters don't know.
fn mask_merge_commit(text: &str) -> String {
    let mut text = text.to_string();
    for (at, mask) in [("HEAD^1</code> (<code>", "[MERGE]"), ("req\\_", "[ID]")] {
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find(at) {
            let end = i + at.len();
            out.push_str(&rest[..end]);
            out.push_str(mask);
            rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        }
        out.push_str(rest);
        text = out;
    }
    text
}

/// A scheduled run of `workflow` (its cron `schedule`) on main's files.
fn scheduled(story: &Story, workflow: &str, schedule: &str) -> JobRun {
    let files = story.commit("main", &main(story));
    let trigger = Trigger {
        event: "schedule",
        sha: "d0d0d0d0",
        payload: json!({ "schedule": schedule }),
        files: &files,
        base: None,
    };
    story.world.run(workflow, &trigger)
}

fn scheduled_drift(story: &Story, when: &str) -> String {
    let run = scheduled(story, "dnscron-drift.yml", "17 6 * * *");
    assert!(run.succeeded(), "{}", run.log);
    let issue = story.world.gh_dir().join("issues/1");
    format!(
        "### {when}\n== steps\n{}== gh\n{}== issue 1: {}{}\n{}-- comments\n{}",
        run.steps_text(),
        story.world.take_gh_calls(),
        read(issue.join("state")),
        read(issue.join("title")).trim_end(),
        read(issue.join("body")),
        read(issue.join("comments")),
    )
}

/// The drift job over both accounts, as `drift::one_drift_issue_opened_kept_quiet_updated_and_closed`
/// over one: the issue is opened on a drift in `acme`, left alone while it stays the same,
/// updated when `shop` drifts too, closed when both are back. Its body is grouped by account
/// and its digest reads each account's plan (`.accounts[].plan` of the format-6 file).
#[test]
fn one_drift_issue_over_both_accounts_opened_kept_quiet_updated_and_closed() {
    let story = story();
    let mut shown = scheduled_drift(&story, "both in line: nothing to report");
    let acme = acme_www(main(&story));
    change_live(&story, &acme);
    shown += &scheduled_drift(
        &story,
        "acme's www changed in the portal: the issue is opened",
    );
    let opened = read(story.world.gh_dir().join("issues/1/body"));
    shown += &scheduled_drift(&story, "the same drift the next day: no update");
    let both = shop_apex_moved(acme.clone());
    change_live(&story, &both);
    shown += &scheduled_drift(&story, "shop drifted too: the issue is updated");
    let updated = read(story.world.gh_dir().join("issues/1/body"));
    assert_ne!(digest(&opened), digest(&updated));
    change_live(&story, &main(&story));
    shown += &scheduled_drift(&story, "both put back: the issue is closed");
    snapshot!("accounts_drift_issue_lifecycle", &shown);
}

fn digest(body: &str) -> &str {
    let start = body.find("dnscron-drift-digest: ").expect("a digest") + 22;
    &body[start..start + 16]
}

/// The drift job's refused form over accounts: an account whose token is missing (its secret
/// never created) is an error naming the account and the variable (exit 1), not "no drift":
/// the run fails and the open issue is neither closed nor edited.
#[test]
fn the_drift_job_fails_when_one_account_cannot_be_read_and_leaves_the_issue() {
    let story = story();
    let acme = acme_www(main(&story));
    change_live(&story, &acme);
    scheduled_drift(&story, "acme drifted: the issue is opened");
    let before = read(story.world.gh_dir().join("issues/1/body"));
    change_live(&story, &main(&story));
    // shop's read secret was never created: its line in the recipe reads an empty value.
    let secrets: Vec<_> = SECRETS
        .into_iter()
        .filter(|s| s.0 != "DNSCRON_READ_TOKEN_SHOP")
        .collect();
    story.world.several_accounts(&secrets);
    let run = scheduled(&story, "dnscron-drift.yml", "17 6 * * *");
    assert!(!run.succeeded(), "{}", run.log);
    assert!(
        run.log.contains("account `shop`") && run.log.contains("DNSCRON_TOKEN_SHOP"),
        "{}",
        run.log
    );
    assert_eq!(
        run.steps_text(),
        "ok       actions/checkout\nok       dnscron/dnscron\nFAILED   Detect drift (exit 1)\nskipped  Open, update or close the drift issue\n"
    );
    assert_eq!(read(story.world.gh_dir().join("issues/1/state")), "open\n");
    assert_eq!(read(story.world.gh_dir().join("issues/1/body")), before);
}

/// The adopt job over both accounts: one pull request adopting each account's live change into
/// its own folder's file.
#[test]
fn one_adopt_pull_request_adopts_both_accounts_live_changes() {
    let story = story();
    let live = shop_apex_moved(acme_www(main(&story)));
    change_live(&story, &live);
    let before = self::live(&story);
    let run = scheduled(&story, "dnscron-adopt.yml", "47 6 * * *");
    assert!(run.succeeded(), "{}", run.log);
    // adopt reads: neither account changed.
    assert_eq!(self::live(&story), before);
    let origin = story
        .world
        .dir
        .path()
        .join(format!("run-{}/origin", run.id));
    let pushed = |path: &str| {
        let out = std::process::Command::new("git")
            .current_dir(&origin)
            .args(["show", &format!("dnscron/adopt-live-changes:{path}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{path} not pushed");
        String::from_utf8(out.stdout).unwrap()
    };
    // What was pushed is what is live: each account's file holds its own account's value.
    assert_eq!(pushed(ACME_FILE), live.0[ACME_FILE]);
    assert_eq!(pushed(SHOP_FILE), live.0[SHOP_FILE]);
    let pr = story.world.gh_dir().join("prs/1");
    snapshot!(
        "accounts_adopt_pull_request",
        &format!(
            "== steps\n{}== gh\n{}== pull request 1: {} {}\n{}",
            run.steps_text(),
            story.world.take_gh_calls(),
            read(pr.join("state")).trim_end(),
            read(pr.join("title")).trim_end(),
            read(pr.join("body")),
        )
    );
}

/// Each recipe in its several-accounts form keeps the security rules: read tokens everywhere
/// but the Apply step, the write tokens only there, in the job bound to `dnscron-apply`; each
/// token named one by one (never `toJSON(secrets)`, which hands a step every secret).
#[test]
fn the_several_accounts_form_of_each_recipe_keeps_the_rules() {
    for (name, secret) in [
        ("dnscron-plan.yml", "DNSCRON_READ_TOKEN"),
        ("dnscron-drift.yml", "DNSCRON_READ_TOKEN"),
        ("dnscron-adopt.yml", "DNSCRON_READ_TOKEN"),
        ("dnscron-apply.yml", "DNSCRON_APPLY_TOKEN"),
    ] {
        let path = crate::common::repo_root()
            .join("examples/ci/github")
            .join(name);
        let text = std::fs::read_to_string(path).unwrap();
        let form = super::runner::several_accounts_form(&text);
        assert_eq!(
            super::rules::violations(&form),
            Vec::<String>::new(),
            "{name}"
        );
        for account in ["ACME", "SHOP"] {
            let line = format!("DNSCRON_TOKEN_{account}: ${{{{ secrets.{secret}_{account} }}}}");
            assert_eq!(form.matches(&line).count(), 1, "{name}: {line}");
        }
        let code = form.lines().filter(|l| !l.trim_start().starts_with('#'));
        assert!(
            !code.clone().any(|l| l.contains("toJSON(secrets)")),
            "{name}"
        );
        // Nothing else of the recipe changes: only the token lines are uncommented.
        assert_eq!(
            code.count(),
            text.lines()
                .filter(|l| !l.trim_start().starts_with('#'))
                .count()
                + 2,
            "{name}"
        );
    }
}

/// The adopt job's refused form over accounts: one account that can't be read (its token
/// wrong) fails the run before anything is written, in either account's folder: nothing is
/// pushed and no pull request is opened, though the other account drifted.
#[test]
fn the_adopt_job_pushes_nothing_when_one_account_cannot_be_read() {
    let story = story();
    let live = acme_www(main(&story));
    change_live(&story, &live);
    let mut secrets = SECRETS;
    secrets[1].1 = "shop-revoked-token";
    story.world.several_accounts(&secrets);
    let run = scheduled(&story, "dnscron-adopt.yml", "47 6 * * *");
    assert_eq!(
        run.steps_text(),
        "ok       actions/checkout\nok       dnscron/dnscron\nFAILED   Adopt the live changes (exit 1)\nskipped  Open, update or close the pull request\n"
    );
    assert!(run.log.contains("account `shop`"), "{}", run.log);
    assert_eq!(story.world.take_gh_calls(), "");
    assert!(!story.world.gh_dir().join("prs/1").exists());
}
