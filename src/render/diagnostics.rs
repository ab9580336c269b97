//! Problems in the desired-state files, drawn with miette: message, `file:line:col`, a source
//! snippet with the offending value underlined, and a hint.

use std::borrow::Cow;
use std::fmt;

use dnscron_api::untrusted::escape;
use dnscron_core::config::{Diagnostic, Diagnostics};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan};

use crate::render::excerpt::Excerpt;

/// How to draw diagnostics: tests and pipes get plain text; terminals may get color.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    Color,
}

impl Style {
    /// `Color` when the caller found a terminal that shows colour (`cli::logging`).
    pub fn colored(colour: bool) -> Style {
        if colour { Style::Color } else { Style::Plain }
    }
}

/// Problems drawn in full, with the excerpt of their file; the next ones get a line each.
pub const SHOWN_IN_FULL: usize = 50;
/// Problems listed in all, in full or on one line; the rest are only counted. A generated file
/// gone wrong can hold 100,000 problems: its report stays short and takes time linear in the
/// file, and fixing the first ones shows the next on the next run (the order is by place).
pub const LISTED: usize = 500;
/// A message, label or hint longer than this many characters is cut: some quote a value, and a
/// value can be a 10 MB line.
pub const TEXT_CHARS: usize = 400;

/// The first [`SHOWN_IN_FULL`] diagnostics with their snippet, the next up to [`LISTED`] on one
/// line each, a count of the rest, then a count line. Fixed width (100 columns) so the output
/// is the same in every terminal and in snapshots.
pub fn render(diags: &Diagnostics, style: Style) -> String {
    let theme = match style {
        Style::Plain => GraphicalTheme::unicode_nocolor(),
        Style::Color => GraphicalTheme::unicode(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let mut out = String::new();
    for item in diags.items.iter().take(SHOWN_IN_FULL) {
        let report = Report::from(item);
        if handler.render_report(&mut out, &report).is_err() {
            out.push_str(&format!("error: {}\n", report.message));
        }
    }
    render_one_line_each(&mut out, &diags.items);
    let n = diags.items.len();
    out.push_str(&format!(
        "error: {n} problem{} found; nothing was sent\n",
        if n == 1 { "" } else { "s" }
    ));
    out
}

/// Warnings about valid files, one line each with its hint: they stop nothing, so they stay
/// short beside the command's own output.
pub fn render_warnings(warnings: &Diagnostics) -> String {
    let mut out = String::new();
    for item in warnings.items.iter().take(LISTED) {
        out.push_str("warning: ");
        if let Some(location) = &item.location {
            out.push_str(&format!("{location}: "));
        }
        out.push_str(&shown(&item.message));
        out.push('\n');
        if let Some(hint) = &item.hint {
            out.push_str(&format!("  hint: {}\n", shown(hint)));
        }
    }
    let unlisted = warnings.items.len().saturating_sub(LISTED);
    if unlisted > 0 {
        out.push_str(&format!("warning: …and {unlisted} more\n"));
    }
    out
}

/// The problems after the first [`SHOWN_IN_FULL`]: `file:line:col: message`, up to [`LISTED`]
/// in all, then how many are left.
fn render_one_line_each(out: &mut String, items: &[Diagnostic]) {
    let one_line = items.len().min(LISTED).saturating_sub(SHOWN_IN_FULL);
    if one_line == 0 {
        return;
    }
    out.push_str(&format!(
        "{one_line} more problem{}, one line each:\n",
        if one_line == 1 { "" } else { "s" }
    ));
    for item in items.iter().take(LISTED).skip(SHOWN_IN_FULL) {
        out.push_str("  ");
        if let Some(location) = &item.location {
            out.push_str(&format!("{location}: "));
        }
        out.push_str(&shown(&item.message));
        out.push('\n');
    }
    let unlisted = items.len().saturating_sub(LISTED);
    if unlisted > 0 {
        out.push_str(&format!(
            "  …and {unlisted} more, not listed: fix the ones above and run again to see them\n"
        ));
    }
}

/// A message, label or hint as drawn: they quote values from the file, which is untrusted
/// input, so its control characters are escaped as server text is.
fn shown(text: &str) -> Cow<'_, str> {
    match cut(text, TEXT_CHARS) {
        Cow::Borrowed(text) => escape(text),
        Cow::Owned(text) => Cow::Owned(escape(&text).into_owned()),
    }
}

/// `text` cut to its first `max_chars` characters and `…`.
pub fn cut(text: &str, max_chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => Cow::Owned(format!("{}…", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// The miette view of one diagnostic.
#[derive(Debug)]
struct Report {
    message: String,
    hint: Option<String>,
    source: Option<Excerpt>,
    label: Option<LabeledSpan>,
}

impl From<&Diagnostic> for Report {
    fn from(d: &Diagnostic) -> Self {
        let cut_owned = |text: &str| shown(text).into_owned();
        let source = match (&d.source, d.span) {
            (Some(s), Some((offset, len))) => {
                Some(Excerpt::new(s.path.display().to_string(), s, offset, len))
            }
            (None, _) | (_, None) => None,
        };
        let label = source.as_ref().map(|excerpt| {
            LabeledSpan::new_primary_with_span(d.label.as_deref().map(cut_owned), excerpt.span())
        });
        Report {
            message: cut_owned(&d.message),
            hint: d.hint.as_deref().map(cut_owned),
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
