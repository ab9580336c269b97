use dnscron_api::payload;
use dnscron_core::dns::{self, RecordType, ZoneName};
use dnscron_core::import::{NsChoice, build_zone, render_zone};

use super::tricky_records;

/// Library-level: every odd content reloads through `config::load` to the canonical form the
/// planner computes from the live record.
#[test]
fn rendered_contents_reload_to_the_same_canonical_form() {
    let zone = ZoneName::parse("edge.example").unwrap();
    let mut live: Vec<payload::Record> = tricky_records()
        .into_iter()
        .enumerate()
        .map(|(i, r)| payload::Record {
            id: i as i64,
            name: r.name,
            rtype: r.rtype,
            ttl: r.ttl,
            content: r.content,
        })
        .collect();
    for (i, text) in [
        "line\nbreak",
        "bell\u{7}and\u{1b}[31mescape",
        " ",
        "\\",
        "#",
        "'single'",
        "\u{2028}separator",
        "x".repeat(1500).as_str(),
    ]
    .iter()
    .enumerate()
    {
        live.push(payload::Record {
            id: 100 + i as i64,
            name: format!("odd{i}"),
            rtype: "TXT".into(),
            ttl: 3600,
            content: dns::wire_content(RecordType::TXT, text),
        });
    }
    let file = build_zone(&zone, &live, NsChoice::Unmanaged(None));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edge.yaml");
    std::fs::write(&path, render_zone(&file)).unwrap();
    let desired = dnscron_core::config::load(std::slice::from_ref(&path))
        .unwrap_or_else(|d| panic!("{}\n{}", d, std::fs::read_to_string(&path).unwrap()));
    let loaded: Vec<(String, RecordType, u32, String)> = desired.zones[0]
        .records
        .iter()
        .map(|r| (r.name.clone(), r.rtype, r.ttl, r.canonical.clone()))
        .collect();
    let mut expected: Vec<(String, RecordType, u32, String)> = file
        .records
        .iter()
        .map(|r| (r.name.clone(), r.rtype, r.ttl, r.canonical.clone()))
        .collect();
    assert_eq!(loaded, expected);
    for raw in &live {
        let Ok(rtype) = raw.rtype.parse::<RecordType>() else {
            continue;
        };
        let name = dns::live_name_to_relative(&raw.name, &zone);
        let canonical = dns::canonical_live_content(rtype, &raw.content, &zone);
        let declared = expected
            .iter()
            .position(|e| e.0 == name && e.1 == rtype && e.3 == canonical);
        let ignored = desired.zones[0]
            .ignore
            .iter()
            .any(|rule| rule.matches(&name, rtype, &canonical));
        let system = rtype == RecordType::NS && name == "@";
        assert!(
            declared.is_some() || ignored || system,
            "{name} {rtype} {canonical:?} is neither declared nor ignored"
        );
        if let Some(i) = declared {
            expected.remove(i);
        }
    }
    assert!(expected.is_empty(), "declared but not live: {expected:?}");
}
