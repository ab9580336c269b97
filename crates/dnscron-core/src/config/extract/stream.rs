//! A zone's records as the parser completes them, and the list they came from.

use std::sync::Arc;

use super::{Ctx, record};
use crate::config::diagnostics::{Diagnostics, SourceFile};
use crate::config::raw;
use crate::config::tree::{Node, Value};

/// A document's records read while its file was parsed (`tree::documents_streaming`), and the
/// problems found in them: kept only if the document turns out to be a zone or a record set,
/// which read their records (another document reports its `records` key and nothing under it).
#[derive(Default)]
pub(crate) struct Streamed {
    pub(super) records: Vec<raw::Record>,
    pub(super) diags: Diagnostics,
}

impl Streamed {
    /// Reads one item of the `records` list as soon as the parser completes it.
    pub(crate) fn add(&mut self, source: &Arc<SourceFile>, node: &Node<'_>) {
        let mut ctx = Ctx {
            source: Arc::clone(source),
            diags: &mut self.diags,
        };
        if let Some(r) = record(&mut ctx, node) {
            self.records.push(r);
        }
    }
}

/// The value of `key` in a mapping, taken out of it (a null stays in its place).
pub(super) fn take_value<'s>(node: &mut Node<'s>, key: &str) -> Option<Node<'s>> {
    let Value::Map(entries) = &mut node.value else {
        return None;
    };
    let (_, value) = entries
        .iter_mut()
        .find(|(k, _)| matches!(&k.value, Value::Str(s) if &**s == key))?;
    let pos = value.pos;
    Some(std::mem::replace(
        value,
        Node {
            value: Value::Null,
            pos,
        },
    ))
}
