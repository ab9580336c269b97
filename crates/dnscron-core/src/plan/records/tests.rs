//! `diff_zone` on data: what it plans, keeps, blocks and counts for one zone.

use super::*;
use dnscron_api::RecordRows;

fn spec(text: &str) -> ZoneSpec {
    let desired = crate::config::load_texts(&[("z.yaml".into(), text.into())])
        .unwrap_or_else(|d| panic!("{d:?}"));
    desired
        .zones
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no zone"))
}

/// A listing of (id, name, type, ttl, content) rows, names as the API writes them.
fn live(spec: &ZoneSpec, rows: &[(i64, &str, &str, u32, &str)]) -> LiveZone {
    let mut records = RecordRows::default();
    for &(id, name, rtype, ttl, content) in rows {
        records
            .push(RecordRef {
                id,
                name,
                rtype,
                ttl,
                content,
            })
            .unwrap_or_else(|_| panic!("row too large"));
    }
    LiveZone {
        zone: spec.zone.clone(),
        records,
        service_nameservers: Vec::new(),
    }
}

/// (code, message) of each finding.
fn findings(out: &ZoneDiff) -> Vec<(FindingCode, String)> {
    out.findings
        .iter()
        .map(|f| (f.code, f.message.clone()))
        .collect()
}

/// (action, name, record id, before, after, status) of each change.
type Row = (
    Action,
    String,
    Option<i64>,
    Option<Value>,
    Option<Value>,
    Status,
);

fn changes(out: &ZoneDiff) -> Vec<Row> {
    out.drafts
        .iter()
        .map(|d| {
            let c = &d.change;
            let Resource::Record {
                name, record_id, ..
            } = &c.resource
            else {
                panic!("not a record: {c:?}");
            };
            (
                c.action,
                name.clone(),
                *record_id,
                c.before.clone(),
                c.after.clone(),
                c.status,
            )
        })
        .collect()
}

fn a(ttl: u32, content: &str) -> Option<Value> {
    Some(Value::Record {
        ttl,
        content: content.into(),
    })
}

const ROWS: &[(i64, &str, &str, u32, &str)] = &[
    (1, "www.example.com", "A", 300, "192.0.2.1"),
    (2, "old.example.com", "A", 300, "192.0.2.8"),
    (3, "_acme-challenge.example.com", "TXT", 300, "\"token\""),
    (4, "old.example.com", "A", 300, "192.0.2.9"),
    (
        5,
        "example.com",
        "SOA",
        300,
        "ns1.example.net. hostmaster.example.com. 1 2 3 4 5",
    ),
    (6, "example.com", "NS", 300, "ns1.example.net."),
    (7, "example.com", "HTTPS", 300, "1 . alpn=h2"),
];

const FILES: &str = "zone: example.com\nignore:\n  - {name: \"_acme-challenge*\", type: TXT}\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n";

#[test]
fn records_left_alone_are_counted_and_named_in_findings() {
    let spec = spec(&format!("{FILES}prune: false\n"));
    let out = diff_zone(&spec, &live(&spec, ROWS));
    assert!(out.drafts.is_empty(), "{:?}", changes(&out));
    assert_eq!(
        findings(&out),
        [
            (
                FindingCode::ServiceRecordsLeftAlone,
                "system and DNSSEC records (SOA, apex NS) are managed by the service and never planned".to_string()
            ),
            (
                FindingCode::UnmanagedTypesLeftAlone,
                "records of types dnscron does not manage (HTTPS) are left alone".to_string()
            ),
            (
                FindingCode::IgnoredRecordsKept,
                "1 live record(s) not in the files match `ignore` rules and are left alone".to_string()
            ),
            (
                FindingCode::UnprunedRecordsKept,
                "2 live record(s) not in the files are kept because `prune` is off".to_string()
            ),
        ]
    );
    assert_eq!(out.stats.live, 4, "www, 2 old, the ignored TXT");
    assert_eq!(plannable_count(&live(&spec, ROWS)), 4);
}

#[test]
fn with_prune_the_extra_records_are_deleted_and_the_ignored_one_kept() {
    let spec = spec(FILES);
    let out = diff_zone(&spec, &live(&spec, &ROWS[..4]));
    assert_eq!(
        changes(&out),
        [
            (
                Action::Delete,
                "old".into(),
                Some(2),
                a(300, "192.0.2.8"),
                None,
                Status::Ready
            ),
            (
                Action::Delete,
                "old".into(),
                Some(4),
                a(300, "192.0.2.9"),
                None,
                Status::Ready
            ),
        ]
    );
    assert_eq!(
        findings(&out),
        [(
            FindingCode::IgnoredRecordsKept,
            "1 live record(s) not in the files match `ignore` rules and are left alone".to_string()
        )],
        "nothing unpruned, nothing left alone"
    );
    assert_eq!(
        out.stats,
        ZoneStats {
            live: 4,
            deletes: 2,
            ..ZoneStats::default()
        }
    );
}

#[test]
fn the_record_with_the_declared_content_is_updated_and_the_other_deleted() {
    let spec = spec(
        "zone: example.com\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n",
    );
    let rows = [
        (1, "www.example.com", "A", 600, "192.0.2.1"),
        (2, "www.example.com", "A", 300, "192.0.2.2"),
    ];
    let out = diff_zone(&spec, &live(&spec, &rows));
    assert_eq!(
        changes(&out),
        [
            (
                Action::Update,
                "www".into(),
                Some(1),
                a(600, "192.0.2.1"),
                a(300, "192.0.2.1"),
                Status::Ready
            ),
            (
                Action::Delete,
                "www".into(),
                Some(2),
                a(300, "192.0.2.2"),
                None,
                Status::Ready
            ),
        ]
    );
    // Nothing ignored, nothing unpruned, nothing left alone: no finding says otherwise.
    assert_eq!(findings(&out), []);
    // The accepted form: the record in effect is kept as it is.
    let rows = [(1, "www.example.com", "A", 300, "192.0.2.1")];
    assert!(diff_zone(&spec, &live(&spec, &rows)).drafts.is_empty());
}

#[test]
fn a_declared_name_is_compared_in_the_loaders_form_and_borrowed_when_already_in_it() {
    let zone = ZoneName::parse("example.com").unwrap_or_else(|e| panic!("{e:?}"));
    // The loader's form (relative, lower case, trimmed) is borrowed as it is.
    for name in ["www", "@", "*.dev", "a.b"] {
        assert!(
            matches!(want_name(name, &zone), Cow::Borrowed(n) if n == name),
            "{name}"
        );
    }
    // Any other form is normalized: upper case, absolute, surrounding blanks.
    for (name, normal) in [
        ("WWW", "www"),
        ("mail.example.com.", "mail"),
        ("example.com.", "@"),
        (" ftp ", "ftp"),
    ] {
        let got = want_name(name, &zone);
        assert!(matches!(got, Cow::Owned(_)), "{name}");
        assert_eq!(got, normal, "{name}");
    }
    // A name the loader would refuse (no final dot after the zone's name) is lower-cased.
    assert_eq!(want_name("Www.Example.Com", &zone), "www.example.com");

    // In a diff: a spec built by hand with such names matches the live records it names.
    let mut spec = spec(
        "zone: example.com\nrecords:\n  - {name: www, type: A, content: 192.0.2.1, ttl: 300}\n  - {name: mail, type: A, content: 192.0.2.2, ttl: 300}\n",
    );
    spec.records[0].name = "WWW".into();
    spec.records[1].name = "mail.example.com.".into();
    let rows = [
        (1, "www.example.com", "A", 300, "192.0.2.1"),
        (2, "mail.example.com", "A", 300, "192.0.2.2"),
    ];
    let out = diff_zone(&spec, &live(&spec, &rows));
    assert!(out.drafts.is_empty(), "{:?}", changes(&out));
}

#[test]
fn a_cname_beside_kept_records_is_blocked_and_beside_deleted_ones_is_not() {
    let files =
        "zone: example.com\nrecords:\n  - {name: www, type: CNAME, content: target.example.net.}\n";
    let rows = [
        (1, "www.example.com", "A", 300, "192.0.2.1"),
        (2, "www.example.com", "AAAA", 300, "2001:db8::1"),
    ];
    let kept = spec(&format!("{files}prune: false\n"));
    let out = diff_zone(&kept, &live(&kept, &rows));
    let [change] = out.drafts.as_slice() else {
        panic!("{:?}", changes(&out));
    };
    assert_eq!(change.change.action, Action::Create);
    assert_eq!(change.change.status, Status::Blocked);
    assert_eq!(
        change.change.reason.as_deref(),
        Some(
            "`www` would hold a CNAME beside A/AAAA records, which DNS forbids; the live records are kept because `prune` is off: remove them from the files' scope or delete them first"
        )
    );
    // Pruned, the A and AAAA records go first: the CNAME is ready.
    let pruned = spec(files);
    let out = diff_zone(&pruned, &live(&pruned, &rows));
    assert_eq!(out.drafts.len(), 3);
    assert!(out.drafts.iter().all(|d| d.change.status == Status::Ready));
}

#[test]
fn identical_declarations_are_one_record() {
    // The files refuse a record declared twice (`config::validate`); the diff holds on its own
    // and plans it once.
    let mut spec = spec(
        "zone: example.com\nrecords:\n  - {name: new, type: A, content: 192.0.2.5, ttl: 300}\n  - {name: new, type: A, content: 192.0.2.6, ttl: 300}\n",
    );
    spec.records.push(spec.records[0].clone());
    let out = diff_zone(&spec, &live(&spec, &[]));
    let created: Vec<_> = changes(&out)
        .into_iter()
        .map(|(action, name, id, before, after, _)| (action, name, id, before, after))
        .collect();
    assert_eq!(
        created,
        [
            (
                Action::Create,
                "new".to_string(),
                None,
                None,
                a(300, "192.0.2.5")
            ),
            (
                Action::Create,
                "new".to_string(),
                None,
                None,
                a(300, "192.0.2.6")
            ),
        ]
    );
}

#[test]
fn a_cname_beside_an_ignored_record_is_blocked_though_prune_is_on() {
    let files =
        "zone: example.com\nrecords:\n  - {name: www, type: CNAME, content: target.example.net.}\n";
    let rows = [(1, "www.example.com", "TXT", 300, "\"site-verification\"")];
    // The ignore rule keeps the TXT record: the CNAME's create is blocked, and the reason names
    // the rule, not `prune`.
    let ignored = spec(&format!("{files}ignore:\n  - {{name: www, type: TXT}}\n"));
    let out = diff_zone(&ignored, &live(&ignored, &rows));
    let [change] = out.drafts.as_slice() else {
        panic!("{:?}", changes(&out));
    };
    assert_eq!(change.change.action, Action::Create);
    assert_eq!(change.change.status, Status::Blocked);
    assert_eq!(
        change.change.reason.as_deref(),
        Some(
            "`www` would hold a CNAME beside TXT records, which DNS forbids; the live records are kept because they match an `ignore` rule: remove them from the files' scope or delete them first"
        )
    );
    // Without the rule the TXT record is deleted first and the CNAME is ready.
    let plain = spec(files);
    let out = diff_zone(&plain, &live(&plain, &rows));
    assert_eq!(
        changes(&out)
            .into_iter()
            .map(|(action, name, id, _, _, status)| (action, name, id, status))
            .collect::<Vec<_>>(),
        [
            (Action::Create, "www".to_string(), None, Status::Ready),
            (Action::Delete, "www".to_string(), Some(1), Status::Ready),
        ]
    );
}
