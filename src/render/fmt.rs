//! `fmt`'s views: the unified diff `--check` prints, and the note on a file left as written.
//! Both show text from a file, so every line goes through `untrusted::escape`.

use std::fmt::Write as _;
use std::path::Path;

use dnscron_api::untrusted;
use dnscron_core::config::fmt::{LeftAlone, Reason};
use similar::TextDiff;

/// A unified diff (3 lines of context) from the file as written to its canonical form.
pub(crate) fn diff(path: &Path, before: &str, after: &str) -> String {
    let path = untrusted::escape(&path.display().to_string()).into_owned();
    let mut out = format!("--- {path}\n+++ {path} (formatted)\n");
    let diff = TextDiff::from_lines(before, after);
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        let _ = writeln!(out, "{}", hunk.header());
        for change in hunk.iter_changes() {
            let line = change.value();
            let line = line.strip_suffix('\n').unwrap_or(line);
            let _ = writeln!(out, "{}{}", change.tag(), untrusted::escape(line));
        }
    }
    out
}

/// `path:line:col: left as it is: why`.
pub(crate) fn left_alone(path: &Path, left: &LeftAlone) -> String {
    format!(
        "{}:{}:{}: left as it is: {}\n",
        untrusted::escape(&path.display().to_string()),
        left.line,
        left.col,
        reason(&left.reason)
    )
}

fn reason(reason: &Reason) -> String {
    match reason {
        Reason::Anchor => {
            "it uses anchors and aliases (`&name`, `*name`); fmt does not rewrite what an alias \
             copies"
                .into()
        }
        Reason::Tag => "it uses a tag (`!!str`, …), which rewriting the value would drop".into(),
        Reason::FlowDocument => {
            "the document is a flow mapping (`{zone: …, records: […]}`), where fmt can't write \
             its one-item-a-line list; write the document in block style (`key: value` lines)"
                .into()
        }
        Reason::ItemLayout => {
            "fmt could not find where a record item starts or what it holds (a bug in dnscron: \
             please report it)"
                .into()
        }
        Reason::MeaningWouldChange => {
            "formatted, it would declare something else (a bug in dnscron: please report it)".into()
        }
        Reason::Syntax(message) => {
            format!("the YAML reader refused it: {}", untrusted::escape(message))
        }
    }
}
