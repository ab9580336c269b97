//! BIND's `$GENERATE range lhs [ttl] [class] type rhs`: one record per value of the range, `$`
//! in lhs and rhs replaced by the value, `${offset,width,base}` formatted (base `d`, `o`, `x`,
//! `X`, or `n`/`N` for reversed nibbles as in ip6.arpa), `\$` a literal `$`.

/// More than any real zone generates; a typo such as `1-1000000000` is refused, not run.
pub(super) const MAX_GENERATED: u64 = 1_000_000;

/// `start-stop[/step]` as the values it runs through.
pub(super) fn range(text: &str) -> Result<(u64, u64, u64), String> {
    let bad = || format!("`{text}` is not a range `start-stop` or `start-stop/step`");
    let (span, step) = match text.split_once('/') {
        Some((span, step)) => (span, step.parse::<u64>().map_err(|_| bad())?),
        None => (text, 1),
    };
    let (start, stop) = span.split_once('-').ok_or_else(bad)?;
    let (start, stop) = (
        start.parse::<u64>().map_err(|_| bad())?,
        stop.parse::<u64>().map_err(|_| bad())?,
    );
    if step == 0 || stop < start {
        return Err(bad());
    }
    if (stop - start) / step + 1 > MAX_GENERATED {
        return Err(format!(
            "`{text}` generates more than {MAX_GENERATED} records"
        ));
    }
    Ok((start, stop, step))
}

/// `template` with every `$` and `${…}` replaced for `value`.
pub(super) fn substitute(template: &str, value: u64) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 8);
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'$') => {
                chars.next();
                out.push('$');
            }
            '\\' => {
                out.push('\\');
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            '$' if chars.peek() == Some(&'{') => {
                chars.next();
                let spec: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push_str(&format_spec(&spec, value)?);
            }
            '$' => out.push_str(&value.to_string()),
            _ => out.push(c),
        }
    }
    Ok(out)
}

fn format_spec(spec: &str, value: u64) -> Result<String, String> {
    let bad = || format!("`${{{spec}}}` is not `${{offset[,width[,base]]}}`");
    let mut parts = spec.split(',');
    let offset: i64 = parts
        .next()
        .unwrap_or("0")
        .trim()
        .parse()
        .map_err(|_| bad())?;
    let width: usize = match parts.next() {
        Some(w) => w.trim().parse().map_err(|_| bad())?,
        None => 0,
    };
    let base = parts.next().map(str::trim).unwrap_or("d");
    if parts.next().is_some() {
        return Err(bad());
    }
    let shifted = i64::try_from(value)
        .ok()
        .and_then(|v| v.checked_add(offset))
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| format!("`${{{spec}}}` makes {value} negative"))?;
    match base {
        "d" => Ok(format!("{shifted:0width$}")),
        "o" => Ok(format!("{shifted:0width$o}")),
        "x" => Ok(format!("{shifted:0width$x}")),
        "X" => Ok(format!("{shifted:0width$X}")),
        "n" => Ok(nibbles(shifted, width, false)),
        "N" => Ok(nibbles(shifted, width, true)),
        _ => Err(bad()),
    }
}

/// Hex digits least significant first, dot-separated, until the value is spent and `width`
/// characters (dots included) are written: BIND's nibble mode.
fn nibbles(mut value: u64, width: usize, upper: bool) -> String {
    let mut out = String::new();
    let mut left = width;
    loop {
        let digit = char::from_digit((value & 0xf) as u32, 16).unwrap_or('0');
        out.push(if upper {
            digit.to_ascii_uppercase()
        } else {
            digit
        });
        value >>= 4;
        left = left.saturating_sub(1);
        if value == 0 && left == 0 {
            break;
        }
        out.push('.');
        left = left.saturating_sub(1);
        if value == 0 && left == 0 {
            break;
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(range("1-10").unwrap(), (1, 10, 1));
        assert_eq!(range("0-20/5").unwrap(), (0, 20, 5));
        for bad in ["10-1", "1-2/0", "x-2", "5", "0-1000000"] {
            assert!(range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn substitutions() {
        assert_eq!(substitute("host$", 7).unwrap(), "host7");
        assert_eq!(substitute("h${10,3,x}", 1).unwrap(), "h00b");
        assert_eq!(substitute("h${0,4,X}", 255).unwrap(), "h00FF");
        assert_eq!(substitute("${-1,2}", 1).unwrap(), "00");
        assert_eq!(substitute("o${0,0,o}", 8).unwrap(), "o10");
        assert_eq!(substitute("a\\$b$", 2).unwrap(), "a$b2");
        assert_eq!(substitute("${0,0,n}", 0x1ab).unwrap(), "b.a.1");
        assert_eq!(substitute("${0,5,n}", 1).unwrap(), "1.0.0");
        assert!(substitute("${0,1,q}", 1).is_err());
        assert!(substitute("${-5}", 1).is_err());
    }
}
