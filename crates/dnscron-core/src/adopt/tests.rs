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
    let plan = diff(&desired, &live, &DiffOptions::default()).unwrap_or_else(|e| panic!("{e}"));
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
