//! Every problem found in the desired-state files: message, `file:line:col`, the span of the
//! offending value in its file, a label and a hint. The `dnscron` binary draws them.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::model::Location;
use super::tree::Pos;

/// A file's text, shared by every diagnostic that points into it.
#[derive(Debug)]
pub struct SourceFile {
    /// Shared with the `Location` of everything declared in the file.
    pub path: Arc<Path>,
    pub text: String,
}

/// One problem.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub message: String,
    /// `None` for problems with no place in a file (a missing path, an empty directory).
    pub location: Option<Location>,
    /// Short text under the underlined value.
    pub label: Option<String>,
    pub hint: Option<String>,
    /// Byte offset and length in the file.
    pub span: Option<(usize, usize)>,
    /// The file `span` points into.
    pub source: Option<Arc<SourceFile>>,
}

impl Diagnostic {
    /// A problem not tied to a place in a file.
    pub fn general(message: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            location: None,
            label: None,
            hint: None,
            span: None,
            source: None,
        }
    }

    /// A problem at `pos` in `source`.
    pub(crate) fn at(source: &Arc<SourceFile>, pos: Pos, message: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            location: Some(Location {
                file: source.path.clone(),
                line: pos.line as usize,
                col: pos.col as usize,
            }),
            label: None,
            hint: None,
            span: Some(pos.span()),
            source: Some(Arc::clone(source)),
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_opt_hint(mut self, hint: Option<String>) -> Self {
        self.hint = hint;
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    fn sort_key(&self) -> (Option<&Path>, usize, usize) {
        match &self.location {
            Some(l) => (Some(&*l.file), l.line, l.col),
            None => (None, 0, 0),
        }
    }
}

/// All problems found, sorted by file, line and column.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn sort(&mut self) {
        self.items.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
}

/// One line per problem (`file:line:col: message`, the hint after it), then a count line. The
/// `dnscron` binary draws them with source snippets instead.
impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for item in &self.items {
            if let Some(location) = &item.location {
                write!(f, "{location}: ")?;
            }
            f.write_str(&item.message)?;
            if let Some(label) = &item.label {
                write!(f, " ({label})")?;
            }
            if let Some(hint) = &item.hint {
                write!(f, "; hint: {hint}")?;
            }
            writeln!(f)?;
        }
        let n = self.items.len();
        writeln!(f, "{n} problem{} found", if n == 1 { "" } else { "s" })
    }
}

impl std::error::Error for Diagnostics {}
