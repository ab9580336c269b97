//! Small normalizers the diff and the fingerprints share.

use std::collections::BTreeSet;

/// A host name compared without regard to case, surrounding space or the final dot.
pub(super) fn host(name: &str) -> String {
    crate::dns::fold_host(name)
}

/// A nameserver list as a set: case, order, final dots and duplicates don't matter.
pub(super) fn host_set(names: &[String]) -> BTreeSet<String> {
    names
        .iter()
        .map(|n| host(n))
        .filter(|n| !n.is_empty())
        .collect()
}

/// Runs of whitespace collapsed to one space, ends trimmed (cron schedules and commands).
pub(super) fn collapse_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_fold_case_and_final_dot_only() {
        assert_eq!(host(" NS1.Veldhost.NET. "), "ns1.veldhost.net");
        assert_ne!(host("ns1.veldhost.net"), host("ns1.veldhost.com"));
        let a = host_set(&["NS2.x.net.".into(), "ns1.x.net".into()]);
        let b = host_set(&["ns1.X.net".into(), "ns2.x.net".into()]);
        assert_eq!(a, b);
    }

    #[test]
    fn whitespace_collapses_but_text_stays() {
        assert_eq!(collapse_ws("*/5  *  * * *"), "*/5 * * * *");
        assert_eq!(collapse_ws("\tphp  a.php --x=1 "), "php a.php --x=1");
        assert_ne!(collapse_ws("php a.php"), collapse_ws("php b.php"));
    }
}
