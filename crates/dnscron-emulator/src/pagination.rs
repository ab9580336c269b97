//! Cursor pagination (spec: Pagination). A cursor names the last row of the page it ended
//! (its id, slot or name) and the list it belongs to, so rows inserted or deleted elsewhere
//! never shift the next page, and it never expires.

use std::str::FromStr;

use dnscron_provider::limits;

use super::json_body::Meta;

use super::error::{ApiError, ApiResult};

pub(crate) const DEFAULT_LIMIT: usize = limits::PAGE_SIZE_DEFAULT as usize;
pub(crate) const MAX_LIMIT: usize = limits::PAGE_SIZE_MAX as usize;
const PREFIX: &str = "c1_";

#[derive(Debug, Clone)]
pub(crate) struct PageParams {
    pub limit: usize,
    after: Option<String>,
}

/// The decoded query string: `(name, value)` pairs, percent-decoded.
pub(crate) fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_value(bytes[i + 1]), hex_value(bytes[i + 2]))
            {
                (Some(hi), Some(lo)) => {
                    out.push(hi * 16 + lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

impl PageParams {
    /// Reads `limit` and `cursor`; `list` names the list the cursor must belong to.
    pub(crate) fn parse(query: Option<&str>, list: &str) -> ApiResult<PageParams> {
        let mut limit = DEFAULT_LIMIT;
        let mut after = None;
        for (name, value) in query_pairs(query) {
            match name.as_str() {
                "limit" => limit = parse_limit(&value)?,
                "cursor" if !value.is_empty() => after = Some(decode(&value, list)?),
                _ => {}
            }
        }
        Ok(PageParams { limit, after })
    }

    /// The key of the last row already read, parsed as the list's key type.
    pub(crate) fn after<K: FromStr>(&self) -> ApiResult<Option<K>> {
        match &self.after {
            None => Ok(None),
            Some(raw) => raw.parse().map(Some).map_err(|_| bad_cursor()),
        }
    }
}

fn parse_limit(value: &str) -> ApiResult<usize> {
    match value.parse::<usize>() {
        Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        _ => Err(ApiError::invalid(
            "limit",
            format!("must be an integer from 1 to {MAX_LIMIT}; got `{value}`"),
        )),
    }
}

fn bad_cursor() -> ApiError {
    ApiError::invalid(
        "cursor",
        "is not a cursor of this list; pass back meta.next_cursor unchanged, or omit it to start over",
    )
}

pub(crate) fn encode(list: &str, key: &str) -> String {
    let raw = format!("{list}\n{key}");
    let mut out = String::from(PREFIX);
    for b in raw.bytes() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn decode(cursor: &str, list: &str) -> ApiResult<String> {
    let hex = cursor.strip_prefix(PREFIX).ok_or_else(bad_cursor)?;
    if hex.len() % 2 != 0 || !hex.is_ascii() {
        return Err(bad_cursor());
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| bad_cursor())?;
    let text = String::from_utf8(bytes).map_err(|_| bad_cursor())?;
    match text.split_once('\n') {
        Some((l, key)) if l == list => Ok(key.to_string()),
        _ => Err(bad_cursor()),
    }
}

/// One page from rows sorted by key, starting after the cursor's key.
pub(crate) fn page<K, T>(
    rows: impl Iterator<Item = (K, T)>,
    params: &PageParams,
    list: &str,
) -> ApiResult<(Vec<T>, Meta)>
where
    K: Ord + FromStr + ToString,
{
    let after: Option<K> = params.after()?;
    let mut rows = rows.filter(|(k, _)| after.as_ref().is_none_or(|a| k > a));
    let mut items = Vec::new();
    let mut last_key = None;
    for (key, item) in rows.by_ref().take(params.limit) {
        items.push(item);
        last_key = Some(key);
    }
    let has_more = rows.next().is_some();
    let meta = Meta {
        next_cursor: match (has_more, last_key) {
            (true, Some(k)) => Some(encode(list, &k.to_string())),
            _ => None,
        },
        has_more,
    };
    Ok((items, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trips_and_is_bound_to_its_list() {
        let c = encode("records:example.com", "1042");
        let p =
            PageParams::parse(Some(&format!("cursor={c}&limit=5")), "records:example.com").unwrap();
        assert_eq!(p.after::<i64>().unwrap(), Some(1042));
        assert_eq!(p.limit, 5);
        assert!(PageParams::parse(Some(&format!("cursor={c}")), "records:example.org").is_err());
        assert!(PageParams::parse(Some("cursor=garbage"), "sites").is_err());
    }

    #[test]
    fn limit_must_be_1_to_100() {
        assert!(PageParams::parse(Some("limit=100"), "sites").is_ok());
        assert!(PageParams::parse(Some("limit=0"), "sites").is_err());
        assert!(PageParams::parse(Some("limit=101"), "sites").is_err());
        assert!(PageParams::parse(Some("limit=abc"), "sites").is_err());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b+c%"), "a b c%");
    }
}
