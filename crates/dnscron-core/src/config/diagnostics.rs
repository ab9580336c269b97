//! Every problem found in the desired-state files, rendered with miette: message,
//! `file:line:col`, a source snippet with the offending value underlined, and a hint.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};

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
    span: Option<(usize, usize)>,
    source: Option<Arc<SourceFile>>,
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

/// How to draw diagnostics: tests and pipes get plain text; terminals may get color.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    Color,
}

impl Style {
    /// Color only for a terminal and without `NO_COLOR`.
    pub fn for_stderr() -> Style {
        use std::io::IsTerminal;
        if std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal() {
            Style::Color
        } else {
            Style::Plain
        }
    }
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

    /// Every diagnostic with its snippet, then a count line. Fixed width (100 columns) so the
    /// output is the same in every terminal and in snapshots.
    pub fn render(&self, style: Style) -> String {
        let theme = match style {
            Style::Plain => GraphicalTheme::unicode_nocolor(),
            Style::Color => GraphicalTheme::unicode(),
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(100)
            .with_links(false);
        let mut out = String::new();
        for item in &self.items {
            let report = Report::from(item);
            if handler.render_report(&mut out, &report).is_err() {
                out.push_str(&format!("error: {}\n", item.message));
            }
        }
        let n = self.items.len();
        out.push_str(&format!(
            "error: {n} problem{} found; nothing was sent\n",
            if n == 1 { "" } else { "s" }
        ));
        out
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(Style::Plain))
    }
}

impl std::error::Error for Diagnostics {}

/// The miette view of one diagnostic.
#[derive(Debug)]
struct Report {
    message: String,
    hint: Option<String>,
    source: Option<NamedSource<String>>,
    label: Option<LabeledSpan>,
}

impl From<&Diagnostic> for Report {
    fn from(d: &Diagnostic) -> Self {
        let source = d.source.as_ref().map(|s| {
            NamedSource::new(s.path.display().to_string(), s.text.clone()).with_language("yaml")
        });
        let label = d.span.map(|(offset, len)| {
            LabeledSpan::new_primary_with_span(d.label.clone(), SourceSpan::new(offset.into(), len))
        });
        Report {
            message: d.message.clone(),
            hint: d.hint.clone(),
            source,
            label,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.hint
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.label
            .clone()
            .map(|l| Box::new(std::iter::once(l)) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}
