//! Reports of invalid files of any shape: a problem past column 65,535 (miette's padding panicked
//! there), thousands of problems (a capped report, in time linear in the file), and a 1 MB line
//! (its excerpt cut to a window around the problem).

use crate::common::Test;

/// A loopback port nothing listens on: an invalid file must stop every command before it sends.
const NO_API: &str = "http://127.0.0.1:9/api/v1";

/// A zone whose 4th line is one flow list of valid records with an invalid A content (bad IP)
/// at character column `col` (1-based) at its end, as a minified or generated file has it.
fn zone_with_bad_ip_at(col: usize) -> String {
    let head = "records: [";
    let bad = "{ name: bad, type: A, content: ";
    let filler_len = col - 1 - head.len() - bad.len();
    let mut filler = String::new();
    for i in 0.. {
        let record = format!("{{ name: h{i}, type: A, content: 203.0.113.1 }}, ");
        if filler.len() + record.len() > filler_len {
            break;
        }
        filler.push_str(&record);
    }
    filler.push_str(&" ".repeat(filler_len - filler.len()));
    format!(
        "zone: example.com\nnameservers:\n  mode: hosted\n{head}{filler}{bad}203.0.113.300 }}]\n"
    )
}

/// `dnscron <args> zone.yaml` in a directory holding `text` as `zone.yaml`, as a snapshot.
fn run_on_zone(text: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("zone.yaml"), text).unwrap();
    Test::new()
        .args(args)
        .arg("zone.yaml")
        .api(NO_API, "not-sent")
        .current_dir(dir.path())
        .snapshot()
}

macro_rules! assert_report {
    ($name:expr, $out:expr) => {
        insta::with_settings!({ filters => crate::common::filters() }, {
            insta::assert_snapshot!($name, $out);
        })
    };
}

#[test]
fn a_problem_at_column_100_is_drawn_with_its_whole_line() {
    assert_report!(
        "column_100_validate",
        run_on_zone(&zone_with_bad_ip_at(100), &["validate"])
    );
}

#[test]
fn a_problem_at_column_65536_is_drawn_in_a_window_of_its_line() {
    assert_report!(
        "column_65536_validate",
        run_on_zone(&zone_with_bad_ip_at(65_536), &["validate"])
    );
}

#[test]
fn a_problem_at_column_70000_in_validate_plan_and_apply_in_every_format() {
    let zone = zone_with_bad_ip_at(70_000);
    for (name, args) in [
        (
            "column_70000_validate_github",
            &["validate", "--format", "github"][..],
        ),
        ("column_70000_plan_text", &["plan"]),
        ("column_70000_plan_github", &["plan", "--format", "github"]),
        ("column_70000_plan_json", &["plan", "--format", "json"]),
        ("column_70000_apply_text", &["apply", "--yes"]),
        (
            "column_70000_apply_json",
            &["apply", "--yes", "--format", "json"],
        ),
    ] {
        assert_report!(name, run_on_zone(&zone, args));
    }
}

#[test]
fn a_yaml_syntax_error_past_column_65535_is_drawn_in_a_window_of_its_line() {
    // The flow mapping closed by `]`: the parser stops at the end of the 70,000-column line.
    let zone = zone_with_bad_ip_at(70_000).replace("203.0.113.300 }]", "203.0.113.300 ]]");
    assert_report!(
        "column_70000_syntax_error",
        run_on_zone(&zone, &["validate", "--format", "github"])
    );
}

/// `n` records, each with an invalid A content.
fn zone_with_bad_records(n: usize) -> String {
    let mut text = String::from("zone: example.com\nnameservers:\n  mode: hosted\nrecords:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - {{ name: h{i}, type: A, content: 203.0.113.300 }}\n"
        ));
    }
    text
}

#[test]
fn five_thousand_problems_are_capped_fifty_in_full_five_hundred_listed_then_counted() {
    assert_report!(
        "five_thousand_problems",
        run_on_zone(&zone_with_bad_records(5_000), &["validate"])
    );
}

#[test]
fn a_1_mb_line_is_cut_around_each_problem() {
    let text = format!(
        "zone: example.com\nnameservers:\n  mode: hosted\nrecords: [{{ name: h, type: A, content: \
         203.0.113.300 }}, {{ name: t, type: TXT, content: \"{}\" }}]\n",
        "x".repeat(1 << 20)
    );
    assert_report!("one_mb_line", run_on_zone(&text, &["validate"]));
}

/// miette breaks lines at LF only: a file of lone CR (old Mac) or CRLF breaks is drawn line by
/// line all the same, numbered as the header locates it.
#[test]
fn a_file_with_cr_or_crlf_breaks_is_drawn_line_by_line() {
    let lines = [
        "zone: example.com",
        "records:",
        "  - { name: www, type: A, content: \"999.1.1.1\" }",
        "  - { name: x, type: A, content: \"192.0.2.1\" }",
    ];
    let lf = run_on_zone(&(lines.join("\n") + "\n"), &["validate"]);
    assert_report!("breaks_lf", lf);
    for (breaks, name) in [("\r", "breaks_cr"), ("\r\n", "breaks_crlf")] {
        let out = run_on_zone(&(lines.join(breaks) + breaks), &["validate"]);
        assert_eq!(out, lf, "{name}: drawn as with LF breaks");
    }
}
