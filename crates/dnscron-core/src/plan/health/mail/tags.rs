//! `tag=value; tag=value` lists (DMARC, RFC 7489 §6.3, which takes DKIM's syntax; DKIM, RFC
//! 6376 §3.2).

use dnscron_api::untrusted::escape;

/// The tags in order, names and values trimmed; `Err` names the first part that is no tag
/// (escaped for display).
pub(super) fn parse(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut tags = Vec::new();
    for part in text.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some((name, value)) = part.split_once('=') else {
            return Err(format!("`{}` is not a `tag=value` pair", escape(part)));
        };
        tags.push((name.trim().to_string(), value.trim().to_string()));
    }
    Ok(tags)
}

pub(super) fn get<'t>(tags: &'t [(String, String)], name: &str) -> Option<&'t str> {
    tags.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The names that occur more than once, in the order of their second occurrence (RFC 6376 §3.2:
/// "if a tag name does occur more than once, the entire tag-list is invalid").
pub(super) fn duplicates(tags: &[(String, String)]) -> Vec<&str> {
    let mut seen = std::collections::BTreeSet::new();
    let mut twice = Vec::new();
    for (name, _) in tags {
        if !seen.insert(name.as_str()) && !twice.contains(&name.as_str()) {
            twice.push(name.as_str());
        }
    }
    twice
}
