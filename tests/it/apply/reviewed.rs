//! Review-bound apply (docs/apply.md): `apply --reviewed PLAN PATH...` and `apply --plan PLAN`
//! run a plan made now only when each of its changes is one of the reviewed plan's. Two PRs
//! merged in either order, a re-run after a portal step, an unreviewed change refused with
//! nothing sent, and an ignored record that appears after the plan.

use std::path::{Path, PathBuf};

use dnscron_api::{IdempotencyKey, payload};
use dnscron_emulator::{BackgroundEmulator, Seed, TokenSeed, ZoneSeed};

use super::support::*;
use crate::common::repo_root;

const MAIN: &str =
    "zone: pr.example\nrecords:\n  - { name: \"@\", type: A, content: 192.0.2.10 }\n";
const ONE: &str = "  - { name: one, type: A, content: 192.0.2.1 }\n";
const TWO: &str = "  - { name: two, type: TXT, content: \"second pr\" }\n";

/// The zone file of a branch: main's records plus `extra`, in its own folder under `dir`.
fn branch(dir: &Path, name: &str, extra: &[&str]) -> String {
    let root = dir.join(name);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("pr.yaml"), format!("{MAIN}{}", extra.concat())).unwrap();
    root.display().to_string()
}

/// An account that already is main.
fn main_emulator(dir: &Path) -> BackgroundEmulator {
    let seed = Seed::default()
        .with_token(TokenSeed::full("demo-token", "demo"))
        .with_zone(ZoneSeed::new("pr.example"));
    let emu = emulator_with(seed, gap_settings()[1].clone());
    let main = branch(dir, "main", &[]);
    let out = dnscron(&emu, &["-q", "apply", "--yes", "--format", "json", &main]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    emu
}

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(crate::common::stdout_of(out)).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Both PRs are planned against the same live state (main); whichever merges first, the
/// other's plan still holds exactly its own change and applies.
#[test]
fn two_prs_planned_against_the_same_state_apply_in_either_order() {
    for first_one in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let emu = main_emulator(dir.path());
        let pr1 = dir.path().join("pr1.json").display().to_string();
        let pr2 = dir.path().join("pr2.json").display().to_string();
        let one = branch(dir.path(), "pr1", &[ONE]);
        let two = branch(dir.path(), "pr2", &[TWO]);
        for (file, files) in [(&pr1, &one), (&pr2, &two)] {
            let out = dnscron(&emu, &["-q", "plan", "--out", file, files]).snapshot();
            assert!(out.starts_with("exit: Some(0)"), "{out}");
        }
        let (first, second) = if first_one {
            (&pr1, &pr2)
        } else {
            (&pr2, &pr1)
        };
        let merged_first = branch(dir.path(), "merged1", &[if first_one { ONE } else { TWO }]);
        let merged_both = branch(dir.path(), "merged2", &[ONE, TWO]);

        let out = dnscron(&emu, &["apply", "--reviewed", first, &merged_first]).snapshot();
        assert!(out.starts_with("exit: Some(0)"), "{out}");
        // Refused form: the second PR's change in the files, but the first PR's plan named.
        let writes_before = writes(&emu);
        let refused = dnscron(&emu, &["apply", "--reviewed", first, &merged_both]).snapshot();
        assert_eq!(
            writes(&emu),
            writes_before,
            "an unreviewed change sends nothing"
        );
        let out = dnscron(
            &emu,
            &[
                "apply",
                "--reviewed",
                second,
                &merged_both,
                "--format",
                "json",
            ],
        )
        .snapshot();
        let doc = json_of(&out);
        assert_eq!(doc["result"], "converged", "{out}");
        assert_eq!(doc["counts"]["done"], 1, "{out}");
        assert_state_matches(&emu.state(), &load(&[PathBuf::from(&merged_both)]), &[]);
        if first_one {
            settings().bind(|| insta::assert_snapshot!("second_pr_unreviewed_change", refused));
            settings().bind(|| insta::assert_snapshot!("second_pr_applied", out));
        }
    }
}

/// The files move example.com (DNSSEC active) to other nameservers: the apply of the reviewed
/// plan stops with exit 3 at the nameserver change. Once DNSSEC is off (the portal step), the
/// same command run again applies what is left and lists the rest as in effect.
#[test]
fn a_rerun_after_the_portal_step_finishes_the_reviewed_plan() {
    let emu = emulator_with(Seed::example(), gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("dns");
    std::fs::create_dir_all(&files).unwrap();
    for name in ["example.com.yaml", "example.org.yaml", "mail-set.yaml"] {
        let text = std::fs::read_to_string(repo_root().join("examples/dns/zones").join(name))
            .unwrap()
            .replace(
                "nameservers:\n  mode: hosted\n",
                "nameservers:\n  mode: custom\n  hosts: [ns1.other-dns.net, ns2.other-dns.net]\n",
            );
        std::fs::write(files.join(name), text).unwrap();
    }
    let files = files.display().to_string();
    let plan = dir.path().join("plan.json").display().to_string();
    let out = dnscron(&emu, &["-q", "plan", "--out", &plan, &files]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");

    // The Markdown a CI job summary shows: what was done, what was not, where to continue.
    let args = [
        "-q",
        "apply",
        "--reviewed",
        &plan,
        &files,
        "--format",
        "markdown",
    ];
    let stopped = dnscron(&emu, &args).snapshot();
    settings().bind(|| insta::assert_snapshot!("stopped_at_portal_step_markdown", stopped));
    // A re-run before the portal step stops at the same place and sends nothing new but it.
    let writes_before = writes(&emu);
    let again = dnscron(&emu, &["-q", "apply", "--plan", &plan]).snapshot();
    assert!(again.starts_with("exit: Some(3)"), "{again}");
    assert_eq!(
        writes(&emu),
        writes_before + 1,
        "only the refused change again"
    );

    assert!(emu.set_dnssec("example.com", false));
    let out = dnscron(&emu, &["apply", "--reviewed", &plan, &files]).snapshot();
    settings().bind(|| insta::assert_snapshot!("rerun_after_portal_step", out));
    assert_state_matches(&emu.state(), &load(&[PathBuf::from(&files)]), &[]);
}

/// Certificate tooling writes an `_acme-challenge` TXT after the plan; the files ignore it, so
/// the saved plan still applies in full.
#[test]
fn an_ignored_record_added_after_the_plan_does_not_block_it() {
    let emu = emulator_with(Seed::example(), gap_settings()[0].clone());
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    let zones = root.join("examples/dns/zones").display().to_string();
    let sites = root.join("examples/dns/sites").display().to_string();
    let plan = dir.path().join("plan.json").display().to_string();
    let out = dnscron(&emu, &["-q", "plan", "--out", &plan, &zones, &sites]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let challenge = payload::RecordWrite {
        name: "_acme-challenge".into(),
        rtype: "TXT".into(),
        ttl: 60,
        content: "\"token-from-the-ca\"".into(),
    };
    let c = client(&emu.base_url(), "demo-token");
    runtime()
        .block_on(c.create_record(
            "example.org",
            &challenge,
            &IdempotencyKey::new("certbot-1").unwrap(),
        ))
        .unwrap();
    let out = dnscron(&emu, &["apply", "--plan", &plan, "--format", "json"]).snapshot();
    let doc = json_of(&out);
    assert_eq!(doc["result"], "converged", "{out}");
    assert_eq!(doc["counts"]["done"], 10, "{out}");
    let records = emu.state();
    let kept = records
        .visible_records("example.org")
        .iter()
        .any(|r| r.name.starts_with("_acme-challenge"));
    assert!(kept, "the ignored record stays");
}

/// A text `apply --reviewed` with nothing to do says so (no plan is shown above its report); a
/// fresh `apply --yes` says it once, in the plan it shows.
#[test]
fn a_reviewed_apply_with_nothing_to_do_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let emu = main_emulator(dir.path());
    let main = branch(dir.path(), "main", &[]);
    let file = dir.path().join("none.json").display().to_string();
    let out = dnscron(&emu, &["-q", "plan", "--out", &file, &main]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let out = dnscron(&emu, &["-q", "apply", "--reviewed", &file, &main]).snapshot();
    assert!(out.starts_with("exit: Some(0)"), "{out}");
    let said = crate::common::stdout_of(&out);
    assert_eq!(
        said, "No changes. The live account matches the files.\n",
        "{out}"
    );
    let out = dnscron(&emu, &["-q", "apply", "--yes", &main]).snapshot();
    let said = crate::common::stdout_of(&out);
    assert_eq!(said.matches("No changes").count(), 1, "{out}");
}
