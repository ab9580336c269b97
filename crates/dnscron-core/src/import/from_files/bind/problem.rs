//! Why a zone file can't be read, located: every problem of a file is collected, not just the
//! first.

use std::path::PathBuf;

/// A problem at a line and column of the file being read (the file is added by the reader).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Problem {
    pub(super) line: usize,
    pub(super) col: usize,
    pub(super) kind: ProblemKind,
}

impl Problem {
    pub(super) fn new(line: usize, col: usize, kind: ProblemKind) -> Self {
        Problem { line, col, kind }
    }
}

/// A located problem of a zone file.
pub type SyntaxError = super::super::Located<ProblemKind>;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProblemKind {
    #[error("a quoted string does not end on its line")]
    UnclosedQuote,
    #[error("this `(` is never closed")]
    UnclosedParen,
    #[error("a `)` without an open `(`")]
    StrayCloseParen,
    #[error("`{text}` is not a TTL (seconds, or units such as 1D, 2h30m, 1w)")]
    BadTtl { text: String },
    #[error("the record has no type")]
    MissingType,
    #[error("the first record has a blank owner, and there is no previous owner to repeat")]
    NoPreviousOwner,
    #[error("no TTL: neither the record, a `$TTL` nor an earlier record gives one")]
    NoTtl,
    #[error("{rtype} takes {want}, found {found} field{}", if *found == 1 { "" } else { "s" })]
    FieldCount {
        rtype: String,
        want: &'static str,
        found: usize,
    },
    #[error("`{text}` has an escape that is not `\\X` or `\\DDD` (000 to 255)")]
    BadEscape { text: String },
    #[error("a character-string of {octets} octets (at most 255)")]
    LongCharacterString { octets: usize },
    #[error("the relative name `{name}` comes before any origin is known")]
    NoOrigin { name: String },
    #[error("unknown directive `{name}`")]
    UnknownDirective { name: String },
    #[error("{directive} takes {want}")]
    DirectiveArguments {
        directive: &'static str,
        want: &'static str,
    },
    #[error(
        "$INCLUDE {}: it is outside {}, the folder of the file that names it (symlinks resolved)",
        path.display(),
        folder.display()
    )]
    IncludeOutside { path: PathBuf, folder: PathBuf },
    #[error("$INCLUDE {}: {reason}", path.display())]
    IncludeUnreadable { path: PathBuf, reason: String },
    #[error("$INCLUDE {}: the file is already being read (an include loop)", path.display())]
    IncludeLoop { path: PathBuf },
    #[error("$GENERATE: {reason}")]
    Generate { reason: String },
    #[error("the file is not UTF-8 text")]
    NotUtf8,
    #[error(
        "this `; dnscron-ignore:` comment is not an `ignore:` rule as export writes it: {reason}"
    )]
    BadIgnoreComment { reason: String },
    #[error(
        "this `; dnscron-ignore:` rule also matches `{record}`, which the file declares{}: a record is either managed or ignored; remove the record or narrow the rule",
        at.as_ref().map(|at| format!(" at {at}")).unwrap_or_default()
    )]
    IgnoresDeclared { record: String, at: Option<String> },
}
