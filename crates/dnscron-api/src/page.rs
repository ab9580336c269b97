//! One page of a list response, decoded in a single pass: the result array sits under a key
//! that depends on the endpoint, so a `DeserializeSeed` picks it (and `meta`, and one optional
//! extra field) out and skips everything else without building a `serde_json::Value` tree.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::payload::Meta;

/// `B` is the whole array: a `Vec` of rows, or `RecordRows`.
pub(super) struct Page<B> {
    /// `None` when the page has no array under the key.
    pub items: Option<B>,
    /// `None` when the page has no `meta` (or `meta: null`).
    pub meta: Option<Meta>,
    pub extra: Option<Value>,
}

pub(super) struct PageSeed<'a, B> {
    pub key: &'a str,
    pub extra: Option<&'a str>,
    pub marker: PhantomData<B>,
}

impl<B: DeserializeOwned> PageSeed<'_, B> {
    pub(super) fn parse(self, body: &[u8]) -> Result<Page<B>, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_slice(body);
        let page = self.deserialize(&mut de)?;
        de.end()?;
        Ok(page)
    }
}

impl<'de, B: DeserializeOwned> DeserializeSeed<'de> for PageSeed<'_, B> {
    type Value = Page<B>;

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<Page<B>, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de, B: DeserializeOwned> Visitor<'de> for PageSeed<'_, B> {
    type Value = Page<B>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object with a `{}` array and `meta`", self.key)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Page<B>, A::Error> {
        let mut page = Page {
            items: None,
            meta: None,
            extra: None,
        };
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if name == self.key {
                page.items = Some(map.next_value()?);
            } else if name == "meta" {
                page.meta = Option::<Meta>::deserialize(OptionSeed(&mut map))?;
            } else if Some(name.as_ref()) == self.extra {
                page.extra = Some(map.next_value()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(page)
    }
}

/// `meta: null` counts as no meta.
struct OptionSeed<'m, A>(&'m mut A);

impl<'de, A: MapAccess<'de>> serde::Deserializer<'de> for OptionSeed<'_, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(Forward(visitor))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct Forward<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Forward<V> {
    type Value = V::Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        de.deserialize_option(self.0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::payload::Record;

    fn seed<'a>(key: &'a str, extra: Option<&'a str>) -> PageSeed<'a, Vec<Record>> {
        PageSeed {
            key,
            extra,
            marker: PhantomData,
        }
    }

    #[test]
    fn picks_items_meta_and_extra_and_skips_the_rest() {
        let body = br#"{"zone": {"a": [1, 2]}, "records": [{"id": 1, "name": "@", "type": "A",
            "ttl": 60, "content": "192.0.2.1", "new_field": {"x": [1]}}],
            "nameservers": ["ns1.x.net"], "meta": {"next_cursor": "c", "has_more": true, "total": 9}}"#;
        let page = seed("records", Some("nameservers")).parse(body).unwrap();
        assert_eq!(page.items.unwrap()[0].content, "192.0.2.1");
        let meta = page.meta.unwrap();
        assert_eq!(meta.next_cursor.as_deref(), Some("c"));
        assert!(meta.has_more);
        assert_eq!(page.extra, Some(serde_json::json!(["ns1.x.net"])));
    }

    #[test]
    fn missing_and_null_meta_are_told_apart_from_a_meta() {
        let page = seed("records", None)
            .parse(br#"{"records": [], "meta": null}"#)
            .unwrap();
        assert!(page.meta.is_none());
        let page = seed("records", None).parse(br#"{"records": []}"#).unwrap();
        assert!(page.meta.is_none());
        assert!(page.extra.is_none());
        let page = seed("records", None).parse(br#"{"items": []}"#).unwrap();
        assert!(page.items.is_none());
        assert!(seed("records", None).parse(br#"[1]"#).is_err());
        assert!(seed("records", None).parse(br#"{"records": "x"}"#).is_err());
    }
}
