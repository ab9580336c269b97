use super::*;

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn entries() -> Vec<AcceptEntry> {
    vec![
        AcceptEntry {
            finding: FindingCode::DkimKeyTooShort,
            name: "mail._domainkey".into(),
            figure: Some(Figure::KeyBits(768)),
            until: day("2026-04-02"),
        },
        AcceptEntry {
            finding: FindingCode::DomainExpiring,
            name: "@".into(),
            figure: Some(Figure::Expires(day("2026-01-23"))),
            until: day("2026-01-22"),
        },
    ]
}

const DKIM: &str = "reason: accepted at adoption\n    until: 2026-04-02\n    value: 768\n";
const ADDED: &str = "  - finding: dkim-key-too-short\n    name: \"mail._domainkey\"\n    reason: accepted at adoption\n    until: 2026-04-02\n    value: 768\n  - finding: domain-expiring\n    name: \"@\"\n    reason: accepted at adoption\n    until: 2026-01-22\n    value: 2026-01-23\n";

#[test]
fn an_entry_records_the_figure_and_holds_90_days_or_until_the_day_before_the_expiry() {
    let today = day("2026-01-02");
    assert_eq!(until(today, Some(Figure::KeyBits(768))), day("2026-04-02"));
    assert_eq!(until(today, None), day("2026-04-02"));
    assert_eq!(
        until(today, Some(Figure::Expires(day("2026-01-23")))),
        day("2026-01-22")
    );
    assert_eq!(
        until(today, Some(Figure::Expires(day("2027-01-23")))),
        day("2026-04-02")
    );
}

#[test]
fn a_file_without_accept_gets_the_key_at_its_end_and_keeps_every_byte_before() {
    let text = "# the shop's zone\nzone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 } # web\n";
    let got = with_acceptances(text, &entries()).unwrap();
    assert_eq!(got, format!("{text}accept:\n{ADDED}"));
    // No final newline: one is added before the key.
    let got = with_acceptances(text.trim_end(), &entries()).unwrap();
    assert_eq!(got, format!("{text}accept:\n{ADDED}"));
}

#[test]
fn entries_go_after_the_last_item_of_an_existing_list_with_its_indentation() {
    let text = "zone: example.com\naccept:\n  - finding: mx-target-is-cname\n    name: \"@\"\n    reason: the provider's host\n\n  # more to come\nrecords: []\n";
    let got = with_acceptances(text, &entries()[..1]).unwrap();
    assert_eq!(
        got,
        format!(
            "zone: example.com\naccept:\n  - finding: mx-target-is-cname\n    name: \"@\"\n    reason: the provider's host\n  - finding: dkim-key-too-short\n    name: \"mail._domainkey\"\n    {DKIM}\n  # more to come\nrecords: []\n"
        )
    );
    let flush = "zone: example.com\naccept:\n- { finding: mx-target-is-cname, name: \"@\", reason: r }\nrecords: []\n";
    let got = with_acceptances(flush, &entries()[..1]).unwrap();
    assert_eq!(
        got,
        "zone: example.com\naccept:\n- { finding: mx-target-is-cname, name: \"@\", reason: r }\n- finding: dkim-key-too-short\n  name: \"mail._domainkey\"\n  reason: accepted at adoption\n  until: 2026-04-02\n  value: 768\nrecords: []\n"
    );
}

#[test]
fn a_flow_list_or_several_documents_are_left_to_the_reader() {
    let flow =
        "zone: example.com\naccept: [{ finding: mx-target-is-cname, name: \"@\", reason: r }]\n";
    assert_eq!(
        with_acceptances(flow, &entries()),
        Err(EditRefusal::FlowList { line: 2 })
    );
    let two = "zone: example.com\n---\nrecord_set: mail\nrecords: []\n";
    assert_eq!(
        with_acceptances(two, &entries()),
        Err(EditRefusal::SeveralDocuments)
    );
    // A document that only starts with a marker is one document.
    let one = "# zone\n---\nzone: example.com\n";
    assert_eq!(
        with_acceptances(one, &entries()[..1]).unwrap(),
        format!(
            "{one}accept:\n  - finding: dkim-key-too-short\n    name: \"mail._domainkey\"\n    {DKIM}"
        )
    );
}

#[test]
fn the_unmanaged_document_lists_each_kind_with_the_reason() {
    let undeclared = Undeclared {
        zones: vec!["example.net".into()],
        domains: Vec::new(),
        sites: vec!["legacy".into()],
    };
    assert_eq!(
        unmanaged_document(&undeclared),
        "unmanaged:\n  zones:\n    - { name: \"example.net\", reason: accepted at adoption }\n  sites:\n    - { name: \"legacy\", reason: accepted at adoption }\n"
    );
}
