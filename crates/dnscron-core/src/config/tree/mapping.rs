//! A mapping being built: its keys checked for duplicates, and YAML merge keys (`<<`) applied
//! when it ends.

use std::borrow::Cow;
use std::collections::HashSet;

use super::build::located;
use super::subtree::relocate;
use super::{Node, Pos, SyntaxError, Value};

#[derive(Default)]
pub(super) struct MapBuild<'s> {
    pub(super) entries: Vec<(Node<'s>, Node<'s>)>,
    /// The key read, waiting for its value; `true` when it is a merge key (`<<`).
    pub(super) key: Option<(Node<'s>, bool)>,
    /// Values of `<<` keys, merged when the mapping ends.
    pub(super) merges: Vec<Node<'s>>,
    /// String keys seen, once the mapping is too long for a linear scan.
    index: Option<HashSet<Cow<'s, str>>>,
}

/// Mappings up to this many keys check duplicates by scanning.
const SCAN_KEYS: usize = 16;

/// Scalar keys are compared by value (`1` and `"1"` differ); other keys are not checked.
fn is_scalar(value: &Value<'_>) -> bool {
    !matches!(value, Value::Seq(_) | Value::Map(_))
}

fn same_key(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Seq(_)
            | Value::Map(_),
            _,
        ) => is_scalar(a) && a == b,
    }
}

pub(super) fn check_duplicate<'s>(
    map: &mut MapBuild<'s>,
    key: &Node<'s>,
) -> Result<(), SyntaxError> {
    let duplicate = match (&key.value, &mut map.index) {
        (Value::Str(s), Some(index)) => !index.insert(s.clone()),
        (Value::Str(_), None) if map.entries.len() >= SCAN_KEYS => {
            let mut index: HashSet<Cow<'s, str>> = map
                .entries
                .iter()
                .filter_map(|(k, _)| match &k.value {
                    Value::Str(s) => Some(s.clone()),
                    Value::Null
                    | Value::Bool(_)
                    | Value::Int(_)
                    | Value::Float(_)
                    | Value::Seq(_)
                    | Value::Map(_) => None,
                })
                .collect();
            let Value::Str(s) = &key.value else {
                return Ok(());
            };
            let duplicate = !index.insert(s.clone());
            map.index = Some(index);
            duplicate
        }
        (Value::Str(_), None)
        | (
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Seq(_)
            | Value::Map(_),
            _,
        ) => map
            .entries
            .iter()
            .any(|(k, _)| same_key(&k.value, &key.value)),
    };
    if !duplicate {
        return Ok(());
    }
    let shown = match &key.value {
        Value::Str(s) => s.to_string(),
        other @ (Value::Null
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Float(_)
        | Value::Seq(_)
        | Value::Map(_)) => other.kind(),
    };
    Err(located(
        format!("the key `{shown}` appears twice in the same mapping"),
        key.pos,
    ))
}

/// The mapping's own keys, then those of its `<<` values that it does not set itself (the
/// first merged mapping wins), as YAML merge keys define.
pub(super) fn merge(map: MapBuild<'_>) -> Result<Vec<(Node<'_>, Node<'_>)>, SyntaxError> {
    let MapBuild {
        mut entries,
        merges,
        ..
    } = map;
    for source in merges {
        let sources = match source.value {
            Value::Map(from) => vec![(source.pos, from)],
            Value::Seq(items) => items
                .into_iter()
                .map(|item| match item.value {
                    Value::Map(from) => Ok((item.pos, from)),
                    Value::Null
                    | Value::Bool(_)
                    | Value::Int(_)
                    | Value::Float(_)
                    | Value::Str(_)
                    | Value::Seq(_) => Err(not_mergeable(item.pos)),
                })
                .collect::<Result<_, _>>()?,
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {
                return Err(not_mergeable(source.pos));
            }
        };
        for (at, from) in sources {
            for (mut key, mut value) in from {
                if entries.iter().any(|(k, _)| same_key(&k.value, &key.value)) {
                    continue;
                }
                // Merged entries are reported where the merged mapping is written, as before.
                relocate(&mut key, at);
                relocate(&mut value, at);
                entries.push((key, value));
            }
        }
    }
    Ok(entries)
}

fn not_mergeable(at: Pos) -> SyntaxError {
    located(
        "a merge key `<<` takes a mapping or a list of mappings".into(),
        at,
    )
}
