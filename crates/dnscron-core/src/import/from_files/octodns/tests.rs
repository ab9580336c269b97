use super::*;
use crate::dns::RecordType;
use crate::import::from_files::{FromFile, Held, LeftAlone, NoteKind, Why};

fn read_octodns(path: &Path) -> Result<Vec<FromFile>, OctodnsError> {
    crate::import::from_files::read(&Octodns, path)
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

const CONFIG: &str = "providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: DIR\n    default_ttl: 600\n  dest:\n    class: octodns_route53.Route53Provider\nzones:\n  example.com.:\n    sources: [config]\n    targets: [dest]\n";

fn read(zone_text: &str) -> Result<Vec<FromFile>, OctodnsError> {
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG.replace("DIR", &dir.path().display().to_string());
    write(dir.path(), "config.yaml", &config);
    write(dir.path(), "example.com.yaml", zone_text);
    read_octodns(&dir.path().join("config.yaml"))
}

#[test]
fn values_lists_apex_and_default_ttl_become_records() {
    let zone = "'':\n  - type: A\n    values: [192.0.2.1, 192.0.2.2]\n  - type: MX\n    values:\n      - exchange: mx.example.com.\n        preference: 10\n      - value: mx2.example.com.\n        priority: 20\nwww:\n  type: TXT\n  ttl: 300\n  value: v=spf1 -all\\; x\n";
    let from = read(zone).unwrap();
    let written: Vec<(&str, u32, &str)> = from[0]
        .zone
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.ttl, r.canonical.as_str()))
        .collect();
    assert_eq!(
        written,
        [
            ("@", 600, "192.0.2.1"),
            ("@", 600, "192.0.2.2"),
            ("@", 600, "10 mx.example.com."),
            ("@", 600, "20 mx2.example.com."),
            ("www", 300, "v=spf1 -all; x"),
        ]
    );
}

#[test]
fn dynamic_alias_excluded_and_ignored_are_listed_or_noted() {
    let zone = "'':\n  type: ALIAS\n  value: lb.example.net.\ngeo:\n  type: A\n  value: 192.0.2.1\n  dynamic:\n    pools: {}\nx:\n  type: A\n  value: 192.0.2.2\n  octodns:\n    excluded: [dest]\ny:\n  type: A\n  value: 192.0.2.3\n  octodns:\n    ignored: true\n";
    let from = &read(zone).unwrap()[0];
    let why: Vec<(usize, &Why)> = from
        .not_imported
        .iter()
        .map(|n| (n.at.line, &n.why))
        .collect();
    assert_eq!(why, [(3, &Why::Type), (6, &Why::Dynamic)]);
    let notes: Vec<(usize, NoteKind)> = from
        .notes
        .iter()
        .map(|n| (n.at.line, n.kind.clone()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                11,
                NoteKind::LeftAlone(LeftAlone::Excluded {
                    target: "dest".into()
                })
            ),
            (16, NoteKind::LeftAlone(LeftAlone::Ignored)),
        ]
    );
    // By name and type, whatever the live records hold.
    let rules: Vec<(&str, Option<crate::dns::RecordType>, Option<&str>)> = from
        .zone
        .rules
        .iter()
        .map(|r| (r.name.as_str(), r.rtype, r.content.as_deref()))
        .collect();
    let a = Some(crate::dns::RecordType::A);
    assert_eq!(rules, [("x", a, None), ("y", a, None)]);
    assert!(from.zone.records.is_empty() && from.zone.ignore.is_empty());
}

#[test]
fn a_record_included_only_elsewhere_is_excluded() {
    let reading = Reading {
        default_ttl: 60,
        escaped_semicolons: true,
        targets: vec!["dest".into()],
    };
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "z.yaml",
        "a:\n  type: A\n  value: 192.0.2.1\n  octodns:\n    included: [other]\nb:\n  type: A\n  value: 192.0.2.2\n  octodns:\n    included: [dest]\n",
    );
    let held: Vec<Held> = source_records(&dir.path().join("z.yaml"), "example.com.", &reading)
        .into_iter()
        .map(|r| r.content)
        .collect();
    assert_eq!(
        held,
        [
            Held::LeftAlone(LeftAlone::NotIncluded {
                target: "dest".into(),
                included: vec!["other".into()]
            }),
            Held::Content("192.0.2.2".into())
        ]
    );
}

#[test]
fn a_missing_zone_file_and_an_include_outside_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    write(dir.path(), "secret.yaml", "a: 1\n");
    let config = CONFIG.replace("DIR", &inner.display().to_string());
    write(&inner, "config.yaml", &config);
    let Err(OctodnsError::Invalid { problems, .. }) = read_octodns(&inner.join("config.yaml"))
    else {
        panic!("a missing zone file is refused");
    };
    assert!(matches!(
        problems[0].kind,
        ProblemKind::ZoneFileMissing { .. }
    ));
    write(&inner, "example.com.yaml", "'': !include ../secret.yaml\n");
    let Err(OctodnsError::Invalid { problems, .. }) = read_octodns(&inner.join("config.yaml"))
    else {
        panic!("an include outside is refused");
    };
    assert!(matches!(
        problems[0].kind,
        ProblemKind::IncludeOutside { .. }
    ));
}

#[test]
fn an_include_inside_the_folder_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG.replace("DIR", &dir.path().display().to_string());
    write(dir.path(), "config.yaml", &config);
    write(dir.path(), "example.com.yaml", "'': !include apex.yaml\n");
    write(dir.path(), "apex.yaml", "type: A\nvalue: 192.0.2.9\n");
    let from = read_octodns(&dir.path().join("config.yaml")).unwrap();
    assert_eq!(from[0].zone.records[0].canonical, "192.0.2.9");
    assert_eq!(from[0].notes.len(), 0);
}

fn problems(result: Result<Vec<FromFile>, OctodnsError>) -> Vec<(usize, ProblemKind)> {
    match result {
        Err(OctodnsError::Invalid { problems, .. }) => {
            problems.into_iter().map(|p| (p.line, p.kind)).collect()
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn records_without_what_their_type_needs_are_all_located() {
    let zone = "a:\n  value: 192.0.2.1\nb:\n  type: A\n  ttl: soon\n  value: 192.0.2.2\nc:\n  type: MX\n  value:\n    preference: 10\nd:\n  type: A\n";
    assert_eq!(
        problems(read(zone)),
        [
            (2, ProblemKind::Missing { key: "type" }),
            (
                5,
                ProblemKind::Expected {
                    key: "ttl".into(),
                    want: "seconds",
                    found: "`soon`".into()
                }
            ),
            (
                10,
                ProblemKind::BadValue {
                    rtype: "MX".into(),
                    reason: "has no `exchange`".into()
                }
            ),
            (12, ProblemKind::Missing { key: "value" }),
        ]
    );
}

#[test]
fn an_include_loop_and_a_missing_include_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG.replace("DIR", &dir.path().display().to_string());
    write(dir.path(), "config.yaml", &config);
    write(dir.path(), "example.com.yaml", "a: !include a.yaml\n");
    write(dir.path(), "a.yaml", "!include example.com.yaml\n");
    let found = problems(read_octodns(&dir.path().join("config.yaml")));
    assert!(
        matches!(found[..], [(1, ProblemKind::IncludeLoop { .. })]),
        "{found:?}"
    );
    write(dir.path(), "example.com.yaml", "a: !include gone.yaml\n");
    let found = problems(read_octodns(&dir.path().join("config.yaml")));
    assert!(
        matches!(found[..], [(1, ProblemKind::IncludeUnreadable { .. })]),
        "{found:?}"
    );
}

#[test]
fn semicolons_are_read_escaped_or_bare_as_the_provider_says() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "z.yaml", "t:\n  type: TXT\n  value: a\\;b;c\n");
    let text = |escaped_semicolons| {
        let reading = Reading {
            default_ttl: 60,
            escaped_semicolons,
            targets: Vec::new(),
        };
        source_records(&dir.path().join("z.yaml"), "example.com.", &reading)
            .remove(0)
            .content
    };
    assert_eq!(
        text(true),
        Held::Content(crate::dns::txt::txt_wire("a;b;c"))
    );
    assert_eq!(
        text(false),
        Held::Content(crate::dns::txt::txt_wire("a\\;b;c"))
    );
}

#[test]
fn a_split_folder_is_read_before_the_zone_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG
        .replace("DIR", &dir.path().display().to_string())
        .replace("    default_ttl: 600\n", "    split_extension: .\n");
    write(dir.path(), "config.yaml", &config);
    std::fs::create_dir(dir.path().join("example.com.")).unwrap();
    write(
        &dir.path().join("example.com."),
        "www.yaml",
        "www:\n  type: A\n  value: 192.0.2.1\n",
    );
    write(
        dir.path(),
        "example.com.yaml",
        "mail:\n  type: A\n  value: 192.0.2.2\n",
    );
    let from = read_octodns(&dir.path().join("config.yaml")).unwrap();
    let written: Vec<(&str, u32)> = from[0]
        .zone
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.ttl))
        .collect();
    assert_eq!(written, [("mail", 3600), ("www", 3600)]);
    assert!(from[0].source.ends_with("example.com./www.yaml"));
}

#[test]
fn a_source_that_is_not_among_the_providers_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "config.yaml",
        "providers: {}\nzones:\n  example.com.:\n    sources: [nowhere]\n",
    );
    assert_eq!(
        problems(read_octodns(&dir.path().join("config.yaml"))),
        [(
            4,
            ProblemKind::UnknownProvider {
                name: "nowhere".into()
            }
        )]
    );
}

fn txt(written: &str, escaped_semicolons: bool) -> String {
    let reading = Reading {
        default_ttl: 60,
        escaped_semicolons,
        targets: Vec::new(),
    };
    records::txt_text(written, &reading)
}

/// `_ChunkedValue.process`: a value starting with `"` loses its first and last character,
/// whatever the last one is, and every `" "` goes; `escaped_semicolons` concerns `;` only.
#[test]
fn txt_values_are_read_as_octodns_record_classes_read_them() {
    for (written, escaped, read) in [
        (
            r#""v=spf1 ip4:192.0.2.0/24 " "-all""#,
            true,
            "v=spf1 ip4:192.0.2.0/24 -all",
        ),
        (
            r#""v=spf1 ip4:192.0.2.0/24 " "-all""#,
            false,
            "v=spf1 ip4:192.0.2.0/24 -all",
        ),
        (
            r#""v=DKIM1\; k=rsa\; " "p=MIG""#,
            true,
            "v=DKIM1; k=rsa; p=MIG",
        ),
        (
            r#""v=DKIM1\; k=rsa\; " "p=MIG""#,
            false,
            r"v=DKIM1\; k=rsa\; p=MIG",
        ),
        (r#""quoted""#, true, "quoted"),
        (r#""unbalanced"#, true, "unbalance"),
        (r#"a" "b"#, true, "ab"),
        (r#"say "hi""#, true, r#"say "hi""#),
        ("\"", true, ""),
        ("plain; bare", false, "plain; bare"),
    ] {
        assert_eq!(txt(written, escaped), read, "{written} {escaped}");
    }
}

fn fate_problem(octodns: &str, targets: &[&str]) -> Vec<(usize, ProblemKind)> {
    let dir = tempfile::tempdir().unwrap();
    let targets = targets.join(", ");
    let config = format!(
        "providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: {}\nzones:\n  example.com.:\n    sources: [config]\n    targets: [{targets}]\n",
        dir.path().display()
    );
    write(dir.path(), "config.yaml", &config);
    write(
        dir.path(),
        "example.com.yaml",
        &format!("a:\n  type: A\n  value: 192.0.2.1\n  octodns:\n    {octodns}\n"),
    );
    problems(read_octodns(&dir.path().join("config.yaml")))
}

#[test]
fn targets_that_disagree_no_target_and_a_string_list_are_refused() {
    assert!(matches!(
        &fate_problem("excluded: [one]", &["one", "two"])[..],
        [(5, ProblemKind::TargetsDisagree { .. })]
    ));
    assert!(matches!(
        &fate_problem("included: [one]", &[])[..],
        [(5, ProblemKind::NoTarget)]
    ));
    assert!(matches!(
        &fate_problem("excluded: one", &["one"])[..],
        [(5, ProblemKind::Expected { .. })]
    ));
}

#[test]
fn targets_that_agree_and_falsy_ignored_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let config = CONFIG
        .replace("DIR", &dir.path().display().to_string())
        .replace("targets: [dest]", "targets: [dest, backup]");
    write(dir.path(), "config.yaml", &config);
    write(
        dir.path(),
        "example.com.yaml",
        "a:\n  type: A\n  value: 192.0.2.1\n  octodns:\n    excluded: [dest, backup]\nb:\n  type: A\n  value: 192.0.2.2\n  octodns:\n    ignored: false\n    excluded: []\n",
    );
    let from = read_octodns(&dir.path().join("config.yaml")).unwrap();
    assert_eq!(from[0].zone.records.len(), 1);
    assert_eq!(
        from[0].notes[0].kind,
        NoteKind::LeftAlone(LeftAlone::Excluded {
            target: "dest".into()
        })
    );
}

#[test]
fn an_option_octodns_refuses_processors_and_a_second_record_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = CONFIG.replace("DIR", &dir.path().display().to_string());
    write(
        dir.path(),
        "example.com.yaml",
        "a:\n  type: A\n  value: 192.0.2.1\n",
    );
    write(
        dir.path(),
        "config.yaml",
        &base.replace(
            "    default_ttl: 600\n",
            "    default_ttl: 600\n    bogus: 1\n",
        ),
    );
    assert!(matches!(
        &problems(read_octodns(&dir.path().join("config.yaml")))[..],
        [(6, ProblemKind::Unsupported { .. })]
    ));
    write(
        dir.path(),
        "config.yaml",
        &base.replace(
            "    targets: [dest]\n",
            "    targets: [dest]\n    processors: [meta]\n",
        ),
    );
    assert!(matches!(
        &problems(read_octodns(&dir.path().join("config.yaml")))[..],
        [(12, ProblemKind::Processors)]
    ));
    write(dir.path(), "config.yaml", &base);
    write(
        dir.path(),
        "example.com.yaml",
        "a:\n  - type: A\n    value: 192.0.2.1\n  - type: A\n    value: 192.0.2.2\n",
    );
    assert!(matches!(
        &problems(read_octodns(&dir.path().join("config.yaml")))[..],
        [(5, ProblemKind::DuplicateRecord { line: 3, .. })]
    ));
}

#[test]
fn ignore_missing_zones_and_disable_zonefile_read_as_octodns_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let base = CONFIG.replace("DIR", &dir.path().display().to_string());
    // No file: refused, unless ignore_missing_zones (an empty zone, as octoDNS populates it).
    write(
        dir.path(),
        "config.yaml",
        &base.replace("    default_ttl: 600\n", "    ignore_missing_zones: true\n"),
    );
    let from = read_octodns(&dir.path().join("config.yaml")).unwrap();
    assert!(from[0].zone.records.is_empty());
    // disable_zonefile: the zone file is not read, so the zone has none.
    write(
        dir.path(),
        "example.com.yaml",
        "a:\n  type: A\n  value: 192.0.2.1\n",
    );
    write(
        dir.path(),
        "config.yaml",
        &base.replace("    default_ttl: 600\n", "    disable_zonefile: true\n"),
    );
    let found = problems(read_octodns(&dir.path().join("config.yaml")));
    assert!(
        matches!(&found[..], [(10, ProblemKind::ZoneFileMissing { .. })]),
        "{found:?}"
    );
}

#[test]
fn an_alias_zone_holds_the_records_of_the_zone_it_names_and_a_bad_alias_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = CONFIG.replace("DIR", &dir.path().display().to_string());
    write(
        dir.path(),
        "example.com.yaml",
        "www:\n  type: CNAME\n  value: example.com.\n",
    );
    write(
        dir.path(),
        "config.yaml",
        &format!("{base}  example.org.:\n    alias: example.com.\n"),
    );
    let from = read_octodns(&dir.path().join("config.yaml")).unwrap();
    let org = &from[1].zone;
    assert_eq!(org.zone.as_str(), "example.org");
    assert_eq!(
        (
            org.records[0].name.as_str(),
            org.records[0].canonical.as_str()
        ),
        ("www", "example.com.")
    );
    write(
        dir.path(),
        "config.yaml",
        &format!("{base}  example.org.:\n    alias: example.net.\n"),
    );
    let found = problems(read_octodns(&dir.path().join("config.yaml")));
    assert!(
        matches!(&found[..], [(13, ProblemKind::BadAlias { .. })]),
        "{found:?}"
    );
}

/// Which records of `a:`…`f:` (each with the `ignored:` given) octoDNS's planner skips.
fn ignored_names(values: &[&str]) -> Vec<String> {
    let zone: String = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format!("n{i}:\n  type: A\n  value: 192.0.2.{i}\n  octodns:\n    ignored: {v}\n")
        })
        .collect();
    let from = &read(&zone).unwrap()[0];
    from.zone.rules.iter().map(|r| r.name.clone()).collect()
}

#[test]
fn ignored_is_true_as_python_reads_what_pyyaml_loads() {
    // Quoted text is a string, true when not empty: `'false'` and `'0'` too; so is text PyYAML
    // takes as a string (`maybe`, `y`).
    assert_eq!(
        ignored_names(&["'false'", "\"0\"", "maybe", "y", "true", "1"]),
        ["n0", "n1", "n2", "n3", "n4", "n5"]
    );
    // Booleans, null, zero and an empty string are false: managed like any record.
    assert!(ignored_names(&["false", "no", "Off", "0", "~", "''", "[]"]).is_empty());
}

#[test]
fn an_ignored_or_excluded_record_with_an_invalid_value_is_refused_as_octodns_refuses_it() {
    let zone = "a:\n  type: A\n  value: not-an-address\n  octodns:\n    ignored: true\nb:\n  type: MX\n  value:\n    preference: 10\n  octodns:\n    excluded: [dest]\nc:\n  type: A\n  value: 192.0.2.1\n  octodns:\n    ignored: true\n";
    let found = problems(read(zone));
    assert!(
        matches!(
            &found[..],
            [(3, ProblemKind::BadValue { reason, .. }), (9, ProblemKind::BadValue { .. })]
                if reason.contains("even where the record is ignored")
        ),
        "{found:?}"
    );
    // The valid one alone is accepted, as a rule by name and type.
    let from =
        &read("c:\n  type: A\n  value: 192.0.2.1\n  octodns:\n    ignored: true\n").unwrap()[0];
    assert_eq!(from.zone.rules.len(), 1);
}

fn with_manager(manager: &str, sources: &str) -> Result<Vec<FromFile>, OctodnsError> {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "manager:\n{manager}\n{}",
        CONFIG
            .replace("DIR", &dir.path().display().to_string())
            .replace("sources: [config]", sources)
    );
    write(dir.path(), "config.yaml", &config);
    write(
        dir.path(),
        "example.com.yaml",
        "www:\n  type: A\n  value: 192.0.2.1\n",
    );
    read_octodns(&dir.path().join("config.yaml"))
}

#[test]
fn include_meta_is_refused_where_set_and_auto_arpa_where_a_zone_reads_it() {
    assert_eq!(
        problems(with_manager("  include_meta: true", "sources: [config]")),
        [(2, ProblemKind::IncludeMeta)]
    );
    assert_eq!(
        problems(with_manager(
            "  auto_arpa: true",
            "sources: [config, auto-arpa]"
        )),
        [(12, ProblemKind::AutoArpa)]
    );
    // Without `auto_arpa`, `auto-arpa` is a provider like any other: unknown here.
    assert!(matches!(
        &problems(with_manager("  auto_arpa: false", "sources: [auto-arpa]"))[..],
        [(_, ProblemKind::UnknownProvider { .. })]
    ));
    // Off, or `auto_arpa` with no zone reading it: the forward zones hold what their files say.
    for manager in ["  include_meta: false", "  auto_arpa: true"] {
        let from = with_manager(manager, "sources: [config]").unwrap();
        assert_eq!(from[0].zone.records.len(), 1, "{manager}");
    }
}

#[test]
fn spf_values_are_read_as_txt_and_listed_other_types_listed_unread() {
    let zone = "spf:\n  type: SPF\n  value: v=spf1 -all\nsshfp:\n  type: SSHFP\n  value:\n    algorithm: 1\n    fingerprint: abc\nlower:\n  type: a\n  value: 192.0.2.9\n";
    let from = &read(zone).unwrap()[0];
    let why: Vec<(usize, &str, &Why)> = from
        .not_imported
        .iter()
        .map(|n| (n.at.line, n.rtype.as_str(), &n.why))
        .collect();
    assert_eq!(why, [(3, "SPF", &Why::Type), (7, "SSHFP", &Why::Type)]);
    let written: Vec<(&str, RecordType)> = from
        .zone
        .records
        .iter()
        .map(|r| (r.name.as_str(), r.rtype))
        .collect();
    assert_eq!(written, [("lower", RecordType::A)]);

    // SPF's value is read as TXT's, so one that is not text is refused as octoDNS refuses it.
    let zone = "spf:\n  type: SPF\n  value:\n    text: v=spf1 -all\n";
    assert_eq!(
        problems(read(zone)),
        [(
            4,
            ProblemKind::Expected {
                key: "a SPF value".into(),
                want: "a string",
                found: "a mapping".into()
            }
        )]
    );
}
