//! `fmt`: the desired-state files in their canonical form. A zone's or record set's records are
//! put in the order `import` writes them (`order`), each written by the writer `import` uses
//! (`text`): one spelling of each value (the relative lower-case name, the content's canonical
//! wire form, the TTL as a number) and its quoting. Nothing else in a file is touched.
//!
//! Two rules hold it. No comment is lost: comments come from the same YAML reader as the data
//! (`tree::documents_presented`), and the file is rewritten as a splice of its own text, each
//! item moving with the comment lines above it. No meaning changes: every file set is reloaded
//! after formatting and must give the same desired state, locations aside (`meaning`); a file
//! that would not is kept as it was.
//!
//! Every layout the loader reads is rewritten: block or flow items, a flow `records:` list,
//! folded and literal scalars, items and scalars over several lines, `-` alone on its line,
//! Windows line ends (kept). Only anchors and aliases, and tags, leave a file as written (with
//! where), and a `records:` list inside a flow mapping document (`{zone: …, records: […]}`),
//! where a block list can't stand.

mod meaning;
pub(crate) mod order;
pub(crate) mod records;
pub(crate) mod text;

use std::path::PathBuf;

use super::diagnostics::Diagnostics;
use super::load::load_texts;
use super::tree::{self, Construct};

/// Why a file is left as it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Anchors and aliases (`&name`, `*name`, merge keys): what an alias copies would be
    /// rewritten apart from it. (An alias always follows its anchor, which is named.)
    Anchor,
    /// An explicit tag (`!!str`): respelling a value would drop it.
    Tag,
    /// The document is a flow mapping (`{zone: …, records: […]}`): a block list can't stand
    /// inside it.
    FlowDocument,
    /// A record item whose start or fields `fmt` could not find where YAML put them. A defect
    /// of `fmt`, like `MeaningWouldChange`: the file is kept rather than guessed at.
    ItemLayout,
    /// Reloaded, the formatted file would declare something else. A defect of `fmt`: the file
    /// is kept rather than changed in meaning.
    MeaningWouldChange,
    /// The YAML reader refused the file when asked to keep its comments.
    Syntax(String),
}

/// Where and why a file is left as written (`line`, `col` 1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftAlone {
    pub line: usize,
    pub col: usize,
    pub reason: Reason,
}

/// What `fmt` makes of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formatted {
    /// Already in canonical form.
    Unchanged,
    /// The file's canonical form.
    Rewritten(String),
    LeftAlone(LeftAlone),
}

/// One file: its path, its text as read, and what `fmt` makes of it.
#[derive(Clone, Debug)]
pub struct FileFormat {
    pub path: PathBuf,
    pub original: String,
    pub formatted: Formatted,
}

/// Formats every file of a desired state. Invalid files give the loader's diagnostics and no
/// result: `fmt` only rewrites what it can prove it reads the same afterwards.
pub fn format_texts(files: Vec<(PathBuf, String)>) -> Result<Vec<FileFormat>, Diagnostics> {
    let before = load_texts(&files)?;
    let mut results: Vec<FileFormat> = files
        .into_iter()
        .map(|(path, original)| {
            let formatted = format_source(&original);
            FileFormat {
                path,
                original,
                formatted,
            }
        })
        .collect();
    let rewritten = |r: &FileFormat| matches!(r.formatted, Formatted::Rewritten(_));
    if results.iter().any(rewritten) && !meaning::kept(&before, &texts(&results, None)) {
        // Found file by file, so that the others are still formatted.
        for i in 0..results.len() {
            if rewritten(&results[i]) && !meaning::kept(&before, &texts(&results, Some(i))) {
                results[i].formatted = Formatted::LeftAlone(LeftAlone {
                    line: 1,
                    col: 1,
                    reason: Reason::MeaningWouldChange,
                });
            }
        }
    }
    Ok(results)
}

/// The files as `fmt` would leave them: every rewrite, or only that of file `only`.
fn texts(results: &[FileFormat], only: Option<usize>) -> Vec<(PathBuf, String)> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let text = match &r.formatted {
                Formatted::Rewritten(text) if only.is_none_or(|o| o == i) => text.clone(),
                Formatted::Rewritten(_) | Formatted::Unchanged | Formatted::LeftAlone(_) => {
                    r.original.clone()
                }
            };
            (r.path.clone(), text)
        })
        .collect()
}

/// The canonical form of one file's text, read alone (the meaning check needs the others).
pub fn format_source(source: &str) -> Formatted {
    match splice(source) {
        Ok(text) if text == source => Formatted::Unchanged,
        Ok(text) => Formatted::Rewritten(text),
        Err(left) => Formatted::LeftAlone(left),
    }
}

fn splice(source: &str) -> Result<String, LeftAlone> {
    if source.contains('\r') {
        // YAML reads CR LF (and a lone CR) as a line break: the file is formatted with `\n`
        // and written back with the line ends it had.
        let unix = source.replace("\r\n", "\n").replace('\r', "\n");
        let text = splice(&unix)?;
        return Ok(if source.contains("\r\n") {
            text.replace('\n', "\r\n")
        } else {
            text
        });
    }
    let (docs, presentation) = tree::documents_presented(source).map_err(|e| LeftAlone {
        line: e.pos.map_or(1, |p| p.line as usize),
        col: e.pos.map_or(1, |p| p.col as usize),
        reason: Reason::Syntax(e.message),
    })?;
    if let Some((construct, pos)) = presentation.constructs.first() {
        let reason = match construct {
            Construct::Anchor | Construct::Alias => Reason::Anchor,
            Construct::Tag => Reason::Tag,
        };
        return Err(LeftAlone {
            line: pos.line as usize,
            col: pos.col as usize,
            reason,
        });
    }
    let mut out = String::with_capacity(source.len());
    let mut done = 0;
    for doc in &docs {
        if let Some(splice) = records::document(source, doc, &presentation)? {
            out.push_str(&source[done..splice.range.start]);
            out.push_str(&splice.text);
            done = splice.range.end;
        }
    }
    out.push_str(&source[done..]);
    Ok(out)
}

#[cfg(test)]
mod tests;
