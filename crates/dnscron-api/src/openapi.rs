//! What the client learns from the server's machine-readable description.

use serde_json::Value;

/// The fallback wire value of the hosted nameserver mode when /openapi.json can't tell.
pub const DEFAULT_HOSTED_MODE: &str = "veldhost";

/// The `mode` value of PUT /domains/{domain}/nameservers that is not `custom`.
///
/// The spec only says the value is "the word the service in the interface", so real servers may
/// differ from the emulator: read it from the request schema of that operation, and failing that
/// from any two-value enum in the document that contains `custom`.
pub fn hosted_mode_value(doc: &Value) -> Option<String> {
    let operation = doc
        .get("paths")
        .and_then(|paths| paths.get("/domains/{domain}/nameservers"))
        .and_then(|path| path.get("put"));
    operation
        .and_then(|op| find_mode_enum(op, doc, 0))
        .or_else(|| find_mode_enum(doc, doc, 0))
}

/// Depth-first search for an enum of exactly two strings, one of them `custom`; follows local
/// `$ref`s (bounded, so a self-referencing document can't loop).
fn find_mode_enum(node: &Value, doc: &Value, depth: usize) -> Option<String> {
    if depth > 32 {
        return None;
    }
    match node {
        Value::Object(map) => {
            if let Some(Value::Array(values)) = map.get("enum")
                && let Some(hosted) = hosted_of(values)
            {
                return Some(hosted);
            }
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(target) = resolve_ref(doc, reference)
                && let Some(found) = find_mode_enum(target, doc, depth + 1)
            {
                return Some(found);
            }
            map.values().find_map(|v| find_mode_enum(v, doc, depth + 1))
        }
        Value::Array(items) => items.iter().find_map(|v| find_mode_enum(v, doc, depth + 1)),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => None,
    }
}

fn hosted_of(values: &[Value]) -> Option<String> {
    let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
    if strings.len() != 2 || !strings.contains(&"custom") {
        return None;
    }
    strings
        .into_iter()
        .find(|v| *v != "custom")
        .map(str::to_string)
}

fn resolve_ref<'a>(doc: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    doc.pointer(pointer)
}

/// The spec version the server states in `info.version`.
pub fn api_version(doc: &Value) -> Option<&str> {
    doc.get("info")?.get("version")?.as_str()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_mode_enum_of_the_nameserver_operation() {
        let doc = json!({"paths": {"/domains/{domain}/nameservers": {"put": {"requestBody": {
            "content": {"application/json": {"schema": {"properties": {
                "mode": {"type": "string", "enum": ["acmehost", "custom"]}}}}}}}}}});
        assert_eq!(hosted_mode_value(&doc).as_deref(), Some("acmehost"));
    }

    #[test]
    fn follows_refs_to_components() {
        let doc = json!({
            "paths": {"/domains/{domain}/nameservers": {"put": {"requestBody": {"$ref": "#/components/requestBodies/Ns"}}}},
            "components": {"requestBodies": {"Ns": {"content": {"application/json": {"schema": {
                "properties": {"mode": {"enum": ["custom", "veldhost"]}}}}}}}}
        });
        assert_eq!(hosted_mode_value(&doc).as_deref(), Some("veldhost"));
    }

    #[test]
    fn ignores_enums_that_are_not_the_mode() {
        let doc = json!({"paths": {"/x": {"get": {"parameters": [
            {"schema": {"enum": ["app", "php", "nginx-error", "access"]}},
            {"schema": {"enum": ["create", "refresh", "off"]}}]}}}});
        assert_eq!(hosted_mode_value(&doc), None);
        assert_eq!(hosted_mode_value(&json!({})), None);
    }

    #[test]
    fn a_self_referencing_document_terminates() {
        let doc = json!({"components": {"schemas": {"A": {"$ref": "#/components/schemas/A"}}}});
        assert_eq!(hosted_mode_value(&doc), None);
    }
}
