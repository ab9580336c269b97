//! Rules from the RFCs that let broken records through before: targets that are IP addresses,
//! `xn--` labels that are not IDNA, reserved `--` labels, and one TTL per RRset. Each is a
//! located error, accepted and refused form side by side.

use super::{errors, ok, one_error, zone_with};

/// `line:col` of the content of `record`, the first record of `zone_with`.
fn content_at(record: &str) -> String {
    let col = "  - ".len() + record.find("content: ").unwrap() + "content: ".len() + 1;
    format!("3:{col}")
}

#[test]
fn targets_are_host_names_not_addresses() {
    ok(&zone_with(&[
        r#"{ name: "@", type: MX, content: "10 mail.example.com." }"#,
        r#"{ name: _sip._tcp, type: SRV, content: "10 60 5060 sip.example.com." }"#,
        r#"{ name: sub, type: NS, content: ns1.other-dns.net. }"#,
        r#"{ name: www, type: CNAME, content: 192-0-2-1.cdn.example.net. }"#,
        r#"{ name: ptr, type: PTR, content: host.example.com. }"#,
        r#"{ name: a, type: A, content: 192.0.2.1 }"#,
    ]));
    let hint = "name the host (e.g. `mail.example.com.`) and give that name an A or AAAA record; an address here is never looked up as one (RFC 1035 §3.3.9, RFC 1123 §2.1)";
    for (record, shown) in [
        (r#"{ name: "@", type: MX, content: "10 192.0.2.1" }"#, "MX"),
        (
            r#"{ name: _sip._tcp, type: SRV, content: "10 60 5060 192.0.2.1." }"#,
            "SRV",
        ),
        (r#"{ name: sub, type: NS, content: 192.0.2.1. }"#, "NS"),
        (r#"{ name: www, type: CNAME, content: 192.0.2.1 }"#, "CNAME"),
        (r#"{ name: ptr, type: PTR, content: 192.0.2.1 }"#, "PTR"),
    ] {
        let address = if record.contains("192.0.2.1.") {
            "192.0.2.1."
        } else {
            "192.0.2.1"
        };
        one_error(
            &zone_with(&[record]),
            &content_at(record),
            &format!(
                "invalid {shown} content: `{address}` is an IP address, but this record's target must be a host name [hint: {hint}]"
            ),
        );
    }
    let record = r#"{ name: "@", type: MX, content: "10 2001:db8::25" }"#;
    one_error(
        &zone_with(&[record]),
        &content_at(record),
        &format!(
            "invalid MX content: `2001:db8::25` is an IP address, but this record's target must be a host name [hint: {hint}]"
        ),
    );
}

const IDN_HINT: &str = "`--` in positions 3 and 4 is reserved for `xn--` labels; copy an internationalized name's `xn--` form from the registrar (e.g. `xn--bcher-kva` for bücher)";

#[test]
fn idn_labels_must_be_valid_punycode_of_allowed_characters() {
    let d = ok(&format!(
        "zone: xn--bcher-kva.example\nrecords:\n{}",
        [
            r#"  - { name: xn--mnchen-3ya, type: A, content: 192.0.2.1 }"#,
            r#"  - { name: shop, type: CNAME, content: xn--caf-dma.example.net. }"#,
            r#"  - { name: a-b--c, type: A, content: 192.0.2.2 }"#,
        ]
        .join("\n")
    ));
    assert_eq!(d.zones[0].zone.as_str(), "xn--bcher-kva.example");
    let names: Vec<&str> = d.zones[0].records.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["xn--mnchen-3ya", "shop", "a-b--c"]);

    for (name, reason) in [
        ("xn--bcher-kv!", "the label `xn--bcher-kv!` contains `!`"),
        (
            "xn--99999999",
            "the label `xn--99999999` is not valid Punycode",
        ),
        (
            "xn--abc-",
            "the label `xn--abc-` starts or ends with a hyphen",
        ),
        (
            "xn--ab-",
            "the label `xn--ab-` starts or ends with a hyphen",
        ),
        (
            "xn--abc",
            "the label `xn--abc` decodes to `\u{82}\u{81}\u{80}`, which IDNA does not allow in a domain name",
        ),
        (
            "xn--www-",
            "the label `xn--www-` starts or ends with a hyphen",
        ),
        (
            "xn--a",
            "the label `xn--a` decodes to `\u{80}`, which IDNA does not allow in a domain name",
        ),
        (
            "ab--cd",
            "the label `ab--cd` has `--` in positions 3 and 4, which only `xn--` labels may have",
        ),
    ] {
        let escaped = dnscron_api::untrusted::escape(reason);
        one_error(
            &zone_with(&[&format!(
                "{{ name: \"{name}\", type: A, content: 203.0.113.1 }}"
            )]),
            "3:13",
            &format!(
                "`{name}` is not a valid domain name: {escaped} [hint: {}]",
                if reason.contains("hyphen") || reason.contains("contains") {
                    "labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all"
                } else {
                    IDN_HINT
                }
            ),
        );
    }
    // Zone names and targets go through the same label rules.
    one_error(
        "zone: xn--99999999.example\n",
        "1:7",
        &format!(
            "`xn--99999999.example` is not a valid domain name: the label `xn--99999999` is not valid Punycode [hint: {IDN_HINT}]"
        ),
    );
    let record = r#"{ name: www, type: CNAME, content: ab--cd.example.net. }"#;
    one_error(
        &zone_with(&[record]),
        &content_at(record),
        "invalid CNAME content: `ab--cd.example.net.` is not a valid host name: the label `ab--cd` has `--` in positions 3 and 4, which only `xn--` labels may have [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each]",
    );
}

#[test]
fn one_rrset_has_one_ttl() {
    ok(&zone_with(&[
        r#"{ name: "@", type: MX, content: "10 mx1.example.com.", ttl: 300 }"#,
        r#"{ name: "@", type: MX, content: "20 mx2.example.com.", ttl: 300 }"#,
        r#"{ name: "@", type: TXT, content: "v=spf1 -all", ttl: 3600 }"#,
        r#"{ name: www, type: MX, content: "10 mx1.example.com.", ttl: 60 }"#,
    ]));
    // A record without `ttl` takes `defaults.ttl` (3600 here), which differs from 300.
    assert_eq!(
        errors(&zone_with(&[
            r#"{ name: "@", type: MX, content: "10 mx1.example.com.", ttl: 300 }"#,
            r#"{ name: "@", type: A, content: 192.0.2.1 }"#,
            r#"{ name: "@", type: MX, content: "20 mx2.example.com." }"#,
            r#"{ name: "@", type: MX, content: "30 mx3.example.com.", ttl: 300 }"#,
            r#"{ name: "@", type: A, content: 192.0.2.2, ttl: 60 }"#,
        ])),
        [
            "5:13 the MX records at `@` have different TTLs: 3600 here, 300 at f.yaml:3:5; one name and type is one RRset, which has one TTL (RFC 2181 §5.2) [hint: give every MX record at `@` the same `ttl` (here and f.yaml:3:5; a record without one takes `defaults.ttl`)]",
            "7:13 the A records at `@` have different TTLs: 60 here, 3600 at f.yaml:4:5; one name and type is one RRset, which has one TTL (RFC 2181 §5.2) [hint: give every A record at `@` the same `ttl` (here and f.yaml:4:5; a record without one takes `defaults.ttl`)]",
        ]
    );
}

/// Broken by each rule at once: `plan` reports every one, located, and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_of_files_that_break_these_rules_sends_nothing() {
    let stub = crate::client::stub::Stub::start(|_| {
        crate::client::stub::Reply::error(500, "internal", "must not be asked")
    })
    .await;
    let files = super::Files::new(&[(
        "example.com.yaml",
        &zone_with(&[
            r#"{ name: mail, type: MX, content: "10 192.0.2.1" }"#,
            r#"{ name: "@", type: MX, content: "10 mx1.example.com.", ttl: 300 }"#,
            r#"{ name: "@", type: MX, content: "20 mx2.example.com." }"#,
            r#"{ name: ab--cd, type: A, content: 192.0.2.1 }"#,
            r#"{ name: xn--99999999, type: A, content: 192.0.2.1 }"#,
        ]),
    )]);
    let test = crate::common::Test::new()
        .args(["plan", "example.com.yaml"])
        .api(&stub.base_url, "demo-token")
        .current_dir(files.dir.path())
        .expect_status(1);
    let out = tokio::task::spawn_blocking(move || test.snapshot())
        .await
        .unwrap();
    insta::assert_snapshot!(out);
    assert_eq!(stub.requests().len(), 0);
}

/// A live RRset whose records have different TTLs can't be declared: import writes exact
/// `ignore` rules for it, so the files validate and `plan` leaves it alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_ignores_a_live_rrset_with_different_ttls() {
    use crate::client::stub::{Reply, Stub};
    let stub = Stub::start(|seen| match seen.path.as_str() {
        "/domains" => Reply::ok(serde_json::json!({"domains": [], "meta": {"has_more": false}})),
        "/dns/example.com/records" => Reply::ok(serde_json::json!({
            "records": [
                {"id": 1, "name": "@", "type": "MX", "ttl": 300, "content": "10 mx1.example.com."},
                {"id": 2, "name": "@", "type": "MX", "ttl": 3600, "content": "20 mx2.example.com."},
                {"id": 3, "name": "www", "type": "A", "ttl": 300, "content": "192.0.2.1"}
            ],
            "nameservers": ["ns1.veldhost.net"], "meta": {"has_more": false}})),
        _ => Reply::error(404, "not_found", "no such thing"),
    })
    .await;
    let dir = tempfile::tempdir().unwrap();
    let url = stub.base_url.clone();
    let cwd = dir.path().to_path_buf();
    let import = crate::common::Test::new()
        .args(["import", "--zone", "example.com", "--out", "repo"])
        .api(&url, "demo-token")
        .current_dir(&cwd)
        .expect_stdout(
            "zone example.com: 1 record, 2 records ignored (can't be declared, see the file)\n\
             wrote repo/zones/example.com.yaml\n\
             wrote repo/dnscron.schema.json\n\
             next: `dnscron validate repo` and `dnscron plan repo` (it shows no changes);\n  \
             to start the drift job green, `dnscron baseline repo` accepts today's error findings\n  \
             and lists what no file declares as unmanaged (review it like any change)\n",
        );
    tokio::task::spawn_blocking(move || import.run())
        .await
        .unwrap();
    insta::assert_snapshot!(
        std::fs::read_to_string(dir.path().join("repo/zones/example.com.yaml")).unwrap()
    );
    let plan = crate::common::Test::new()
        // The zone's file: a folder's plan would also read the account's lists, which the
        // stand-in doesn't serve.
        .args(["plan", "repo/zones/example.com.yaml", "--detailed-exitcode"])
        .api(&url, "demo-token")
        .current_dir(&cwd)
        .plan_stamp()
        .expect_stdout(
            "Live account: http://127.0.0.1:[PORT]/api/v1\n\nFindings:\n  i info [ignored-records-kept] zone example.com\n      2 live record(s) not in the files match `ignore` \
             rules and are left alone\n\nNo changes. The live account matches the files.\n",
        );
    tokio::task::spawn_blocking(move || plan.run())
        .await
        .unwrap();
}
