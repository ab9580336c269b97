//! `tag=value; tag=value` lists (DMARC, RFC 7489 §6.4; DKIM, RFC 6376 §3.2).

/// The tags in order, names and values trimmed; `Err` names the first part that is no tag.
pub(super) fn parse(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut tags = Vec::new();
    for part in text.split(';') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let Some((name, value)) = part.split_once('=') else {
            return Err(format!("`{part}` is not a `tag=value` pair"));
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
