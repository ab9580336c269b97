//! Inline word diff for long contents (TXT, DKIM keys): which parts of the old and the new text
//! changed. Tokens are runs of letters and digits, and every other character on its own, so
//! `site-verification=abc` vs `site-verification=xyz` highlights only `abc`/`xyz`.

use similar::{Algorithm, DiffTag, capture_diff_slices};

/// A piece of text and whether it changed.
pub(crate) type Segments = Vec<(bool, String)>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    Same,
    Removed,
    Added,
}

fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_word = false;
    for (i, ch) in text.char_indices() {
        let word = ch.is_alphanumeric();
        if i > start && !(word && in_word) {
            out.push(&text[start..i]);
            start = i;
        }
        in_word = word;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn push<T: PartialEq + Copy>(out: &mut Vec<(T, String)>, tag: T, text: &str) {
    match out.last_mut() {
        Some((t, s)) if *t == tag => s.push_str(text),
        Some(_) | None => out.push((tag, text.to_string())),
    }
}

/// The merged edit script from `old` to `new`: unchanged, removed and added pieces in order.
pub(crate) fn pieces(old: &str, new: &str) -> Vec<(Piece, String)> {
    let a = tokens(old);
    let b = tokens(new);
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            for t in &a[old_range] {
                push(&mut out, Piece::Same, t);
            }
            continue;
        }
        for t in &a[old_range] {
            push(&mut out, Piece::Removed, t);
        }
        for t in &b[new_range] {
            push(&mut out, Piece::Added, t);
        }
    }
    out
}

/// The old and the new text as segments, changed parts marked.
pub(crate) fn diff(old: &str, new: &str) -> (Segments, Segments) {
    let mut left = Segments::new();
    let mut right = Segments::new();
    for (piece, text) in pieces(old, new) {
        match piece {
            Piece::Same => {
                push(&mut left, false, &text);
                push(&mut right, false, &text);
            }
            Piece::Removed => push(&mut left, true, &text),
            Piece::Added => push(&mut right, true, &text),
        }
    }
    (left, right)
}

/// Git's word-diff notation: `same[-removed-]{+added+}same`.
pub(crate) fn marked(old: &str, new: &str) -> String {
    pieces(old, new)
        .into_iter()
        .map(|(piece, text)| match piece {
            Piece::Same => text,
            Piece::Removed => format!("[-{text}-]"),
            Piece::Added => format!("{{+{text}+}}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changed_tokens_are_marked() {
        let (l, r) = diff(
            "google-site-verification=old999XYZ",
            "google-site-verification=abc123XYZ",
        );
        assert_eq!(
            l,
            vec![
                (false, "google-site-verification=".into()),
                (true, "old999XYZ".into())
            ]
        );
        assert_eq!(
            r,
            vec![
                (false, "google-site-verification=".into()),
                (true, "abc123XYZ".into())
            ]
        );
        let (l, r) = diff("v=spf1 mx -all", "v=spf1 mx include:x.example -all");
        assert!(l.iter().all(|(c, _)| !c));
        assert_eq!(r[1], (true, "include:x.example ".into()));
    }

    #[test]
    fn marked_notation_shows_each_change_once() {
        assert_eq!(marked("a b c", "a x c"), "a [-b-]{+x+} c");
        assert_eq!(marked("ab", "ab ab"), "ab{+ ab+}");
        assert_eq!(marked("same", "same"), "same");
    }

    #[test]
    fn tokens_cover_the_text() {
        for text in ["", "a", "ab cd", "é-ü=1", "  x  "] {
            assert_eq!(tokens(text).concat(), text);
        }
    }
}
