//! The `*`/`?` globs of `ignore` rules.

/// `*` matches any run of characters (also none), `?` exactly one; everything else literally.
pub fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Classic backtracking over the last `*`: linear in practice, no recursion.
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
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs() {
        assert!(matches("_acme-challenge*", "_acme-challenge"));
        assert!(matches("_acme-challenge*", "_acme-challenge.www"));
        assert!(!matches("_acme-challenge*", "www._acme-challenge"));
        assert!(matches("*.dev", "a.b.dev"));
        assert!(!matches("*.dev", "dev"));
        assert!(matches("w?w", "www"));
        assert!(!matches("w?w", "ww"));
        assert!(matches("*", ""));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
    }
}
