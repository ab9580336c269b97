//! Reading registrar values whose format the spec does not show. Only clear values count as
//! signals (`false`, `"off"`, a date); anything else is shown as information, never guessed.

use std::collections::BTreeSet;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::Value;

/// A yes/no value: `Some` only for a boolean or an unmistakable word.
pub(super) fn flag(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" | "enabled" | "active" | "locked" => Some(true),
            "false" | "off" | "no" | "disabled" | "inactive" | "unlocked" => Some(false),
            _ => None,
        },
        Value::Object(map) => map
            .get("enabled")
            .or_else(|| map.get("state"))
            .and_then(flag),
        Value::Null | Value::Number(_) | Value::Array(_) => None,
    }
}

/// A value as one line of text for messages: strings without quotes, the rest as JSON.
pub(super) fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => s.trim().to_string(),
        other @ (Value::Null
        | Value::Bool(_)
        | Value::Number(_)
        | Value::Array(_)
        | Value::Object(_)) => other.to_string(),
    }
}

/// A state word folded for comparison (`In-Progress` → `in_progress`).
pub(super) fn word(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_ascii_lowercase().replace(['-', ' '], "_")),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        Value::Object(map) => map.get("state").and_then(word),
        Value::Number(_) | Value::Array(_) => None,
    }
}

/// A date: `YYYY-MM-DD` (midnight UTC) or RFC 3339.
pub(super) fn date(value: &Value) -> Option<DateTime<Utc>> {
    let text = value.as_str()?.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Utc));
    }
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

/// A DS set as written in any of the shapes a server may use (one string, a list of strings,
/// a list of objects), each DS folded: case, runs of space, final dots and spaces inside the
/// digest don't matter (`12345 13 2 AB CD.` = `12345 13 2 abcd`).
pub(super) fn ds_set(value: Option<&Value>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let items: Vec<&Value> = match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one) => vec![one],
    };
    for item in items {
        let text = match item {
            Value::String(s) => s.clone(),
            Value::Object(map) => ["key_tag", "algorithm", "digest_type", "digest"]
                .iter()
                .filter_map(|k| map.get(*k).map(shown))
                .collect::<Vec<_>>()
                .join(" "),
            other @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_)) => {
                other.to_string()
            }
        };
        let folded = fold_ds(&text);
        if !folded.is_empty() {
            out.insert(folded);
        }
    }
    out
}

fn fold_ds(text: &str) -> String {
    let lower = text.trim().trim_end_matches('.').to_ascii_lowercase();
    let fields: Vec<&str> = lower.split_whitespace().collect();
    match fields.as_slice() {
        [tag, alg, kind, digest @ ..] if !digest.is_empty() => {
            format!("{tag} {alg} {kind} {}", digest.concat())
        }
        _ => fields.join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ds_sets_ignore_case_order_spacing_and_final_dots() {
        let a = ds_set(Some(&json!(["2 13 2 ab cd.", "1 13 2 EF01"])));
        let b = ds_set(Some(&json!(["1  13 2 ef01", "2 13 2 ABCD"])));
        assert_eq!(a, b);
        let one = ds_set(Some(
            &json!({"key_tag": 1, "algorithm": 13, "digest_type": 2, "digest": "EF01"}),
        ));
        assert_eq!(one, ds_set(Some(&json!("1 13 2 ef01"))));
        assert_ne!(a, ds_set(Some(&json!(["1 13 2 ef02"]))));
        assert!(ds_set(Some(&json!([]))).is_empty());
        assert!(ds_set(None).is_empty());
    }

    #[test]
    fn only_clear_values_are_flags_and_dates() {
        assert_eq!(flag(&json!(false)), Some(false));
        assert_eq!(flag(&json!("Off")), Some(false));
        assert_eq!(flag(&json!("yes")), Some(true));
        assert_eq!(flag(&json!("sometimes")), None);
        assert_eq!(flag(&json!(1)), None);
        assert_eq!(
            date(&json!("2026-12-01")).map(|d| d.to_rfc3339()),
            Some("2026-12-01T00:00:00+00:00".into())
        );
        assert!(date(&json!("2026-12-01T10:00:00+02:00")).is_some());
        assert_eq!(date(&json!("next year")), None);
        assert_eq!(word(&json!(" In-Progress ")), Some("in_progress".into()));
    }
}
