//! The plan file is checked on load like a YAML file: shape with line:col, version, requests,
//! and the embedded desired state with the loader's own rules. Each refusal in full.

use dnscron::cli::error::CommandError;
use dnscron::render::plan as render;
use dnscron_core::plan_file::{self as file, PlanFileError};

use super::fixtures::*;

fn saved() -> String {
    let (desired, live) = example_account();
    render::json(&plan_of(&desired, &live)).unwrap()
}

fn refusal(text: &str) -> String {
    let err: PlanFileError = file::load(text, "plan.json").unwrap_err();
    CommandError::from(err).body()
}

fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value: serde_json::Value = serde_json::from_str(&saved()).unwrap();
    edit(&mut value);
    serde_json::to_string_pretty(&value).unwrap()
}

#[test]
fn a_saved_plan_loads() {
    let text = saved();
    assert_eq!(
        render::json(&file::load(&text, "plan.json").unwrap()).unwrap(),
        text
    );
}

#[test]
fn a_truncated_file_is_refused_with_its_position() {
    let text = saved();
    let cut: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_eq!(
        refusal(&cut),
        "the plan file is not a valid dnscron plan: plan.json:5:44: EOF while parsing a value\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

#[test]
fn a_wrong_type_is_refused_with_its_position() {
    let text = edited(|v| v["changes"][0]["id"] = "one".into());
    let line = text
        .lines()
        .position(|l| l.contains(r#""id": "one""#))
        .unwrap()
        + 1;
    assert_eq!(
        refusal(&text),
        format!(
            "the plan file is not a valid dnscron plan: plan.json:{line}:17: invalid type: string \"one\", expected usize\n\
             hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
        )
    );
}

#[test]
fn a_desired_record_that_breaks_a_rule_is_refused() {
    let text = edited(|v| v["desired"]["zones"][0]["records"][0]["ttl"] = 5.into());
    assert_eq!(
        refusal(&text),
        "the plan file is not a valid dnscron plan: plan.json: its `desired` section breaks the rules of the files (places as recorded when the plan was made):\n  \
         zones/example.com.yaml:10:3: `ttl` is 5; it must be from 60 to 604800\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

#[test]
fn another_format_version_is_refused() {
    for (version, shown) in [
        (serde_json::json!(1), "1"),
        (serde_json::json!(2), "2"),
        (serde_json::json!(3), "3"),
        (serde_json::json!(4), "4"),
        (serde_json::json!(7), "7"),
    ] {
        let text = edited(|v| v["format_version"] = version);
        assert_eq!(
            refusal(&text),
            format!(
                "the plan file has format_version {shown}; this dnscron reads format_version 5\n\
                 hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
            )
        );
    }
    // 6 is a plan of several accounts: not one plan, and said so.
    assert_eq!(
        refusal(&edited(|v| v["format_version"] = serde_json::json!(6))),
        "the plan file holds the plans of several accounts (format_version 6)\n\
         hint: nothing was sent. Give it with the folder that holds dnscron-accounts.yaml \
         (`dnscron apply --reviewed FILE PATH`), where each account is bound to its own plan"
    );
    assert_eq!(
        refusal("{}"),
        "the plan file has format_version none; this dnscron reads format_version 5\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

#[test]
fn a_change_without_its_request_data_is_refused() {
    let text = edited(|v| v["changes"][2]["after"] = serde_json::Value::Null);
    assert_eq!(
        refusal(&text),
        "the plan file is not a valid dnscron plan: plan.json: change 3 (update of a record) lacks the `after` value of the matching kind its request needs\n\
         hint: make a new plan with `dnscron plan --out FILE` using this version of dnscron"
    );
}

/// The line of `text` that holds `needle`, 1-based, and the column of its first non-space.
fn line_of(text: &str, needle: &str, nth: usize) -> (usize, usize) {
    let (i, line) = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .unwrap_or_else(|| panic!("no {needle}"));
    (i + 1, line.len() - line.trim_start().len() + 1)
}

#[test]
fn an_empty_or_malformed_api_url_is_refused_at_its_place() {
    for (url, problem) in [
        ("", "`api_url` is empty".to_string()),
        (
            "127.0.0.1:8080/api/v1",
            "`api_url` `127.0.0.1:8080/api/v1` is not a URL: relative URL without a base".into(),
        ),
        (
            "file:///etc/passwd",
            "`api_url` `file:///etc/passwd` is not an http or https URL with a host".into(),
        ),
    ] {
        let text = edited(|v| v["api_url"] = url.into());
        let (line, col) = line_of(&text, "\"api_url\"", 0);
        assert_eq!(
            refusal(&text),
            format!(
                "the plan file is not a valid dnscron plan: plan.json:{line}:{col}: {problem}; it must be the http(s) URL of the API the plan was made against\n\
                 hint: nothing was sent. The file was changed after `dnscron plan --out FILE` wrote it: make a new plan, have it reviewed, and apply that"
            )
        );
    }
    // Accepted form: any http(s) URL with a host.
    let text = edited(|v| v["api_url"] = "https://api.example.net/v1".into());
    assert!(file::load(&text, "plan.json").is_ok());
}

#[test]
fn a_plan_id_outside_the_safe_set_is_refused_at_its_place() {
    let long = "a".repeat(10_240);
    for (id, problem) in [
        ("", "is empty".to_string()),
        ("../../etc/passwd", "contains `.`".into()),
        ("id\u{1b}[2J", "contains `\\u{1b}`".into()),
        ("id\nx", "contains `\\u{a}`".into()),
        (long.as_str(), "has 10240 characters".into()),
    ] {
        let text = edited(|v| v["plan_id"] = id.into());
        let (line, col) = line_of(&text, "\"plan_id\"", 0);
        assert_eq!(
            refusal(&text),
            format!(
                "the plan file is not a valid dnscron plan: plan.json:{line}:{col}: `plan_id` {problem}; it must be 1 to 64 ASCII letters, digits, `-` or `_`\n\
                 hint: nothing was sent. The file was changed after `dnscron plan --out FILE` wrote it: make a new plan, have it reviewed, and apply that"
            )
        );
    }
    for id in ["test-plan_1", &"f".repeat(64)] {
        let text = edited(|v| v["plan_id"] = id.into());
        assert!(file::load(&text, "plan.json").is_ok(), "{id}");
    }
}

#[test]
fn a_request_edited_in_the_file_is_refused_at_its_place() {
    let text = edited(|v| {
        v["changes"][2]["request"]["body"]["content"] = "203.0.113.66".into();
    });
    let (line, col) = line_of(&text, "\"request\"", 2);
    assert_eq!(
        refusal(&text),
        format!(
            "the plan file is not a valid dnscron plan: plan.json:{line}:{col}: change 3's request `body` differs from the request its change derives; apply sends only derived requests\n\
             hint: nothing was sent. The file was changed after `dnscron plan --out FILE` wrote it: make a new plan, have it reviewed, and apply that"
        )
    );
    let text = edited(|v| v["changes"][1]["request"]["path"] = "/sites/shop/cron/0".into());
    assert!(refusal(&text).contains("change 2's request `path` differs"));
}

/// Escape sequences, a line break, a Markdown heading and table row, a workflow command.
const HOSTILE: &str =
    "x\u{1b}[2J\u{1b}]0;pwned\u{7}\n# Approved by security\n| ok | ok |\n::error::fake";

#[test]
fn strings_from_a_plan_file_are_escaped_in_text_and_markdown() {
    let text = edited(|v| {
        v["findings"][0]["message"] = HOSTILE.into();
        v["targets"][0]["declared_at"] = HOSTILE.into();
        v["changes"][0]["target"]["name"] = "example.com".into();
        v["changes"][0]["resource"]["name"] = HOSTILE.into();
        v["changes"][0]["before"]["content"] = HOSTILE.into();
        v["changes"][1]["resource"]["command"] = HOSTILE.into();
        v["changes"][1]["before"]["command"] = HOSTILE.into();
        v["changes"][7]["next_runs"][0] = HOSTILE.into();
    });
    let plan = file::load(&text, "plan.json").unwrap();
    let views = [
        ("text", render::text(&plan, false)),
        ("text_color", render::text(&plan, true)),
        ("markdown", render::markdown(&plan)),
    ];
    for (name, out) in &views {
        let raw: Vec<char> = out
            .chars()
            .filter(|c| *c != '\n' && *c != '\u{1b}' && dnscron_api::untrusted::is_unsafe_char(*c))
            .collect();
        assert!(raw.is_empty(), "{name}: raw {raw:?}");
        for line in out.lines() {
            // The only escape sequences are the colors the text view adds itself.
            let plain = line.replace("\u{1b}[0m", "").replace("\u{1b}[", "");
            assert!(!plain.contains('\u{1b}'), "{name}: {line:?}");
            let start = line.trim_start_matches(['>', ' ']);
            assert!(
                !start.starts_with("# ") && !start.starts_with("| ") && !start.starts_with("::"),
                "{name}: a forged line: {line:?}"
            );
        }
        assert!(
            !out.contains("\u{1b}[2J") && !out.contains("\u{1b}]0;"),
            "{name}"
        );
    }
    insta::assert_snapshot!("hostile_strings_text", views[0].1);
    insta::assert_snapshot!("hostile_strings_markdown", views[2].1);
}
