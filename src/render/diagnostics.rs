//! Problems in the desired-state files, drawn with miette: message, `file:line:col`, a source
//! snippet with the offending value underlined, and a hint.

use std::fmt;

use dnscron_core::config::{Diagnostic, Diagnostics};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};

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

/// Every diagnostic with its snippet, then a count line. Fixed width (100 columns) so the
/// output is the same in every terminal and in snapshots.
pub fn render(diags: &Diagnostics, style: Style) -> String {
    let theme = match style {
        Style::Plain => GraphicalTheme::unicode_nocolor(),
        Style::Color => GraphicalTheme::unicode(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let mut out = String::new();
    for item in &diags.items {
        let report = Report::from(item);
        if handler.render_report(&mut out, &report).is_err() {
            out.push_str(&format!("error: {}\n", item.message));
        }
    }
    let n = diags.items.len();
    out.push_str(&format!(
        "error: {n} problem{} found; nothing was sent\n",
        if n == 1 { "" } else { "s" }
    ));
    out
}

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
