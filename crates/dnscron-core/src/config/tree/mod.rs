//! A YAML document as a tree of located nodes. Deserializing straight into typed structs stops
//! at the first error; reading this tree instead lets the loader report every wrong value,
//! each at its own `line:col`. The tree is built from the parser's events in one pass
//! (`build`), typing scalars by the rules in `scalar`.
//!
//! granit-parser's events are the only way a file is read. A second reader for the common
//! one-line flow record item (the record-line scanner, proven against the parser's events or the
//! file re-read) once halved `validate`'s CPU at 100,000 records, but it was half of this module
//! for a gain nobody feels: a real plan waits on the API's 120 requests a minute. Issue 19 removed
//! it; it is at the tag `record-line-scanner` (commit 02e97ae), and why it was built and what it
//! saved is in docs/design/planner-performance.md.

use std::borrow::Cow;

mod build;
mod mapping;
mod presentation;
mod scalar;
mod subtree;
#[cfg(test)]
mod tests;

/// Where a node starts: 1-based line and column, byte offset and byte length in the source.
/// 32 bits each (saturating past 4 GiB, far beyond the loader's limits) halve what every node
/// and every raw value carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: u32,
    pub col: u32,
    pub offset: u32,
    pub len: u32,
}

impl Pos {
    pub(crate) fn new(line: usize, col: usize, offset: usize, len: usize) -> Pos {
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Pos {
            line: small(line),
            col: small(col),
            offset: small(offset),
            len: small(len),
        }
    }

    /// Byte range in the source.
    pub(crate) fn span(&self) -> (usize, usize) {
        (self.offset as usize, self.len as usize)
    }
}

/// A node of a file's tree. Strings borrow the file's text where YAML allows (no escapes or
/// folding): a 100,000-record zone has about 800,000 of them, and copying each was most of the
/// tree's memory.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node<'s> {
    pub value: Value<'s>,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value<'s> {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(Cow<'s, str>),
    Seq(Vec<Node<'s>>),
    Map(Vec<(Node<'s>, Node<'s>)>),
}

impl Value<'_> {
    /// How the value is named in "expected X, found Y" messages.
    pub(crate) fn kind(&self) -> String {
        match self {
            Value::Null => "nothing (null)".into(),
            Value::Bool(b) => format!("the boolean `{b}`"),
            Value::Int(i) => format!("the integer `{i}`"),
            Value::Float(f) => format!("the number `{f}`"),
            Value::Str(s) => format!("the string `{s}`"),
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
        }
    }
}

/// A YAML syntax error: message and where, if known.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SyntaxError {
    pub message: String,
    pub pos: Option<Pos>,
}

/// Every non-empty document of a file.
#[cfg(test)]
pub(super) fn parse_documents(source: &str) -> Result<Vec<Node<'_>>, SyntaxError> {
    build::documents(source)
}

pub(crate) use build::limits::MAX_SCALAR_BYTES;
pub(crate) use build::{documents_presented, documents_streaming};
pub(crate) use presentation::{Comment, Construct, Presentation};

/// Byte offset of a 1-based line and (character) column.
pub(super) fn byte_offset(source: &str, line: usize, col: usize) -> usize {
    let line_start: usize = source
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = source.get(line_start..).unwrap_or_default();
    let in_line: usize = rest
        .chars()
        .take(col.saturating_sub(1))
        .take_while(|c| *c != '\n')
        .map(char::len_utf8)
        .sum();
    line_start + in_line
}
