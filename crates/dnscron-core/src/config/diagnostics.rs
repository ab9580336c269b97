//! Every problem found in the desired-state files: message, `file:line:col`, the span of the
//! offending value in its file, a label and a hint. The `dnscron` binary draws them.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use super::model::Location;
use super::tree::Pos;

/// A file's text, shared by every diagnostic that points into it.
#[derive(Debug)]
pub struct SourceFile {
    /// Shared with the `Location` of everything declared in the file.
    pub path: Arc<Path>,
    pub text: String,
    /// Built on the first lookup, once per file: finding a diagnostic's line by scanning from
    /// the file's start made reporting n problems cost n × the file's size.
    line_starts: OnceLock<Vec<usize>>,
}

impl SourceFile {
    pub fn new(path: Arc<Path>, text: String) -> SourceFile {
        SourceFile {
            path,
            text,
            line_starts: OnceLock::new(),
        }
    }

    /// Where every line starts. A line ends at `\n`, `\r\n` or a lone `\r`, as YAML reads
    /// them (and miette, which draws the excerpts).
    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let bytes = self.text.as_bytes();
            let mut starts = vec![0];
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\n' => starts.push(i + 1),
                    b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                        starts.push(i + 2);
                        i += 1;
                    }
                    b'\r' => starts.push(i + 1),
                    _ => {}
                }
                i += 1;
            }
            starts
        })
    }

    /// The number of lines (a text ending in a line break has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// The 0-based line that holds byte `offset` (a line break belongs to the line it ends).
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts()
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    /// Line `line`'s bytes: where it starts, where its text ends and where the next line
    /// starts (after the line break); `None` past the last line.
    pub fn line_bounds(&self, line: usize) -> Option<LineBounds> {
        let starts = self.line_starts();
        let start = *starts.get(line)?;
        let next = starts.get(line + 1).copied().unwrap_or(self.text.len());
        let text = &self.text.as_bytes()[start..next];
        let break_len = match text {
            [.., b'\r', b'\n'] => 2,
            [.., b'\n' | b'\r'] => 1,
            _ => 0,
        };
        Some(LineBounds {
            start,
            end: next - break_len,
            next,
        })
    }
}

/// Byte offsets of one line in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineBounds {
    pub start: usize,
    /// Where the line's text ends: its line break, or the end of the file.
    pub end: usize,
    /// Where the next line starts (the end of the file for the last line).
    pub next: usize,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_crlf_and_lone_cr() {
        let source = SourceFile::new(Path::new("f").into(), "a\r\nbb\rc\n\nd".to_string());
        assert_eq!(source.line_count(), 5);
        let offsets_to_lines: Vec<usize> =
            (0..=source.text.len()).map(|o| source.line_of(o)).collect();
        assert_eq!(offsets_to_lines, [0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 4]);
        let bounds = |start, end, next| Some(LineBounds { start, end, next });
        assert_eq!(source.line_bounds(0), bounds(0, 1, 3));
        assert_eq!(source.line_bounds(1), bounds(3, 5, 6));
        assert_eq!(source.line_bounds(2), bounds(6, 7, 8));
        assert_eq!(source.line_bounds(3), bounds(8, 8, 9));
        assert_eq!(source.line_bounds(4), bounds(9, 10, 10));
        assert_eq!(source.line_bounds(5), None);
    }
}
