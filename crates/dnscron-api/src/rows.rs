//! A zone's listed records, kept compactly: a zone of 100,000 rows held as `payload::Record`s costs
//! three heap strings and 88 bytes per row (≈ 19 MB); here the rows' text lies in one buffer and
//! each row is 24 bytes of numbers (≈ 6 MB), while the plan reads them as borrowed views.

use std::fmt;

use serde::de::{Deserializer, Error as _, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use super::payload;

/// One listed record, borrowed from [`RecordRows`]; the fields of `payload::Record`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RecordRef<'a> {
    pub id: i64,
    pub name: &'a str,
    #[serde(rename = "type")]
    pub rtype: &'a str,
    pub ttl: u32,
    pub content: &'a str,
}

impl RecordRef<'_> {
    pub fn to_wire(self) -> payload::Record {
        payload::Record {
            id: self.id,
            name: self.name.to_string(),
            rtype: self.rtype.to_string(),
            ttl: self.ttl,
            content: self.content.to_string(),
        }
    }
}

/// Where a row's three texts end in the buffer; a row starts where the one before it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    id: i64,
    ttl: u32,
    name_end: u32,
    rtype_end: u32,
    content_end: u32,
}

/// The records of one listing in the server's order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RecordRows {
    text: String,
    rows: Vec<Row>,
}

const TOO_LARGE: RowsTooLarge = RowsTooLarge {
    max: u32::MAX as u64,
};

/// The rows' text would pass the 4 GiB the compact offsets can address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the listing's text passes {max} bytes")]
pub struct RowsTooLarge {
    pub max: u64,
}

impl RecordRows {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<RecordRef<'_>> {
        let row = self.rows.get(index)?;
        Some(self.view(self.start_of(index), row))
    }

    fn start_of(&self, index: usize) -> u32 {
        index
            .checked_sub(1)
            .and_then(|before| self.rows.get(before))
            .map_or(0, |r| r.content_end)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = RecordRef<'_>> + Clone + '_ {
        (self.rows.iter().enumerate()).map(|(i, row)| self.view(self.start_of(i), row))
    }

    fn view(&self, start: u32, row: &Row) -> RecordRef<'_> {
        let text = |from: u32, to: u32| self.text.get(from as usize..to as usize).unwrap_or("");
        RecordRef {
            id: row.id,
            name: text(start, row.name_end),
            rtype: text(row.name_end, row.rtype_end),
            ttl: row.ttl,
            content: text(row.rtype_end, row.content_end),
        }
    }

    /// Appends one record, refused (and nothing appended) when the text would not fit.
    pub fn push(&mut self, record: RecordRef<'_>) -> Result<(), RowsTooLarge> {
        self.push_within(record, u32::MAX)
    }

    fn push_within(&mut self, record: RecordRef<'_>, max: u32) -> Result<(), RowsTooLarge> {
        let len = self.text.len() + record.name.len() + record.rtype.len() + record.content.len();
        if len > max as usize {
            return Err(RowsTooLarge {
                max: u64::from(max),
            });
        }
        let mut end = |s: &str| {
            self.text.push_str(s);
            // Fits: the total was checked against `max` above.
            u32::try_from(self.text.len()).unwrap_or(max)
        };
        let row = Row {
            id: record.id,
            ttl: record.ttl,
            name_end: end(record.name),
            rtype_end: end(record.rtype),
            content_end: end(record.content),
        };
        self.rows.push(row);
        Ok(())
    }

    /// Appends every row of `other` (the next page), refused whole when the text would not fit.
    pub(crate) fn append(&mut self, other: RecordRows) -> Result<(), RowsTooLarge> {
        if self.rows.is_empty() {
            *self = other;
            return Ok(());
        }
        let base = self.text.len();
        let Ok(shift) = u32::try_from(base) else {
            return Err(TOO_LARGE);
        };
        if u32::try_from(base + other.text.len()).is_err() {
            return Err(TOO_LARGE);
        }
        self.text.push_str(&other.text);
        self.rows.extend(other.rows.iter().map(|r| Row {
            name_end: r.name_end + shift,
            rtype_end: r.rtype_end + shift,
            content_end: r.content_end + shift,
            ..*r
        }));
        Ok(())
    }

    pub(super) fn ids(&self) -> impl Iterator<Item = i64> + '_ {
        self.rows.iter().map(|r| r.id)
    }

    /// Drops the slack of growing while pages arrived.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.rows.shrink_to_fit();
    }

    pub fn to_wire(&self) -> Vec<payload::Record> {
        self.iter().map(RecordRef::to_wire).collect()
    }
}

/// For tests and callers that hold `payload::Record`s; a row past 4 GiB of text would be dropped,
/// which no `Vec` in memory reaches.
impl<'a> FromIterator<&'a payload::Record> for RecordRows {
    fn from_iter<I: IntoIterator<Item = &'a payload::Record>>(iter: I) -> Self {
        let mut rows = RecordRows::default();
        for r in iter {
            let _ = rows.push(RecordRef::from(r));
        }
        rows
    }
}

impl FromIterator<payload::Record> for RecordRows {
    fn from_iter<I: IntoIterator<Item = payload::Record>>(iter: I) -> Self {
        let mut rows = RecordRows::default();
        for r in iter {
            let _ = rows.push(RecordRef::from(&r));
        }
        rows
    }
}

impl<'a> From<&'a payload::Record> for RecordRef<'a> {
    fn from(r: &'a payload::Record) -> Self {
        RecordRef {
            id: r.id,
            name: &r.name,
            rtype: &r.rtype,
            ttl: r.ttl,
            content: &r.content,
        }
    }
}

impl fmt::Debug for RecordRows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A listed record as `payload::Record` reads it (same fields, same errors: hence its name), its
/// texts borrowed from the page unless they hold escapes.
mod input {
    use std::borrow::Cow;

    use serde::Deserialize;

    #[derive(Deserialize)]
    pub(super) struct Record<'a> {
        pub id: i64,
        #[serde(borrow)]
        pub name: Cow<'a, str>,
        #[serde(rename = "type", borrow)]
        pub rtype: Cow<'a, str>,
        pub ttl: u32,
        #[serde(borrow)]
        pub content: Cow<'a, str>,
    }
}

/// Read straight from a page's array, as a `Vec<payload::Record>` would be, without a string
/// allocation per field.
impl<'de> Deserialize<'de> for RecordRows {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Rows;
        impl<'de> Visitor<'de> for Rows {
            type Value = RecordRows;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RecordRows, A::Error> {
                let mut rows = RecordRows::default();
                while let Some(r) = seq.next_element::<input::Record<'de>>()? {
                    let record = RecordRef {
                        id: r.id,
                        name: &r.name,
                        rtype: &r.rtype,
                        ttl: r.ttl,
                        content: &r.content,
                    };
                    rows.push(record).map_err(A::Error::custom)?;
                }
                Ok(rows)
            }
        }
        de.deserialize_seq(Rows)
    }
}

/// The same shape as a `Vec<payload::Record>`.
impl Serialize for RecordRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for r in self.iter() {
            seq.serialize_element(&r)?;
        }
        seq.end()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A listed record with ttl 300.
    pub(crate) fn record(id: i64, name: &str, rtype: &str, content: &str) -> payload::Record {
        payload::Record {
            id,
            name: name.into(),
            rtype: rtype.into(),
            ttl: 300,
            content: content.into(),
        }
    }

    #[test]
    fn rows_read_back_as_they_were_pushed_and_serialize_as_wire_records() {
        let wire = vec![
            record(7, "www", "A", "192.0.2.1"),
            record(3, "", "", ""),
            record(1, "ünï", "TXT", "\"a b\""),
        ];
        let rows: RecordRows = wire.iter().collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows.to_wire(), wire);
        assert_eq!(rows.get(2).unwrap().to_wire(), wire[2]);
        assert_eq!(rows.get(3), None);
        assert_eq!(
            serde_json::to_string(&rows).unwrap(),
            serde_json::to_string(&wire).unwrap()
        );
        assert_eq!(
            format!("{rows:?}"),
            format!("{:?}", wire.iter().map(RecordRef::from).collect::<Vec<_>>())
        );
    }

    #[test]
    fn rows_read_what_wire_records_read_and_refuse_what_they_refuse() {
        let bodies = [
            r#"[{"id": 1, "name": "www", "type": "A", "ttl": 60, "content": "192.0.2.1", "x": [1]},
                {"content": "t\"q\u00e9", "ttl": 0, "type": "TXT", "name": "@", "id": -5}]"#,
            "[]",
            r#"[[2, "a", "A", 1, "x"]]"#,
            r#"[{"id": 1, "name": "a", "type": "A", "ttl": 1}]"#,
            r#"[{"id": 1, "name": "a", "type": "A", "ttl": -1, "content": "x"}]"#,
            r#"[{"id": "1", "name": "a", "type": "A", "ttl": 1, "content": "x"}]"#,
            r#"[{"id": 1, "name": null, "type": "A", "ttl": 1, "content": "x"}]"#,
            r#"[{"id": 1, "id": 2, "name": "a", "type": "A", "ttl": 1, "content": "x"}]"#,
            r#"[1]"#,
            r#""x""#,
            r#"{"id": 1}"#,
        ];
        for body in bodies {
            let wire = serde_json::from_str::<Vec<payload::Record>>(body);
            let rows = serde_json::from_str::<RecordRows>(body);
            match (wire, rows) {
                (Ok(wire), Ok(rows)) => assert_eq!(rows.to_wire(), wire, "{body}"),
                (Err(w), Err(r)) => assert_eq!(r.to_string(), w.to_string(), "{body}"),
                (w, r) => panic!("{body}: {w:?} against {r:?}"),
            }
        }
        let rows: RecordRows = serde_json::from_str(bodies[0]).unwrap();
        assert_eq!(rows.get(1).unwrap().content, "t\"qé");
    }

    #[test]
    fn pages_append_as_their_rows_would() {
        let a: RecordRows = [record(1, "a", "A", "x"), record(2, "bb", "TXT", "yy")]
            .into_iter()
            .collect();
        let b: RecordRows = [record(3, "c", "A", "z")].into_iter().collect();
        let mut all = RecordRows::default();
        all.append(a.clone()).unwrap();
        all.append(RecordRows::default()).unwrap();
        all.append(b.clone()).unwrap();
        let mut want = a.to_wire();
        want.extend(b.to_wire());
        assert_eq!(all.to_wire(), want);
        assert_eq!(all.ids().collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn a_row_past_the_addressable_text_is_refused_whole() {
        let mut rows = RecordRows::default();
        let a = record(1, "a", "A", "x");
        rows.push_within(RecordRef::from(&a), 6).unwrap();
        let b = record(2, "b", "A", "yy");
        let err = rows.push_within(RecordRef::from(&b), 6).unwrap_err();
        assert_eq!(err.to_string(), "the listing's text passes 6 bytes");
        assert_eq!(rows.to_wire(), vec![a.clone()]);
        let c = record(3, "c", "A", "");
        rows.push_within(RecordRef::from(&c), 6).unwrap();
        assert_eq!(rows.to_wire(), vec![a, c]);
    }
}
