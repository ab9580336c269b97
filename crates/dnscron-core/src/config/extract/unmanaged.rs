//! An `unmanaged:` document: what the account holds that no file manages on purpose.

use super::{Ctx, MapReader};
use crate::config::raw::{self, keys};
use crate::config::tree::{Node, Value};

pub(super) fn unmanaged_doc(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::UnmanagedDoc> {
    let what = "an unmanaged list";
    let m = MapReader::new(ctx, node, what, keys::UNMANAGED)?;
    let unmanaged = m.req(ctx, what, "unmanaged", lists)?;
    Some(raw::UnmanagedDoc {
        unmanaged,
        pos: node.pos,
    })
}

fn lists(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::UnmanagedLists> {
    let m = MapReader::new(ctx, node, "`unmanaged`", keys::UNMANAGED_LISTS)?;
    let list = |what: &'static str| move |c: &mut Ctx<'_>, n: &Node| c.list(n, what, entry);
    Some(raw::UnmanagedLists {
        zones: m.opt(ctx, "zones", list("`unmanaged.zones`")),
        domains: m.opt(ctx, "domains", list("`unmanaged.domains`")),
        sites: m.opt(ctx, "sites", list("`unmanaged.sites`")),
        pos: node.pos,
    })
}

/// A name alone, or `{ name, reason }`.
fn entry(ctx: &mut Ctx<'_>, node: &Node) -> Option<raw::UnmanagedEntry> {
    if let Value::Str(_) = &node.value {
        return ctx.str(node, "a name").map(raw::UnmanagedEntry::Name);
    }
    if !matches!(node.value, Value::Map(_)) {
        ctx.wrong_type(node, "an unmanaged entry", "a name or `{ name, reason }`");
        return None;
    }
    let what = "an unmanaged entry";
    let m = MapReader::new(ctx, node, what, keys::UNMANAGED_ENTRY)?;
    let name = m.req(ctx, what, "name", |c, n| c.str(n, "`name`"));
    let reason = m.opt(ctx, "reason", |c, n| c.str(n, "`reason`"));
    Some(raw::UnmanagedEntry::Explained(raw::UnmanagedExplained {
        name: name?,
        reason,
        pos: node.pos,
    }))
}
