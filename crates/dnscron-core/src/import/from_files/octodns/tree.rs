//! An octoDNS YAML file as an owned, located tree, its `!include`s resolved: read through the
//! crate's one YAML path (`config::documents_presented`, which keeps each node's tag), then
//! copied out of the borrowed text so an included file's nodes can stand in the including one.

use std::path::{Path, PathBuf};

use crate::config::{YamlNode, YamlValue, documents_presented};

use super::problem::{Problem, ProblemKind};

/// A node and where it stands.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Item {
    pub(super) value: Val,
    pub(super) file: PathBuf,
    pub(super) line: usize,
    pub(super) col: usize,
    /// The node is a YAML string (quoted, or plain text no YAML 1.1 type claims): Python's
    /// truth takes any non-empty one as true, `'false'` among them.
    pub(super) string: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    Null,
    Scalar(String),
    Seq(Vec<Item>),
    /// Keys as their text (`''` is the empty string).
    Map(Vec<(String, Item)>),
}

impl Item {
    pub(super) fn problem(&self, kind: ProblemKind) -> Problem {
        Problem {
            file: self.file.clone(),
            line: self.line,
            col: self.col,
            kind,
        }
    }

    /// The value under `key` of a mapping.
    pub(super) fn get(&self, key: &str) -> Option<&Item> {
        match &self.value {
            Val::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Val::Null | Val::Scalar(_) | Val::Seq(_) => None,
        }
    }

    pub(super) fn scalar(&self) -> Option<&str> {
        match &self.value {
            Val::Scalar(text) => Some(text),
            Val::Null | Val::Seq(_) | Val::Map(_) => None,
        }
    }

    /// How the value is named in "expected X, found Y".
    pub(super) fn kind(&self) -> String {
        match &self.value {
            Val::Null => "nothing".into(),
            Val::Scalar(text) => format!("`{text}`"),
            Val::Seq(_) => "a list".into(),
            Val::Map(_) => "a mapping".into(),
        }
    }
}

/// Reads `path` (shown as `shown`) and every file it `!include`s, each include only inside the
/// folder of the file that names it (symlinks resolved). `reading` holds the files being read,
/// to refuse a loop.
pub(super) fn load(path: &Path, shown: &Path, reading: &mut Vec<PathBuf>) -> Result<Item, Problem> {
    let at_start = |kind| Problem {
        file: shown.to_path_buf(),
        line: 1,
        col: 1,
        kind,
    };
    let bytes = std::fs::read(path).map_err(|e| {
        at_start(ProblemKind::Unreadable {
            reason: e.to_string(),
        })
    })?;
    let text = String::from_utf8(bytes).map_err(|_| at_start(ProblemKind::NotUtf8))?;
    let (docs, presentation) = documents_presented(&text).map_err(|e| Problem {
        file: shown.to_path_buf(),
        line: e.pos.map_or(1, |p| p.line as usize),
        col: e.pos.map_or(1, |p| p.col as usize),
        kind: ProblemKind::Yaml { message: e.message },
    })?;
    let context = Context {
        path,
        shown,
        text: &text,
        tags: &presentation.tags,
    };
    reading.push(path.to_path_buf());
    let first = match docs.first() {
        Some(doc) => context.own(doc, reading),
        None => Ok(Item {
            value: Val::Null,
            file: shown.to_path_buf(),
            line: 1,
            col: 1,
            string: false,
        }),
    };
    reading.pop();
    first
}

struct Context<'a> {
    path: &'a Path,
    shown: &'a Path,
    text: &'a str,
    tags: &'a std::collections::HashMap<u32, String>,
}

impl Context<'_> {
    fn own(&self, node: &YamlNode<'_>, reading: &mut Vec<PathBuf>) -> Result<Item, Problem> {
        let item = |value| Item {
            value,
            file: self.shown.to_path_buf(),
            line: node.pos.line as usize,
            col: node.pos.col as usize,
            string: matches!(node.value, YamlValue::Str(_)),
        };
        if self.tags.get(&node.pos.offset).map(String::as_str) == Some("!include") {
            return self.include(node, reading);
        }
        let value = match &node.value {
            YamlValue::Null => Val::Null,
            // As written: PyYAML, which octoDNS reads with, takes `y` and `n` as text where the
            // crate's YAML 1.1 reader takes them as booleans (a record named `y`).
            YamlValue::Bool(b) => Val::Scalar(
                self.text
                    .get(node.pos.offset as usize..(node.pos.offset + node.pos.len) as usize)
                    .filter(|raw| !raw.is_empty())
                    .map_or_else(|| b.to_string(), str::to_string),
            ),
            YamlValue::Int(i) => Val::Scalar(i.to_string()),
            YamlValue::Float(f) => Val::Scalar(f.to_string()),
            YamlValue::Str(s) => Val::Scalar(s.to_string()),
            YamlValue::Seq(items) => Val::Seq(
                items
                    .iter()
                    .map(|i| self.own(i, reading))
                    .collect::<Result<_, _>>()?,
            ),
            YamlValue::Map(entries) => {
                let mut owned = Vec::with_capacity(entries.len());
                for (key, value) in entries {
                    let key = match &self.own(key, reading)?.value {
                        Val::Scalar(text) => text.clone(),
                        Val::Null => String::new(),
                        Val::Seq(_) | Val::Map(_) => {
                            return Err(item(Val::Null).problem(ProblemKind::Expected {
                                key: "a key".into(),
                                want: "a name",
                                found: "a list or mapping".into(),
                            }));
                        }
                    };
                    owned.push((key, self.own(value, reading)?));
                }
                Val::Map(owned)
            }
        };
        Ok(item(value))
    }

    fn include(&self, node: &YamlNode<'_>, reading: &mut Vec<PathBuf>) -> Result<Item, Problem> {
        let here = Item {
            value: Val::Null,
            file: self.shown.to_path_buf(),
            line: node.pos.line as usize,
            col: node.pos.col as usize,
            string: false,
        };
        let YamlValue::Str(name) = &node.value else {
            return Err(here.problem(ProblemKind::Expected {
                key: "!include".into(),
                want: "a file name",
                found: node.value.kind(),
            }));
        };
        let shown = self
            .shown
            .parent()
            .unwrap_or(Path::new(""))
            .join(name.as_ref());
        let unreadable = |e: std::io::Error| {
            here.problem(ProblemKind::IncludeUnreadable {
                path: shown.clone(),
                reason: e.to_string(),
            })
        };
        let folder = self
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .canonicalize()
            .map_err(unreadable)?;
        let target = folder
            .join(name.as_ref())
            .canonicalize()
            .map_err(unreadable)?;
        if !target.starts_with(&folder) {
            return Err(here.problem(ProblemKind::IncludeOutside {
                path: shown,
                folder: self.shown.parent().unwrap_or(Path::new("")).to_path_buf(),
            }));
        }
        if reading.contains(&target) {
            return Err(here.problem(ProblemKind::IncludeLoop { path: shown }));
        }
        load(&target, &shown, reading)
    }
}
