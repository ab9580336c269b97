//! The few lines of a file a diagnostic's snippet shows, copied out of the file so miette never
//! sees the whole text: miette scans its source from the start for every snippet (n problems
//! cost n × the file's size) and pads the underline with a `{:width$}` that panics past column
//! 65,535. Lines too long to show are cut to a window around the problem, with `…` where text
//! was left out. A file is untrusted input (a pull request's file included): its control
//! characters are drawn escaped as server text is (`untrusted`), so an ESC byte in a comment
//! can't rewrite the terminal and a tab shows where it stands.

use dnscron_api::untrusted::{escape_char, is_unsafe_char};
use dnscron_core::config::{LineBounds, SourceFile};
use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// A line longer than this many characters is cut to a window.
const LONG_LINE_CHARS: usize = 120;
/// Characters a cut line keeps before the problem's column.
const BEFORE_CHARS: usize = 30;
/// Characters a cut line keeps in all (the underline is cut at the window's end).
const WINDOW_CHARS: usize = 80;
/// A value spanning more lines than this is underlined on its first line only.
const MAX_SPAN_LINES: usize = 8;

const ELLIPSIS: &str = "…";

/// The lines around one span, as miette reads them, numbered as in the file.
#[derive(Debug)]
pub(crate) struct Excerpt {
    name: String,
    text: String,
    /// The file's 0-based line number of `text`'s first line.
    first_line: usize,
    /// The span, in `text`.
    span: SourceSpan,
    /// The span's 0-based line in `text` and its byte column in the file, which the header
    /// shows instead of the column in `text` (a cut or escaped line is not the file's).
    header_column: (usize, usize),
}

impl Excerpt {
    /// The excerpt around the bytes `offset..offset + len` of `source`.
    pub(crate) fn new(name: String, source: &SourceFile, offset: usize, len: usize) -> Excerpt {
        let text = source.text.as_str();
        let start = floor_boundary(text, offset.min(text.len()));
        let mut end = floor_boundary(text, offset.saturating_add(len).min(text.len())).max(start);
        let first = source.line_of(start);
        let mut last = source.line_of(end.saturating_sub(1).max(start));
        let region = |last: usize| {
            (first.saturating_sub(1)..=last + 1)
                .filter_map(|l| source.line_bounds(l).map(|b| (l, b)))
        };
        let first_line_end = source.line_bounds(first).map_or(end, |b| b.end.max(start));
        if last - first >= MAX_SPAN_LINES {
            (end, last) = (first_line_end, first);
        }
        let long = region(last).any(|(_, b)| is_long(&text[b.start..b.end]));
        if long && last > first {
            (end, last) = (first_line_end, first);
        }
        let lines: Vec<(usize, LineBounds)> = region(last).collect();
        let first_line = lines.first().map_or(first, |(l, _)| *l);
        let column = source
            .line_bounds(first)
            .map_or(0, |b| start - b.start.min(start));
        let (text, span) = if long {
            cut(text, &lines, first, (start, end))
        } else {
            with_lf_breaks(text, &lines, (start, end))
        };
        let (text, span) = escape_controls(text, span);
        Excerpt {
            name,
            text,
            first_line,
            span,
            header_column: (first - first_line, column),
        }
    }

    pub(crate) fn span(&self) -> SourceSpan {
        self.span
    }
}

/// `lines` copied with a LF after each that has a line break (miette breaks lines at LF only: a file of lone CR
/// breaks would be drawn as one line), and the span moved to match.
fn with_lf_breaks(
    text: &str,
    lines: &[(usize, LineBounds)],
    (start, end): (usize, usize),
) -> (String, SourceSpan) {
    let mut out = String::new();
    let (mut from, mut to) = (None, None);
    for (_, b) in lines {
        let at = |p: usize| out.len() + (p.min(b.end) - b.start) + usize::from(p > b.end);
        if (b.start..=b.next).contains(&start) && from.is_none() {
            from = Some(at(start));
        }
        if (b.start..=b.next).contains(&end) && to.is_none() {
            to = Some(at(end));
        }
        out.push_str(&text[b.start..b.end]);
        if b.next > b.end {
            out.push('\n');
        }
    }
    let from = from.unwrap_or(0);
    let to = to.unwrap_or(out.len()).max(from);
    (out, SourceSpan::new(from.into(), to - from))
}

/// Every line of `lines` that is long cut to the window around the span on line `primary`;
/// short lines whole.
fn cut(
    text: &str,
    lines: &[(usize, LineBounds)],
    primary: usize,
    (start, end): (usize, usize),
) -> (String, SourceSpan) {
    let primary_bounds = lines.iter().find(|(l, _)| *l == primary).map_or(
        LineBounds {
            start,
            end,
            next: end,
        },
        |(_, b)| *b,
    );
    let window_start = back_chars(text, primary_bounds.start, start, BEFORE_CHARS);
    let window_end = forward_chars(text, window_start, primary_bounds.end, WINDOW_CHARS);
    // Other long lines are cut at the same byte offsets from their start, so that columns
    // roughly line up without counting the characters of a long line.
    let relative = (
        window_start - primary_bounds.start,
        window_end - primary_bounds.start,
    );
    let mut out = String::new();
    let mut span = SourceSpan::new(0.into(), 0);
    for (line, b) in lines {
        let line_text = &text[b.start..b.end];
        let (from, to) = if *line == primary {
            (window_start, window_end)
        } else if is_long(line_text) {
            let at = |rel: usize| floor_boundary(text, (b.start + rel).min(b.end));
            (at(relative.0), at(relative.1))
        } else {
            (b.start, b.end)
        };
        if from > b.start {
            out.push_str(ELLIPSIS);
        }
        if *line == primary {
            let at = |x: usize| out.len() + (x.clamp(from, to) - from);
            span = SourceSpan::new(at(start).into(), at(end) - at(start));
        }
        out.push_str(&text[from..to]);
        if to < b.end {
            out.push_str(ELLIPSIS);
        }
        out.push_str(&text[b.end..b.next]);
    }
    (out, span)
}

/// `text` with every character that must not reach a terminal escaped (`\u{1b}`), line breaks
/// kept, and the span moved to match.
fn escape_controls(text: String, span: SourceSpan) -> (String, SourceSpan) {
    let unsafe_char = |c: char| c != '\n' && is_unsafe_char(c);
    if !text.chars().any(unsafe_char) {
        return (text, span);
    }
    let (start, end) = (span.offset(), span.offset() + span.len());
    let mut out = String::with_capacity(text.len() + 16);
    let (mut from, mut to) = (None, None);
    for (at, c) in text.char_indices() {
        if at == start {
            from = Some(out.len());
        }
        if at == end {
            to = Some(out.len());
        }
        if unsafe_char(c) {
            out.push_str(&escape_char(c));
        } else {
            out.push(c);
        }
    }
    let from = from.unwrap_or(out.len());
    let to = to.unwrap_or(out.len()).max(from);
    (out, SourceSpan::new(from.into(), to - from))
}

/// Longer than [`LONG_LINE_CHARS`] characters, counting the characters of short lines only.
fn is_long(line: &str) -> bool {
    line.len() > LONG_LINE_CHARS * 4
        || (line.len() > LONG_LINE_CHARS && line.chars().count() > LONG_LINE_CHARS)
}

/// The offset `n` characters before `at`, not before `floor`.
fn back_chars(text: &str, floor: usize, at: usize, n: usize) -> usize {
    text[floor..at]
        .char_indices()
        .rev()
        .take(n)
        .last()
        .map_or(at, |(i, _)| floor + i)
}

/// The offset `n` characters after `at`, not after `ceiling`.
fn forward_chars(text: &str, at: usize, ceiling: usize, n: usize) -> usize {
    text[at..ceiling]
        .char_indices()
        .nth(n)
        .map_or(ceiling, |(i, _)| at + i)
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        // The header's `line:col` comes from a read without context lines.
        let (line, column) = self.header_column;
        let column = if context_lines_before == 0 && inner.line() == line {
            column
        } else {
            inner.column()
        };
        let contents = MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            column,
            inner.line_count(),
        )
        .with_language("yaml");
        Ok(Box::new(contents))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn excerpt(text: &str, offset: usize, len: usize) -> Excerpt {
        let source = SourceFile::new(Path::new("f.yaml").into(), text.to_string());
        Excerpt::new("f.yaml".into(), &source, offset, len)
    }

    fn spanned(e: &Excerpt) -> &str {
        &e.text[e.span.offset()..e.span.offset() + e.span.len()]
    }

    /// What the header shows: the 1-based line and byte column of the span.
    fn header(e: &Excerpt) -> (usize, usize) {
        let read = e.read_span(&e.span, 0, 0).unwrap();
        (read.line() + 1, read.column() + 1)
    }

    #[test]
    fn short_lines_are_copied_whole_with_one_line_around() {
        let text = "a: 1\nb: 2\nc: bad\nd: 4\ne: 5\n";
        let e = excerpt(text, text.find("bad").unwrap(), 3);
        assert_eq!(e.text, "b: 2\nc: bad\nd: 4\n");
        assert_eq!(spanned(&e), "bad");
        assert_eq!(header(&e), (3, 4));
    }

    #[test]
    fn a_long_line_is_cut_to_a_window_on_character_boundaries() {
        let text = format!("k: [{}, bad, {}]\n", "é".repeat(70_000), "ü".repeat(500));
        let at = text.find("bad").unwrap();
        let e = excerpt(&text, at, 3);
        assert_eq!(
            e.text,
            format!(
                "…{}, bad, {}…\n",
                "é".repeat(30 - 2),
                "ü".repeat(80 - 28 - 7)
            )
        );
        assert_eq!(spanned(&e), "bad");
        assert_eq!(header(&e), (1, at + 1));
    }

    #[test]
    fn an_underline_past_the_window_stops_at_its_end() {
        let text = format!(
            "a: short\nk: \"{}\"\nz: {}\n",
            "x".repeat(500),
            "y".repeat(500)
        );
        let at = text.find('"').unwrap();
        let e = excerpt(&text, at, 502);
        // The long context line is cut at the same bytes as the problem's line.
        assert_eq!(
            e.text,
            format!(
                "a: short\nk: \"{}…\nz: {}…\n",
                "x".repeat(76),
                "y".repeat(77)
            )
        );
        assert_eq!(spanned(&e), format!("\"{}", "x".repeat(76)));
        assert_eq!(header(&e), (2, 4));
    }

    #[test]
    fn a_value_over_many_lines_is_underlined_on_its_first_line() {
        let text = format!("k:\n{}end: 1\n", "  - item\n".repeat(20));
        let e = excerpt(&text, 3, text.find("end").unwrap() - 3);
        assert_eq!(e.text, "k:\n  - item\n  - item\n");
        assert_eq!(spanned(&e), "  - item");
    }

    #[test]
    fn crlf_and_lone_cr_end_lines() {
        let text = "a: 1\r\nb: bad\rc: 3\r\n";
        let e = excerpt(text, text.find("bad").unwrap(), 3);
        // miette breaks lines at LF only: the excerpt hands it LF breaks.
        assert_eq!(e.text, "a: 1\nb: bad\nc: 3\n");
        assert_eq!(spanned(&e), "bad");
        assert_eq!(header(&e), (2, 4));
    }

    #[test]
    fn a_span_at_the_end_of_the_file_is_drawn() {
        let text = "a: 1\nb: [";
        let e = excerpt(text, text.len(), 0);
        assert_eq!(e.text, text);
        assert_eq!(header(&e), (2, 5));
    }
}
