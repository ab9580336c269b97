//! `dnscron fmt`: the examples are its fixed point, a shuffled and respelled copy of them comes
//! back byte for byte with every comment, `--check` shows the diff and exits 1, invalid files
//! are reported as `validate` reports them, and what it does not model is left as written.

use crate::common::{Test, assert_cli_snapshot, copy_examples};

/// `text` with its `records:` items in reverse order, each with the comment lines above it,
/// and its IP addresses and host names unquoted (both spellings the loader reads the same).
fn shuffled(text: &str) -> String {
    let (head, rest) = text.split_once("records:\n").unwrap();
    let (list, tail) = rest.split_at(rest.find("\nuse:").map_or(rest.len(), |i| i + 1));
    let mut items: Vec<String> = Vec::new();
    let mut above = String::new();
    for line in list.lines() {
        if line.starts_with("  #") {
            above += &format!("{line}\n");
        } else if line.starts_with("  - ") {
            items.push(std::mem::take(&mut above) + line + "\n");
        } else {
            *items.last_mut().unwrap() += &format!("{line}\n");
        }
    }
    items.reverse();
    let list = items.concat();
    let unquoted = list
        .replace("content: \"203.0.113.10\"", "content: 203.0.113.10")
        .replace("content: \"example.com.\"", "content: Example.COM.")
        .replace("name: www,", "name: www.example.com.,")
        .replace(
            "content: \"0 issue \\\"letsencrypt.org\\\"\"",
            "content: '0 issue \"letsencrypt.org\"'",
        );
    format!("{head}records:\n{unquoted}{tail}")
}

#[test]
fn the_examples_are_in_canonical_form() {
    Test::new()
        .args(["fmt", "--check", "examples/dns"])
        .expect_stdout("7 of 7 files already in canonical form\n")
        .run();
}

#[test]
fn a_shuffled_respelled_zone_comes_back_byte_for_byte_with_every_comment() {
    let dir = tempfile::tempdir().unwrap();
    copy_examples(dir.path());
    let zone = dir.path().join("zones/example.com.yaml");
    let original = std::fs::read_to_string(&zone).unwrap();
    let messy = shuffled(&original);
    assert_ne!(messy, original);
    std::fs::write(&zone, &messy).unwrap();
    assert_cli_snapshot!(
        "fmt_check_shuffled",
        Test::new()
            .args(["fmt", "--check", "zones"])
            .current_dir(dir.path())
            .expect_status(1)
    );
    assert_eq!(
        std::fs::read_to_string(&zone).unwrap(),
        messy,
        "--check writes nothing"
    );
    Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .expect_stdout("formatted ./zones/example.com.yaml\n1 of 7 files rewritten\n")
        .run();
    assert_eq!(std::fs::read_to_string(&zone).unwrap(), original);
}

#[test]
fn invalid_files_are_reported_as_validate_reports_them_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let text = "zone: example.com\nrecords:\n  - { name: www, type: A, content: 203.0.113.300 }\n  - { name: \"@\", type: A, content: 203.0.113.1 }\n";
    std::fs::write(dir.path().join("zone.yaml"), text).unwrap();
    let validate = Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .expect_status(1)
        .snapshot();
    let fmt = Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .expect_status(1)
        .snapshot();
    assert_eq!(fmt, validate);
    assert_cli_snapshot!(
        "fmt_invalid",
        Test::new()
            .arg("fmt")
            .current_dir(dir.path())
            .expect_status(1)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("zone.yaml")).unwrap(),
        text
    );
}

/// An anchor or a document written as one flow mapping is left as written, with where and why;
/// the other files are still formatted, and `--check` does not fail for what `fmt` can't fix,
/// nor counts it as canonical.
#[test]
fn what_fmt_does_not_model_is_left_as_written_with_a_located_note() {
    let dir = tempfile::tempdir().unwrap();
    let anchored = "zone: example.com\nrecords:\n  - { name: www, type: A, content: &ip 192.0.2.1 }\n  - { name: \"@\", type: A, content: *ip }\n";
    let flow = "{ zone: example.net, records: [ { name: www, type: A, content: 192.0.2.1 }, { name: \"@\", type: A, content: 192.0.2.1 } ] }\n";
    let plain = "zone: example.org\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n";
    for (file, text) in [("a.yaml", anchored), ("b.yaml", flow), ("c.yaml", plain)] {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let stderr = "\
./a.yaml:3:40: left as it is: it uses anchors and aliases (`&name`, `*name`); fmt does not rewrite what an alias copies
./b.yaml:1:1: left as it is: the document is a flow mapping (`{zone: …, records: […]}`), where fmt can't write its one-item-a-line list; write the document in block style (`key: value` lines)
";
    Test::new()
        .args(["fmt", "--check"])
        .current_dir(dir.path())
        .expect_status(1)
        .expect_stdout(
            "\
--- ./c.yaml
+++ ./c.yaml (formatted)
@@ -1,3 +1,3 @@
 zone: example.org
 records:
-  - { name: www, type: A, content: 192.0.2.1 }
+  - { name: www, type: A, content: \"192.0.2.1\" }
1 of 3 files not in canonical form (`dnscron fmt` rewrites it), 2 left as written (see above)
",
        )
        .expect_stderr(stderr)
        .run();
    Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .expect_stdout(
            "formatted ./c.yaml\n1 of 3 files rewritten, 2 left as written (see above)\n",
        )
        .expect_stderr(stderr)
        .run();
    Test::new()
        .args(["fmt", "--check"])
        .current_dir(dir.path())
        .expect_stdout("1 of 3 files already in canonical form, 2 left as written (see above)\n")
        .expect_stderr(stderr)
        .run();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.yaml")).unwrap(),
        anchored
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.yaml")).unwrap(),
        flow
    );
}

/// A file `fmt` cannot write is an error as every command words one: `error:` with the file,
/// the cause under it, and a hint; the file is left as it was and the others are still done.
#[test]
fn a_file_fmt_cannot_write_is_worded_as_every_other_command_words_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let unformatted =
        "zone: example.org\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n";
    std::fs::write(dir.path().join("a.yaml"), unformatted).unwrap();
    std::fs::write(dir.path().join("b.yaml"), unformatted.replace("org", "net")).unwrap();
    // Its temporary file's name taken by a folder: the write fails, whoever runs the test.
    std::fs::create_dir(dir.path().join("b.yaml.dnscron-fmt.tmp")).unwrap();
    let out = Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .expect_status(1)
        .snapshot();
    let stderr = out.split_once("--- stderr\n").unwrap().1;
    assert!(
        stderr.starts_with(
            "error: writing ./b.yaml in canonical form failed; it is left as it was\ncaused by: "
        ),
        "{out}"
    );
    assert!(
        stderr.contains("\nhint: check that the file and its folder are writable"),
        "{out}"
    );
    assert_eq!(
        crate::common::stdout_of(&out),
        "formatted ./a.yaml\n",
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.yaml")).unwrap(),
        unformatted.replace("org", "net")
    );
    // The accepted form: with the folder gone, the same run rewrites it.
    std::fs::remove_dir(dir.path().join("b.yaml.dnscron-fmt.tmp")).unwrap();
    Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .expect_stdout("formatted ./b.yaml\n1 of 2 files rewritten\n")
        .run();
}

/// Issue 38: a DKIM key written as a folded scalar over several lines, beside a flow list and an
/// item with `-` alone on its line, is checked and rewritten like any other file: `--check`
/// fails with the diff until `fmt` has run, then passes; the meaning is the same (`validate`'s
/// output does not change) and every comment is kept.
#[test]
fn folded_scalars_flow_lists_and_any_item_layout_are_checked_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let folded = "\
zone: example.com
records:
  # the signing key
  - name: default._domainkey
    type: TXT
    content: >- # folded: YAML joins the lines with a space
      v=DKIM1; k=rsa;
      p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuuzYLsz/O9n7y4TX9QxyQhk02/BI9nU+6fCAzZ31zd1nlokEEEzq+rhmhfju/t4RlKLqMuCE513Z9SCI/70xY9JK5gcvAOcqZX49Fom2TwKg+0Vy8kOUK9VRRZzSx0xkwAc2xyUasbQNDfOnm+amPv7uV05p3qzqdyPMEWRYFxjnYPcKQm9GUl/Hi9nUKMScX7BZhu3+1JPvWqb24z2MMG12Ai/oqdBdDbRQtG44j22WiUMzhzHfVzYetl42oI0glaFShYMgB9KD1AcdMXgLnj4ws6HpE86hbuzaPb+Ax5W2Hd8MkKmUPpjVowqvZRw5Uz48E0C1mg7ZQLbUxMF61wIDAQAB
  -
    name: www
    type: A
    content: 192.0.2.1 # the web
";
    let flow = "zone: example.net\nrecords: [ { name: www, type: A, content: 192.0.2.1 }, { name: \"@\", type: A, content: 192.0.2.1 } ] # both\n";
    std::fs::write(dir.path().join("a.yaml"), folded).unwrap();
    std::fs::write(dir.path().join("b.yaml"), flow).unwrap();
    let validated = Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .run_for_stdout();
    assert_cli_snapshot!(
        "fmt_check_every_layout",
        Test::new()
            .args(["fmt", "--check"])
            .current_dir(dir.path())
            .expect_status(1)
    );
    Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .expect_stdout("formatted ./a.yaml\nformatted ./b.yaml\n2 of 2 files rewritten\n")
        .run();
    Test::new()
        .args(["fmt", "--check"])
        .current_dir(dir.path())
        .expect_stdout("2 of 2 files already in canonical form\n")
        .run();
    let rewritten = std::fs::read_to_string(dir.path().join("a.yaml")).unwrap();
    for comment in ["# the signing key", "# folded: YAML", "# the web"] {
        assert!(rewritten.contains(comment), "{comment}\n{rewritten}");
    }
    assert!(
        std::fs::read_to_string(dir.path().join("b.yaml"))
            .unwrap()
            .contains("# both")
    );
    let revalidated = Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .run_for_stdout();
    assert_eq!(revalidated, validated);
}
