//! The scanner's pre-pass over a file's text: the top-level `records:` keys, the item lines below
//! them that the scanner accepts, and the text the parser reads instead, each accepted line's
//! item shortened to a lone `#` (a comment) so that the parser skips it quickly while every line
//! keeps its number and every other line its columns; offsets are mapped back.

use super::build::limits::MAX_EVENTS;
use super::scan;

/// A top-level `records:` key the parser must confirm, and the column of its items' dashes.
pub(super) struct Region {
    pub key_offset: usize,
    pub dash_col: usize,
}

/// An accepted item line: its bytes in the source (line break excluded), its number, its
/// region, and where its `#` stands in the parser's text (where the dash stands in the source).
pub(super) struct Line {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub region: u32,
    pub compact: u32,
}

pub(super) struct Plan {
    pub regions: Vec<Region>,
    pub lines: Vec<Line>,
    /// The source with each accepted line's item replaced by `#`.
    pub compact: String,
}

/// Where the pre-pass is, line by line.
enum At {
    Outside,
    /// After a top-level `records:` line, before its first item.
    Key(usize),
    /// Among the items of a region, whose dashes stand after `indent` spaces.
    Items {
        indent: usize,
    },
}

impl Plan {
    /// The plan for `source`, or `None` when no line can be scanned (or the file has what the
    /// scanner does not follow: a lone carriage return, a byte-order mark past the start).
    pub fn new(source: &str) -> Option<Plan> {
        u32::try_from(source.len()).ok()?;
        // A file without a flow item (a block-style zone, a site) costs one quick search.
        if !source.contains("- {") {
            return None;
        }
        if source.find('\u{feff}').is_some_and(|i| i > 0) || lone_cr(source) {
            return None;
        }
        let mut plan = Plan {
            regions: Vec::new(),
            lines: Vec::new(),
            compact: String::new(),
        };
        let mut at = At::Outside;
        // The line accepted last, until the next content line shows it is not continued.
        let mut pending = false;
        let mut offset = 0;
        for (number, raw) in source.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += raw.len();
            let text = raw.trim_end_matches('\n').trim_end_matches('\r');
            let indent = text.len() - text.trim_start_matches(' ').len();
            let rest = &text[indent..];
            if rest.is_empty() || rest.starts_with('#') {
                continue;
            }
            if pending && (indent > dash_indent(&at) || rest.starts_with('\t')) {
                plan.lines.pop();
            }
            pending = false;
            at = plan.next(at, text, indent, start);
            if let At::Items { indent: dashes } = at
                && indent == dashes
                && scan::item(text, indent).is_some()
            {
                // Each item is at least two events: past this many the file is over the limit
                // anyway, and the parser alone says so without this table growing further.
                if plan.lines.len() == MAX_EVENTS / 2 {
                    return None;
                }
                plan.lines.push(Line {
                    start: small(start),
                    end: small(start + text.len()),
                    line: small(number + 1),
                    region: small(plan.regions.len() - 1),
                    compact: 0,
                });
                pending = true;
            }
        }
        if plan.lines.is_empty() {
            return None;
        }
        plan.compact = compact(source, &plan.regions, &mut plan.lines);
        Some(plan)
    }

    /// The state after a content line (neither blank nor a comment).
    fn next(&mut self, at: At, text: &str, indent: usize, start: usize) -> At {
        if indent == 0 && is_document_marker(text) {
            return At::Outside;
        }
        if indent == 0 && is_records_key(text) {
            return At::Key(start);
        }
        let item = text[indent..] == *"-" || text[indent..].starts_with("- ");
        match at {
            At::Key(key_offset) if item => {
                self.regions.push(Region {
                    key_offset,
                    dash_col: indent + 1,
                });
                At::Items { indent }
            }
            At::Items { indent: dashes } if indent > dashes || (indent == dashes && item) => at,
            _ => At::Outside,
        }
    }

    /// The source offset of an offset in the parser's text.
    pub fn source_offset(&self, offset: usize) -> usize {
        let before = self
            .lines
            .partition_point(|l| (l.compact as usize) < offset);
        match before.checked_sub(1).map(|i| &self.lines[i]) {
            // Past a `#` that stands for a line, as far past the line's end.
            Some(line) => line.end as usize + (offset - line.compact as usize - 1),
            None => offset,
        }
    }
}

fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn dash_indent(at: &At) -> usize {
    match at {
        At::Items { indent } => *indent,
        _ => usize::MAX,
    }
}

/// `---` or `...` starting a line, alone or before a space or tab.
fn is_document_marker(text: &str) -> bool {
    ["---", "..."].iter().any(|m| {
        text.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    })
}

/// `records:` at the start of a line, followed by nothing but spaces and a comment.
fn is_records_key(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("records:") else {
        return false;
    };
    let after = rest.trim_start_matches(' ');
    after.is_empty() || (after.len() < rest.len() && after.starts_with('#'))
}

/// A carriage return not followed by a line feed: a line break of its own to the parser.
fn lone_cr(source: &str) -> bool {
    source.contains('\r')
        && source
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'\r' && w[1] != b'\n')
        || source.ends_with('\r')
}

/// The source with each accepted line's item replaced by `#` (its indentation stays: a block
/// scalar before it ends where the dash stood); records where each `#` stands.
fn compact(source: &str, regions: &[Region], lines: &mut [Line]) -> String {
    let indent = |l: &Line| regions[l.region as usize].dash_col - 1;
    let removed: usize = lines
        .iter()
        .map(|l| (l.end - l.start) as usize - indent(l) - 1)
        .sum();
    let mut out = String::with_capacity(source.len() - removed);
    let mut from = 0;
    for line in lines {
        out.push_str(&source[from..line.start as usize + indent(line)]);
        line.compact = small(out.len());
        out.push('#');
        from = line.end as usize;
    }
    out.push_str(&source[from..]);
    out
}
