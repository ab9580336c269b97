//! README's exit-code and environment tables and the man page come from one source
//! (`dnscron::cli::reference`): README is held to it row by row, and the environment table to
//! every variable a flag reads.

use clap::CommandFactory;
use dnscron::cli::reference::{ENVIRONMENT, EXIT_CODES, Row};

use crate::common::repo_root;

/// The rows of the first table after `heading`, each cell unescaped (`\|` → `|`), the header
/// and the `|---|` line left out.
fn readme_table(readme: &str, heading: &str) -> Vec<(String, String)> {
    let mut after = readme
        .lines()
        .skip_while(|line| *line != heading)
        .peekable();
    assert!(after.peek().is_some(), "README has no `{heading}`");
    after
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            let cells = cells(line);
            assert_eq!(cells.len(), 2, "not two cells: {line}");
            (cells[0].clone(), cells[1].clone())
        })
        .collect()
}

/// `| a | b \| c |` → `["a", "b | c"]`.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('|')) => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            ('|', _) => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|cell| cell.trim().to_string()).collect()
}

/// The rows as README writes them; `quote_key`: the key in a code span.
fn expected(rows: &[Row], quote_key: bool) -> Vec<(String, String)> {
    rows.iter()
        .map(|row| {
            let key = if quote_key {
                format!("`{}`", row.key)
            } else {
                row.key.to_string()
            };
            (key, row.meaning.to_string())
        })
        .collect()
}

/// Every row that differs, `-` README's, `+` the source's.
fn difference(readme: &[(String, String)], source: &[(String, String)]) -> String {
    let mut out = String::new();
    for row in readme.iter().filter(|r| !source.contains(r)) {
        out.push_str(&format!("- | {} | {} |\n", row.0, row.1));
    }
    for row in source.iter().filter(|r| !readme.contains(r)) {
        out.push_str(&format!("+ | {} | {} |\n", row.0, row.1));
    }
    if out.is_empty() && readme != source {
        out.push_str("the same rows in another order\n");
    }
    out
}

fn assert_same(heading: &str, rows: &[Row], quote_key: bool) {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let table = readme_table(&readme, heading);
    let source = expected(rows, quote_key);
    assert!(
        table == source,
        "README's `{heading}` table differs from src/cli/reference.rs (what `dnscron man` \
         prints); make them the same:\n{}",
        difference(&table, &source)
    );
}

#[test]
fn readme_exit_codes_are_the_man_pages() {
    assert_same("## Exit codes", EXIT_CODES, false);
}

#[test]
fn readme_environment_is_the_man_pages() {
    assert_same("## Environment", ENVIRONMENT, true);
}

#[test]
fn a_changed_row_is_shown_as_the_difference() {
    let readme =
        "## Exit codes\n\n| code | meaning |\n|---|---|\n| 0 | fine \\| good |\n| 9 | gone |\n";
    let table = readme_table(readme, "## Exit codes");
    assert_eq!(
        table,
        [
            ("0".to_string(), "fine | good".to_string()),
            ("9".to_string(), "gone".to_string())
        ]
    );
    let source = [("0".to_string(), "fine | good".to_string())];
    assert_eq!(difference(&table, &source), "- | 9 | gone |\n");
    let reordered = [table[1].clone(), table[0].clone()];
    assert_eq!(
        difference(&table, &reordered),
        "the same rows in another order\n"
    );
}

/// Every variable a flag of any command reads, the token's and the test-only stamps are rows
/// of the table, and the table names nothing else besides what the logging and colour rules
/// read.
#[test]
fn the_environment_table_lists_every_variable_the_binary_reads() {
    fn flag_variables(cmd: &clap::Command, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            if let Some(env) = arg.get_env() {
                out.push(env.to_string_lossy().into_owned());
            }
        }
        for sub in cmd.get_subcommands() {
            flag_variables(sub, out);
        }
    }
    let mut read = Vec::new();
    flag_variables(&dnscron::cli::Cli::command(), &mut read);
    read.extend(
        [
            dnscron_api::TOKEN_ENV,
            "DNSCRON_PLAN_ID",
            "DNSCRON_TIMESTAMP",
            "DNSCRON_SYSTEM_RESOLVER",
            "NO_COLOR",
            "TERM",
            "RUST_LOG",
        ]
        .map(String::from),
    );
    read.sort();
    read.dedup();
    let mut listed: Vec<String> = ENVIRONMENT.iter().map(|r| r.key.to_string()).collect();
    listed.sort();
    assert_eq!(listed, read);
}
