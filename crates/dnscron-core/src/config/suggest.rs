//! "Did you mean" for misspelled keys and values.

/// The closest candidate within a small edit distance (case-insensitive), if any.
pub(crate) fn did_you_mean<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let input = input.to_ascii_lowercase();
    let max = (input.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (distance(&input, &c.to_ascii_lowercase()), *c))
        .filter(|(d, _)| *d <= max)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance, with an adjacent swap counting as one edit.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        let keys = ["name", "type", "content", "ttl"];
        assert_eq!(did_you_mean("contnet", &keys), Some("content"));
        assert_eq!(did_you_mean("TTL", &keys), Some("ttl"));
        assert_eq!(did_you_mean("tpye", &keys), Some("type"));
        assert_eq!(did_you_mean("priority", &keys), None);
    }
}
