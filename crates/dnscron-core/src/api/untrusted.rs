//! Server text on one line for an error: an excerpt of a body that is not the API's, escaped
//! with the shared [`crate::untrusted::escape`].

pub(super) use crate::untrusted::escape;

/// At most `max` characters of `text` on one escaped line, whitespace runs folded to one
/// space, `…` when cut.
pub(super) fn excerpt(text: &str, max: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = folded.chars().take(max).collect();
    if folded.chars().count() > max {
        out.push('…');
    }
    escape(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_one_escaped_line() {
        assert_eq!(
            excerpt("<p>\n  two\n\nlines \u{1b}x</p>", 100),
            "<p> two lines \\u{1b}x</p>"
        );
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
