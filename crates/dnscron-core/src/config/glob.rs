//! The small glob language of `ignore` rules: `*` any run of characters, `?` exactly one.

/// The glob an `ignore:` rule's `name` stands for (trimmed, without a trailing dot, lower
/// case, as record names are compared); `None` when it is empty, which the loader refuses.
pub(crate) fn rule_name(written: &str) -> Option<String> {
    let name = written.trim();
    (!name.is_empty()).then(|| name.trim_end_matches('.').to_ascii_lowercase())
}

/// Whether `text` matches `pattern` as a whole. Case-sensitive: callers lower-case names.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Classic two-pointer matcher with backtracking to the last `*`.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        for (p, t) in [
            ("_acme-challenge*", "_acme-challenge"),
            ("_acme-challenge*", "_acme-challenge.www"),
            ("*", "anything"),
            ("*", ""),
            ("w?w", "wxw"),
            ("*.dev", "a.b.dev"),
            ("a*b*c", "aXXbYYc"),
        ] {
            assert!(glob_match(p, t), "{p} {t}");
        }
        for (p, t) in [
            ("_acme-challenge*", "www"),
            ("w?w", "ww"),
            ("*.dev", "dev"),
            ("abc", "abcd"),
            ("a*b*c", "aXXbYY"),
        ] {
            assert!(!glob_match(p, t), "{p} {t}");
        }
    }
}
