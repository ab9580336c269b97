//! The located tree, built in one pass from granit-parser's events (each carries its span), with
//! the limits that bound what a hostile file can cost: alias expansion is charged by the nodes
//! it copies, so a billion-laughs file stops at a known size instead of exhausting memory.

use std::collections::HashMap;

use granit_parser::{Event, Parser, Placement, ScalarStyle, ScanError, Span, StructureStyle};

use super::mapping::{MapBuild, check_duplicate, merge};
use super::presentation::{Comment, Construct, Presentation};
use super::subtree::{measure, relocate};
use super::{Node, Pos, SyntaxError, Value, byte_offset, scalar};

/// What one file may cost. 4 M nodes / 8 M events admit a zone of 500,000 records (7 nodes each in
/// flow style); the others are serde-saphyr's defaults, which the loader used before.
pub(super) mod limits {
    pub(crate) const MAX_NODES: usize = 4_000_000;
    pub(crate) const MAX_EVENTS: usize = 8_000_000;
    /// Nodes copied by alias expansion (serde-saphyr: 1,000,000 replayed events).
    pub(crate) const MAX_ALIAS_NODES: usize = 1_000_000;
    pub(crate) const MAX_ALIASES: usize = 50_000;
    pub(crate) const MAX_ANCHORS: usize = 50_000;
    /// Nested lists and mappings, aliases expanded.
    pub(crate) const MAX_DEPTH: usize = 64;
    pub(crate) const MAX_DOCUMENTS: usize = 1_024;
    /// Bytes of scalar text, aliases expanded.
    pub(crate) const MAX_SCALAR_BYTES: usize = 64 * 1024 * 1024;
}
use limits::*;

/// Every non-null document of `source`.
#[cfg(test)]
pub(super) fn documents(source: &str) -> Result<Vec<Node<'_>>, SyntaxError> {
    build(Builder::new(source))
}

/// Every non-null document of `source`, but each item of a document's top-level `key:` list goes
/// to `sink` (with the document's index) as soon as it is complete, and the list stays empty in
/// the tree: the tree of a large list is never whole. A list with an anchor is kept (an alias copies it).
pub(crate) fn documents_streaming<'s>(
    source: &'s str,
    key: &str,
    sink: &mut dyn FnMut(usize, Node<'s>),
) -> Result<Vec<Node<'s>>, SyntaxError> {
    let mut builder = Builder::new(source);
    builder.divert = Some(Divert { key, sink });
    build(builder)
}

/// Every non-null document of `source`, with its comments and the constructs `fmt` leaves
/// alone; its lists are whole (nothing diverted).
pub(crate) fn documents_presented(
    source: &str,
) -> Result<(Vec<Node<'_>>, Presentation), SyntaxError> {
    let mut builder = Builder::new(source);
    builder.presentation = Some(Presentation::default());
    let presentation = run(&mut builder)?;
    Ok((
        std::mem::take(&mut builder.docs),
        presentation.unwrap_or_default(),
    ))
}

fn build<'s>(mut builder: Builder<'s, '_>) -> Result<Vec<Node<'s>>, SyntaxError> {
    run(&mut builder)?;
    Ok(builder.docs)
}

fn run(builder: &mut Builder<'_, '_>) -> Result<Option<Presentation>, SyntaxError> {
    let source = builder.source;
    let emit_comments = builder.presentation.is_some();
    let options = granit_parser::options! { emit_comments: emit_comments };
    for item in Parser::new_from_str_with_options(source, options) {
        let (event, span) = item.map_err(|e| scan_error(source, &e))?;
        builder.event(event, pos(&span))?;
    }
    Ok(builder.presentation.take())
}

fn scan_error(source: &str, err: &ScanError) -> SyntaxError {
    let (line, col) = (err.marker().line(), err.marker().col() + 1);
    SyntaxError {
        message: err.info(),
        pos: (line > 0).then(|| Pos::new(line, col, byte_offset(source, line, col), 0)),
    }
}

fn pos(span: &Span) -> Pos {
    let offset = span.start.byte_offset().unwrap_or(0);
    let end = span.end.byte_offset().unwrap_or(offset);
    Pos::new(
        span.start.line(),
        span.start.col() + 1,
        offset,
        end.saturating_sub(offset),
    )
}

/// An anchored node and what copying it costs.
struct Anchored<'s> {
    node: Node<'s>,
    nodes: usize,
    depth: usize,
    bytes: usize,
}

/// A list or mapping still being read.
struct Open<'s> {
    pos: Pos,
    anchor: usize,
    flow: bool,
    body: Body<'s>,
}

enum Body<'s> {
    Seq(Vec<Node<'s>>),
    Map(MapBuild<'s>),
}

/// Where the items of a top-level list go instead of the tree.
struct Divert<'s, 'k> {
    key: &'k str,
    sink: &'k mut dyn FnMut(usize, Node<'s>),
}

struct Builder<'s, 'k> {
    source: &'s str,
    divert: Option<Divert<'s, 'k>>,
    open: Vec<Open<'s>>,
    presentation: Option<Presentation>,
    anchors: HashMap<usize, Anchored<'s>>,
    docs: Vec<Node<'s>>,
    root: Option<Node<'s>>,
    events: usize,
    nodes: usize,
    alias_nodes: usize,
    aliases: usize,
    anchor_count: usize,
    documents: usize,
    scalar_bytes: usize,
}

impl<'s, 'k> Builder<'s, 'k> {
    fn new(source: &'s str) -> Self {
        Builder {
            source,
            divert: None,
            open: Vec::new(),
            presentation: None,
            anchors: HashMap::new(),
            docs: Vec::new(),
            root: None,
            events: 0,
            nodes: 0,
            alias_nodes: 0,
            aliases: 0,
            anchor_count: 0,
            documents: 0,
            scalar_bytes: 0,
        }
    }

    // clippy reads the allow on the function, not on the arm.
    #[allow(
        clippy::wildcard_enum_match_arm,
        reason = "granit-parser's `Event` is `#[non_exhaustive]`: the stream's framing and events it may add carry nothing the tree keeps"
    )]
    fn event(&mut self, event: Event<'s>, at: Pos) -> Result<(), SyntaxError> {
        self.events += 1;
        limit(self.events <= MAX_EVENTS, at, || {
            format!("the file has more than {MAX_EVENTS} YAML events")
        })?;
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                limit(self.documents <= MAX_DOCUMENTS, at, || {
                    format!("the file has more than {MAX_DOCUMENTS} documents")
                })?;
            }
            Event::DocumentEnd => {
                if let Some(root) = self.root.take().filter(|r| r.value != Value::Null) {
                    self.docs.push(root);
                }
                self.anchors.clear();
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.note_properties(anchor, tag.as_deref(), at);
                self.count_nodes(1, at)?;
                self.count_bytes(text.len(), at)?;
                let merge_key = style == ScalarStyle::Plain && tag.is_none() && text == "<<";
                let value = scalar::resolve(text, style, tag.as_deref())
                    .map_err(|message| located(message, at))?;
                self.complete(Node { value, pos: at }, anchor, merge_key)?;
            }
            Event::SequenceStart(style, anchor, tag) => {
                let flow = style == StructureStyle::Flow;
                self.note_properties(anchor, tag.as_deref(), at);
                self.start(at, anchor, flow, Body::Seq(Vec::new()))?;
            }
            Event::MappingStart(style, anchor, tag) => {
                self.note_properties(anchor, tag.as_deref(), at);
                let flow = style == StructureStyle::Flow;
                self.start(at, anchor, flow, Body::Map(MapBuild::default()))?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.end(at)?,
            Event::Alias(id) => {
                self.note(Construct::Alias, at);
                self.alias(id, at)?;
            }
            Event::Comment(_, placement) => {
                if let Some(p) = &mut self.presentation {
                    let trailing = placement == Placement::Right;
                    p.comments.push(Comment { pos: at, trailing });
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn note_properties(&mut self, anchor: usize, tag: Option<&granit_parser::Tag>, at: Pos) {
        if anchor != 0 {
            self.note(Construct::Anchor, at);
        }
        if let Some(tag) = tag {
            self.note(Construct::Tag, at);
            if let Some(p) = &mut self.presentation {
                p.tags.insert(at.offset, tag.to_string());
            }
        }
    }

    fn note(&mut self, construct: Construct, at: Pos) {
        if let Some(p) = &mut self.presentation {
            p.constructs.push((construct, at));
        }
    }

    fn start(
        &mut self,
        at: Pos,
        anchor: usize,
        flow: bool,
        body: Body<'s>,
    ) -> Result<(), SyntaxError> {
        self.count_nodes(1, at)?;
        limit(self.open.len() < MAX_DEPTH, at, || {
            format!("lists and mappings are nested more than {MAX_DEPTH} deep")
        })?;
        self.open.push(Open {
            pos: at,
            anchor,
            flow,
            body,
        });
        Ok(())
    }

    fn end(&mut self, at: Pos) -> Result<(), SyntaxError> {
        let Some(open) = self.open.pop() else {
            return Ok(());
        };
        if let Some(p) = &mut self.presentation
            && open.flow
        {
            p.flow_ends
                .insert(open.pos.offset, at.offset.saturating_add(at.len));
        }
        let value = match open.body {
            Body::Seq(items) => Value::Seq(items),
            Body::Map(map) => Value::Map(merge(map)?),
        };
        self.complete(
            Node {
                value,
                pos: open.pos,
            },
            open.anchor,
            false,
        )
    }

    fn alias(&mut self, id: usize, at: Pos) -> Result<(), SyntaxError> {
        let (offset, len) = at.span();
        let name = self.source.get(offset..offset + len).unwrap_or("*");
        let recursive = || {
            located(
                format!("the alias `{name}` refers to a node that contains it (a recursive alias)"),
                at,
            )
        };
        let anchored = self.anchors.get(&id).ok_or_else(recursive)?;
        let (nodes, depth, bytes) = (anchored.nodes, anchored.depth, anchored.bytes);
        self.aliases += 1;
        self.alias_nodes += nodes;
        limit(self.aliases <= MAX_ALIASES, at, || {
            format!("the file uses more than {MAX_ALIASES} aliases")
        })?;
        limit(self.alias_nodes <= MAX_ALIAS_NODES, at, || {
            format!("aliases expand to more than {MAX_ALIAS_NODES} nodes")
        })?;
        limit(self.open.len() + depth <= MAX_DEPTH, at, || {
            format!("the alias `{name}` nests lists and mappings more than {MAX_DEPTH} deep")
        })?;
        self.count_nodes(nodes, at)?;
        self.count_bytes(bytes, at)?;
        // Copied only once the budget allows it.
        let mut node = self.anchors.get(&id).ok_or_else(recursive)?.node.clone();
        // An alias's copy is reported where the alias is written, as before.
        relocate(&mut node, at);
        self.complete(node, 0, false)
    }

    /// A finished node goes into its parent, or becomes the document.
    fn complete(
        &mut self,
        node: Node<'s>,
        anchor: usize,
        merge_key: bool,
    ) -> Result<(), SyntaxError> {
        if anchor != 0 {
            self.anchor(anchor, &node)?;
        }
        if self.diverts() {
            let doc = self.docs.len();
            if let Some(divert) = &mut self.divert {
                (divert.sink)(doc, node);
            }
            return Ok(());
        }
        let Some(parent) = self.open.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        match &mut parent.body {
            Body::Seq(items) => items.push(node),
            Body::Map(map) => match map.key.take() {
                None => {
                    if !merge_key {
                        check_duplicate(map, &node)?;
                    }
                    map.key = Some((node, merge_key));
                }
                Some((_, true)) => map.merges.push(node),
                Some((key, false)) => map.entries.push((key, node)),
            },
        }
        Ok(())
    }

    /// Whether a node completing now is an item of the diverted list: the open containers are
    /// the document's mapping, waiting for the value of the key, and that value, an unanchored list.
    fn diverts(&self) -> bool {
        let (Some(divert), [root, list]) = (&self.divert, self.open.as_slice()) else {
            return false;
        };
        let keyed = match &root.body {
            Body::Map(map) => matches!(
                &map.key,
                Some((Node { value: Value::Str(k), .. }, false)) if k == divert.key
            ),
            Body::Seq(_) => false,
        };
        keyed && list.anchor == 0 && matches!(list.body, Body::Seq(_))
    }

    fn anchor(&mut self, id: usize, node: &Node<'s>) -> Result<(), SyntaxError> {
        self.anchor_count += 1;
        limit(self.anchor_count <= MAX_ANCHORS, node.pos, || {
            format!("the file defines more than {MAX_ANCHORS} anchors")
        })?;
        let (nodes, depth, bytes) = measure(node);
        self.anchors.insert(
            id,
            Anchored {
                node: node.clone(),
                nodes,
                depth,
                bytes,
            },
        );
        Ok(())
    }

    fn count_nodes(&mut self, n: usize, at: Pos) -> Result<(), SyntaxError> {
        self.nodes += n;
        limit(self.nodes <= MAX_NODES, at, || {
            format!("the file has more than {MAX_NODES} YAML nodes (aliases expanded)")
        })
    }

    fn count_bytes(&mut self, n: usize, at: Pos) -> Result<(), SyntaxError> {
        self.scalar_bytes += n;
        limit(self.scalar_bytes <= MAX_SCALAR_BYTES, at, || {
            format!("the file has more than {MAX_SCALAR_BYTES} bytes of text (aliases expanded)")
        })
    }
}

pub(super) fn located(message: String, at: Pos) -> SyntaxError {
    SyntaxError {
        message,
        pos: Some(at),
    }
}

fn limit(ok: bool, at: Pos, message: impl FnOnce() -> String) -> Result<(), SyntaxError> {
    if ok {
        Ok(())
    } else {
        Err(located(message(), at))
    }
}
