//! The CI recipes of examples/ci/: every `dnscron` command parses with the real CLI (`parse`),
//! the workflows follow the security rules (`rules`), and each workflow runs, step by step,
//! against the emulator (`runner` with the stand-ins it documents; the stories in `pull_request`,
//! `merge`, `replays` and `drift`).

mod accounts;
mod accounts_merge;
mod adopt;
mod drift;
pub(crate) mod expr;
pub(crate) mod kubernetes;
mod kubernetes_accounts;
mod mass;
mod merge;
mod parse;
mod pull_request;
mod replays;
mod rules;
pub(crate) mod runner;
mod scoped;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dnscron_emulator::{BackgroundEmulator, Seed};

use runner::World;

/// The live account of the recipe stories: one zone, DNSSEC active on its domain (for the portal
/// step), an active and a suspended site (for blocked changes).
const SEED: &str = r#"
tokens:
  - {token: ci-read-token, user: ci, scopes: [read]}
  - {token: ci-apply-token, user: ci, scopes: [read, dns, manage]}
sites:
  - slug: shop
    cron: [{schedule: "*/5 * * * *", command: "php artisan schedule:run"}]
  - slug: legacy
    state: suspended
    cron: [{schedule: "0 4 * * *", command: "php legacy/nightly.php"}]
domains:
  - {domain: example.com, dnssec: true}
zones:
  - zone: example.com
    records:
      - {name: "@", type: A, content: 203.0.113.10}
      - {name: www, type: CNAME, content: example.com.}
rate_limit: {enabled: false}
"#;

/// main's files, matching the seed: `plan` shows no changes. In canonical form, as every file
/// the stories commit (`dnscron fmt --check` runs before the pull request's plan).
const ZONE: &str = "zone: example.com
nameservers: { mode: hosted }
records:
  - { name: \"@\", type: A, content: \"203.0.113.10\" }
  - { name: www, type: CNAME, content: \"example.com.\" }
";

/// main's first commit in every story: [`Files::main`], what the live account holds.
pub const FIRST: &str = "c0c0c0c0";

/// A test's emulator, its GitHub stand-ins and the commits it makes.
pub struct Story {
    pub emulator: BackgroundEmulator,
    pub world: World,
    /// The other accounts' emulators, in a repository of several (`accounts`).
    pub others: Vec<BackgroundEmulator>,
}

/// The files of one commit, path → content.
#[derive(Clone)]
pub struct Files(BTreeMap<String, String>);

impl Files {
    pub fn main() -> Files {
        Files(
            [
                ("dns/zones/example.com.yaml", ZONE),
                (
                    "dns/sites/shop.yaml",
                    "site: shop\ncron:\n  - { schedule: \"*/5 * * * *\", command: \"php artisan schedule:run\" }\n",
                ),
                (
                    "dns/sites/legacy.yaml",
                    "site: legacy\ncron:\n  - { schedule: \"0 4 * * *\", command: \"php legacy/nightly.php\" }\n",
                ),
            ]
            .into_iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect(),
        )
    }

    /// These files and `path` holding `text`, as a developer commits it: after `dnscron fmt`.
    pub fn with(mut self, path: &str, text: &str) -> Files {
        self.0.insert(path.to_string(), formatted(text));
        self
    }

    /// These files with `from` replaced by `to` in the file at `path` (which must contain it).
    /// The edit is committed after `dnscron fmt`, as the pull-request check asks.
    pub fn edit(self, path: &str, from: &str, to: &str) -> Files {
        let mut files = self.edit_unformatted(path, from, to);
        let text = files.0.get_mut(path).unwrap();
        *text = formatted(text);
        files
    }

    /// [`Files::edit`] committed as typed, without `dnscron fmt`.
    pub fn edit_unformatted(mut self, path: &str, from: &str, to: &str) -> Files {
        let text = self.0.get_mut(path).unwrap();
        assert!(text.contains(from), "{path} has no {from:?}");
        *text = text.replacen(from, to, 1);
        self
    }
}

/// `text` in canonical form (as written where `fmt` leaves a file alone).
fn formatted(text: &str) -> String {
    use dnscron_core::config::fmt::{Formatted, format_source};
    match format_source(text) {
        Formatted::Rewritten(text) => text,
        Formatted::Unchanged | Formatted::LeftAlone(_) => text.to_string(),
    }
}

impl Story {
    pub fn new() -> Story {
        Story::with_account(SEED, Files::main())
    }

    /// A story whose live account is `seed` and main's first commit `main`.
    pub fn with_account(seed: &str, main: Files) -> Story {
        // With its DNS listener: the recipes' `--resolver system` asks it (on loopback).
        let emulator =
            dnscron_emulator::start_background_with_dns(Seed::from_yaml_str(seed).unwrap())
                .expect("start the emulator");
        let resolver = emulator.dns_addr().expect("the emulator's DNS listener");
        let world = World::new(&emulator.base_url(), &resolver.to_string());
        let story = Story {
            emulator,
            world,
            others: Vec::new(),
        };
        story.commit(FIRST, &main);
        let paths: Vec<&str> = main.0.keys().map(String::as_str).collect();
        story.world.push_main(FIRST, &paths);
        story
    }

    /// Writes a commit's files to a folder of their own, for `actions/checkout`.
    pub fn commit(&self, sha: &str, files: &Files) -> PathBuf {
        let dir = self.world.commit(sha);
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in &files.0 {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        dir
    }

    /// What a person does outside the pipeline: `dnscron apply --yes` of `files` with the
    /// write token (changing the live account behind main's back, or putting it back).
    pub fn change_live(&self, files: &Files) {
        let dir = self.commit("by-hand", files);
        let out = crate::common::command()
            .args(["apply", "--yes", "-q"])
            .arg(dir.join("dns"))
            .env("DNSCRON_API_URL", self.emulator.base_url())
            .env("DNSCRON_TOKEN", runner::APPLY_TOKEN)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The live account as the transcripts show it: example.com's records, its registry
    /// nameservers, each site's cron jobs.
    pub fn live(&self) -> String {
        let state = self.emulator.state();
        let mut out = String::new();
        for r in state.visible_records("example.com") {
            out.push_str(&format!("{} {} {}\n", r.name, r.rtype, r.content));
        }
        let ns = state.registry_nameservers("example.com").join(" ");
        out.push_str(&format!("nameservers {ns}\n"));
        for site in ["shop", "legacy"] {
            for job in state.cron(site) {
                out.push_str(&format!("{site} cron {} {}\n", job.schedule, job.command));
            }
        }
        out
    }
}

/// An insta snapshot of a story's transcript, ports and request ids masked; named after the
/// calling module.
macro_rules! snapshot {
    ($name:expr, $shown:expr $(,)?) => {
        insta::with_settings!({ filters => $crate::common::filters() }, {
            insta::assert_snapshot!($name, $shown);
        })
    };
}
use snapshot;

/// A file the stand-ins wrote, for the transcripts ("(none)" when it doesn't exist).
pub fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|_| "(none)\n".to_string())
}
