//! dnscron-apply.yml over a repository of two accounts ([`super::accounts`]): the reviewed plans
//! of every pull request merged since the last successful apply (each a format-6 file), applied
//! in one run with each account's write token; each account gets exactly its pull requests'
//! changes, and a change nobody reviewed, in either account, refuses the run with nothing
//! written in any account.

use serde_json::json;

use super::accounts::{
    ACME_FILE, SHOP_FILE, acme_www, change_live, live, main, shop_apex_moved, shop_mail, story,
};
use super::merge::reviewed;
use super::pull_request::{push, relabel};
use super::runner::{JobRun, Trigger};
use super::{Files, Story, snapshot};

const APPLY: &str = "dnscron-apply.yml";

fn writes(story: &Story) -> u64 {
    [&story.emulator, &story.others[0]]
        .iter()
        .flat_map(|emu| emu.counters().per_route)
        .filter(|(route, _)| !route.starts_with("GET ") && route.as_str() != "unmatched")
        .map(|(_, n)| n)
        .sum()
}

/// Pull request `n`'s head commit (`a1a1a1a1` for 1) and the commit it is merged as.
fn head(n: u64) -> String {
    format!("a{n}").repeat(4)
}

fn merge_commit(n: u64) -> String {
    format!("e{n}").repeat(4)
}

/// Pull request `n` (changing `changed`) merged: main's newest commit holds `files`. Its apply
/// run is queued, not run; returns its id.
fn merged(story: &Story, n: u64, files: &Files, changed: &[&str]) -> u32 {
    let sha = merge_commit(n);
    story.world.merged(&sha, n, &head(n), changed);
    story.commit(&sha, files);
    story.world.queued(APPLY, &sha)
}

/// Pull request `n` reviewed from main's newest commit, merged and applied by its own run.
fn applied(story: &Story, n: u64, files: &Files, changed: &[&str]) -> String {
    reviewed(story, n, &head(n), files);
    let id = merged(story, n, files, changed);
    let (run, shown) = run_at(story, id, &merge_commit(n), files);
    assert!(run.succeeded(), "{}", run.log);
    shown
}

/// Pull requests `n` and `n + 1` (reviewed), each `(main's files once merged, the paths it
/// changes)`, merged within a minute: GitHub cancels the first's pending run when the second's
/// is queued. Returns the second run's id.
fn merged_quickly(
    story: &Story,
    n: u64,
    first: (&Files, &[&str]),
    second: (&Files, &[&str]),
) -> u32 {
    let waiting = merged(story, n, first.0, first.1);
    let last = merged(story, n + 1, second.0, second.1);
    story.world.cancel(waiting, APPLY, &merge_commit(n));
    last
}

/// Runs queued run `id` of the apply workflow for main's commit `sha`.
fn run_at(story: &Story, id: u32, sha: &str, files: &Files) -> (JobRun, String) {
    let dir = story.commit(sha, files);
    let trigger = Trigger {
        event: "push",
        sha,
        payload: json!({"ref": "refs/heads/main", "after": sha}),
        files: &dir,
        base: None,
    };
    let run = story.world.run_as(id, APPLY, &trigger);
    let shown = format!(
        "== steps\n{}== annotations\n{}== gh\n{}== job summary\n{}== live\n{}",
        run.steps_text(),
        run.annotations,
        story.world.take_gh_calls(),
        mask_plan_ids(&run.summary),
        live(story),
    );
    (run, shown)
}

/// Each account's plan id is derived from its API URL, whose port moves from run to run.
fn mask_plan_ids(text: &str) -> String {
    const AT: &str = "Apply of plan `";
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(AT) {
        let end = i + AT.len();
        out.push_str(&rest[..end]);
        out.push_str("[ID]");
        rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out.push_str(rest);
    out
}

/// Both accounts' records, sorted.
fn sorted_live(story: &Story) -> Vec<String> {
    let mut now: Vec<String> = live(story).lines().map(str::to_string).collect();
    now.sort();
    now
}

fn acme_mail(files: Files) -> Files {
    files.edit(
        ACME_FILE,
        "records:\n",
        "records:\n  - { name: mail, type: A, content: 203.0.113.25 }\n",
    )
}

fn shop_www(files: Files) -> Files {
    files.edit(
        SHOP_FILE,
        "content: \"shop.example.\" }",
        "content: \"web.shop.example.\" }",
    )
}

/// PR 1 (acme) is merged and applied: the first apply, bound to its plan alone. PRs 2 (acme)
/// and 3 (shop), each reviewed from that main, merge within a minute: GitHub cancels PR 2's
/// pending run, and PR 3's run applies both plans, reading what changed since PR 1's apply:
/// acme gets exactly PR 2's change, shop exactly PR 3's.
#[test]
fn two_pull_requests_each_for_one_account_are_applied_by_one_run() {
    let story = story();
    let one = acme_www(main(&story));
    let applied_one = applied(&story, 1, &one, &[ACME_FILE]);
    let (two, three) = (acme_mail(one.clone()), shop_mail(one.clone()));
    let both = shop_mail(two.clone());
    reviewed(&story, 2, &head(2), &two);
    reviewed(&story, 3, &head(3), &three);
    let last = merged_quickly(&story, 2, (&two, &[ACME_FILE]), (&both, &[SHOP_FILE]));
    let (run, applied_both) = run_at(&story, last, &merge_commit(3), &both);
    assert!(run.succeeded(), "{}", run.log);
    assert_eq!(
        sorted_live(&story),
        [
            "acme: @ A 203.0.113.10",
            "acme: mail A 203.0.113.25",
            "acme: www CNAME web.acme.example.",
            "shop: @ A 198.51.100.10",
            "shop: mail A 198.51.100.25",
            "shop: www CNAME shop.example.",
        ]
    );
    snapshot!(
        "accounts_merge_two_in_one_run",
        &format!(
            "### PR 1 (acme) merged and applied\n{applied_one}\n### PRs 2 (acme) and 3 (shop) merged, one run\n{applied_both}"
        ),
    );
}

/// After PR 3 (shop's `www`) is applied, PRs 4 (acme) and 5 (shop) are reviewed and merged;
/// before the run, someone edits shop's `@` in the portal. The run's plan of shop holds a change
/// neither plan shows: refused, nothing written in either account (acme's reviewed change
/// included). Once the portal change is put back, the same run applies both.
#[test]
fn a_live_change_outside_the_reviewed_plans_refuses_the_run_in_every_account() {
    let story = story();
    let three = shop_www(main(&story));
    applied(&story, 3, &three, &[SHOP_FILE]);
    let (four, five) = (acme_mail(three.clone()), shop_mail(three.clone()));
    let both = shop_mail(four.clone());
    reviewed(&story, 4, &head(4), &four);
    reviewed(&story, 5, &head(5), &five);
    let last = merged_quickly(&story, 4, (&four, &[ACME_FILE]), (&both, &[SHOP_FILE]));
    change_live(&story, &shop_apex_moved(three.clone()));
    let before = (writes(&story), live(&story));
    let (run, refused) = run_at(&story, last, &merge_commit(5), &both);
    assert!(!run.succeeded(), "{}", run.log);
    assert_eq!((writes(&story), live(&story)), before, "nothing is sent");
    // Put back in the portal, the same run applies both reviewed changes.
    change_live(&story, &three);
    let (run, _) = run_at(&story, last, &merge_commit(5), &both);
    assert!(run.succeeded(), "{}", run.log);
    assert_eq!(
        sorted_live(&story),
        [
            "acme: @ A 203.0.113.10",
            "acme: mail A 203.0.113.25",
            "acme: www CNAME acme.example.",
            "shop: @ A 198.51.100.10",
            "shop: mail A 198.51.100.25",
            "shop: www CNAME web.shop.example.",
        ]
    );
    snapshot!("accounts_merge_unreviewed_refused", &refused);
}

/// A deliberate mass change in one account, merged with another account's ordinary change:
/// acme's `safety:` retimes at most 1 record (PR 1, applied: no change live), so PR 2 lowering
/// acme's `defaults.ttl` fails its check until a reviewer labels it; PR 3 adds a record to
/// shop. Both merge before one run, which approves PR 2's plan alone (the label was added after
/// its last push) and applies both: acme retimed, shop's record added.
#[test]
fn a_labelled_mass_change_in_one_account_merges_with_another_accounts_change() {
    const LABEL: &str = "dnscron:allow-mass-changes";
    let story = story();
    let guarded = main(&story).edit(
        ACME_FILE,
        "records:\n",
        "safety: { ttl_update_floor: 1 }\nrecords:\n",
    );
    applied(&story, 1, &guarded, &[ACME_FILE]);

    let retimed = guarded.clone().edit(
        ACME_FILE,
        "records:\n",
        "defaults: { ttl: 300 }\nrecords:\n",
    );
    let (run, refused) = push(&story, 2, &head(2), &retimed);
    assert!(!run.succeeded());
    assert!(
        refused.contains("would change the TTL of 2 of 2 live records"),
        "{refused}"
    );
    let (run, _) = relabel(&story, 2, &head(2), &retimed, "labeled", &[LABEL]);
    assert!(run.succeeded(), "{}", run.log);
    let three = shop_mail(guarded.clone());
    let both = shop_mail(retimed.clone());
    reviewed(&story, 3, &head(3), &three);
    let last = merged_quickly(&story, 2, (&retimed, &[ACME_FILE]), (&both, &[SHOP_FILE]));
    let (run, applied) = run_at(&story, last, &merge_commit(3), &both);
    assert!(run.succeeded(), "{}", run.log);
    assert!(
        run.annotations
            .contains("pull request #2: the label dnscron:allow-mass-changes was added"),
        "{}",
        run.annotations
    );
    let ttls: Vec<(String, u32)> = story
        .emulator
        .state()
        .visible_records("acme.example")
        .iter()
        .map(|r| (r.name.clone(), r.ttl))
        .collect();
    assert_eq!(ttls, [("@".to_string(), 300), ("www".to_string(), 300)]);
    assert!(live(&story).contains("shop: mail A 198.51.100.25"));
    snapshot!("accounts_merge_mass_change", &applied);
}
