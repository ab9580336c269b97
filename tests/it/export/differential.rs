//! What the tools themselves read from `dnscron export`'s files: BIND's `named-compilezone`
//! (each zone file in its canonical text form) and octoDNS 1.22's YamlProvider (the
//! configuration, lenient off, key order enforced), compared record by record with what the
//! files declare. Their answers are recorded in tests/it/export/recorded/ beside the files they
//! read (tests/recorders/export.sh); a default test holds the export to those files byte for
//! byte, so a recording can't silently describe files the export no longer writes, and with the
//! cargo feature `live-tools` the tools run again and a stale recording fails.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use dnscron_core::dns::{RecordType, ZoneName, canonical_live_content};

use super::{Row, declared, desired, tree, workdir};
use crate::common::repo_root;

fn recorded() -> PathBuf {
    repo_root().join("tests/it/export/recorded")
}

/// The three TXT texts octoDNS can't hold, which the export lists instead (name, type).
const NOT_FOR_OCTODNS: [&str; 3] = ["joint", "semicolon", "unicode"];

/// The harness's SOA and NS, which tests/recorders/export.sh adds to a file without its own.
const HARNESS_NS: &str = "ns.harness.invalid.";

fn row(zone: &str, name: &str, rtype: &str, ttl: u32, rdata: &str) -> Row {
    let parsed = ZoneName::parse(zone).unwrap();
    let typed = RecordType::from_str(rtype).unwrap_or_else(|_| panic!("type {rtype}"));
    (
        name.to_string(),
        rtype.to_string(),
        ttl,
        canonical_live_content(typed, rdata, &parsed),
    )
}

/// named-compilezone's recorded answer for `zone`: its records (SOA and apex NS apart).
struct Bind {
    records: BTreeSet<Row>,
    soa: Vec<String>,
    apex_ns: Vec<String>,
}

fn named_compilezone(zone: &str) -> Bind {
    let path = recorded().join(format!("bind/{zone}.named-compilezone.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; tests/record-answers.sh records it",
            path.display()
        )
    });
    let apex = format!("{zone}.");
    let mut bind = Bind {
        records: BTreeSet::new(),
        soa: Vec::new(),
        apex_ns: Vec::new(),
    };
    for line in text.lines() {
        let (fields, rdata) = fields(line, 4);
        let [owner, ttl, class, rtype] = fields[..] else {
            panic!("not a record line: {line}")
        };
        assert_eq!(class, "IN", "{line}");
        let name = match owner.strip_suffix(&format!(".{apex}")) {
            Some(relative) => relative.to_string(),
            None if owner == apex => "@".to_string(),
            None => panic!("{owner} is outside {zone}"),
        };
        match (name.as_str(), rtype) {
            ("@", "SOA") => bind.soa.push(rdata.to_string()),
            ("@", "NS") => bind.apex_ns.push(rdata.to_string()),
            _ => {
                bind.records
                    .insert(row(zone, &name, rtype, ttl.parse().unwrap(), rdata));
            }
        }
    }
    bind
}

/// The first `n` whitespace-separated fields of `line`, and the rest (rdata keeps its spaces).
fn fields(line: &str, n: usize) -> (Vec<&str>, &str) {
    let mut rest = line;
    let mut out = Vec::new();
    for _ in 0..n {
        let trimmed = rest.trim_start();
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        out.push(&trimmed[..end]);
        rest = &trimmed[end..];
    }
    (out, rest.trim())
}

/// BIND reads every record of every zone as the files declare it, TXT escapes and the split
/// at 255 octets included; a zone on custom nameservers has them as its apex NS (and an SOA
/// naming the first), a hosted one only the harness's.
#[test]
fn named_compilezone_reads_the_records_the_files_declare() {
    let desired = desired();
    let mut compared = 0;
    for zone in ["empty.example", "example.com", "example.org"] {
        let bind = named_compilezone(zone);
        let ours = declared(&desired, zone);
        assert_eq!(bind.records, ours, "{zone}");
        compared += ours.len();
        let (soa, ns) = match zone {
            "example.org" => (
                "ns1.other-dns.net. hostmaster.example.org. 1 3600 600 1209600 300",
                vec!["ns1.other-dns.net.", "ns2.other-dns.net."],
            ),
            _ => (
                "ns.harness.invalid. hostmaster.harness.invalid. 1 3600 600 1209600 300",
                vec![HARNESS_NS],
            ),
        };
        assert_eq!(bind.soa, [soa], "{zone}");
        assert_eq!(bind.apex_ns, ns, "{zone}");
    }
    assert_eq!(compared, 41, "records compared");
}

#[derive(serde::Deserialize)]
struct Octodns {
    octodns: String,
    zones: BTreeMap<String, Vec<(String, u32, String, String)>>,
}

fn octodns_answer() -> Octodns {
    let path = recorded().join("octodns/octodns.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; tests/record-answers.sh records it",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap()
}

/// octoDNS's YamlProvider loads every record the files declare, but the three TXT texts it
/// can't hold, which the export lists instead of writing.
#[test]
fn octodns_loads_the_records_the_files_declare_but_those_listed() {
    let answer = octodns_answer();
    assert_eq!(answer.octodns, "1.22.0");
    let desired = desired();
    let zones: Vec<&str> = answer.zones.keys().map(String::as_str).collect();
    assert_eq!(zones, ["empty.example.", "example.com.", "example.org."]);
    let mut compared = 0;
    for (zone, rows) in &answer.zones {
        let zone = zone.trim_end_matches('.');
        let theirs: BTreeSet<Row> = rows
            .iter()
            .map(|(name, ttl, rtype, content)| row(zone, name, rtype, *ttl, content))
            .collect();
        let ours: BTreeSet<Row> = declared(&desired, zone)
            .into_iter()
            .filter(|r| !(zone == "example.com" && NOT_FOR_OCTODNS.contains(&r.0.as_str())))
            .collect();
        assert_eq!(theirs, ours, "{zone}");
        compared += ours.len();
    }
    assert_eq!(compared, 38, "records compared");
}

/// The recorded answers describe the files the export writes today: exported again, each file
/// is byte for byte the one the tools read.
#[test]
fn the_tools_read_the_files_the_export_writes_today() {
    let dir = workdir();
    for to in ["bind", "octodns"] {
        let out = dir.path().join(to);
        super::export(dir.path(), &["--to", to, "--out", to, "account"]).snapshot();
        let exported = tree(&out);
        let read: Vec<String> = tree(&recorded().join(to))
            .into_iter()
            .filter(|f| !f.ends_with(".named-compilezone.txt") && f != "octodns.json")
            .collect();
        assert_eq!(exported, read, "{to}: the files");
        assert_eq!(
            differing(&out, &recorded().join(to), &exported),
            Vec::<String>::new(),
            "{to}: files the export writes differently now; run tests/record-answers.sh"
        );
    }
}

/// The files of `names` that differ between `a` and `b` (or are missing from one).
fn differing(a: &Path, b: &Path, names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| std::fs::read(a.join(n)).ok() != std::fs::read(b.join(n)).ok())
        .cloned()
        .collect()
}

#[cfg(feature = "live-tools")]
mod live {
    use super::*;

    /// tests/recorders/export.sh run now, with this build's binary, into a fresh folder gives
    /// the committed recordings byte for byte: the exported files and both tools' answers.
    #[test]
    fn the_recordings_are_what_bind_and_octodns_read_today() {
        let fresh = tempfile::tempdir().unwrap();
        let script = repo_root().join("tests/recorders/export.sh");
        let output = std::process::Command::new(&script)
            .arg(fresh.path())
            .env("DNSCRON", crate::common::dnscron_bin())
            .output()
            .unwrap_or_else(|e| panic!("{} can't be run: {e}", script.display()));
        assert!(
            output.status.success(),
            "{} failed (it needs named-compilezone and OCTODNS_PYTHON):\n{}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let names = tree(fresh.path());
        assert_eq!(names, tree(&recorded()), "the recorded files");
        assert_eq!(
            differing(fresh.path(), &recorded(), &names),
            Vec::<String>::new(),
            "stale recordings: run tests/record-answers.sh and review the difference"
        );
    }
}

/// The staleness check in its refused form (the live test above is only as good as it): a file
/// changed and one missing on one side are each named.
#[test]
fn a_changed_or_missing_recording_is_named() {
    let fresh = tempfile::tempdir().unwrap();
    crate::ci_recipes::runner::copy_dir(&recorded(), fresh.path());
    let names = tree(&recorded());
    assert_eq!(
        differing(fresh.path(), &recorded(), &names),
        Vec::<String>::new()
    );
    let answer = fresh.path().join("bind/example.org.named-compilezone.txt");
    let text = std::fs::read_to_string(&answer).unwrap();
    std::fs::write(&answer, text.replace("3600 IN A", "3601 IN A")).unwrap();
    std::fs::remove_file(fresh.path().join("octodns/octodns.json")).unwrap();
    assert_eq!(
        differing(fresh.path(), &recorded(), &names),
        [
            "bind/example.org.named-compilezone.txt",
            "octodns/octodns.json"
        ]
    );
}
