//! The octoDNS side of section 6: its configuration and zone files written from the generated
//! zone, and the change counts read back from both tools' output.

use std::fmt::Write as _;
use std::path::Path;

use dnscron_emulator::RecordSeed;

use super::workload::ZoneGen;

/// Writes the octoDNS configuration and both zone files under `dir`; returns the config's path.
pub fn write_octodns(zone: &ZoneGen, dir: &Path) -> std::io::Result<std::path::PathBuf> {
    for side in ["desired", "live"] {
        std::fs::create_dir_all(dir.join(side))?;
    }
    let file = format!("{}.yaml", zone.zone);
    std::fs::write(
        dir.join("desired").join(&file),
        octodns_zone(&zone.desired()),
    )?;
    std::fs::write(dir.join("live").join(&file), octodns_zone(&zone.live()))?;
    let config = dir.join("config.yaml");
    std::fs::write(&config, octodns_config(&zone.zone, dir))?;
    Ok(config)
}

/// Two YAML providers (order not enforced: names come in generation order, `n10` after `n9`),
/// the desired one as the source and the live one as the target.
pub fn octodns_config(zone: &str, dir: &Path) -> String {
    let provider = |name: &str| {
        format!(
            "  {name}:\n    class: octodns.provider.yaml.YamlProvider\n    directory: {}\n    \
             enforce_order: false\n",
            dir.join(name).display()
        )
    };
    format!(
        "providers:\n{}{}zones:\n  {zone}.:\n    sources: [desired]\n    targets: [live]\n",
        provider("desired"),
        provider("live")
    )
}

/// An octoDNS zone file: each name once, its records (one value each) in a list.
pub fn octodns_zone(records: &[RecordSeed]) -> String {
    let mut out = String::from("---\n");
    let mut last: Option<&str> = None;
    for r in records {
        if last != Some(r.name.as_str()) {
            let _ = writeln!(out, "{}:", r.name);
            last = Some(&r.name);
        }
        let _ = writeln!(
            out,
            "- {{type: {}, ttl: {}, value: \"{}\"}}",
            r.rtype,
            r.ttl,
            r.content.replace('\\', "\\\\").replace('"', "\\\"")
        );
    }
    out
}

/// Changes a plan found, by action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub create: usize,
    pub update: usize,
    pub delete: usize,
}

impl std::fmt::Display for Changes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} / {} / {}", self.create, self.update, self.delete)
    }
}

/// From `dnscron plan`'s text: `Plan: 3 to create, 1 to update, 2 to delete[, …].` or
/// `No changes…`.
pub fn dnscron_changes(stdout: &str) -> Option<Changes> {
    if stdout.lines().any(|l| l.starts_with("No changes")) {
        return Some(Changes::default());
    }
    let line = stdout.lines().find_map(|l| l.strip_prefix("Plan: "))?;
    let pairs = line.trim_end_matches('.').split(", ").map(|part| {
        // `1 needs a portal step` and `N blocked` are also counted under their action; an
        // action may carry a note in parentheses (`66 to update (33 TTL-only)`).
        let (count, action) = part.split_once(" to ").unwrap_or((part, ""));
        let action = action.split_once(" (").map_or(action, |(a, _)| a);
        Some((action, count))
    });
    tally(pairs, ["create", "update", "delete"])
}

/// From `octodns-sync`'s log: `*   Summary: Creates=2, Updates=2, Deletes=1, Existing=4, …`.
pub fn octodns_changes(stderr: &str) -> Option<Changes> {
    let line = stderr.lines().find_map(|l| l.split_once("Summary: "))?.1;
    let pairs = line.split(", ").map(|part| part.split_once('='));
    tally(pairs, ["Creates", "Updates", "Deletes"])
}

/// The counts of `keys` (create, update, delete) among `(key, count)` pairs; other keys are
/// skipped, a missing pair or a count that isn't a number is `None`.
fn tally<'a>(
    pairs: impl Iterator<Item = Option<(&'a str, &'a str)>>,
    keys: [&str; 3],
) -> Option<Changes> {
    let mut n = [0; 3];
    for pair in pairs {
        let (key, count) = pair?;
        if let Some(i) = keys.iter().position(|k| *k == key) {
            n[i] = count.parse().ok()?;
        }
    }
    let [create, update, delete] = n;
    Some(Changes {
        create,
        update,
        delete,
    })
}

#[cfg(test)]
mod tests {
    use super::super::workload::{Drift, Shape};
    use super::*;

    #[test]
    fn octodns_files_hold_the_zone_dnscron_plans() {
        let drift = Drift {
            creates: 1,
            updates: 2,
            deletes: 1,
        };
        let z = ZoneGen::new("a.example.com", 6, drift).with_shape(Shape::ATxt);
        let desired = "---\nn0:\n\
            - {type: A, ttl: 3600, value: \"10.0.0.0\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf1.example.net ~all\"}\n\
            n1:\n\
            - {type: A, ttl: 3600, value: \"10.0.0.2\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf3.example.net ~all\"}\n\
            n2:\n\
            - {type: A, ttl: 3600, value: \"10.0.0.4\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf5.example.net ~all\"}\n";
        assert_eq!(octodns_zone(&z.desired()), desired);
        // Stride 6 / 3 = 2: record 0 (n0 A) is missing live, record 2 (n1 A) has another
        // content, record 4 (n2 A) another ttl; `x0` is undeclared.
        let live = "---\nn0:\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf1.example.net ~all\"}\n\
            n1:\n\
            - {type: A, ttl: 3600, value: \"10.106.207.194\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf3.example.net ~all\"}\n\
            n2:\n\
            - {type: A, ttl: 300, value: \"10.0.0.4\"}\n\
            - {type: TXT, ttl: 3600, value: \"v=spf1 include:_spf5.example.net ~all\"}\n\
            x0:\n\
            - {type: A, ttl: 3600, value: \"10.137.84.64\"}\n";
        assert_eq!(octodns_zone(&z.live()), live);
        // dnscron's file declares the same records (default ttl 3600).
        let dnscron = "zone: a.example.com\nrecords:\n\
            \x20 - { name: n0, type: A, content: \"10.0.0.0\" }\n\
            \x20 - { name: n0, type: TXT, content: \"v=spf1 include:_spf1.example.net ~all\" }\n\
            \x20 - { name: n1, type: A, content: \"10.0.0.2\" }\n\
            \x20 - { name: n1, type: TXT, content: \"v=spf1 include:_spf3.example.net ~all\" }\n\
            \x20 - { name: n2, type: A, content: \"10.0.0.4\" }\n\
            \x20 - { name: n2, type: TXT, content: \"v=spf1 include:_spf5.example.net ~all\" }\n";
        assert_eq!(z.yaml(), dnscron);
        assert_eq!(z.seed().records, z.live());
    }

    #[test]
    fn octodns_config_names_both_providers() {
        let expected = "providers:\n\
            \x20 desired:\n    class: octodns.provider.yaml.YamlProvider\n    \
            directory: /b/desired\n    enforce_order: false\n\
            \x20 live:\n    class: octodns.provider.yaml.YamlProvider\n    \
            directory: /b/live\n    enforce_order: false\n\
            zones:\n  a.example.com.:\n    sources: [desired]\n    targets: [live]\n";
        assert_eq!(octodns_config("a.example.com", Path::new("/b")), expected);
    }

    #[test]
    fn values_are_quoted_for_yaml() {
        let r = RecordSeed::new("q", "TXT", r#"say "hi" \o/"#);
        let expected = "---\nq:\n- {type: TXT, ttl: 3600, value: \"say \\\"hi\\\" \\\\o/\"}\n";
        assert_eq!(octodns_zone(&[r]), expected);
    }

    #[test]
    fn summary_lines_are_read() {
        let c = |create, update, delete| Changes {
            create,
            update,
            delete,
        };
        let ours = "+ big.example.com\n\nPlan: 3 to create, 1 to update, 2 to delete, 1 needs a \
                    portal step.\n";
        assert_eq!(dnscron_changes(ours), Some(c(3, 1, 2)));
        assert_eq!(dnscron_changes("Plan: 4 to delete.\n"), Some(c(0, 0, 4)));
        let ttl = "Plan: 68 to create, 66 to update (33 TTL-only), 66 to delete.\n";
        assert_eq!(dnscron_changes(ttl), Some(c(68, 66, 66)));
        let none = "No changes. The live account matches the files.\n";
        assert_eq!(dnscron_changes(none), Some(c(0, 0, 0)));
        assert_eq!(dnscron_changes("error: refused\n"), None);
        assert_eq!(dnscron_changes("Plan: x to create.\n"), None);
        let theirs = "INFO Plan \n*   Delete <ARecord A 3600, x0.big.example.com., ['10.9.0.0']>\n\
                      *   Summary: Creates=2, Updates=2, Deletes=1, Existing=4, Meta=False\n";
        assert_eq!(octodns_changes(theirs), Some(c(2, 2, 1)));
        assert_eq!(octodns_changes("INFO Manager sync\n"), None);
    }
}
