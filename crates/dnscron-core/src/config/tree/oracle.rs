//! The loader's previous path, kept for tests only: serde-saphyr deserializing every node through
//! `Spanned<T>`. The event builder must produce the same tree, positions included.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::{Node, Pos, Value};

pub(super) struct OldNode(pub Node<'static>);

/// The old tree of `source`, or serde-saphyr's error message.
pub(super) fn documents(source: &str) -> Result<Vec<Node<'static>>, String> {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = 4_000_000;
    budget.max_events = 8_000_000;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    serde_saphyr::from_multiple_with_options::<OldNode>(source, options)
        .map(|docs| docs.into_iter().map(|d| d.0).collect())
        .map_err(|e| e.without_snippet().to_string())
}

impl<'de> Deserialize<'de> for OldNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<OldValue>::deserialize(deserializer)?;
        let loc = spanned.referenced;
        let span = loc.span();
        let size = |o: Option<u64>| o.and_then(|o| usize::try_from(o).ok()).unwrap_or(0);
        Ok(OldNode(Node {
            value: spanned.value.0,
            pos: Pos::new(
                usize::try_from(loc.line()).unwrap_or(0),
                usize::try_from(loc.column()).unwrap_or(0),
                size(span.byte_offset()),
                size(span.byte_len()),
            ),
        }))
    }
}

struct OldValue(Value<'static>);

impl<'de> Deserialize<'de> for OldValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor).map(OldValue)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value<'static>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value<'static>, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value<'static>, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value<'static>, D::Error> {
        OldValue::deserialize(d).map(|v| v.0)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value<'static>, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value<'static>, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value<'static>, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value<'static>, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value<'static>, E> {
        Ok(i128::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value<'static>, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value<'static>, E> {
        Ok(Value::Str(v.to_string().into()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value<'static>, E> {
        Ok(Value::Str(v.into()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'static>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<OldNode>()? {
            items.push(item.0);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value<'static>, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<OldNode>()? {
            let value = map.next_value::<OldNode>()?;
            entries.push((key.0, value.0));
        }
        Ok(Value::Map(entries))
    }
}
