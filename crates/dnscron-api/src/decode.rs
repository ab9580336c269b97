//! Reading a JSON answer the client can't use, in the words of the wire: which field of which
//! item (named by its id), not "expected u32 at line 1 column 65" of a one-line body.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::core::Reply;
use super::error::ApiError;
use super::untrusted::escape;

/// The error for `reply`'s body, which failed to decode as `T` (or as a page of `T` under
/// `key`) with `err`.
pub(super) fn decode_error<T: DeserializeOwned>(
    reply: &Reply,
    method: &str,
    path: &str,
    key: Option<&str>,
    err: &serde_json::Error,
) -> ApiError {
    ApiError::Decode {
        method: method.into(),
        path: path.into(),
        status: reply.status,
        message: escape(&explain::<T>(&reply.body, key, err)).into_owned(),
        request_id: reply.request_id.clone(),
    }
}

/// Decodes `body` as `T`, naming the field that failed.
pub(super) fn decode<T: DeserializeOwned>(
    reply: &Reply,
    method: &str,
    path: &str,
) -> Result<T, ApiError> {
    serde_json::from_slice(&reply.body)
        .map_err(|e| decode_error::<T>(reply, method, path, None, &e))
}

fn explain<T: DeserializeOwned>(body: &[u8], key: Option<&str>, err: &serde_json::Error) -> String {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return without_position(err);
    };
    let Some(key) = key else {
        return match serde_path_to_error::deserialize::<_, T>(&value) {
            Err(e) => format!("field `{}`: {}", e.path(), without_position(e.inner())),
            Ok(_) => without_position(err),
        };
    };
    let items = value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for (i, item) in items.enumerate() {
        if let Err(e) = serde_path_to_error::deserialize::<_, T>(item) {
            let field = match e.path().to_string() {
                p if p == "." => String::new(),
                p => format!(".{p}"),
            };
            return format!(
                "field `{key}[{i}]{field}`{}: {}",
                identity(item),
                without_position(e.inner())
            );
        }
    }
    without_position(err)
}

/// How the item names itself: its id, index, slug, zone or domain.
fn identity(item: &Value) -> String {
    ["id", "index", "slug", "zone", "domain"]
        .iter()
        .find_map(|k| {
            let v = item.get(*k)?;
            let shown = match v {
                Value::String(s) => format!("`{s}`"),
                Value::Number(n) => n.to_string(),
                Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => return None,
            };
            Some(format!(" (the item with {k} {shown})"))
        })
        .unwrap_or_default()
}

/// serde_json's message without " at line L column C", which says nothing on a one-line body.
fn without_position(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::payload::Record;

    fn explain_page(body: &str) -> String {
        let err = serde_json::from_str::<Vec<Record>>("[1]").unwrap_err();
        explain::<Record>(body.as_bytes(), Some("records"), &err)
    }

    #[test]
    fn the_field_and_the_item_are_named() {
        let ok = r#"{"id": 1, "name": "@", "type": "A", "ttl": 60, "content": "192.0.2.1"}"#;
        let bad = r#"{"id": 42, "name": "www", "type": "A", "ttl": "sixty", "content": "x"}"#;
        assert_eq!(
            explain_page(&format!(r#"{{"records": [{ok}, {bad}]}}"#)),
            "field `records[1].ttl` (the item with id 42): invalid type: string \"sixty\", \
             expected u32"
        );
        let err = serde_json::from_str::<Record>("{").unwrap_err();
        assert_eq!(
            explain::<Record>(b"{", None, &err),
            "EOF while parsing an object"
        );
    }
}
