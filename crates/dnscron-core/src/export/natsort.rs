//! The key order octoDNS's YAML provider enforces (`enforce_order`, on by default): Python's
//! `natsort.natsort_keygen()`, a string read as alternating runs of text and unsigned integers
//! (`host2` before `host10`), text compared by code point, a string starting with a digit led
//! by an empty text run (so it sorts before any letter).

use std::cmp::Ordering;

#[derive(Debug, PartialEq, Eq)]
enum Part<'a> {
    Text(&'a str),
    /// Digits without leading zeros (compared by length, then by digit: any size).
    Int(&'a str),
}

fn parts(s: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    if bytes.first().is_some_and(u8::is_ascii_digit) {
        out.push(Part::Text(""));
    }
    while i < bytes.len() {
        let digit = bytes[i].is_ascii_digit();
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() == digit {
            i += 1;
        }
        let run = &s[start..i];
        out.push(if digit {
            let trimmed = run.trim_start_matches('0');
            Part::Int(if trimmed.is_empty() { "0" } else { trimmed })
        } else {
            Part::Text(run)
        });
    }
    out
}

fn part_order(a: &Part<'_>, b: &Part<'_>) -> Ordering {
    match (a, b) {
        (Part::Text(x), Part::Text(y)) => x.cmp(y),
        (Part::Int(x), Part::Int(y)) => x.len().cmp(&y.len()).then_with(|| x.cmp(y)),
        // Runs alternate from a text run, so they never meet at one position; if they did,
        // Python would raise, and any fixed order is as good.
        (Part::Int(_), Part::Text(_)) => Ordering::Less,
        (Part::Text(_), Part::Int(_)) => Ordering::Greater,
    }
}

/// `a` against `b` as natsort orders them; equal keys (`a01`, `a1`) compare equal, which
/// Python's stable sort leaves in the order written.
pub(super) fn order(a: &str, b: &str) -> Ordering {
    let (a, b) = (parts(a), parts(b));
    for (x, y) in a.iter().zip(&b) {
        let o = part_order(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_compare_as_numbers_and_a_leading_digit_sorts_first() {
        let mut names = vec![
            "host10", "www", "*", "", "host2", "10", "_dmarc", "2x", "a01", "a1",
        ];
        names.sort_by(|a, b| order(a, b));
        assert_eq!(
            names,
            [
                "", "2x", "10", "*", "_dmarc", "a01", "a1", "host2", "host10", "www"
            ]
        );
        assert_eq!(order("a01", "a1"), Ordering::Equal);
        let long = "9".repeat(40);
        assert_eq!(order(&format!("x{long}"), "x1"), Ordering::Greater);
    }
}
