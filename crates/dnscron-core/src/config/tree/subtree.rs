//! Walks over a finished subtree: what copying it costs, and moving it to where an alias or a
//! merge key put it.

use super::{Node, Pos, Value};

/// Nodes, container depth and scalar bytes of a subtree.
pub(super) fn measure(node: &Node<'_>) -> (usize, usize, usize) {
    match &node.value {
        Value::Seq(items) => items.iter().fold((1, 1, 0), |acc, n| add(acc, measure(n))),
        Value::Map(entries) => entries.iter().fold((1, 1, 0), |acc, (k, v)| {
            add(add(acc, measure(k)), measure(v))
        }),
        Value::Str(s) => (1, 0, s.len()),
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => (1, 0, 0),
    }
}

fn add(
    (n, d, b): (usize, usize, usize),
    (cn, cd, cb): (usize, usize, usize),
) -> (usize, usize, usize) {
    (n + cn, d.max(cd + 1), b + cb)
}

pub(super) fn relocate(node: &mut Node<'_>, at: Pos) {
    node.pos = at;
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| relocate(n, at)),
        Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            relocate(k, at);
            relocate(v, at);
        }),
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {}
    }
}
