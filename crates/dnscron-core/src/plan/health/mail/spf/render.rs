//! The lookup tree as lines a person can follow: one record per line, indented under the record
//! that includes it, with its own lookups and the running total a receiver has reached there.
//!
//! ```text
//! example.com                        1   total 1
//!   include:_spf.provider.example    3   total 4   from DNS
//!     include:_spf2.provider.example 2   total 6   from DNS
//! ```

use dnscron_api::untrusted::escape;

use super::hosts::HostVerdict;
use super::tree::{Node, State};

struct Row {
    label: String,
    /// `?` for a record not followed, `-` for one that can't be evaluated.
    lookups: String,
    total: Option<usize>,
    notes: Vec<String>,
}

/// The tree's lines, aligned in columns, without a final line break.
pub(super) fn lines(root: &Node) -> String {
    let mut rows = Vec::new();
    let mut running = 0;
    collect(root, 0, &mut running, &mut rows);
    let label = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0);
    let lookups = rows.iter().map(|r| r.lookups.len()).max().unwrap_or(1);
    let total = rows
        .iter()
        .filter_map(|r| r.total.map(|t| format!("total {t}").len()))
        .max()
        .unwrap_or(0);
    let drawn: Vec<String> = rows
        .iter()
        .map(|r| {
            let t = r.total.map(|t| format!("total {t}")).unwrap_or_default();
            let line = format!(
                "{:<label$}  {:>lookups$}   {t:<total$}   {}",
                r.label,
                r.lookups,
                r.notes.join("; ")
            );
            line.trim_end().to_string()
        })
        .collect();
    drawn.join("\n")
}

fn collect(node: &Node, depth: usize, running: &mut usize, rows: &mut Vec<Row>) {
    let counted = node.state == State::Counted;
    if counted {
        *running += node.lookups;
    }
    let mut notes = Vec::new();
    if let Some(state) = state_words(&node.state) {
        notes.push(state);
    }
    if node.from_dns && counted {
        notes.push("from DNS".into());
    }
    notes.extend(host_words(node));
    rows.push(Row {
        label: format!("{}{}{}", "  ".repeat(depth), node.via, node.domain),
        lookups: match &node.state {
            State::Counted => node.lookups.to_string(),
            State::Unfollowed(_) => "?".into(),
            State::NoSpf { .. } | State::Loop | State::Multiple | State::Invalid(_) => "-".into(),
        },
        total: counted.then_some(*running),
        notes,
    });
    for child in &node.children {
        collect(child, depth + 1, running, rows);
    }
}

fn state_words(state: &State) -> Option<String> {
    match state {
        State::Counted => None,
        State::Unfollowed(why) => Some(format!("not followed: {}", why.words())),
        State::NoSpf { void: true } => Some("void: no such name or no TXT record".into()),
        State::NoSpf { void: false } => Some("no SPF record".into()),
        State::Loop => Some("loop: already being evaluated".into()),
        State::Multiple => Some("several SPF records".into()),
        State::Invalid(why) => Some(format!("invalid: {why}")),
    }
}

/// `void: a, mx:mail.example`, `mx:big.example: 12 MX hosts`, `not checked: a:x.example (…)`.
fn host_words(node: &Node) -> Vec<String> {
    let mut void = Vec::new();
    let mut out = Vec::new();
    for note in &node.hosts {
        let word = escape(&note.word);
        match &note.verdict {
            HostVerdict::Void => void.push(word.into_owned()),
            HostVerdict::TooManyMx(n) => out.push(format!("{word}: {n} MX hosts")),
            HostVerdict::Unchecked(why) => {
                out.push(format!("not checked: {word} ({})", why.words()));
            }
        }
    }
    if !void.is_empty() {
        out.insert(0, format!("void: {}", void.join(", ")));
    }
    out
}
