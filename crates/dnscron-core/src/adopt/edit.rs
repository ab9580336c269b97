//! Where each adopted record goes in its file, as splices of the file's own text: an item
//! rewritten by the shared writer, an item removed (its comments kept), an item added where
//! `fmt`'s order puts it. Every other byte stays as read.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::config::Construct;
use crate::config::documents_presented;
use crate::config::fmt::order::{RecordKey, record_order};
use crate::config::fmt::records::{self, ListedItem, RecordsList};
use crate::config::fmt::text::{RecordItem, record_item};
use crate::config::model::RecordSpec;
use crate::dns::{self, RecordType, ZoneName};
use crate::plan::Value;

use super::group::{Group, LiveValue, MemberKind};
use super::{AdoptAction, Adopted, LayoutWhy, Left, LeftReason};

/// The files as read, and each one `adopt` edits, parsed once.
pub(super) struct Editor<'f> {
    files: &'f [(PathBuf, String)],
    parsed: HashMap<usize, Result<Parsed, Layout>>,
}

/// A file read for editing: its text with `\n` line ends, and its zone documents.
struct Parsed {
    text: String,
    crlf: bool,
    docs: Vec<ZoneDoc>,
}

struct ZoneDoc {
    zone: ZoneName,
    default_ttl: Option<u32>,
    /// Where a `records:` key written anew is indented.
    indent: String,
    list: RecordsList,
}

#[derive(Clone)]
struct Layout {
    line: usize,
    col: usize,
    why: LayoutWhy,
}

/// A group with the splices that write it.
pub(super) struct Planned {
    pub group: Group,
    splices: Vec<Splice>,
    pub adopted: Vec<Adopted>,
}

#[derive(Clone)]
struct Splice {
    file: usize,
    doc: usize,
    at: Range<usize>,
    text: String,
    op: Op,
}

#[derive(Clone, PartialEq, Eq)]
enum Op {
    Replace,
    Remove,
    /// Sorted among the other inserts at its place by the record's key.
    Insert {
        name: String,
        rtype: RecordType,
        canonical: String,
        ttl: Option<u32>,
    },
}

impl<'f> Editor<'f> {
    pub(super) fn new(files: &'f [(PathBuf, String)]) -> Editor<'f> {
        Editor {
            files,
            parsed: HashMap::new(),
        }
    }

    /// Each group's splices; a group whose file can't be edited in place is left whole.
    pub(super) fn plan_groups(
        &mut self,
        groups: Vec<Group>,
        desired: &crate::config::model::Desired,
    ) -> (Vec<Planned>, Vec<Left>) {
        let mut planned = Vec::new();
        let mut left = Vec::new();
        for group in groups {
            let zone = &desired.zones[group.zone];
            let zone_file = self.index_of(&zone.location.file);
            match self.group_splices(&group, &zone.zone, zone_file) {
                Ok((splices, adopted)) => planned.push(Planned {
                    group,
                    splices,
                    adopted,
                }),
                Err(reason) => {
                    left.extend(group.members.iter().map(|m| m.left(reason.clone())));
                }
            }
        }
        (planned, left)
    }

    fn index_of(&self, path: &Path) -> Option<usize> {
        self.files.iter().position(|(p, _)| p == path)
    }

    fn parsed(&mut self, file: usize) -> Result<&Parsed, LeftReason> {
        let files = self.files;
        let parsed = self
            .parsed
            .entry(file)
            .or_insert_with(|| parse(&files[file].1));
        parsed.as_ref().map_err(|l| LeftReason::Layout {
            file: files[file].0.clone(),
            line: l.line,
            col: l.col,
            why: l.why.clone(),
        })
    }

    fn group_splices(
        &mut self,
        group: &Group,
        zone: &ZoneName,
        zone_file: Option<usize>,
    ) -> Result<(Vec<Splice>, Vec<Adopted>), LeftReason> {
        let mut splices = Vec::new();
        let mut adopted = Vec::new();
        for member in &group.members {
            let (file, spec) = match &member.kind {
                MemberKind::Update { spec, .. } | MemberKind::Remove { spec } => {
                    (self.index_of(&spec.location.file), Some(spec))
                }
                MemberKind::Add { .. } => (zone_file, None),
            };
            // The plan's desired state is the files': a declaration in no file read is not
            // written to.
            let file = file.ok_or(LeftReason::StillDiffers)?;
            let path = self.files[file].0.clone();
            let parsed = self.parsed(file)?;
            let doc = parsed
                .docs
                .iter()
                .position(|d| d.zone == *zone)
                .ok_or(LeftReason::StillDiffers)?;
            let zdoc = &parsed.docs[doc];
            let (splice, action, line) = match (&member.kind, spec) {
                (MemberKind::Update { live, .. }, Some(spec)) => {
                    let item = find_item(zdoc, spec, &path)?;
                    let text = replaced(item, zdoc, zone, group.rtype, live);
                    let action = AdoptAction::Updated {
                        declared: declared_value(spec),
                        live: live_value(live),
                    };
                    (
                        Splice {
                            file,
                            doc,
                            at: item.body.clone(),
                            text,
                            op: Op::Replace,
                        },
                        action,
                        Some(spec.location.line),
                    )
                }
                (MemberKind::Remove { .. }, Some(spec)) => {
                    let item = find_item(zdoc, spec, &path)?;
                    let action = AdoptAction::Removed {
                        declared: declared_value(spec),
                    };
                    (
                        Splice {
                            file,
                            doc,
                            at: item.body.clone(),
                            text: comments_only(item),
                            op: Op::Remove,
                        },
                        action,
                        Some(spec.location.line),
                    )
                }
                (MemberKind::Add { live }, _) => {
                    let splice = added(zdoc, file, doc, &group.name, group.rtype, live, &path)?;
                    (
                        splice,
                        AdoptAction::Added {
                            live: live_value(live),
                        },
                        None,
                    )
                }
                (MemberKind::Update { .. } | MemberKind::Remove { .. }, None) => {
                    return Err(LeftReason::StillDiffers);
                }
            };
            splices.push(splice);
            adopted.push(Adopted {
                zone: zone.to_string(),
                name: group.name.clone(),
                rtype: group.rtype,
                action,
                file: path,
                line,
            });
        }
        Ok((splices, adopted))
    }

    /// Every file's text with the splices of `groups` applied (the others as read).
    pub(super) fn texts(&self, groups: &[&Planned]) -> Vec<(PathBuf, String)> {
        let mut by_file: HashMap<usize, Vec<Splice>> = HashMap::new();
        for splice in groups.iter().flat_map(|g| &g.splices) {
            by_file.entry(splice.file).or_default().push(splice.clone());
        }
        self.files
            .iter()
            .enumerate()
            .map(|(i, (path, original))| {
                let text = match (by_file.remove(&i), self.parsed.get(&i)) {
                    (Some(splices), Some(Ok(parsed))) => assemble(parsed, splices),
                    (Some(_) | None, _) => original.clone(),
                };
                (path.clone(), text)
            })
            .collect()
    }
}

fn parse(source: &str) -> Result<Parsed, Layout> {
    let crlf = source.contains('\r');
    let text = if crlf {
        source.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        source.to_string()
    };
    let (nodes, presentation) = documents_presented(&text).map_err(|e| Layout {
        line: e.pos.map_or(1, |p| p.line as usize),
        col: e.pos.map_or(1, |p| p.col as usize),
        why: LayoutWhy::Syntax(e.message),
    })?;
    if let Some((construct, pos)) = presentation.constructs.first() {
        let why = match construct {
            Construct::Anchor | Construct::Alias => LayoutWhy::Anchor,
            Construct::Tag => LayoutWhy::Tag,
        };
        return Err(Layout {
            line: pos.line as usize,
            col: pos.col as usize,
            why,
        });
    }
    let mut docs = Vec::new();
    for node in &nodes {
        let Some(zone) = records::document_zone(node) else {
            continue;
        };
        let list = records::records_list(&text, node, &presentation).map_err(|l| Layout {
            line: l.line,
            col: l.col,
            why: LayoutWhy::of(l.reason),
        })?;
        let Some(list) = list else { continue };
        docs.push(ZoneDoc {
            zone,
            default_ttl: records::default_ttl(node),
            indent: " ".repeat(node.pos.col.saturating_sub(1) as usize),
            list,
        });
    }
    Ok(Parsed {
        text,
        crlf: source.contains("\r\n"),
        docs,
    })
}

/// The item a declaration was read from (its mapping starts where the record's location says).
fn find_item<'d>(
    doc: &'d ZoneDoc,
    spec: &RecordSpec,
    path: &Path,
) -> Result<&'d ListedItem, LeftReason> {
    let layout = |why| LeftReason::Layout {
        file: path.to_path_buf(),
        line: spec.location.line,
        col: spec.location.col,
        why,
    };
    let list = match &doc.list {
        RecordsList::Block(list) => list,
        RecordsList::Flow { .. } => return Err(layout(LayoutWhy::FlowList)),
        RecordsList::Missing { .. } => return Err(layout(LayoutWhy::ItemLayout)),
    };
    list.items
        .iter()
        .find(|i| {
            i.pos.line as usize == spec.location.line && i.pos.col as usize == spec.location.col
        })
        .ok_or_else(|| layout(LayoutWhy::ItemLayout))
}

/// The TTL an item writes: kept explicit if it was, else only when the zone's default differs.
fn written_ttl(explicit: bool, ttl: u32, doc: &ZoneDoc) -> Option<u32> {
    let default = doc.default_ttl.unwrap_or(dns::rules::DEFAULT_TTL);
    (explicit || ttl != default).then_some(ttl)
}

fn replaced(
    item: &ListedItem,
    doc: &ZoneDoc,
    zone: &ZoneName,
    rtype: RecordType,
    live: &LiveValue,
) -> String {
    let mut text = String::new();
    for comment in &item.inner {
        text.push_str(&format!("{}{comment}\n", item.indent));
    }
    let name = dns::record_name_to_relative(&item.name, zone)
        .unwrap_or_else(|_| item.name.to_ascii_lowercase());
    let content = dns::wire_content(rtype, &live.canonical);
    let record = RecordItem {
        name: &name,
        rtype,
        content: &content,
        ttl: written_ttl(item.ttl.is_some(), live.ttl, doc),
        override_sets: item.override_sets,
    };
    record_item(&mut text, &item.indent, &record, item.trailing.as_deref());
    text
}

/// A removed item's comments, each on its own line at the item's indent: no comment is lost.
fn comments_only(item: &ListedItem) -> String {
    item.inner
        .iter()
        .chain(&item.trailing)
        .map(|c| format!("{}{c}\n", item.indent))
        .collect()
}

fn added(
    doc: &ZoneDoc,
    file: usize,
    doc_index: usize,
    name: &str,
    rtype: RecordType,
    live: &LiveValue,
    path: &Path,
) -> Result<Splice, LeftReason> {
    let ttl = written_ttl(false, live.ttl, doc);
    let content = dns::wire_content(rtype, &live.canonical);
    let record = RecordItem {
        name,
        rtype,
        content: &content,
        ttl,
        override_sets: None,
    };
    let key = RecordKey {
        name,
        rtype,
        content: &live.canonical,
        ttl,
    };
    let (at, indent) = match &doc.list {
        RecordsList::Block(list) => {
            let after = list
                .items
                .iter()
                .filter(|i| {
                    let (name, content) = item_sort_parts(i, &doc.zone);
                    let at = RecordKey {
                        name: &name,
                        rtype: i.rtype,
                        content: &content,
                        ttl: i.ttl,
                    };
                    record_order(&at, &key).is_le()
                })
                .map(|i| i.body.end)
                .max();
            let indent = list.items.first().map_or("  ", |i| i.indent.as_str());
            (after.unwrap_or(list.start), indent.to_string())
        }
        RecordsList::Flow { brackets, empty } => {
            if !empty {
                return Err(LeftReason::Layout {
                    file: path.to_path_buf(),
                    line: 0,
                    col: 0,
                    why: LayoutWhy::FlowList,
                });
            }
            (brackets.end, format!("{}  ", doc.indent))
        }
        RecordsList::Missing { end } => (*end, format!("{}  ", doc.indent)),
    };
    let mut text = String::new();
    record_item(&mut text, &indent, &record, None);
    Ok(Splice {
        file,
        doc: doc_index,
        at: at..at,
        text,
        op: Op::Insert {
            name: name.to_string(),
            rtype,
            canonical: live.canonical.clone(),
            ttl,
        },
    })
}

/// An item's relative name and canonical content, as `fmt` sorts it.
fn item_sort_parts(item: &ListedItem, zone: &ZoneName) -> (String, String) {
    let name = dns::record_name_to_relative(&item.name, zone)
        .unwrap_or_else(|_| item.name.to_ascii_lowercase());
    let content = dns::canonical_content(item.rtype, &item.content, zone)
        .unwrap_or_else(|_| item.content.clone());
    (name, content)
}

fn declared_value(spec: &RecordSpec) -> Value {
    Value::Record {
        ttl: spec.ttl,
        content: spec.canonical.clone(),
    }
}

fn live_value(live: &LiveValue) -> Value {
    Value::Record {
        ttl: live.ttl,
        content: live.canonical.clone(),
    }
}

/// The file's text with its splices applied, in its own line ends. A list left without items
/// becomes `records: []` (an empty key is an error); a list written anew gets its key; an empty
/// flow list `[]` gives way to the block list.
fn assemble(parsed: &Parsed, mut splices: Vec<Splice>) -> String {
    let text = &parsed.text;
    let mut extra = Vec::new();
    for (d, doc) in parsed.docs.iter().enumerate() {
        let mine = || splices.iter().filter(move |s| s.doc == d);
        let inserts = mine().filter(|s| matches!(s.op, Op::Insert { .. })).count();
        let removes = mine().filter(|s| s.op == Op::Remove).count();
        let Some(file) = mine().next().map(|s| s.file) else {
            continue;
        };
        let splice = |at: Range<usize>, text: String| Splice {
            file,
            doc: d,
            at,
            text,
            op: Op::Replace,
        };
        match &doc.list {
            RecordsList::Block(list) if inserts == 0 && removes == list.items.len() => {
                extra.push(splice(list.after_colon..list.after_colon, " []".into()));
            }
            RecordsList::Block(_) => {}
            RecordsList::Flow { brackets, .. } if inserts > 0 => {
                // `records: []` → `records:` and the items on the lines after it.
                let start = text[..brackets.start].trim_end_matches(' ').len();
                extra.push(splice(start..brackets.end, String::new()));
                let end = line_end(text, brackets.end);
                for s in splices.iter_mut().filter(|s| s.doc == d) {
                    s.at = end..end;
                }
            }
            RecordsList::Flow { .. } => {}
            RecordsList::Missing { end } if inserts > 0 => {
                extra.push(splice(*end..*end, format!("{}records:\n", doc.indent)));
            }
            RecordsList::Missing { .. } => {}
        }
    }
    // Headers (`Replace` at an empty range) before the inserts at the same place.
    splices.extend(extra);
    splices.sort_by(|a, b| {
        (a.at.start, a.at.end, rank(&a.op))
            .cmp(&(b.at.start, b.at.end, rank(&b.op)))
            .then_with(|| insert_order(&a.op, &b.op))
    });
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for s in &splices {
        if s.at.start < done {
            continue;
        }
        out.push_str(&text[done..s.at.start]);
        // An item or key added after a last line without its line break starts a line.
        if s.at.is_empty() && s.text.ends_with('\n') && !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&s.text);
        done = s.at.end;
    }
    out.push_str(&text[done..]);
    if parsed.crlf {
        out.replace('\n', "\r\n")
    } else {
        out
    }
}

fn rank(op: &Op) -> u8 {
    match op {
        Op::Replace | Op::Remove => 0,
        Op::Insert { .. } => 1,
    }
}

fn insert_order(a: &Op, b: &Op) -> std::cmp::Ordering {
    match (a, b) {
        (
            Op::Insert {
                name,
                rtype,
                canonical,
                ttl,
            },
            Op::Insert {
                name: n2,
                rtype: t2,
                canonical: c2,
                ttl: l2,
            },
        ) => record_order(
            &RecordKey {
                name,
                rtype: *rtype,
                content: canonical,
                ttl: *ttl,
            },
            &RecordKey {
                name: n2,
                rtype: *t2,
                content: c2,
                ttl: *l2,
            },
        ),
        (Op::Replace | Op::Remove | Op::Insert { .. }, _) => std::cmp::Ordering::Equal,
    }
}

fn line_end(source: &str, offset: usize) -> usize {
    source
        .as_bytes()
        .get(offset..)
        .and_then(|rest| rest.iter().position(|b| *b == b'\n'))
        .map_or(source.len(), |i| offset + i + 1)
}
