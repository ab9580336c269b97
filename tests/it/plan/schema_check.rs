//! A JSON document checked against a draft-07 schema, for the keywords the plan file's generated
//! schema uses. A keyword it doesn't know fails the test instead of being skipped, so a schema
//! that grows one can't pass unchecked (no validator crate: these few keywords are the whole
//! use, and a test dependency would be compiled for every `cargo test`).

use serde_json::{Map, Value};

/// Every place where `doc` breaks `schema`, as `/json/pointer: what`; empty when it conforms.
pub fn violations(schema: &Value, doc: &Value) -> Vec<String> {
    let mut found = Vec::new();
    Check { root: schema }.value(schema, doc, "", &mut found);
    found
}

struct Check<'s> {
    root: &'s Value,
}

impl<'s> Check<'s> {
    fn value(&self, schema: &'s Value, doc: &Value, at: &str, found: &mut Vec<String>) {
        let map = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return found.push(format!("{at}: nothing is allowed here")),
            Value::Object(map) => map,
            Value::Null | Value::Number(_) | Value::String(_) | Value::Array(_) => {
                panic!("{at}: a schema must be an object or a boolean: {schema}")
            }
        };
        for (key, arg) in map {
            match key.as_str() {
                // Annotations, and what `$ref` and the keywords below read.
                "$schema" | "title" | "description" | "default" | "definitions" => {}
                "$ref" => self.reference(arg, doc, at, found),
                "type" => type_is(arg, doc, at, found),
                "const" if arg != doc => found.push(format!("{at}: is not {arg}")),
                "const" => {}
                "enum" => {
                    if !arg.as_array().is_some_and(|all| all.contains(doc)) {
                        found.push(format!("{at}: is none of {arg}"));
                    }
                }
                // Draft-07 formats are annotations; these are the integer widths schemars names.
                "format" => assert!(
                    matches!(
                        arg.as_str(),
                        Some("uint" | "uint8" | "uint16" | "uint32" | "uint64" | "int64")
                    ),
                    "{at}: format {arg} is not known here"
                ),
                "minimum" => bound(arg, doc, at, found, |v, b| v >= b, "less than"),
                "maximum" => bound(arg, doc, at, found, |v, b| v <= b, "more than"),
                "minItems" => {
                    if let (Some(items), Some(min)) = (doc.as_array(), arg.as_u64())
                        && (items.len() as u64) < min
                    {
                        found.push(format!("{at}: has fewer than {min} items"));
                    }
                }
                "items" => {
                    if let Some(items) = doc.as_array() {
                        for (index, item) in items.iter().enumerate() {
                            self.value(arg, item, &format!("{at}/{index}"), found);
                        }
                    }
                }
                "required" => {
                    if let Some(object) = doc.as_object() {
                        for name in arg.as_array().into_iter().flatten() {
                            let name = name.as_str().unwrap_or_default();
                            if !object.contains_key(name) {
                                found.push(format!("{at}: `{name}` is missing"));
                            }
                        }
                    }
                }
                "properties" => {
                    if let (Some(object), Some(properties)) = (doc.as_object(), arg.as_object()) {
                        for (name, value) in object {
                            if let Some(property) = properties.get(name) {
                                self.value(property, value, &format!("{at}/{name}"), found);
                            }
                        }
                    }
                }
                "additionalProperties" => self.additional(map, arg, doc, at, found),
                "allOf" => {
                    for schema in arg.as_array().into_iter().flatten() {
                        self.value(schema, doc, at, found);
                    }
                }
                "anyOf" | "oneOf" => {
                    let matching = arg
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|schema| {
                            let mut inner = Vec::new();
                            self.value(schema, doc, at, &mut inner);
                            inner.is_empty()
                        })
                        .count();
                    let ok = if key == "oneOf" {
                        matching == 1
                    } else {
                        matching >= 1
                    };
                    if !ok {
                        found.push(format!("{at}: matches {matching} of its {key} schemas"));
                    }
                }
                other => panic!("{at}: the schema keyword `{other}` is not checked here"),
            }
        }
    }

    fn reference(&self, arg: &Value, doc: &Value, at: &str, found: &mut Vec<String>) {
        let name = arg
            .as_str()
            .and_then(|r| r.strip_prefix("#/definitions/"))
            .unwrap_or_else(|| panic!("{at}: only local definitions are followed: {arg}"));
        let target = self
            .root
            .get("definitions")
            .and_then(|d| d.get(name))
            .unwrap_or_else(|| panic!("{at}: no definition `{name}`"));
        self.value(target, doc, at, found);
    }

    fn additional(
        &self,
        map: &'s Map<String, Value>,
        arg: &'s Value,
        doc: &Value,
        at: &str,
        found: &mut Vec<String>,
    ) {
        let Some(object) = doc.as_object() else {
            return;
        };
        let listed = map.get("properties").and_then(Value::as_object);
        for (name, value) in object {
            if !listed.is_some_and(|l| l.contains_key(name)) {
                self.value(arg, value, &format!("{at}/{name}"), found);
            }
        }
    }
}

fn type_is(arg: &Value, doc: &Value, at: &str, found: &mut Vec<String>) {
    let named = |name: &str| match name {
        "object" => doc.is_object(),
        "array" => doc.is_array(),
        "string" => doc.is_string(),
        "boolean" => doc.is_boolean(),
        "null" => doc.is_null(),
        "number" => doc.is_number(),
        "integer" => doc.is_i64() || doc.is_u64(),
        other => panic!("{at}: type `{other}` is not known here"),
    };
    let ok = match arg {
        Value::String(name) => named(name),
        Value::Array(names) => names.iter().any(|n| named(n.as_str().unwrap_or_default())),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {
            panic!("{at}: `type` is {arg}")
        }
    };
    if !ok {
        found.push(format!("{at}: is not of type {arg}"));
    }
}

fn bound(
    arg: &Value,
    doc: &Value,
    at: &str,
    found: &mut Vec<String>,
    holds: fn(f64, f64) -> bool,
    words: &str,
) {
    if let (Some(value), Some(limit)) = (doc.as_f64(), arg.as_f64())
        && !holds(value, limit)
    {
        found.push(format!("{at}: is {words} {arg}"));
    }
}

#[test]
fn the_checker_refuses_what_each_keyword_refuses() {
    let schema = serde_json::json!({
        "oneOf": [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/B"}],
        "definitions": {
            "A": {"type": "object", "properties": {"v": {"const": 1}, "n": {"type": "integer", "minimum": 0, "maximum": 9}},
                  "required": ["v", "n"], "additionalProperties": false},
            "B": {"type": "object", "properties": {"v": {"const": 2}, "xs": {"type": "array", "minItems": 1, "items": {"enum": ["a", "b"]}}},
                  "required": ["v", "xs"]}
        }
    });
    let ok = |doc: Value| assert_eq!(violations(&schema, &doc), Vec::<String>::new(), "{doc}");
    ok(serde_json::json!({"v": 1, "n": 3}));
    ok(serde_json::json!({"v": 2, "xs": ["a"], "other": true}));
    for (doc, said) in [
        (
            serde_json::json!({"v": 1, "n": 10}),
            ": matches 0 of its oneOf schemas",
        ),
        (
            serde_json::json!({"v": 1, "n": 1, "x": 0}),
            ": matches 0 of its oneOf schemas",
        ),
        (
            serde_json::json!({"v": 2, "xs": []}),
            ": matches 0 of its oneOf schemas",
        ),
        (
            serde_json::json!({"v": 2, "xs": ["c"]}),
            ": matches 0 of its oneOf schemas",
        ),
        (
            serde_json::json!({"v": 3}),
            ": matches 0 of its oneOf schemas",
        ),
    ] {
        assert_eq!(violations(&schema, &doc), [said], "{doc}");
    }
    // What exactly failed inside a branch.
    let a = &schema["definitions"]["A"];
    let inner = |doc: Value| {
        let mut found = Vec::new();
        Check { root: &schema }.value(a, &doc, "", &mut found);
        found
    };
    assert_eq!(
        inner(serde_json::json!({"v": 1, "n": -1})),
        ["/n: is less than 0"]
    );
    assert_eq!(inner(serde_json::json!({"v": 1})), [": `n` is missing"]);
    assert_eq!(
        inner(serde_json::json!({"v": 1, "n": 1, "x": 0})),
        ["/x: nothing is allowed here"]
    );
    assert_eq!(
        inner(serde_json::json!({"v": 1, "n": "1"})),
        ["/n: is not of type \"integer\""]
    );
}
