//! The `ignore:` rules `dnscron export --to bind` writes as comments (`; dnscron-ignore: {…}`),
//! read back so that dnscron's own round trip keeps them. A comment that starts with
//! `dnscron-ignore` is ours whatever its spacing or case (a hand edit changes those); one that
//! is not such a rule, or that the loader would refuse, is a problem of the file at its line,
//! never skipped: a rule lost would let the first plan delete what it kept, and a rule the
//! loader refuses would have the import write files that don't validate.

use std::path::Path;
use std::sync::Arc;

use crate::config::glob::rule_name;
use crate::config::model::{IgnoreRule, Location};
use crate::dns::{self, RecordType};
use crate::import::SourceIgnore;
use crate::import::from_files::{Held, SourceZone, assemble};

use super::problem::{ProblemKind, SyntaxError};

/// How `export` starts the comment; the rule follows as one JSON object.
pub(crate) const IGNORE_COMMENT: &str = "; dnscron-ignore: ";

const MARKER: &str = "dnscron-ignore";

/// A rule read from a comment, with where the comment starts.
pub(super) struct CommentRule {
    line: usize,
    col: usize,
    pub(super) rule: SourceIgnore,
}

/// The rules of the comments of `text` (the file itself, not its includes: export writes them
/// at its top); the comments that are not rules become `errors`.
pub(super) fn comment_rules(
    path: &Path,
    text: &str,
    errors: &mut Vec<SyntaxError>,
) -> Vec<CommentRule> {
    let mut rules = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some((col, comment)) = comment_of(line) else {
            continue;
        };
        let Some(after) = strip_marker(comment.trim_start()) else {
            continue;
        };
        let line = index + 1;
        match rule(after) {
            Ok((name, rtype, content)) => rules.push(CommentRule {
                line,
                col,
                rule: SourceIgnore {
                    name,
                    rtype,
                    content,
                    origin: format!(
                        "the `; dnscron-ignore:` comment at {}:{line}",
                        path.display()
                    ),
                },
            }),
            Err(reason) => errors.push(SyntaxError {
                file: path.to_path_buf(),
                line,
                col,
                kind: ProblemKind::BadIgnoreComment { reason },
            }),
        }
    }
    rules
}

/// The comment of a physical line (its column, its text after the `;`): the first `;` outside
/// a quoted string, a `\` escaping the next character, as the lexer reads it.
fn comment_of(line: &str) -> Option<(usize, &str)> {
    let mut quoted = false;
    let mut escaped = false;
    for (col, (at, c)) in line.char_indices().enumerate() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => return Some((col + 1, &line[at + 1..])),
            _ => {}
        }
    }
    None
}

fn strip_marker(comment: &str) -> Option<&str> {
    let head = comment.get(..MARKER.len())?;
    head.eq_ignore_ascii_case(MARKER)
        .then(|| &comment[MARKER.len()..])
}

type Rule = (String, Option<RecordType>, Option<String>);

/// `: {json}` after the marker as a rule, with the loader's checks of a rule alone.
fn rule(after: &str) -> Result<Rule, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Json {
        name: String,
        #[serde(rename = "type")]
        rtype: Option<String>,
        content: Option<String>,
    }
    let Some(json) = after.trim_start().strip_prefix(':') else {
        return Err(
            "`dnscron-ignore` is followed by `:` and one rule, e.g. `; dnscron-ignore: {\"name\":\"@\",\"type\":\"MX\"}`"
                .into(),
        );
    };
    let json: Json = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if rule_name(&json.name).is_none() {
        return Err(
            "its `name` is empty; write a glob such as `_acme-challenge*`, or `*` for every name"
                .into(),
        );
    }
    let rtype = match json.rtype.as_deref().map(RecordType::parse) {
        None => None,
        Some(Some(rtype)) => Some(rtype),
        Some(None) => {
            return Err(format!(
                "`{}` is not a record type dnscron manages",
                json.rtype.unwrap_or_default()
            ));
        }
    };
    Ok((json.name, rtype, json.content))
}

/// A rule that would also match a record the file declares is refused at its comment, as the
/// loader refuses it in the imported file: which of the two was meant is for the file's author
/// to say. Checked against the records the import writes (not the SOA, the apex NS or a record
/// automation rewrites, which it leaves out).
pub(super) fn refuse_declared(
    path: &Path,
    zone: &SourceZone,
    rules: &[CommentRule],
) -> Vec<SyntaxError> {
    if rules.is_empty() {
        return Vec::new();
    }
    let declared = assemble(zone.clone()).zone.records;
    let file: Arc<Path> = Arc::from(path);
    let mut errors = Vec::new();
    for comment in rules {
        let matcher = IgnoreRule {
            name: rule_name(&comment.rule.name).unwrap_or_default(),
            rtype: comment.rule.rtype,
            content: comment.rule.content.clone(),
            location: Location {
                file: Arc::clone(&file),
                line: comment.line,
                col: comment.col,
            },
        };
        let Some(record) = declared
            .iter()
            .find(|r| matcher.matches(&r.name, r.rtype, &r.canonical))
        else {
            continue;
        };
        let at = zone.records.iter().find(|source| {
            let Held::Content(content) = &source.content else {
                return false;
            };
            source.rtype == record.rtype.as_str()
                && dns::live_name_to_relative(&source.owner, &zone.zone) == record.name
                && dns::canonical_live_content(record.rtype, content, &zone.zone)
                    == record.canonical
        });
        errors.push(SyntaxError {
            file: path.to_path_buf(),
            line: comment.line,
            col: comment.col,
            kind: ProblemKind::IgnoresDeclared {
                record: format!("{} {} {}", record.name, record.rtype, record.canonical),
                at: at.map(|source| format!("{}:{}", source.at.file.display(), source.at.line)),
            },
        });
    }
    errors
}
