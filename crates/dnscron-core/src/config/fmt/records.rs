//! One document's `records:` list in canonical form, as a splice of the source: each item moves
//! with the comment lines above it and the comment after it on its last line, and is written
//! anew by the shared writer (`text`) when it holds no other comment; every byte outside the
//! list stays as it was.

use std::ops::Range;
use std::str::FromStr;

use crate::config::tree::{Comment, Node, Pos, Presentation, Value};
use crate::dns::{self, RecordType, ZoneName};

use super::order::{RecordKey, record_order};
use super::text::{RecordItem, record_item};
use super::{LeftAlone, Reason};

/// The text that replaces `range` of the source.
pub(super) struct Splice {
    pub range: Range<usize>,
    pub text: String,
}

/// What the document's records are relative to: a zone's name, or a record set's `{zone}`.
enum Scope {
    Zone(ZoneName),
    Set,
}

/// One item of the list: where its text is, what it sorts by, and its canonical text.
struct Item {
    lead: Range<usize>,
    body: Range<usize>,
    name: String,
    rtype: RecordType,
    content: String,
    ttl: Option<u32>,
    rewritten: Option<String>,
}

impl Item {
    fn key(&self) -> RecordKey<'_> {
        RecordKey {
            name: &self.name,
            rtype: self.rtype,
            content: &self.content,
            ttl: self.ttl,
        }
    }
}

/// The canonical text of `doc`'s records list, or `None` when it has none (a site, an
/// `unmanaged:` list, a zone without records).
pub(super) fn document(
    source: &str,
    doc: &Node<'_>,
    presentation: &Presentation,
) -> Result<Option<Splice>, LeftAlone> {
    let Value::Map(entries) = &doc.value else {
        return Ok(None);
    };
    let Some(scope) = scope(entries) else {
        return Ok(None);
    };
    let Some((key, list)) = entries.iter().find(|(k, _)| is_str(k, "records")) else {
        return Ok(None);
    };
    let Value::Seq(nodes) = &list.value else {
        return Ok(None);
    };
    if nodes.is_empty() {
        return Ok(None);
    }
    if presentation.flow_end(list.pos.offset).is_some() {
        return Err(LeftAlone::at(list.pos, Reason::FlowRecords));
    }
    let start = line_end(source, key.pos.offset as usize);
    let mut items = Vec::with_capacity(nodes.len());
    let mut previous_end = start;
    for node in nodes {
        let item = item(source, node, previous_end, &scope, presentation)?;
        previous_end = item.body.end;
        items.push(item);
    }
    items.sort_by(|a, b| record_order(&a.key(), &b.key()));
    let mut text = String::with_capacity(previous_end - start);
    for item in &items {
        text.push_str(&source[item.lead.clone()]);
        match &item.rewritten {
            Some(rewritten) => text.push_str(rewritten),
            None => text.push_str(&source[item.body.clone()]),
        }
        // An item that ended the file without a line break is no longer last.
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    Ok(Some(Splice {
        range: start..previous_end,
        text,
    }))
}

fn scope(entries: &[(Node<'_>, Node<'_>)]) -> Option<Scope> {
    entries.iter().find_map(|(k, v)| match &v.value {
        Value::Str(name) if is_str(k, "zone") => ZoneName::parse(name).ok().map(Scope::Zone),
        _ if is_str(k, "record_set") => Some(Scope::Set),
        _ => None,
    })
}

fn is_str(node: &Node<'_>, text: &str) -> bool {
    matches!(&node.value, Value::Str(s) if s == text)
}

fn item(
    source: &str,
    node: &Node<'_>,
    previous_end: usize,
    scope: &Scope,
    presentation: &Presentation,
) -> Result<Item, LeftAlone> {
    let layout = || LeftAlone::at(node.pos, Reason::ItemLayout);
    let offset = node.pos.offset as usize;
    let line = line_start(source, offset);
    let prefix = source.get(line..offset).ok_or_else(layout)?;
    let indent = prefix.trim_end().strip_suffix('-').ok_or_else(layout)?;
    if line < previous_end || !indent.chars().all(|c| c == ' ') {
        return Err(layout());
    }
    let lead = previous_end..line;
    if !only_comments(&source[lead.clone()]) {
        return Err(layout());
    }
    let end = subtree_end(node, presentation);
    let body = line..line_end(source, end.saturating_sub(1).max(offset));
    let fields = Fields::read(node).ok_or_else(layout)?;
    let rewritten = fields
        .respelled(scope)
        .zip(trailing_comment(source, &body, presentation))
        .map(|((name, content), trailing)| {
            let mut out = String::new();
            let item = RecordItem {
                name: &name,
                rtype: fields.rtype,
                content: &content,
                ttl: fields.ttl,
                override_sets: fields.override_sets,
            };
            record_item(&mut out, indent, &item, trailing);
            out
        });
    let sort_content = match scope {
        Scope::Zone(zone) => dns::canonical_content(fields.rtype, &fields.content, zone)
            .unwrap_or_else(|_| fields.content.clone()),
        Scope::Set => fields.content.clone(),
    };
    Ok(Item {
        lead,
        body,
        name: sort_name(scope, &fields.name),
        rtype: fields.rtype,
        content: sort_content,
        ttl: fields.ttl,
        rewritten,
    })
}

/// The relative name a zone's record sorts by (`www.example.com.` is `www`).
fn sort_name(scope: &Scope, name: &str) -> String {
    match scope {
        Scope::Zone(zone) => {
            dns::record_name_to_relative(name, zone).unwrap_or_else(|_| name.into())
        }
        Scope::Set => name.to_string(),
    }
}

/// Whether an item can be written anew with its comments: `Some(None)` when it holds none,
/// `Some(Some(text))` when its only comment trails its one line, `None` when a comment sits
/// inside it (the item is then kept as written, so the comment stays where it was put).
fn trailing_comment<'s>(
    source: &'s str,
    body: &Range<usize>,
    presentation: &Presentation,
) -> Option<Option<&'s str>> {
    let inside: Vec<&Comment> = presentation
        .comments
        .iter()
        .filter(|c| body.contains(&(c.pos.offset as usize)))
        .collect();
    let one_line = !source[body.clone()].trim_end_matches('\n').contains('\n');
    match inside.as_slice() {
        [] => Some(None),
        [c] if c.trailing && one_line => {
            let (offset, len) = c.pos.span();
            source.get(offset..offset + len).map(Some)
        }
        _ => None,
    }
}

/// A record item's keys, read from the tree (the file is valid, so they are there).
struct Fields {
    name: String,
    rtype: RecordType,
    content: String,
    ttl: Option<u32>,
    override_sets: Option<bool>,
    /// Only the keys the writer writes, each a plain value.
    simple: bool,
}

impl Fields {
    fn read(node: &Node<'_>) -> Option<Fields> {
        let Value::Map(entries) = &node.value else {
            return None;
        };
        let get = |key: &str| entries.iter().find(|(k, _)| is_str(k, key)).map(|(_, v)| v);
        let text = |key: &str| match get(key).map(|v| &v.value) {
            Some(Value::Str(s)) => Some(s.to_string()),
            _ => None,
        };
        let rtype = text("type").and_then(|t| RecordType::from_str(&t).ok())?;
        let ttl = match get("ttl").map(|v| &v.value) {
            None => None,
            Some(Value::Int(n)) => Some(u32::try_from(*n).ok()?),
            Some(_) => return None,
        };
        let override_sets = match get("override").map(|v| &v.value) {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return None,
        };
        const KEYS: [&str; 5] = ["name", "type", "content", "ttl", "override"];
        let simple = entries
            .iter()
            .all(|(k, _)| KEYS.iter().any(|key| is_str(k, key)));
        Some(Fields {
            name: text("name")?,
            rtype,
            content: text("content")?,
            ttl,
            override_sets,
            simple,
        })
    }

    /// The name and content in the writer's spelling, or `None` when the item is kept as
    /// written (a key the writer doesn't write, a value that doesn't parse).
    fn respelled(&self, scope: &Scope) -> Option<(String, String)> {
        if !self.simple {
            return None;
        }
        match scope {
            Scope::Zone(zone) => self.canonical(zone),
            // A set's text holds `{zone}`: it is only parsed once a zone uses it.
            Scope::Set => Some((self.name.clone(), self.content.clone())),
        }
    }

    /// The name and content as the loader reads them in `zone`, in the form the writer writes
    /// (relative lower-case name, the content's wire form), or `None` where they don't parse.
    fn canonical(&self, zone: &ZoneName) -> Option<(String, String)> {
        let name = dns::record_name_to_relative(&self.name, zone).ok()?;
        let canonical = dns::canonical_content(self.rtype, &self.content, zone).ok()?;
        Some((name, dns::wire_content(self.rtype, &canonical)))
    }
}

/// The byte after the last thing `node` spans: its last scalar, or a flow collection's bracket.
fn subtree_end(node: &Node<'_>, presentation: &Presentation) -> usize {
    let (offset, len) = node.pos.span();
    let own = match presentation.flow_end(node.pos.offset) {
        Some(end) => end as usize,
        None => offset + len,
    };
    let children = match &node.value {
        Value::Seq(items) => items
            .iter()
            .map(|n| subtree_end(n, presentation))
            .max()
            .unwrap_or(0),
        Value::Map(entries) => entries
            .iter()
            .map(|(k, v)| subtree_end(k, presentation).max(subtree_end(v, presentation)))
            .max()
            .unwrap_or(0),
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => 0,
    };
    own.max(children)
}

/// Blank lines and comment lines only.
fn only_comments(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim_start();
        l.is_empty() || l.starts_with('#')
    })
}

// Both search bytes: a line break is never part of a multi-byte character, so an offset inside
// one (the last byte of a scalar ending in `✓`) still finds its line.
fn line_start(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    bytes[..offset.min(bytes.len())]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The byte after the line break ending the line that holds `offset` (or the end of the source).
fn line_end(source: &str, offset: usize) -> usize {
    let bytes = source.as_bytes();
    bytes
        .get(offset..)
        .and_then(|rest| rest.iter().position(|b| *b == b'\n'))
        .map_or(bytes.len(), |i| offset + i + 1)
}

impl LeftAlone {
    fn at(pos: Pos, reason: Reason) -> LeftAlone {
        LeftAlone {
            line: pos.line as usize,
            col: pos.col as usize,
            reason,
        }
    }
}
