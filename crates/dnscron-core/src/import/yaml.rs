//! Scalars written so that the loader reads back exactly the same string: the writer `fmt`
//! shares (`config::fmt::text`), and server text inside comments.

use crate::config::fmt::text::needs_escape;
pub(super) use crate::config::fmt::text::{quoted, scalar};

/// Server text shown inside a `#` comment: control characters escaped, so a line break in it
/// can't end the comment and inject YAML.
pub(super) fn comment_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_keep_one_line() {
        assert_eq!(comment_text("x\ny \"q\""), "x\\ny \"q\"");
        assert_eq!(comment_text("t\tb\u{7}"), "t\\tb\\u0007");
    }
}
