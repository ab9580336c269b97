//! A YAML document as a tree of located nodes. Deserializing straight into typed structs stops
//! at the first error; reading this tree instead lets the loader report every wrong value,
//! each at its own `line:col`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// Where a node starts: 1-based line and column, byte offset and byte length in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
    pub offset: usize,
    pub len: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// How the value is named in "expected X, found Y" messages.
    pub fn kind(&self) -> String {
        match self {
            Value::Null => "nothing (null)".into(),
            Value::Bool(b) => format!("the boolean `{b}`"),
            Value::Int(i) => format!("the integer `{i}`"),
            Value::Float(f) => format!("the number `{f}`"),
            Value::Str(s) => format!("the string `{s}`"),
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let loc = spanned.referenced;
        let span = loc.span();
        Ok(Node {
            value: spanned.value,
            pos: Pos {
                line: usize::try_from(loc.line()).unwrap_or(0),
                col: usize::try_from(loc.column()).unwrap_or(0),
                offset: span
                    .byte_offset()
                    .and_then(|o| usize::try_from(o).ok())
                    .unwrap_or(0),
                len: span
                    .byte_len()
                    .and_then(|o| usize::try_from(o).ok())
                    .unwrap_or(0),
            },
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(i128::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Value::Map(entries))
    }
}

/// A YAML syntax error: message and where, if known.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub pos: Option<Pos>,
}

/// Parser limits. The defaults (250,000 nodes, 1,000,000 events) stop at a zone of about
/// 35,000 records (7 nodes each in flow style); these admit 500,000 records while still bounding
/// the work a hostile file can cause (the alias and anchor limits stay at their defaults).
const MAX_NODES: usize = 4_000_000;
const MAX_EVENTS: usize = 8_000_000;

fn parser_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = MAX_NODES;
    budget.max_events = MAX_EVENTS;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// Every non-empty document of a file.
pub fn parse_documents(source: &str) -> Result<Vec<Node>, SyntaxError> {
    serde_saphyr::from_multiple_with_options::<Node>(source, parser_options()).map_err(|err| {
        let pos = err.location().and_then(|loc| {
            let line = usize::try_from(loc.line()).ok()?;
            let col = usize::try_from(loc.column()).ok()?;
            (line > 0).then(|| Pos {
                line,
                col,
                offset: byte_offset(source, line, col),
                len: 0,
            })
        });
        SyntaxError {
            message: err.without_snippet().to_string(),
            pos,
        }
    })
}

/// Byte offset of a 1-based line and (character) column.
pub fn byte_offset(source: &str, line: usize, col: usize) -> usize {
    let line_start: usize = source
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = source.get(line_start..).unwrap_or_default();
    let in_line: usize = rest
        .chars()
        .take(col.saturating_sub(1))
        .take_while(|c| *c != '\n')
        .map(char::len_utf8)
        .sum();
    line_start + in_line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_beyond_the_parsers_default_node_budget_are_read() {
        // 300,001 nodes: over serde-saphyr's default of 250,000 (a zone of ~35,000 records).
        let src = format!("records: [{}]\n", vec!["1"; 300_000].join(","));
        let docs = parse_documents(&src).unwrap();
        let Value::Map(entries) = &docs[0].value else {
            panic!("not a map")
        };
        assert!(matches!(&entries[0].1.value, Value::Seq(items) if items.len() == 300_000));
    }

    #[test]
    fn nodes_carry_line_col_and_byte_span() {
        let src = "zone: example.com\nrecords:\n  - { name: \"@\", ttl: 300 }\n---\nsite: x\n";
        let docs = parse_documents(src).unwrap();
        assert_eq!(docs.len(), 2);
        let Value::Map(zone) = &docs[0].value else {
            panic!()
        };
        let Value::Seq(records) = &zone[1].1.value else {
            panic!()
        };
        let Value::Map(record) = &records[0].value else {
            panic!()
        };
        let (_, name) = &record[0];
        assert_eq!((name.pos.line, name.pos.col), (3, 13));
        assert_eq!(
            &src[name.pos.offset..name.pos.offset + name.pos.len],
            "\"@\""
        );
        assert_eq!(record[1].1.value, Value::Int(300));
    }

    #[test]
    fn syntax_errors_are_located() {
        let err = parse_documents("a: [1, 2\nb: c\n").unwrap_err();
        assert!(err.pos.is_some(), "{err:?}");
    }

    #[test]
    fn byte_offsets_count_characters_per_line() {
        let src = "ä: 1\nb: ü\n";
        assert_eq!(byte_offset(src, 2, 4), "ä: 1\nb: ".len());
    }
}
