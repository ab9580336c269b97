//! A change held by an error finding in every view of a plan: text, Markdown, JSON (the plan
//! file) and GitHub annotations all say it is held and why, and count it apart (`held`).

use dnscron_emulator::{RateLimit, Seed};

use crate::common::{Test, emulator::start_emulator};

const ZONE_FILE: &str = "zone: held.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n  - { name: _dmarc, type: TXT, content: 'v=DMARC1\\; p=reject' }\n";

#[test]
fn a_held_change_is_drawn_and_counted_in_every_format() {
    let mut seed = Seed::from_yaml_str(
        "tokens: [{token: t, user: u, scopes: [read]}]\nzones: [{zone: held.example}]\n",
    )
    .unwrap();
    seed.rate_limit = RateLimit::off();
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("held.yaml"), ZONE_FILE).unwrap();
    let plan = |format: &str| {
        Test::new()
            .args(["plan", "--format", format, "--detailed-exitcode", "."])
            .api(&emu.base_url(), "t")
            .current_dir(dir.path())
            .plan_stamp()
            .snapshot()
    };
    let shown = ["text", "markdown", "json", "github"]
        .map(|format| {
            format!(
                "### plan --format {format} --detailed-exitcode\n{}",
                plan(format)
            )
        })
        .join("\n");
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!("held_in_every_format", shown);
    });
}

/// A DMARC update's word diff shows `\;` as the file has it (not `\\;`), in the text view's
/// `-`/`+` lines and the `[-…-]{+…+}` line alike; a quote inside a TXT is still shown escaped.
#[test]
fn a_dmarc_diff_shows_the_backslash_as_the_file_has_it() {
    let mut seed = Seed::from_yaml_str(
        "tokens: [{token: t, user: u, scopes: [read]}]\nzones:\n  - zone: held.example\n    records:\n      - {name: _dmarc, type: TXT, ttl: 3600, content: 'v=DMARC1\\; p=none'}\n      - {name: say, type: TXT, ttl: 3600, content: 'he said \"hi\"'}\n",
    )
    .unwrap();
    seed.rate_limit = RateLimit::off();
    let emu = start_emulator(seed);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("held.yaml"),
        "zone: held.example\nrecords:\n  - { name: _dmarc, type: TXT, content: 'v=DMARC1\\; p=reject' }\n  - { name: say, type: TXT, content: 'he said \"bye\"' }\n",
    )
    .unwrap();
    let out = Test::new()
        .args(["plan", "."])
        .api(&emu.base_url(), "t")
        .current_dir(dir.path())
        .plan_stamp()
        .env("NO_COLOR", "1")
        .snapshot();
    let text = crate::common::stdout_of(&out);
    for line in [
        "      - \"v=DMARC1\\; p=none\"",
        "      + \"v=DMARC1\\; p=reject\"",
        "      ~ \"v=DMARC1\\; p=[-none-]{+reject+}\"",
        "      ~ \"he said \\\"[-hi-]{+bye+}\\\"\"",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} not in:\n{out}");
    }
    assert!(!text.contains("\\\\;"), "{out}");
}
