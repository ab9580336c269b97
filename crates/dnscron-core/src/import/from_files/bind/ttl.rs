//! TTLs as BIND reads them: seconds, or units (`1D`, `2h30m`, `1w`), RFC 2308 §4.

/// The largest TTL RFC 2181 §8 allows.
const MAX_TTL: u64 = (1 << 31) - 1;

/// Seconds for `text`, or `None` when it is not a TTL.
pub(super) fn parse_ttl(text: &str) -> Option<u32> {
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse::<u64>()
            .ok()
            .filter(|&s| s <= MAX_TTL)
            .and_then(|s| u32::try_from(s).ok());
    }
    let mut total: u64 = 0;
    let mut number: Option<u64> = None;
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            number = Some(
                number
                    .unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add(u64::from(d))?,
            );
            continue;
        }
        let unit = match c.to_ascii_lowercase() {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        total = total.checked_add(number.take()?.checked_mul(unit)?)?;
    }
    if number.is_some() || total > MAX_TTL {
        return None;
    }
    u32::try_from(total).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_units() {
        for (text, want) in [
            ("3600", Some(3600)),
            ("1D", Some(86_400)),
            ("1d", Some(86_400)),
            ("2h30m", Some(9000)),
            ("1w", Some(604_800)),
            ("1W2D3H4M5S", Some(604_800 + 172_800 + 10_800 + 240 + 5)),
            ("2147483647", Some(2_147_483_647)),
            ("2147483648", None),
            ("1h30", None),
            ("h", None),
            ("1x", None),
            ("IN", None),
        ] {
            assert_eq!(parse_ttl(text), want, "{text}");
        }
    }
}
