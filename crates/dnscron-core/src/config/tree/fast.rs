//! Reading a file with the record-line scanner: the parser reads the plan's text (each accepted
//! line's item a lone `#`), and each accepted line's item enters the builder as the events the parser
//! would have produced for it, at the point where the parser passes its `#`. The builder is the
//! same, so values, positions and limits are the same.
//!
//! The pre-pass only guesses where the items of a top-level `records:` list are; the parser's
//! events must prove it, or the reading is given up (and the file read without the scanner):
//! the `records` key is a key of a document's top-level mapping at the offset the pre-pass
//! found; its value is nothing (each line stood for an item of a list that the parser now sees
//! as empty) or a block list at the lines' column; and each `#` stands between two items of that
//! list — no scalar spans it, no collection but that list is open across it, and what follows
//! it is the next item or the list's end. Syntax and limit errors are given up too, so their
//! messages are always the parser's own.

use std::borrow::Cow;

use granit_parser::{Event, ScalarStyle, Span, StructureStyle};

use super::build::{Body, Builder, each_event, pos};
use super::plan::{Line, Plan};
use super::{Node, Pos, SyntaxError, scan};

#[cfg(test)]
thread_local! {
    /// Tests read files without the scanner to compare.
    pub static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Files read with the scanner to the end, for tests that must know it was used.
    pub static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether the scanner may read the items of `key` lists.
pub fn enabled(key: &str) -> bool {
    #[cfg(test)]
    if OFF.get() {
        return false;
    }
    key == "records"
}

/// Why the scanner's reading was given up.
struct GiveUp;

/// Where the current region's list stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No region's key read, or its list ended.
    Idle,
    /// The `records` key read, its value not yet.
    Key,
    /// The parser read the value as nothing at `Pos`; the lines may still make it a list.
    Null(Pos),
    /// The list is open. `awaits_start`: it was opened for the scanner's lines and the parser's
    /// own start (at the next item, which it read) is still to come; `null`: the parser read the
    /// value as nothing, so the list ends before the parser's next event.
    List { awaits_start: bool, null: bool },
}

/// A parser's event, where it stands in the source, and where it ends in the plan's text.
struct Next<'e> {
    event: Event<'e>,
    at: Pos,
    end: usize,
}

struct Driver<'p> {
    plan: &'p Plan,
    /// The next accepted line to enter, and the next region to match.
    line: usize,
    region: usize,
    phase: Phase,
    /// The end of the parser's last event, in the plan's text.
    last_end: usize,
}

/// The documents of the plan's source, or `None` if the scanner's reading must be given up.
pub(super) fn build<'s>(mut builder: Builder<'s, '_>, plan: &Plan) -> Option<Vec<Node<'s>>> {
    let mut driver = Driver {
        plan,
        line: 0,
        region: 0,
        phase: Phase::Idle,
        last_end: 0,
    };
    // Any error gives the reading up: the parser alone reports it.
    let given_up = || SyntaxError {
        message: String::new(),
        pos: None,
    };
    each_event(&plan.compact, &mut |event, span| {
        driver
            .event(&mut builder, event, span)
            .map_err(|GiveUp| given_up())
    })
    .ok()?;
    if driver.line != plan.lines.len() {
        return None;
    }
    #[cfg(test)]
    READS.set(READS.get() + 1);
    Some(builder.docs)
}

impl<'p> Driver<'p> {
    fn event<'s>(
        &mut self,
        b: &mut Builder<'s, '_>,
        event: Event<'_>,
        span: &Span,
    ) -> Result<(), GiveUp> {
        let at = self.source_pos(span);
        let start = span.start.byte_offset().ok_or(GiveUp)?;
        let end = span.end.byte_offset().ok_or(GiveUp)?;
        let pending = self
            .plan
            .lines
            .get(self.line)
            .filter(|l| (l.compact as usize) < start);
        if let Some(line) = pending {
            // A block collection inside an item ends at the next item's dash, which is the
            // first pending line's.
            let block_end = matches!(event, Event::SequenceEnd | Event::MappingEnd) && start == end;
            if block_end && b.open.len() > 2 && matches!(self.phase, Phase::List { .. }) {
                return b
                    .event(event, self.dash(line), |_| Cow::Borrowed(""))
                    .map_err(|_| GiveUp);
            }
            let next = Next { event, at, end };
            self.enter_lines(b, start)?;
            return self.after_lines(b, next);
        }
        self.plain_event(b, Next { event, at, end })
    }

    /// The position of a parser's event in the source.
    fn source_pos(&self, span: &Span) -> Pos {
        let mut at = pos(span);
        let (offset, len) = at.span();
        let from = self.plan.source_offset(offset);
        let to = self.plan.source_offset(offset + len);
        at.offset = u32::try_from(from).unwrap_or(u32::MAX);
        at.len = u32::try_from(to.saturating_sub(from)).unwrap_or(u32::MAX);
        at
    }

    /// An event with no accepted line before it.
    fn plain_event(&mut self, b: &mut Builder<'_, '_>, next: Next<'_>) -> Result<(), GiveUp> {
        let Next { event, at, end } = next;
        self.last_end = end;
        match self.phase {
            Phase::Idle if self.is_region_key(b, &event, at) => {
                self.region += 1;
                self.phase = Phase::Key;
            }
            Phase::Key => {
                self.phase = match &event {
                    // The value is nothing so far: the lines may make it a list.
                    Event::Scalar(text, ScalarStyle::Plain, 0, None)
                        if at.len == 0 && text == "~" =>
                    {
                        self.phase = Phase::Null(at);
                        return Ok(());
                    }
                    Event::SequenceStart(StructureStyle::Block, 0, None)
                        if self.starts_at_dashes(b, at) =>
                    {
                        Phase::List {
                            awaits_start: false,
                            null: false,
                        }
                    }
                    _ => Phase::Idle,
                };
            }
            Phase::Null(null_at) => {
                // No line came: the value is nothing after all.
                self.phase = Phase::Idle;
                self.forward(b, null_event(), null_at)?;
            }
            Phase::List { .. } if b.open.len() == 2 && matches!(event, Event::SequenceEnd) => {
                self.phase = Phase::Idle;
            }
            _ => {}
        }
        self.forward(b, event, at)
    }

    /// The event that follows accepted lines: the list's next item or its end.
    fn after_lines(&mut self, b: &mut Builder<'_, '_>, next: Next<'_>) -> Result<(), GiveUp> {
        let Phase::List { awaits_start, null } = self.phase else {
            return Err(GiveUp);
        };
        let (event, at) = (&next.event, next.at);
        if awaits_start {
            // The parser starts the list that the lines already started.
            let starts = matches!(event, Event::SequenceStart(StructureStyle::Block, 0, None))
                && self.starts_at_dashes(b, at);
            if !starts {
                return Err(GiveUp);
            }
            self.last_end = next.end;
            self.phase = Phase::List {
                awaits_start: false,
                null,
            };
            return Ok(());
        }
        if null {
            // The list ends where the parser's next event stands.
            let end = Pos { len: 0, ..at };
            self.forward(b, Event::SequenceEnd, end)?;
            self.phase = Phase::Idle;
            return self.plain_event(b, next);
        }
        let next_item = matches!(
            event,
            Event::Scalar(..)
                | Event::Alias(_)
                | Event::SequenceStart(..)
                | Event::MappingStart(..)
                | Event::SequenceEnd
        );
        if b.open.len() != 2 || !next_item {
            return Err(GiveUp);
        }
        self.plain_event(b, next)
    }

    /// Every accepted line whose `#` stands before `offset` in the plan's text, entered as the
    /// item it holds.
    fn enter_lines(&mut self, b: &mut Builder<'_, '_>, offset: usize) -> Result<(), GiveUp> {
        let plan = self.plan;
        while let Some(line) = plan
            .lines
            .get(self.line)
            .filter(|l| (l.compact as usize) < offset)
        {
            if line.region as usize + 1 != self.region || self.last_end > line.compact as usize {
                return Err(GiveUp);
            }
            let text: &str = b
                .source()
                .get(line.start as usize..line.end as usize)
                .ok_or(GiveUp)?;
            let item = scan::item(text, self.region_dash_col() - 1).ok_or(GiveUp)?;
            match self.phase {
                Phase::Key | Phase::Null(_) => {
                    let null = matches!(self.phase, Phase::Null(_));
                    let start = Event::SequenceStart(StructureStyle::Block, 0, None);
                    self.forward(b, start, self.list_start(line, &item))?;
                    self.phase = Phase::List {
                        awaits_start: !null,
                        null,
                    };
                }
                Phase::List { .. } if b.open.len() == 2 => {}
                _ => return Err(GiveUp),
            }
            self.enter_item(b, line, &item)?;
            self.last_end = line.compact as usize + 1;
            self.line += 1;
        }
        Ok(())
    }

    /// The events the parser reads from an accepted line.
    fn enter_item<'s>(
        &self,
        b: &mut Builder<'s, '_>,
        line: &Line,
        item: &scan::Item,
    ) -> Result<(), GiveUp> {
        let (start, end) = (line.start as usize, line.end as usize);
        let text: &'s str = b.source().get(start..end).ok_or(GiveUp)?;
        let ascii = text.is_ascii();
        let at = |byte: usize, len: usize| at_byte(text, ascii, line, byte, len);
        let flow = || Event::MappingStart(StructureStyle::Flow, 0, None);
        self.forward(b, flow(), at(item.open, 1))?;
        for token in item.tokens() {
            let value = Cow::Borrowed(token.text(text));
            let event = Event::Scalar(value, token.style, 0, None);
            self.forward(b, event, at(token.start as usize, token.len as usize))?;
        }
        self.forward(b, Event::MappingEnd, at(item.close, 1))
    }

    /// The position of the dash of a line's item: a block collection inside the item before
    /// ends there.
    fn dash(&self, line: &Line) -> Pos {
        let col = self.region_dash_col();
        Pos::new(line.line as usize, col, line.start as usize + col - 1, 0)
    }

    /// Where the parser starts a list whose first item is `item`: at its dash, or, for a list
    /// as far left as its key (written without indentation), after the dash and its spaces.
    fn list_start(&self, line: &Line, item: &scan::Item) -> Pos {
        if self.region_dash_col() > 1 {
            return self.dash(line);
        }
        Pos::new(
            line.line as usize,
            item.open + 1,
            line.start as usize + item.open,
            0,
        )
    }

    /// Whether the parser's list starts on a line whose dash stands where the lines' dashes do.
    fn starts_at_dashes(&self, b: &Builder<'_, '_>, at: Pos) -> bool {
        let source = b.source();
        let before = source.get(..at.offset as usize).unwrap_or(source);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let dash = self.region_dash_col() - 1;
        source.get(line_start..).is_some_and(|line| {
            line.as_bytes()
                .get(..=dash)
                .is_some_and(|head| head[dash] == b'-' && head[..dash].iter().all(|c| *c == b' '))
        })
    }

    fn region_dash_col(&self) -> usize {
        self.region
            .checked_sub(1)
            .and_then(|r| self.plan.regions.get(r))
            .map_or(0, |r| r.dash_col)
    }

    /// Whether `event` is the key the next region's pre-pass found, read as a key of the
    /// document's top-level mapping.
    fn is_region_key(&self, b: &Builder<'_, '_>, event: &Event<'_>, at: Pos) -> bool {
        let Some(region) = self.plan.regions.get(self.region) else {
            return false;
        };
        let top_level_key = match b.open.as_slice() {
            [root] => matches!(&root.body, Body::Map(map) if map.key.is_none()),
            _ => false,
        };
        at.offset as usize == region.key_offset
            && top_level_key
            && matches!(event, Event::Scalar(text, ScalarStyle::Plain, 0, None) if text == "records")
    }

    /// An event into the builder, its text borrowed from the source where the parser's is.
    fn forward<'s>(
        &self,
        b: &mut Builder<'s, '_>,
        event: Event<'_>,
        at: Pos,
    ) -> Result<(), GiveUp> {
        let source = b.source();
        let plan = self.plan;
        b.event(event, at, |text| rebase(plan, source, text))
            .map_err(|_| GiveUp)
    }
}

/// The position of the bytes `byte..byte + len` of an accepted line (columns count characters).
fn at_byte(text: &str, ascii: bool, line: &Line, byte: usize, len: usize) -> Pos {
    let col = if ascii {
        byte + 1
    } else {
        text.get(..byte).map_or(0, |t| t.chars().count()) + 1
    };
    Pos::new(line.line as usize, col, line.start as usize + byte, len)
}

/// The implicit null value the parser reads for `records:` followed by nothing.
fn null_event() -> Event<'static> {
    Event::Scalar(Cow::Borrowed("~"), ScalarStyle::Plain, 0, None)
}

/// A scalar's text borrowed from the plan's text (or the source), as the same bytes of the
/// source.
fn rebase<'s>(plan: &Plan, source: &'s str, text: Cow<'_, str>) -> Cow<'s, str> {
    let Cow::Borrowed(t) = text else {
        return Cow::Owned(text.into_owned());
    };
    let address = t.as_ptr() as usize;
    let within = |s: &str| {
        let base = s.as_ptr() as usize;
        (base..=base + s.len())
            .contains(&address)
            .then(|| address - base)
    };
    if let Some(offset) = within(source) {
        return source
            .get(offset..offset + t.len())
            .map_or_else(|| Cow::Owned(t.to_owned()), Cow::Borrowed);
    }
    let Some(offset) = within(&plan.compact) else {
        return Cow::Owned(t.to_owned());
    };
    let from = plan.source_offset(offset);
    let to = plan.source_offset(offset + t.len());
    match source.get(from..to) {
        Some(s) if s == t => Cow::Borrowed(s),
        _ => Cow::Owned(t.to_owned()),
    }
}
