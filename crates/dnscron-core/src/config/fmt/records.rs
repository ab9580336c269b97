//! One document's `records:` list in canonical form, as a splice of the source: a block list
//! (`- ` items) whatever way the file wrote it (a flow list, `-` alone on its line, an item over
//! several lines, folded and literal scalars), each item written anew by the shared writer
//! (`text`). No comment is lost: the comment lines above an item move with it, a comment on an
//! item's last line stays there, and a comment inside an item goes above it, at its indent.
//! Every byte outside the list stays as it was.

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

/// One item of the list: the text that goes above it, what it sorts by, and its canonical text.
struct Item {
    lead: String,
    name: String,
    rtype: RecordType,
    content: String,
    ttl: Option<u32>,
    text: String,
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

/// The comments an item holds: the one on its last line, after it, stays there; the others
/// (inside it, in order) are written above it.
#[derive(Default)]
struct ItemComments<'s> {
    above: Vec<&'s str>,
    trailing: Option<&'s str>,
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
    if flow_end(source, doc, presentation).is_some() {
        // A block list can't stand inside a flow mapping.
        return Err(LeftAlone::at(doc.pos, Reason::FlowDocument));
    }
    let flow_end = flow_end(source, list, presentation);
    let (range, mut items, tail) = match flow_end {
        Some(end) => flow_items(source, key, nodes, end, &scope, presentation)?,
        None => block_items(source, key, nodes, &scope, presentation)?,
    };
    items.sort_by(|a, b| record_order(&a.key(), &b.key()));
    let mut text = String::with_capacity(range.len());
    if flow_end.is_some() {
        // The block list starts on the line after the key.
        text.push('\n');
    }
    for item in &items {
        text.push_str(&item.lead);
        text.push_str(&item.text);
    }
    text.push_str(&tail);
    Ok(Some(Splice { range, text }))
}

/// Where `node` ends if it is a flow collection. (A block collection can start where its first
/// item does, a flow collection of its own: only its own bracket tells.)
fn flow_end(source: &str, node: &Node<'_>, presentation: &Presentation) -> Option<usize> {
    let offset = node.pos.offset as usize;
    let own = match &node.value {
        Value::Seq(_) => b'[',
        Value::Map(_) => b'{',
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
            return None;
        }
    };
    let bracket = source.as_bytes().get(offset) == Some(&own);
    let end = presentation.flow_end(node.pos.offset)? as usize;
    bracket.then_some(end)
}

/// A block list's items: each keeps the lines above it as written (comments, blank lines).
fn block_items(
    source: &str,
    key: &Node<'_>,
    nodes: &[Node<'_>],
    scope: &Scope,
    presentation: &Presentation,
) -> Result<(Range<usize>, Vec<Item>, String), LeftAlone> {
    let (start, end, items) = block_list(source, key, nodes, presentation, |node, read| {
        let lead = source[read.lead].to_string();
        item(node, read.indent, lead, &read.comments, scope)
            .ok_or_else(|| LeftAlone::at(node.pos, Reason::ItemLayout))
    })?;
    Ok((start..end, items, String::new()))
}

/// One item of a block list, as `fmt` and `adopt` both read it: the lines above it since the
/// item before (comments, blank lines), the spaces before its dash, its lines (from its line's
/// start to the end of its last line) and its comments.
struct BlockItem<'s> {
    lead: Range<usize>,
    indent: &'s str,
    body: Range<usize>,
    comments: ItemComments<'s>,
}

/// The block list of `key`: where it starts (the end of the key's line) and ends, and `each`
/// of its items in order, read after the one before: the one scan `fmt` and `adopt` share.
/// The first item refused, by its layout or by `each`, refuses the list.
fn block_list<'s, T>(
    source: &'s str,
    key: &Node<'_>,
    nodes: &[Node<'_>],
    presentation: &Presentation,
    mut each: impl FnMut(&Node<'_>, BlockItem<'s>) -> Result<T, LeftAlone>,
) -> Result<(usize, usize, Vec<T>), LeftAlone> {
    let start = line_end(source, key.pos.offset as usize);
    let mut end = start;
    let mut items = Vec::with_capacity(nodes.len());
    for node in nodes {
        let read = block_item(source, node, end, presentation)?;
        end = read.body.end;
        items.push(each(node, read)?);
    }
    Ok((start, end, items))
}

/// The item `node`, starting after `previous_end`; an item whose dash isn't alone at the start
/// of its line (after spaces) is left as written.
fn block_item<'s>(
    source: &'s str,
    node: &Node<'_>,
    previous_end: usize,
    presentation: &Presentation,
) -> Result<BlockItem<'s>, LeftAlone> {
    let layout = || LeftAlone::at(node.pos, Reason::ItemLayout);
    let dash = find_dash(source, previous_end, node.pos.offset as usize).ok_or_else(layout)?;
    let line = line_start(source, dash);
    let indent = &source[line..dash];
    if line < previous_end || !indent.chars().all(|c| c == ' ') {
        return Err(layout());
    }
    let end = subtree_end(source, node, presentation).max(dash + 1);
    let body = line..line_end(source, end - 1);
    let last_line = line_start(source, body.end - 1);
    let mut comments = ItemComments::default();
    for c in comments_in(presentation, dash..body.end) {
        let text = comment_text(source, c);
        if c.trailing && c.pos.offset as usize >= last_line {
            comments.trailing = Some(text);
        } else {
            comments.above.push(text);
        }
    }
    Ok(BlockItem {
        lead: previous_end..line,
        indent,
        body,
        comments,
    })
}

/// A flow list's items (`records: [ … ]`), written as a block list two spaces in from the key;
/// a comment goes with the item after it, or trails the item whose line it ends.
fn flow_items(
    source: &str,
    key: &Node<'_>,
    nodes: &[Node<'_>],
    flow_end: usize,
    scope: &Scope,
    presentation: &Presentation,
) -> Result<(Range<usize>, Vec<Item>, String), LeftAlone> {
    let (key_offset, key_len) = key.pos.span();
    let colon = source[key_offset + key_len..]
        .find(':')
        .map(|i| key_offset + key_len + i + 1)
        .ok_or_else(|| LeftAlone::at(key.pos, Reason::ItemLayout))?;
    let range = colon..line_end(source, flow_end.saturating_sub(1));
    let indent = " ".repeat(key.pos.col as usize + 1);
    let comments = comments_in(presentation, range.clone());
    let extents: Vec<Range<usize>> = nodes
        .iter()
        .map(|n| n.pos.offset as usize..subtree_end(source, n, presentation))
        .collect();
    let mut items = Vec::with_capacity(nodes.len());
    let mut tail = String::new();
    let mut lead = String::new();
    let mut placed = 0;
    for (i, node) in nodes.iter().enumerate() {
        let extent = &extents[i];
        let next = extents.get(i + 1).map_or(range.end, |e| e.start);
        let end_line = line_end(source, extent.end - 1);
        let mut own = ItemComments::default();
        for c in &comments[placed..] {
            let at = c.pos.offset as usize;
            if at >= next {
                break;
            }
            let text = comment_text(source, c);
            if at < extent.start {
                lead.push_str(&format!("{indent}{text}\n"));
            } else if at < extent.end {
                own.above.push(text);
            } else if c.trailing && at < end_line && own.trailing.is_none() {
                own.trailing = Some(text);
            } else if i + 1 == nodes.len() {
                tail.push_str(&format!("{indent}{text}\n"));
            } else {
                break;
            }
            placed += 1;
        }
        let layout = || LeftAlone::at(node.pos, Reason::ItemLayout);
        let taken = std::mem::take(&mut lead);
        let item = item(node, &indent, taken, &own, scope).ok_or_else(layout)?;
        items.push(item);
    }
    Ok((range, items, tail))
}

/// The `-` that starts the item whose node begins at `node`: the first thing after `from` that
/// is neither blank nor a comment.
fn find_dash(source: &str, from: usize, node: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut i = from;
    while i < node {
        match bytes[i] {
            b' ' | b'\t' | b'\n' => i += 1,
            b'#' => i = line_end(source, i),
            b'-' => return Some(i),
            _ => return None,
        }
    }
    None
}

fn comments_in(presentation: &Presentation, range: Range<usize>) -> Vec<&Comment> {
    let mut inside: Vec<&Comment> = presentation
        .comments
        .iter()
        .filter(|c| range.contains(&(c.pos.offset as usize)))
        .collect();
    inside.sort_by_key(|c| c.pos.offset);
    inside
}

fn comment_text<'s>(source: &'s str, comment: &Comment) -> &'s str {
    let (offset, len) = comment.pos.span();
    source.get(offset..offset + len).unwrap_or("#")
}

/// One item, read and written anew at `indent` with its comments.
fn item(
    node: &Node<'_>,
    indent: &str,
    mut lead: String,
    comments: &ItemComments<'_>,
    scope: &Scope,
) -> Option<Item> {
    let fields = Fields::read(node)?;
    let (name, content) = fields.respelled(scope)?;
    for text in &comments.above {
        lead.push_str(&format!("{indent}{text}\n"));
    }
    let mut text = String::new();
    let record = RecordItem {
        name: &name,
        rtype: fields.rtype,
        content: &content,
        ttl: fields.ttl,
        override_sets: fields.override_sets,
    };
    record_item(&mut text, indent, &record, comments.trailing);
    let sort_content = match scope {
        Scope::Zone(zone) => dns::canonical_content(fields.rtype, &fields.content, zone)
            .unwrap_or_else(|_| fields.content.clone()),
        Scope::Set => fields.content.clone(),
    };
    Some(Item {
        lead,
        name: sort_name(scope, &fields.name),
        rtype: fields.rtype,
        content: sort_content,
        ttl: fields.ttl,
        text,
    })
}

fn scope(entries: &[(Node<'_>, Node<'_>)]) -> Option<Scope> {
    entries.iter().find_map(|(k, v)| match &v.value {
        Value::Str(name) if is_str(k, "zone") => ZoneName::parse(name).ok().map(Scope::Zone),
        _ if is_str(k, "record_set") => Some(Scope::Set),
        Value::Null
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Float(_)
        | Value::Str(_)
        | Value::Seq(_)
        | Value::Map(_) => None,
    })
}

fn is_str(node: &Node<'_>, text: &str) -> bool {
    matches!(&node.value, Value::Str(s) if s == text)
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

/// A record item's keys, read from the tree (the file is valid: the loader reads these five
/// keys only, each of one type).
struct Fields {
    name: String,
    rtype: RecordType,
    content: String,
    ttl: Option<u32>,
    override_sets: Option<bool>,
}

impl Fields {
    fn read(node: &Node<'_>) -> Option<Fields> {
        let Value::Map(entries) = &node.value else {
            return None;
        };
        let get = |key: &str| entries.iter().find(|(k, _)| is_str(k, key)).map(|(_, v)| v);
        let text = |key: &str| match get(key).map(|v| &v.value) {
            Some(Value::Str(s)) => Some(s.to_string()),
            Some(
                Value::Null
                | Value::Bool(_)
                | Value::Int(_)
                | Value::Float(_)
                | Value::Seq(_)
                | Value::Map(_),
            )
            | None => None,
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
        if !entries
            .iter()
            .all(|(k, _)| KEYS.iter().any(|key| is_str(k, key)))
        {
            return None;
        }
        Some(Fields {
            name: text("name")?,
            rtype,
            content: text("content")?,
            ttl,
            override_sets,
        })
    }

    /// The name and content in the writer's spelling.
    fn respelled(&self, scope: &Scope) -> Option<(String, String)> {
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
/// A block scalar's span runs on to the next line's indent: only its text counts.
fn subtree_end(source: &str, node: &Node<'_>, presentation: &Presentation) -> usize {
    let (offset, len) = node.pos.span();
    let own = match flow_end(source, node, presentation) {
        Some(end) => end,
        None => {
            let span = source.get(offset..offset + len).unwrap_or_default();
            offset + span.trim_end_matches([' ', '\t', '\n']).len()
        }
    };
    let end = |n: &Node<'_>| subtree_end(source, n, presentation);
    let children = match &node.value {
        Value::Seq(items) => items.iter().map(end).max().unwrap_or(0),
        Value::Map(entries) => entries
            .iter()
            .map(|(k, v)| end(k).max(end(v)))
            .max()
            .unwrap_or(0),
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => 0,
    };
    own.max(children)
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

/// A document's `records:` list as `adopt` edits it in place: the items where the file wrote
/// them, none of them moved or respelled.
pub(crate) enum RecordsList {
    /// `records:` followed by `- ` items.
    Block(BlockList),
    /// `records: [ … ]`, the brackets' range; `empty` for `[]`.
    Flow { brackets: Range<usize>, empty: bool },
    /// The document has no `records:` key: a new one goes at `end` (the byte after its last line).
    Missing { end: usize },
}

pub(crate) struct BlockList {
    /// The byte after the line of `records:`, where an item that sorts first goes.
    pub start: usize,
    /// The byte after the key's `:`, where ` []` goes when every item is removed.
    pub after_colon: usize,
    pub items: Vec<ListedItem>,
}

/// One block item, read as the loader reads it.
pub(crate) struct ListedItem {
    /// Its lines: from the start of the `-` line to the byte after its last line.
    pub body: Range<usize>,
    pub indent: String,
    /// Where its mapping starts: a record's `location`.
    pub pos: Pos,
    pub name: String,
    pub rtype: RecordType,
    pub content: String,
    pub ttl: Option<u32>,
    pub override_sets: Option<bool>,
    /// Comments inside the item, in order, and the one on its last line.
    pub inner: Vec<String>,
    pub trailing: Option<String>,
}

/// `doc`'s records list, for a zone or record set document (`None` for other documents). The
/// source has `\n` line ends.
pub(crate) fn records_list(
    source: &str,
    doc: &Node<'_>,
    presentation: &Presentation,
) -> Result<Option<RecordsList>, LeftAlone> {
    let Value::Map(entries) = &doc.value else {
        return Ok(None);
    };
    if scope(entries).is_none() {
        return Ok(None);
    }
    if flow_end(source, doc, presentation).is_some() {
        return Err(LeftAlone::at(doc.pos, Reason::FlowDocument));
    }
    let Some((key, list)) = entries.iter().find(|(k, _)| is_str(k, "records")) else {
        let end = line_end(
            source,
            subtree_end(source, doc, presentation).saturating_sub(1),
        );
        return Ok(Some(RecordsList::Missing { end }));
    };
    let Value::Seq(nodes) = &list.value else {
        return Err(LeftAlone::at(list.pos, Reason::ItemLayout));
    };
    if let Some(end) = flow_end(source, list, presentation) {
        let brackets = list.pos.offset as usize..end;
        return Ok(Some(RecordsList::Flow {
            brackets,
            empty: nodes.is_empty(),
        }));
    }
    let (key_offset, key_len) = key.pos.span();
    let after_colon = source[key_offset + key_len..]
        .find(':')
        .map(|i| key_offset + key_len + i + 1)
        .ok_or_else(|| LeftAlone::at(key.pos, Reason::ItemLayout))?;
    let (start, _, items) = block_list(source, key, nodes, presentation, |node, read| {
        let BlockItem {
            indent,
            body,
            comments,
            ..
        } = read;
        let fields =
            Fields::read(node).ok_or_else(|| LeftAlone::at(node.pos, Reason::ItemLayout))?;
        Ok(ListedItem {
            body,
            indent: indent.to_string(),
            pos: node.pos,
            name: fields.name,
            rtype: fields.rtype,
            content: fields.content,
            ttl: fields.ttl,
            override_sets: fields.override_sets,
            inner: comments.above.iter().map(|c| c.to_string()).collect(),
            trailing: comments.trailing.map(str::to_string),
        })
    })?;
    Ok(Some(RecordsList::Block(BlockList {
        start,
        after_colon,
        items,
    })))
}

/// The zone a document declares (`None` for a record set or any other document).
pub(crate) fn document_zone(doc: &Node<'_>) -> Option<ZoneName> {
    let Value::Map(entries) = &doc.value else {
        return None;
    };
    match scope(entries)? {
        Scope::Zone(zone) => Some(zone),
        Scope::Set => None,
    }
}

/// A zone document's `defaults.ttl`, when it has one.
pub(crate) fn default_ttl(doc: &Node<'_>) -> Option<u32> {
    let Value::Map(entries) = &doc.value else {
        return None;
    };
    let (_, defaults) = entries.iter().find(|(k, _)| is_str(k, "defaults"))?;
    let Value::Map(defaults) = &defaults.value else {
        return None;
    };
    match &defaults.iter().find(|(k, _)| is_str(k, "ttl"))?.1.value {
        Value::Int(n) => u32::try_from(*n).ok(),
        Value::Null
        | Value::Bool(_)
        | Value::Float(_)
        | Value::Str(_)
        | Value::Seq(_)
        | Value::Map(_) => None,
    }
}
