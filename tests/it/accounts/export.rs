//! `export` in a repository of several accounts: octoDNS's YAML never lands where the next
//! command would read it as dnscron's files, and `ignore:` rules the export can't carry are
//! named with what a tool applying the files would do to the records they keep.

use super::plan::two;
use super::write_repo;
use crate::common::stdout_of;

#[test]
fn an_octodns_export_inside_the_accounts_root_is_refused_and_outside_it_is_written() {
    let t = two();
    t.dnscron(&["export", "--to", "octodns"])
        .expect_status(1)
        .expect_stderr(
            "error: the default --out export-octodns is inside ., which this export reads: the \
             octoDNS YAML files written there would be read as dnscron's own files by the next \
             validate or plan, which would refuse them; nothing was written\nhint: pass --out \
             with a folder outside ., e.g. --out ../dns-octodns\n",
        )
        .run();
    assert!(!t.dir.path().join("export-octodns").exists());
    // Given inside an account's folder, or spelled through `..`: refused the same way.
    for out in ["acme/octo", "exp/../acme", "./shop/../exp"] {
        let run = t
            .dnscron(&["export", "--to", "octodns", "--out", out])
            .snapshot();
        assert!(run.starts_with("exit: Some(1)"), "{run}");
        assert!(run.contains("which this export reads"), "{run}");
    }
    assert!(!t.dir.path().join("acme/octo").exists());
    assert!(!t.dir.path().join("exp").exists());
    // Outside the root: written, and the repository stays as valid as it was.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("octo");
    let run = t
        .dnscron(&["export", "--to", "octodns", "--out", out.to_str().unwrap()])
        .snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
    assert!(out.join("acme/config.yaml").exists());
    // BIND's zone files are no YAML: its default folder at the root is fine, and every
    // command still reads the repository.
    let run = t.dnscron(&["export", "--to", "bind"]).snapshot();
    assert!(run.starts_with("exit: Some(0)"), "{run}");
    assert!(
        t.dir
            .path()
            .join("export-bind/acme/acme.example.zone")
            .exists()
    );
    let valid = t.dnscron(&["validate"]).snapshot();
    assert!(valid.starts_with("exit: Some(0)"), "{valid}");
    let plan = t.dnscron(&["plan", "--account", "shop"]).snapshot();
    assert!(plan.starts_with("exit: Some(0)"), "{plan}");
}

#[test]
fn the_export_names_each_ignore_rule_whose_records_a_tool_applying_the_files_would_delete() {
    let t = two();
    write_repo(
        t.dir.path(),
        &[(
            "acme/acme.example.yaml",
            "zone: acme.example\nignore:\n  - { name: \"_acme-challenge*\", type: TXT }\n  - { \
             name: \"mail*\" }\nrecords:\n  - { name: www, type: A, content: 192.0.2.9 }\n",
        )],
    );
    let elsewhere = tempfile::tempdir().unwrap();
    for to in ["bind", "octodns"] {
        let out = elsewhere.path().join(to);
        let run = t
            .dnscron(&["export", "--to", to, "--out", out.to_str().unwrap()])
            .snapshot();
        assert!(run.starts_with("exit: Some(0)"), "{run}");
        assert!(
            run.contains(
                "left: zone acme.example at ./acme/acme.example.yaml:3:5: 2 `ignore:` rules \
                 (_acme-challenge* TXT; mail* (any type)) keep live records that no file \
                 declares, and "
            ),
            "{run}"
        );
        assert!(
            run.contains(
                ": a tool that applies these files as the whole zone (an octoDNS sync, a BIND \
                 primary loading them) would delete the records those rules keep;"
            ),
            "{run}"
        );
        let hold = match to {
            "bind" => "the exported files hold the rules only as `; dnscron-ignore:` comments",
            _ => "the exported files hold neither the records nor the rules",
        };
        assert!(run.contains(hold), "{run}");
        // A zone without rules gets no such line; stdout lists files only.
        assert_eq!(run.matches("`ignore:` rule").count(), 1, "{run}");
        assert!(!stdout_of(&run).contains("ignore"), "{run}");
    }
}
