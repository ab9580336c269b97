//! `adopt` on data: files and a live listing in, the texts it writes and what it leaves out.

use std::path::PathBuf;

use dnscron_api::{RecordRef, RecordRows};

use super::*;
use crate::config::load_texts;
use crate::plan::snapshot::LiveZone;
use crate::plan::{DiffOptions, diff};

/// A live row: (zone, id, name, type, ttl, content).
type Row<'a> = (&'a str, i64, &'a str, &'a str, u32, &'a str);

fn run(files: &[(&str, &str)], rows: &[Row], undeclared: bool) -> Adoption {
    let files: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    let desired = load_texts(&files).unwrap_or_else(|d| panic!("{d:?}"));
    let zones = desired
        .zones
        .iter()
        .map(|z| {
            let mut records = RecordRows::default();
            for &(zone, id, name, rtype, ttl, content) in rows {
                if zone == z.zone.as_str() {
                    let row = RecordRef {
                        id,
                        name,
                        rtype,
                        ttl,
                        content,
                    };
                    records
                        .push(row)
                        .unwrap_or_else(|_| panic!("row too large"));
                }
            }
            LiveZone {
                zone: z.zone.clone(),
                records,
                service_nameservers: Vec::new(),
            }
        })
        .collect();
    let live = LiveSnapshot {
        zones,
        domains: Vec::new(),
        sites: Vec::new(),
    };
    // As the binary plans for adopt: the limits lifted (the adoption is judged by its own).
    let opts = DiffOptions {
        allow_mass_changes: true,
        ..DiffOptions::default()
    };
    let plan = diff(&desired, &live, &opts).unwrap_or_else(|e| panic!("{e}"));
    adopt(&files, &plan, &live, &AdoptOptions { undeclared })
}

fn written(adoption: &Adoption, path: &str) -> String {
    adoption
        .writes
        .iter()
        .find(|w| w.path == std::path::Path::new(path))
        .map(|w| w.text.clone())
        .unwrap_or_else(|| panic!("{path} not written: {adoption:?}"))
}

fn reasons(adoption: &Adoption) -> Vec<LeftReason> {
    adoption.left.iter().map(|l| l.reason.clone()).collect()
}

const TWO_ZONES: &str = "zone: a.example\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\n---\n# the second\nzone: b.example\nrecords:\n  - { name: www, type: A, content: \"192.0.2.2\" } # b's\n";

#[test]
fn each_document_of_a_file_gets_its_own_edit() {
    let rows = [
        ("a.example", 1, "www", "A", 3600, "192.0.2.10"),
        ("b.example", 2, "www", "A", 300, "192.0.2.2"),
    ];
    let adoption = run(&[("z.yaml", TWO_ZONES)], &rows, false);
    assert_eq!(adoption.left, Vec::new());
    assert_eq!(
        written(&adoption, "z.yaml"),
        TWO_ZONES
            .replace("\"192.0.2.1\" }", "\"192.0.2.10\" }")
            .replace("\"192.0.2.2\" } # b's", "\"192.0.2.2\", ttl: 300 } # b's")
    );
}

#[test]
fn adopted_files_adopt_nothing_more() {
    let rows = [
        ("a.example", 1, "www", "A", 3600, "192.0.2.10"),
        ("a.example", 3, "mail", "MX", 3600, "10 MX.a.example."),
        ("b.example", 2, "www", "A", 300, "192.0.2.2"),
    ];
    let first = run(&[("z.yaml", TWO_ZONES)], &rows, true);
    let text = written(&first, "z.yaml");
    let again = run(&[("z.yaml", &text)], &rows, true);
    assert_eq!(
        (again.writes, again.adopted, again.left),
        (vec![], vec![], vec![])
    );
}

#[test]
fn records_added_at_one_place_come_in_fmt_order() {
    let zone = "zone: a.example\nrecords:\n  - { name: \"@\", type: A, content: \"192.0.2.1\" }\n  - { name: zz, type: A, content: \"192.0.2.9\" }\n";
    let rows = [
        ("a.example", 1, "@", "A", 3600, "192.0.2.1"),
        ("a.example", 2, "zz", "A", 3600, "192.0.2.9"),
        ("a.example", 3, "mail", "MX", 3600, "10 mx.a.example."),
        ("a.example", 4, "mail", "MX", 3600, "5 mx2.a.example."),
        ("a.example", 5, "b", "TXT", 600, "hello"),
    ];
    let adoption = run(&[("z.yaml", zone)], &rows, true);
    assert_eq!(adoption.left, Vec::new());
    assert_eq!(
        written(&adoption, "z.yaml"),
        zone.replace(
            "  - { name: zz",
            "  - { name: b, type: TXT, content: \"hello\", ttl: 600 }\n  - { name: mail, type: MX, content: \"5 mx2.a.example.\" }\n  - { name: mail, type: MX, content: \"10 mx.a.example.\" }\n  - { name: zz"
        )
    );
}

#[test]
fn what_the_files_would_refuse_is_left_and_the_rest_written() {
    let zone = "zone: a.example\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\n";
    let rows = [
        ("a.example", 1, "www", "A", 3600, "192.0.2.1"),
        // A CNAME beside the declared A: the loader refuses it.
        ("a.example", 2, "www", "CNAME", 3600, "other.example."),
        ("a.example", 3, "mail", "A", 3600, "192.0.2.5"),
        // Content the loader can't read.
        ("a.example", 4, "bad", "A", 3600, "192.0.2.300"),
    ];
    let adoption = run(&[("z.yaml", zone)], &rows, true);
    assert_eq!(
        written(&adoption, "z.yaml"),
        zone.replace(
            "records:\n",
            "records:\n  - { name: mail, type: A, content: \"192.0.2.5\" }\n"
        )
    );
    let left = reasons(&adoption);
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(
        matches!(&left[0], LeftReason::LiveValueRefused { problem } if problem.starts_with("invalid A content")),
        "{left:?}"
    );
    assert!(
        matches!(&left[1], LeftReason::WouldNotLoad { problem } if problem.contains("CNAME")),
        "{left:?}"
    );
}

#[test]
fn without_undeclared_an_undeclared_record_is_left() {
    let zone = "zone: a.example\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\n";
    let rows = [
        ("a.example", 1, "www", "A", 3600, "192.0.2.1"),
        ("a.example", 2, "www", "A", 3600, "192.0.2.2"),
    ];
    let adoption = run(&[("z.yaml", zone)], &rows, false);
    assert_eq!(adoption.writes, Vec::new());
    assert_eq!(reasons(&adoption), [LeftReason::Undeclared]);
}

#[test]
fn layouts_not_edited_in_place_are_left_with_where() {
    let anchored = "zone: a.example\ndefaults: &d { ttl: 300 }\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\n";
    let flow = "{ zone: a.example, records: [{ name: www, type: A, content: \"192.0.2.1\" }] }\n";
    let rows = [("a.example", 1, "www", "A", 3600, "192.0.2.9")];
    for (text, why, line, col) in [
        (anchored, LayoutWhy::Anchor, 2, 14),
        (flow, LayoutWhy::FlowDocument, 1, 1),
    ] {
        let adoption = run(&[("z.yaml", text)], &rows, false);
        assert_eq!(adoption.writes, Vec::new());
        assert_eq!(
            reasons(&adoption),
            [LeftReason::Layout {
                file: "z.yaml".into(),
                line,
                col,
                why
            }]
        );
    }
}

#[test]
fn removals_and_rewrites_are_judged_by_the_zones_limits_from_the_files_side() {
    use crate::plan::Exceeded;
    let six: String = (1..=6)
        .map(|n| format!("  - {{ name: h{n}, type: A, content: \"192.0.2.{n}\" }}\n"))
        .collect();
    let zone = format!("zone: a.example\nrecords:\n{six}");
    let row = |n: i64| ("a.example", n, "", "A", 3600, "");
    let names = ["h1", "h2", "h3", "h4", "h5", "h6"];
    let contents = [
        "192.0.2.1",
        "192.0.2.2",
        "192.0.2.3",
        "192.0.2.4",
        "192.0.2.5",
        "192.0.2.6",
    ];
    let live = |kept: usize| -> Vec<Row> {
        (0..kept)
            .map(|i| {
                let (zone, id, _, rtype, ttl, _) = row(i as i64 + 1);
                (zone, id, names[i], rtype, ttl, contents[i])
            })
            .collect()
    };
    // Wiped live: every declaration removed, past the delete share and leaving none.
    let wiped = run(&[("z.yaml", &zone)], &live(0), false);
    assert_eq!(wiped.adopted.len(), 6);
    assert_eq!(wiped.over_limits.len(), 1, "{:?}", wiped.over_limits);
    assert_eq!(wiped.over_limits[0].zone, "a.example");
    assert_eq!(
        wiped.over_limits[0].exceeded,
        [
            Exceeded::DeletePercent {
                deletes: 6,
                live: 6,
                floor: 5,
                max_percent: 30
            },
            Exceeded::Empty { live: 6 },
        ]
    );
    // One deleted live: within the limits.
    let one = run(&[("z.yaml", &zone)], &live(5), false);
    assert_eq!(one.adopted.len(), 1);
    assert_eq!(one.over_limits, Vec::new());
    // Replaced live: each rewrite counts as an update, against the zone's update limits.
    let strict = zone.replace("records:", "safety: { update_floor: 3 }\nrecords:");
    let other: Vec<Row> = (0..6)
        .map(|i| {
            (
                "a.example",
                i as i64 + 1,
                names[i],
                "A",
                3600,
                "198.51.100.7",
            )
        })
        .collect();
    let replaced = run(&[("z.yaml", &strict)], &other, false);
    assert_eq!(replaced.adopted.len(), 6);
    assert_eq!(
        replaced.over_limits[0].exceeded,
        [Exceeded::UpdatePercent {
            updates: 6,
            live: 6,
            floor: 3,
            max_percent: 30
        }]
    );
    // Renamed live: the removals count though as many records are added (`undeclared`).
    let renamed: Vec<Row> = (0..6)
        .map(|i| ("a.example", i as i64 + 1, "moved", "A", 3600, contents[i]))
        .collect();
    let moved = run(&[("z.yaml", &zone)], &renamed, true);
    assert_eq!(moved.adopted.len(), 12);
    assert_eq!(
        moved.over_limits[0].exceeded,
        [Exceeded::DeletePercent {
            deletes: 6,
            live: 6,
            floor: 5,
            max_percent: 30
        }]
    );
    // A zone that allows being empty: its only record may go.
    let allowing = "zone: a.example\nsafety: { allow_empty: true }\nrecords:\n  - { name: www, type: A, content: \"192.0.2.1\" }\n";
    let emptied = run(&[("z.yaml", allowing)], &[], false);
    assert_eq!(emptied.adopted.len(), 1);
    assert_eq!(emptied.over_limits, Vec::new());
    let refusing = allowing.replace("safety: { allow_empty: true }\n", "");
    let refused = run(&[("z.yaml", &refusing)], &[], false);
    assert_eq!(
        refused.over_limits[0].exceeded,
        [Exceeded::Empty { live: 1 }]
    );
}
