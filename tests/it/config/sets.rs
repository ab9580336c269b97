//! Record sets: `record_set:` documents, a zone's `use:`, `{zone}`, `override: true`, and every
//! rule about them, accepted and refused.

use super::{Files, texts};
use dnscron_core::config::{self, model::Desired};

const MAIL_SET: &str = "\
record_set: mail
records:
  - { name: \"@\", type: MX, content: \"10 mx1.mailhost.example.\" }
  - { name: \"@\", type: MX, content: \"20 mx2.mailhost.example.\" }
  - { name: \"@\", type: TXT, content: \"v=spf1 include:_spf.mailhost.example -all\" }
  - { name: _dmarc, type: TXT, content: \"v=DMARC1; p=quarantine; rua=mailto:dmarc@{zone}\", ttl: 300 }
  - { name: autodiscover, type: CNAME, content: \"autodiscover.{zone}.mailhost.example.\" }
";

/// Each zone's records as `name type ttl content [set @ file:line:col]`, paths relative.
fn listing(files: &Files, desired: &Desired) -> Vec<String> {
    let dir = format!("{}/", files.dir.path().display());
    let dir = dir.as_str();
    desired
        .zones
        .iter()
        .flat_map(|z| {
            z.records.iter().map(move |r| {
                let from = r
                    .set
                    .as_deref()
                    .map(|s| format!(" [set {s}]"))
                    .unwrap_or_default();
                format!(
                    "{} {} {} {} {}{from} @ {}",
                    z.zone, r.name, r.rtype, r.ttl, r.canonical, r.location
                )
                .replace(dir, "")
            })
        })
        .collect()
}

/// The problems of a set of files that must be invalid.
fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let files = Files::new(files);
    match files.load() {
        Ok(desired) => panic!("expected errors, got {desired:#?}"),
        Err(diags) => texts(&files, &diags),
    }
}

/// The warnings about files that must be valid.
fn warnings(files: &[(&str, &str)]) -> Vec<String> {
    let files = Files::new(files);
    match config::load_with_warnings(&[files.dir.path().to_path_buf()]) {
        Ok(loaded) => texts(&files, &loaded.warnings),
        Err(diags) => panic!("expected valid, got:\n{diags}"),
    }
}

#[test]
fn a_set_joins_every_zone_that_uses_it_with_its_place_and_name() {
    // The zones come first in file order: a set may be declared after its users.
    let files = Files::new(&[
        (
            "a-zones.yaml",
            "zone: example.com\nuse: [mail]\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n\
             ---\nzone: example.org\ndefaults: { ttl: 600 }\nuse: [mail]\n",
        ),
        ("sets/mail.yaml", MAIL_SET),
    ]);
    let desired = files.load().unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(
        listing(&files, &desired),
        [
            "example.com www A 3600 192.0.2.1 @ a-zones.yaml:4:5",
            "example.com @ MX 3600 10 mx1.mailhost.example. [set mail] @ sets/mail.yaml:3:5",
            "example.com @ MX 3600 20 mx2.mailhost.example. [set mail] @ sets/mail.yaml:4:5",
            "example.com @ TXT 3600 v=spf1 include:_spf.mailhost.example -all [set mail] @ sets/mail.yaml:5:5",
            "example.com _dmarc TXT 300 v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com [set mail] @ sets/mail.yaml:6:5",
            "example.com autodiscover CNAME 3600 autodiscover.example.com.mailhost.example. [set mail] @ sets/mail.yaml:7:5",
            "example.org @ MX 600 10 mx1.mailhost.example. [set mail] @ sets/mail.yaml:3:5",
            "example.org @ MX 600 20 mx2.mailhost.example. [set mail] @ sets/mail.yaml:4:5",
            "example.org @ TXT 600 v=spf1 include:_spf.mailhost.example -all [set mail] @ sets/mail.yaml:5:5",
            "example.org _dmarc TXT 300 v=DMARC1; p=quarantine; rua=mailto:dmarc@example.org [set mail] @ sets/mail.yaml:6:5",
            "example.org autodiscover CNAME 600 autodiscover.example.org.mailhost.example. [set mail] @ sets/mail.yaml:7:5",
        ]
    );
    // A saved plan's desired state reloads with every set record, its place and its set.
    assert_eq!(config::revalidate(&desired).unwrap(), desired);
    assert_eq!(
        warnings(&[
            ("z.yaml", "zone: example.com\nuse: [mail]\n"),
            ("s.yaml", MAIL_SET)
        ]),
        Vec::<String>::new()
    );
}

#[test]
fn zone_is_substituted_in_contents_only_and_only_as_written() {
    let files = Files::new(&[(
        "f.yaml",
        "record_set: s\nrecords:\n  - { name: \"{zone}\", type: TXT, content: \"{zone} {ZONE} {zone}. {{zone}}\" }\n\
         ---\nzone: example.com\nuse: [s]\n",
    )]);
    match files.load() {
        Ok(d) => panic!("a `{{zone}}` name is not substituted: {d:#?}"),
        Err(diags) => assert_eq!(
            texts(&files, &diags),
            [
                "3:13 `{zone}` is not a valid domain name: the label `{zone}` contains `{` [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]"
            ]
        ),
    }
    let files = Files::new(&[(
        "f.yaml",
        "record_set: s\nrecords:\n  - { name: t, type: TXT, content: \"{zone} {ZONE} {zone}. {{zone}}\" }\n\
         ---\nzone: Example.COM.\nuse: [s]\nrecords:\n  - { name: own, type: TXT, content: \"{zone}\" }\n",
    )]);
    let desired = files.load().unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(
        listing(&files, &desired),
        [
            "example.com own TXT 3600 {zone} @ f.yaml:8:5",
            "example.com t TXT 3600 example.com {ZONE} example.com. {example.com} [set s] @ f.yaml:3:5",
        ]
    );
}

#[test]
fn override_true_replaces_the_sets_records_of_that_name_and_type() {
    let files = Files::new(&[
        ("mail.yaml", MAIL_SET),
        (
            "z.yaml",
            "zone: example.com\nuse: [mail]\nrecords:\n  - { name: \"@\", type: MX, content: \"5 mx.own.example.\", override: true }\n",
        ),
    ]);
    let desired = files.load().unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(
        listing(&files, &desired),
        [
            "example.com @ MX 3600 5 mx.own.example. @ z.yaml:4:5",
            "example.com @ TXT 3600 v=spf1 include:_spf.mailhost.example -all [set mail] @ mail.yaml:5:5",
            "example.com _dmarc TXT 300 v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com [set mail] @ mail.yaml:6:5",
            "example.com autodiscover CNAME 3600 autodiscover.example.com.mailhost.example. [set mail] @ mail.yaml:7:5",
        ]
    );
    // `override: false` is the default: the clash is an error at both places.
    let clash = "zone: example.com\nuse: [mail]\nrecords:\n  - { name: \"@\", type: MX, content: \"5 mx.own.example.\", override: false }\n";
    insta::assert_debug_snapshot!(problems(&[("mail.yaml", MAIL_SET), ("z.yaml", clash)]));
}

#[test]
fn an_override_that_replaces_nothing_and_an_unused_set_are_warnings() {
    insta::assert_debug_snapshot!(warnings(&[
        ("mail.yaml", MAIL_SET),
        (
            "z.yaml",
            "zone: example.com\nrecords:\n  - { name: www, type: A, content: 192.0.2.1, override: true }\n",
        ),
    ]));
}

#[test]
fn a_zone_record_and_a_set_record_of_one_name_and_type_are_an_error_at_both() {
    let zone = "zone: example.com\nuse: [mail]\nrecords:\n  - { name: _dmarc, type: TXT, content: \"v=DMARC1; p=none\" }\n";
    insta::assert_debug_snapshot!(problems(&[("mail.yaml", MAIL_SET), ("z.yaml", zone)]));
}

#[test]
fn two_sets_of_one_zone_declaring_one_name_and_type_are_an_error_at_both() {
    let other = "record_set: backup-mx\nrecords:\n  - { name: \"@\", type: MX, content: \"30 mx.backup.example.\" }\n";
    let zones =
        "zone: example.com\nuse: [mail, backup-mx]\n---\nzone: example.org\nuse: [backup-mx]\n";
    insta::assert_debug_snapshot!(problems(&[
        ("mail.yaml", MAIL_SET),
        ("other.yaml", other),
        ("z.yaml", zones),
    ]));
}

#[test]
fn unknown_and_twice_listed_sets_are_errors_at_the_use_item() {
    let zones = "zone: example.com\nuse: [mial, mail, mail]\n---\nzone: example.org\nuse: [web]\n";
    insta::assert_debug_snapshot!(problems(&[("mail.yaml", MAIL_SET), ("z.yaml", zones)]));
    assert_eq!(
        problems(&[("z.yaml", "zone: example.com\nuse: [mail]\n")]),
        [
            "2:7 unknown record set `mail` [hint: declare it in a document of its own: `record_set: mail` with `records:`]"
        ]
    );
}

#[test]
fn sets_cannot_use_sets_nor_override_and_are_named_once() {
    let sets = "record_set: base\nuse: [mail]\nrecords: []\n---\nrecord_set: mail\nrecords:\n  - { name: a, type: A, content: 192.0.2.1, override: true }\n---\nrecord_set: mail\nrecords: []\n---\nrecord_set: \"mail set\"\nrecords: []\n---\nrecord_set: web\nzone: example.com\n";
    insta::assert_debug_snapshot!(problems(&[
        ("sets.yaml", sets),
        ("z.yaml", "zone: example.com\nuse: [base, mail]\n"),
    ]));
}

#[test]
fn a_broken_set_record_is_reported_once_however_many_zones_use_it() {
    let set = "record_set: web\nrecords:\n  - { name: www, type: A, content: \"192.0.2.300\" }\n  - { name: www, type: A, content: 192.0.2.1, ttl: 300 }\n  - { name: www, type: A, content: 192.0.2.2 }\n";
    let zones = "zone: a.example\nuse: [web]\n---\nzone: b.example\nuse: [web]\n---\nzone: c.example\nuse: [web]\n";
    insta::assert_debug_snapshot!(problems(&[("web.yaml", set), ("z.yaml", zones)]));
}

#[test]
fn a_file_of_sets_alone_declares_nothing() {
    insta::assert_debug_snapshot!(problems(&[("mail.yaml", MAIL_SET)]));
}

#[test]
fn validate_draws_set_problems_in_the_sets_file_and_prints_warnings() {
    let files = Files::new(&[
        ("mail.yaml", MAIL_SET),
        (
            "z.yaml",
            "zone: example.com\nuse: [mail]\nrecords:\n  - { name: \"@\", type: TXT, content: \"v=spf1 -all\" }\n",
        ),
    ]);
    let refused = crate::common::Test::new()
        .args(["validate", "."])
        .current_dir(files.dir.path())
        .expect_status(1);
    insta::assert_snapshot!(refused.snapshot());
    std::fs::write(
        files.path("z.yaml"),
        "zone: example.com\nuse: [mail]\nrecords:\n  - { name: \"@\", type: TXT, content: \"v=spf1 -all\", override: true }\n---\nrecord_set: spare\nrecords: []\n",
    )
    .unwrap();
    let accepted = crate::common::Test::new()
        .args(["validate", "."])
        .current_dir(files.dir.path());
    insta::assert_snapshot!(accepted.snapshot());
    // For GitHub, the warnings are also `::warning` annotations at their place.
    let github = crate::common::Test::new()
        .args(["validate", "--format", "github", "."])
        .current_dir(files.dir.path());
    insta::assert_snapshot!(github.snapshot());
}

/// A folder of sets left behind (the Kubernetes recipe once copied only zones/ and sites/): one
/// problem at the first zone, naming the first zones and counting the rest, not one per zone.
#[test]
fn a_missing_set_used_by_many_zones_is_one_problem_at_its_first_use() {
    let zones: Vec<(String, String)> = (0..60)
        .map(|i| {
            (
                format!("zones/z{i:02}.example.yaml"),
                format!("zone: z{i:02}.example\nuse: [shared]\n"),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = zones
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let dir = Files::new(&files);
    let out = crate::common::Test::new()
        .args(["validate", "."])
        .current_dir(dir.dir.path())
        .expect_status(1);
    insta::assert_snapshot!(out.snapshot());
    // Two zones: both named, nothing counted.
    assert_eq!(
        problems(&files[..2]),
        [
            "2:7 unknown record set `shared`, used by 2 zones: z00.example (zones/z00.example.yaml:2:7), z01.example (zones/z01.example.yaml:2:7) [hint: no file read declares a record set: is the `sets/` folder missing (record sets imported from the account are written to `sets/<name>.yaml`)? Otherwise declare it in a document of its own: `record_set: shared` with `records:`]"
        ]
    );
}
