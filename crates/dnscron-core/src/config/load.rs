//! Paths → files → YAML documents → validated [`Desired`].
//!
//! The loader's peak is most of a large plan's peak memory, so nothing is held longer than it
//! must be: a zone's records are extracted as the parser completes each one (the tree of the
//! list is never whole), and each document is validated as soon as it is extracted and then
//! dropped. The measurements behind this are in docs/design/planner-performance.md (issue 14,
//! parts 3 and 4).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::diagnostics::{Diagnostic, Diagnostics, SourceFile};
use super::extract::{self, Ctx, Streamed};
use super::model::Desired;
use super::tree::{self, Pos, SyntaxError};
use super::validate::{SourcedDoc, Validator};

/// Loads and validates every zone and site in `paths` (files, or directories walked
/// recursively for `*.yaml`/`*.yml` in sorted order). On any problem returns all of them.
pub fn load(paths: &[PathBuf]) -> Result<Desired, Diagnostics> {
    load_with_warnings(paths).map(|loaded| loaded.desired)
}

/// A valid desired state and what is worth a look without being wrong (a record set no zone
/// uses, an `override: true` that replaces nothing).
#[derive(Debug)]
pub struct Loaded {
    pub desired: Desired,
    /// Sorted by file, line and column; empty when there is nothing to say.
    pub warnings: Diagnostics,
}

/// Like [`load`], with the warnings about valid files.
pub fn load_with_warnings(paths: &[PathBuf]) -> Result<Loaded, Diagnostics> {
    let mut diags = Diagnostics::default();
    let files = collect_files(paths, &mut diags);
    let mut docs = Validator::default();
    for file in &files {
        read_file(file, &mut diags, &mut docs);
    }
    finish(docs, diags, !files.is_empty())
}

/// Like [`load`], for files held in memory (the examples `dnscron demo` embeds): each text
/// is read as if it were at its path, which messages and plans name.
pub fn load_texts(files: &[(PathBuf, String)]) -> Result<Desired, Diagnostics> {
    let mut diags = Diagnostics::default();
    let mut docs = Validator::default();
    for (path, text) in files {
        let source = Arc::new(SourceFile::new(path.as_path().into(), text.clone()));
        read_source(&source, &mut diags, &mut docs);
    }
    finish(docs, diags, !files.is_empty()).map(|loaded| loaded.desired)
}

/// The text of every file [`load`] would read from `paths`, in its order: for a command that
/// rewrites them (`fmt`). A path that is missing or unreadable is a diagnostic, as in `load`.
pub fn yaml_texts(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, Diagnostics> {
    let mut diags = Diagnostics::default();
    let mut texts = Vec::new();
    for path in collect_files(paths, &mut diags) {
        match std::fs::read_to_string(&path) {
            Ok(text) => texts.push((path, text)),
            Err(err) => diags.push(Diagnostic::general(format!(
                "cannot read `{}`: {err}",
                path.display()
            ))),
        }
    }
    if diags.is_empty() {
        Ok(texts)
    } else {
        diags.sort();
        Err(diags)
    }
}

/// What one file declares, read alone: for the files as they were at an earlier commit
/// (`config::changed`), where only the names matter.
pub(crate) struct Declarations {
    /// Its zones and sites; a zone's `use:` is not resolved (its sets are in other files).
    pub desired: Desired,
    /// The names of the record sets it declares.
    pub sets: Vec<Arc<str>>,
}

pub(crate) fn load_declarations(path: &Path, text: &str) -> Result<Declarations, Diagnostics> {
    let mut diags = Diagnostics::default();
    let mut docs = Validator::without_sets();
    let source = Arc::new(SourceFile::new(path.into(), text.to_string()));
    read_source(&source, &mut diags, &mut docs);
    let sets = docs.set_names();
    let (desired, _) = docs.finish(&mut diags);
    if diags.is_empty() {
        Ok(Declarations { desired, sets })
    } else {
        diags.sort();
        Err(diags)
    }
}

fn finish(docs: Validator, mut diags: Diagnostics, any_file: bool) -> Result<Loaded, Diagnostics> {
    let (desired, warnings) = docs.finish(&mut diags);
    if diags.is_empty() && desired.zones.is_empty() && desired.sites.is_empty() && any_file {
        diags.push(
            Diagnostic::general("the files hold no zone or site documents").with_hint(
                "a document starts with `zone: example.com` or `site: my-site` (a \
                     `record_set:` only adds records to the zones that `use:` it)",
            ),
        );
    }
    if diags.is_empty() {
        Ok(Loaded { desired, warnings })
    } else {
        diags.sort();
        Err(diags)
    }
}

/// The files named by `paths`, each once, directories expanded in sorted order. Hidden
/// directories (`.git`, …) are skipped while walking.
fn collect_files(paths: &[PathBuf], diags: &mut Diagnostics) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for path in paths {
        if path.is_dir() {
            let before = files.len();
            if let Err(err) = walk(path, &mut files, 0) {
                diags.push(Diagnostic::general(format!(
                    "cannot read directory `{}`: {err}",
                    path.display()
                )));
                continue;
            }
            if files.len() == before {
                diags.push(
                    Diagnostic::general(format!(
                        "directory `{}` holds no .yaml or .yml files",
                        path.display()
                    ))
                    .with_hint(
                        "pass the directory with your zone and site files, or the files themselves",
                    ),
                );
            }
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            diags.push(
                Diagnostic::general(format!("`{}` does not exist", path.display())).with_hint(
                    "pass existing files or directories (default: the current directory)",
                ),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
}

/// Deeper than this is taken for a symlink loop rather than a real layout.
const MAX_DEPTH: usize = 32;

pub(crate) fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> std::io::Result<()> {
    if depth > MAX_DEPTH {
        return Err(std::io::Error::other(format!(
            "`{}` is nested more than {MAX_DEPTH} directories deep (a symlink loop?)",
            dir.display()
        )));
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if path.is_dir() {
            if !hidden {
                walk(&path, out, depth + 1)?;
            }
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == "yaml" || e == "yml")
        {
            out.push(path);
        }
    }
    Ok(())
}

fn read_file(path: &Path, diags: &mut Diagnostics, docs: &mut Validator) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => {
            diags.push(Diagnostic::general(format!(
                "cannot read `{}`: {err}",
                path.display()
            )));
            return;
        }
    };
    let source = Arc::new(SourceFile::new(path.into(), text));
    read_source(&source, diags, docs);
}

/// The documents of one file's text, each validated into `docs` as soon as it is read and then
/// dropped with its part of the tree; problems into `diags`.
pub(crate) fn read_source(source: &Arc<SourceFile>, diags: &mut Diagnostics, docs: &mut Validator) {
    // A zone's records are read as the parser completes each one, so its whole tree is never
    // built (at 100,000 records that tree was the loader's peak memory).
    let mut streamed: Vec<Streamed> = Vec::new();
    let mut sink = |doc: usize, node: tree::Node<'_>| {
        if streamed.len() <= doc {
            streamed.resize_with(doc + 1, Streamed::default);
        }
        streamed[doc].add(source, &node);
    };
    let nodes = match tree::documents_streaming(&source.text, "records", &mut sink) {
        Ok(nodes) => nodes,
        Err(err) => {
            diags.push(syntax_diagnostic(source, err));
            return;
        }
    };
    for (i, node) in nodes.into_iter().enumerate() {
        let mut ctx = Ctx {
            source: Arc::clone(source),
            diags,
        };
        let records = streamed.get_mut(i).map(std::mem::take).unwrap_or_default();
        if let Some(doc) = extract::document(&mut ctx, node, records) {
            let doc = SourcedDoc {
                source: Arc::clone(source),
                doc,
            };
            docs.add(doc, diags);
        }
    }
}

pub(crate) fn syntax_diagnostic(source: &Arc<SourceFile>, err: SyntaxError) -> Diagnostic {
    let message = err.message;
    if let Some(tab) = err.pos.and_then(|pos| misplaced_tab(source, &message, pos)) {
        return Diagnostic::at(
            source,
            tab,
            "invalid YAML: a tab where YAML allows only spaces",
        )
        .with_label("this tab")
        .with_hint("indent with spaces: YAML never indents with tabs");
    }
    let hint = "fix the YAML syntax: check indentation, `key: value` spacing and closing \
                quotes or brackets";
    match err.pos {
        Some(pos) => Diagnostic::at(source, pos, format!("invalid YAML: {message}"))
            .with_label("here")
            .with_hint(hint),
        None => Diagnostic::general(format!(
            "invalid YAML in `{}`: {message}",
            source.path.display()
        ))
        .with_hint(hint),
    }
}

/// Where the tab a parser's tab error is about stands: the parser reports the place after it
/// (`\t- x` at column 2), where a person sees nothing wrong. The last tab on the line up to that
/// place, else the line's first.
fn misplaced_tab(source: &SourceFile, message: &str, pos: Pos) -> Option<Pos> {
    let about_tabs = message
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|word| word == "tab" || word == "tabs");
    if !about_tabs {
        return None;
    }
    let offset = (pos.offset as usize).min(source.text.len());
    let line = source.line_of(offset);
    let bounds = source.line_bounds(line)?;
    let text = &source.text[bounds.start..bounds.end];
    let before = offset.saturating_sub(bounds.start).min(text.len());
    let at = text
        .get(..before)
        .and_then(|head| head.rfind('\t'))
        .or_else(|| text.find('\t'))?;
    let column = text[..at].chars().count() + 1;
    Some(Pos::new(line + 1, column, bounds.start + at, 1))
}
