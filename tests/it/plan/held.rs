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
