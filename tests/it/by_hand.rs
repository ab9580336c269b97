//! README's "Try it by hand", run exactly as written: the emulator command is checked against the
//! real CLI and replaced by the same seed in-process (DNS listener included), then every command
//! of the session runs in order with only the environment the README exports, and the whole
//! transcript is snapshotted. The exit code each command's comment promises is asserted too, so
//! the documented refusal (exit 1) and the documented success (exit 0 after it) both hold.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;

use clap::Parser;
use dnscron::cli::Cli;
use dnscron_emulator::{self as emulator, Seed};

use crate::common::{dnscron_bin, filters, repo_root};

const SECTION: &str = "### Try it by hand";

/// The ```sh blocks of README's section, in order.
fn section_blocks() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let start = readme
        .find(SECTION)
        .expect("README has the by-hand section");
    let rest = &readme[start + SECTION.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("\n```").next().unwrap_or_default().to_string())
        .collect()
}

/// One line of the session: its text as written (continuations joined), and what it is.
#[derive(Debug)]
enum Step {
    Export(Vec<(String, String)>),
    Run {
        shown: String,
        argv: Vec<String>,
        exit: i32,
    },
}

fn steps(block: &str, listen: &str, dns_listen: &str, emu: (SocketAddr, SocketAddr)) -> Vec<Step> {
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(|line| {
            let (command, comment) = line.split_once(" #").unwrap_or((line, ""));
            let shown = command.split_whitespace().collect::<Vec<_>>().join(" ");
            let real = command
                .replace(listen, &emu.0.to_string())
                .replace(dns_listen, &emu.1.to_string());
            let words: Vec<String> = real.split_whitespace().map(str::to_string).collect();
            match words.first().map(String::as_str) {
                Some("export") => Step::Export(
                    words[1..]
                        .iter()
                        .map(|w| {
                            let (k, v) = w.split_once('=').expect("export NAME=VALUE");
                            (k.to_string(), v.to_string())
                        })
                        .collect(),
                ),
                Some("dnscron") => {
                    let exit = comment
                        .trim()
                        .strip_prefix("exit ")
                        .and_then(|c| c.split(':').next())
                        .and_then(|c| c.parse().ok())
                        .unwrap_or_else(|| panic!("no `# exit N:` comment on {shown:?}"));
                    Step::Run {
                        shown,
                        argv: words,
                        exit,
                    }
                }
                _ => panic!("the test does not know this line of the session: {line:?}"),
            }
        })
        .collect()
}

/// The value after `flag` in `argv`.
fn flag<'a>(argv: &'a [String], flag: &str) -> &'a str {
    let at = argv.iter().position(|w| w == flag);
    at.and_then(|i| argv.get(i + 1))
        .unwrap_or_else(|| panic!("{flag} in {argv:?}"))
}

#[test]
fn the_readme_by_hand_session_refuses_the_unready_switch_then_converges() {
    let transcript = session_in(Path::new(dnscron_bin()), &repo_root());
    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!(transcript);
    });
}

/// README's session run by `bin` in `dir` (a clone, or an unpacked release archive, which has
/// the examples too), with the exit codes its comments promise asserted; its transcript.
pub fn session_in(bin: &Path, dir: &Path) -> String {
    let blocks = section_blocks();
    assert_eq!(blocks.len(), 2, "the emulator command, then the session");
    let emulator_argv: Vec<String> = blocks[0].split_whitespace().map(str::to_string).collect();
    assert!(
        Cli::try_parse_from(&emulator_argv).is_ok(),
        "{emulator_argv:?}"
    );
    assert_eq!(emulator_argv[..2], ["dnscron", "emulator"]);
    let seed = Seed::from_path(dir.join(flag(&emulator_argv, "--seed"))).unwrap();
    let (listen, dns_listen) = (
        flag(&emulator_argv, "--listen"),
        flag(&emulator_argv, "--dns-listen"),
    );
    let emu = emulator::start_background_with_dns(seed).unwrap();
    let api: SocketAddr = emu
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches("/api/v1")
        .parse()
        .unwrap();
    let dns = emu.dns_addr().unwrap();

    let home = tempfile::tempdir().unwrap();
    let mut env: Vec<(String, String)> = Vec::new();
    let mut transcript = String::new();
    let mut exits = Vec::new();
    for step in steps(&blocks[1], listen, dns_listen, (api, dns)) {
        match step {
            Step::Export(pairs) => env.extend(pairs),
            Step::Run { shown, argv, exit } => {
                let out = Command::new(bin)
                    .args(&argv[1..])
                    .env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .env("HOME", home.path())
                    .env("NO_COLOR", "1")
                    .env("COLUMNS", "100")
                    // The test-only stamps (docs/plan.md): fixed plan ids and "now".
                    .env("DNSCRON_PLAN_ID", format!("{:032x}", exits.len() + 1))
                    .env("DNSCRON_TIMESTAMP", "2026-01-02T03:04:05Z")
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .current_dir(dir)
                    .output()
                    .unwrap();
                let status = out.status.code().expect("dnscron exited");
                exits.push((shown.clone(), exit, status));
                transcript.push_str(&format!(
                    "$ {shown}\nexit: {status}\n--- stdout\n{}--- stderr\n{}\n",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    let promised: Vec<_> = exits.iter().map(|(s, e, _)| (s.as_str(), *e)).collect();
    let got: Vec<_> = exits.iter().map(|(s, _, g)| (s.as_str(), *g)).collect();
    assert_eq!(
        got, promised,
        "exit codes differ from the README's comments\n{transcript}"
    );
    assert_eq!(
        emu.counters().rate_limited,
        0,
        "the session never waits for the rate limit"
    );
    transcript
}
