//! File-level rules: paths, documents, keys, types, duplicates across files.

use super::{Files, errors, ok, one_error, texts};
use dnscron_core::config;

#[test]
fn multi_document_files_and_sorted_directory_walk() {
    let files = Files::new(&[
        ("b/z.yml", "site: zsite\n"),
        ("a.yaml", "zone: b.example\n---\nzone: a.example\n"),
        ("b/a.yaml", "site: asite\n"),
        ("notes.txt", "not yaml"),
        (".hidden/x.yaml", "zone: hidden.example\n"),
    ]);
    let d = files.load().unwrap();
    let zones: Vec<&str> = d.zones.iter().map(|z| z.zone.as_str()).collect();
    let sites: Vec<&str> = d.sites.iter().map(|s| s.slug.as_str()).collect();
    assert_eq!(zones, ["b.example", "a.example"]);
    assert_eq!(sites, ["asite", "zsite"]);
}

#[test]
fn zone_names_normalized_and_checked() {
    assert_eq!(
        ok("zone: Example.COM.\n").zones[0].zone.as_str(),
        "example.com"
    );
    one_error(
        "zone: exa mple.com\n",
        "1:7",
        "`exa mple.com` is not a valid domain name: the label `exa mple` contains ` ` [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
    );
    one_error(
        "zone: localhost\n",
        "1:7",
        "`localhost` is not a valid domain name: a zone needs at least two labels, e.g. `example.com` [hint: labels use letters, digits, `-` and `_`, 1 to 63 characters each, 253 characters in all]",
    );
}

#[test]
fn prune_defaults_to_true() {
    assert!(ok("zone: example.com\n").zones[0].prune);
    assert!(!ok("zone: example.com\nprune: false\n").zones[0].prune);
    one_error(
        "zone: example.com\nprune: \"no\"\n",
        "2:8",
        "`prune` must be `true` or `false`, found the string `no`",
    );
}

#[test]
fn safety_block() {
    let d = ok(
        "zone: example.com\nsafety: { max_deletes: 3, max_delete_percent: 10, allow_empty: true }\n",
    );
    let s = &d.zones[0].safety;
    assert_eq!(
        (s.max_deletes, s.max_delete_percent, s.allow_empty),
        (3, 10, true)
    );
    assert_eq!(
        s.update_floor,
        config::model::SafetyLimits::default().update_floor
    );
    one_error(
        "zone: example.com\nsafety: { max_update_percent: 101 }\n",
        "2:31",
        "a percentage is 101; it must be from 0 to 100",
    );
    let ttl =
        ok("zone: example.com\nsafety: { ttl_update_floor: 30, max_ttl_update_percent: 100 }\n");
    let s = &ttl.zones[0].safety;
    assert_eq!((s.ttl_update_floor, s.max_ttl_update_percent), (30, 100));
    let defaults = config::model::SafetyLimits::default();
    assert_eq!(
        (defaults.ttl_update_floor, defaults.max_ttl_update_percent),
        (10, 50)
    );
    one_error(
        "zone: example.com\nsafety: { max_ttl_update_percent: 101 }\n",
        "2:35",
        "a percentage is 101; it must be from 0 to 100",
    );
    one_error(
        "zone: example.com\nsafety: { ttl_update_floor: -1 }\n",
        "2:29",
        "a count is -1; it must be from 0 to 1000000",
    );
    one_error(
        "zone: example.com\nsafety: { max_delete: 3 }\n",
        "2:11",
        "unknown key `max_delete` in `safety`; did you mean `max_deletes`?",
    );
}

#[test]
fn registrar_expectations() {
    let d = ok(
        "zone: example.com\nregistrar: { auto_renew: true, lock: false, expiry_warning_days: 45 }\n",
    );
    let r = d.zones[0].registrar.as_ref().unwrap();
    assert_eq!(
        (r.auto_renew, r.lock, r.whois_privacy, r.expiry_warning_days),
        (Some(true), Some(false), None, Some(45))
    );
    assert_eq!(
        r.location.to_string().rsplit_once('/').unwrap().1,
        "f.yaml:2:12"
    );
    assert_eq!(d.zones[0].expiry_warning_days(), 45);
    assert_eq!(ok("zone: example.com\n").zones[0].expiry_warning_days(), 30);
    // A saved plan's desired state keeps the key through the loader's own rules.
    assert_eq!(config::revalidate(&d).unwrap(), d);
    one_error(
        "zone: example.com\nregistrar: { lock: \"yes\" }\n",
        "2:20",
        "`lock` must be `true` or `false`, found the string `yes`",
    );
    one_error(
        "zone: example.com\nregistrar: { expiry_warning_days: 0 }\n",
        "2:35",
        "`expiry_warning_days` is 0; it must be from 1 to 3650",
    );
    one_error(
        "zone: example.com\nregistrar: { auto_renewal: true }\n",
        "2:14",
        "unknown key `auto_renewal` in `registrar`; did you mean `auto_renew`?",
    );
}

#[test]
fn unknown_keys_get_did_you_mean() {
    one_error(
        "zone: example.com\nrecrods: []\n",
        "2:1",
        "unknown key `recrods` in a zone; did you mean `records`?",
    );
    one_error(
        "site: shop\ncorn: []\n",
        "2:1",
        "unknown key `corn` in a site; did you mean `cron`?",
    );
    one_error(
        "zones: example.com\n",
        "1:1",
        "a document must start with `zone:`, `site:`, `record_set:` or `unmanaged:` [hint: did you mean `zone`?]",
    );
    one_error(
        "zone: example.com\nfoo: 1\n",
        "2:1",
        "unknown key `foo` in a zone [hint: a zone accepts: zone, defaults, nameservers, prune, ignore, records, use, safety, registrar, accept]",
    );
}

#[test]
fn document_kinds() {
    one_error(
        "zone: example.com\nsite: shop\n",
        "1:1",
        "a document has both `zone:` and `site:` [hint: put each in its own document (separate them with `---`)]",
    );
    one_error(
        "- a\n- b\n",
        "1:1",
        "a document must be a mapping with `zone:`, `site:`, `record_set:` or `unmanaged:`, found a list",
    );
    one_error(
        "zone: example.com\nrecords:\n  - { name: a, type: A }\n",
        "3:5",
        "a record has no `content`",
    );
    one_error(
        "zone: example.com\nrecords:\n  - { name: a, type: A, content: 192.0.2.1, contnet: x }\n",
        "3:45",
        "unknown key `contnet` in a record [hint: `content` is already given: remove `contnet`]",
    );
    one_error(
        "zone: example.com\nrecords: {}\n",
        "2:10",
        "`records` must be a list, found a mapping",
    );
}

#[test]
fn same_zone_twice_names_both_places() {
    let errs = errors("zone: example.com\n---\nzone: EXAMPLE.com.\n");
    insta::assert_debug_snapshot!(errs);

    let files = Files::new(&[("a.yaml", "site: shop\n"), ("b.yaml", "site: shop\n")]);
    let diags = files.load().unwrap_err();
    assert_eq!(
        texts(&files, &diags),
        [
            "1:7 site `shop` is declared twice: here and at a.yaml:1:7 [hint: keep one declaration \
             of the site and merge the two]"
        ]
    );
}

#[test]
fn every_error_is_reported_not_just_the_first() {
    let errs = errors(
        "zone: example.com\ndefaults: { ttl: 1 }\nprune: 3\nrecords:\n  - { name: a, type: A, content: x }\n---\nsite: BAD\n",
    );
    assert_eq!(errs.len(), 4, "{errs:#?}");
}

#[test]
fn yaml_syntax_errors_are_located() {
    let errs = errors("zone: example.com\nrecords: [\n  - a: b\n");
    insta::assert_debug_snapshot!(errs);
    let errs = errors("zone: example.com\nzone: example.org\n");
    assert!(
        errs[0].starts_with("2:1 invalid YAML: the key `zone` appears twice"),
        "{errs:#?}"
    );
}

#[test]
fn missing_paths_and_empty_directories() {
    let files = Files::new(&[("empty/.keep", ""), ("only-comments.yaml", "# nothing\n")]);
    let diags = config::load(&[files.path("nope.yaml"), files.path("empty")]).unwrap_err();
    insta::assert_debug_snapshot!(texts(&files, &diags));
    let diags = config::load(&[files.path("only-comments.yaml")]).unwrap_err();
    insta::assert_debug_snapshot!(texts(&files, &diags));
}

#[test]
fn every_example_validates() {
    let root = crate::common::repo_root().join("examples/dns");
    // example.com uses the record set of mail-set.yaml, so it is read with it.
    let set = root.join("zones/mail-set.yaml");
    for name in [
        "zones/example.com.yaml",
        "zones/example.org.yaml",
        "zones/mail-set.yaml",
        "sites/blog.yaml",
        "sites/shop.yaml",
    ] {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with(
                "# yaml-language-server: $schema=../../../schema/dnscron.schema.json\n"
            ),
            "{name}"
        );
        if name != "zones/mail-set.yaml" {
            config::load(&[path, set.clone()]).unwrap_or_else(|d| panic!("{name}:\n{d}"));
        }
    }
    let d = config::load(&[root]).unwrap();
    assert_eq!(d.counts(), (3, 26, 2, 4));
}

#[cfg(unix)]
#[test]
fn symlink_loops_end_with_an_error() {
    let files = Files::new(&[("a/z.yaml", "site: shop\n")]);
    std::os::unix::fs::symlink(files.dir.path(), files.path("a/back")).unwrap();
    let diags = files.load().unwrap_err();
    insta::assert_debug_snapshot!(texts(&files, &diags));
}

/// A zone's records are read while the file is parsed (the tree of the list is never whole);
/// what a file means stays the same in every form the list can take.
#[test]
fn records_read_while_parsing_mean_what_they_did() {
    // Written before `zone:`, in a second document, and an anchored list (kept in the tree, as
    // an alias may copy it) whose items an alias repeats.
    let d = ok(
        "records:\n  - { name: a, type: A, content: 192.0.2.1 }\nzone: a.example\n---\n\
                zone: b.example\nrecords: &r\n  - &b { name: b, type: A, content: 192.0.2.2 }\n\
                \x20 - { <<: *b, content: 192.0.2.3 }\n",
    );
    let names: Vec<(&str, &str)> = d
        .zones
        .iter()
        .flat_map(|z| z.records.iter().map(|r| (z.zone.as_str(), r.name.as_str())))
        .collect();
    assert_eq!(
        names,
        [("a.example", "a"), ("b.example", "b"), ("b.example", "b")]
    );
    // Each document's broken records are reported at their own lines; a site's `records` is an
    // unknown key and nothing under it is read.
    assert_eq!(
        errors(
            "zone: a.example\nrecords:\n  - { name: a, type: A }\n---\n\
                site: s\nrecords:\n  - { name: b }\n---\n\
                zone: b.example\nrecords:\n  - { name: c, type: AA, content: x }\n"
        ),
        [
            "3:5 a record has no `content`",
            "6:1 unknown key `records` in a site [hint: a site accepts: site, cron, accept]",
            "11:22 record type `AA` is not one of: A, AAAA, CNAME, MX, TXT, NS, SRV, CAA, PTR \
             [hint: did you mean `A`?]",
        ]
    );
}

/// A misspelled required key is one problem, the misspelling with its correction, in every
/// mapping that has required keys; a key that is plainly missing is still reported.
#[test]
fn a_misspelled_required_key_is_one_problem() {
    for (yaml, at, text) in [
        (
            "zone: example.com\nrecords:\n  - { name: \"@\", type: A, contnet: 192.0.2.1 }\n",
            "3:27",
            "unknown key `contnet` in a record; did you mean `content`?",
        ),
        (
            "zone: example.com\nrecords:\n  - { nmae: www, type: A, content: 192.0.2.1 }\n",
            "3:7",
            "unknown key `nmae` in a record; did you mean `name`?",
        ),
        (
            "zone: example.com\nrecords:\n  - { name: www, tpye: A, content: 192.0.2.1 }\n",
            "3:18",
            "unknown key `tpye` in a record; did you mean `type`?",
        ),
        (
            "zone: example.com\nnameservers: { mdoe: hosted }\n",
            "2:16",
            "unknown key `mdoe` in `nameservers`; did you mean `mode`?",
        ),
        (
            "site: shop\ncron:\n  - { schedul: \"* * * * *\", command: php x }\n",
            "3:7",
            "unknown key `schedul` in a cron job; did you mean `schedule`?",
        ),
        (
            "site: shop\ncron:\n  - { schedule: \"* * * * *\", comand: php x }\n",
            "3:30",
            "unknown key `comand` in a cron job; did you mean `command`?",
        ),
    ] {
        one_error(yaml, at, text);
    }
    one_error(
        "site: shop\ncron:\n  - { schedule: \"* * * * *\" }\n",
        "3:5",
        "a cron job has no `command`",
    );
}
