//! `dnscron fmt` over a repository of several accounts: every account's folder, as
//! `fmt <folder>` alone would, and never dnscron-accounts.yaml.

use super::write_repo;
use crate::common::{Test, stdout_of};

/// `www` before `@`: fmt puts `@` first.
const UNORDERED: &str = "zone: acme.example\nrecords:\n  - { name: www, type: A, content: 192.0.2.1 }\n  - { name: '@', type: A, content: 192.0.2.2 }\n";
const ORDERED: &str =
    "zone: shop.example\nrecords:\n  - { name: \"@\", type: A, content: \"192.0.2.2\" }\n";
const LIST: &str = "accounts:\n  - { name: acme, folder: acme, api_url: 'https://api.example.net/api/v1', token_env: A }\n  - { name: shop, folder: shop, api_url: 'https://api.example.net/api/v1', token_env: B }\n";

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_repo(
        dir.path(),
        &[
            ("dnscron-accounts.yaml", LIST),
            ("acme/acme.example.yaml", UNORDERED),
            ("shop/shop.example.yaml", ORDERED),
        ],
    );
    dir
}

#[test]
fn check_covers_every_account_and_says_what_fmt_of_the_folder_says() {
    let dir = repo();
    let alone = Test::new()
        .args(["fmt", "--check", "./acme"])
        .current_dir(dir.path())
        .snapshot();
    let all = Test::new()
        .args(["fmt", "--check"])
        .current_dir(dir.path())
        .snapshot();
    assert!(alone.starts_with("exit: Some(1)"), "{alone}");
    assert!(all.starts_with("exit: Some(1)"), "{all}");
    let diff = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("canonical form"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(diff(stdout_of(&all)), diff(stdout_of(&alone)));
    assert!(
        stdout_of(&all)
            .ends_with("1 of 2 files not in canonical form (`dnscron fmt` rewrites it)\n"),
        "{all}"
    );
    Test::new()
        .args(["fmt", "--check", "--account", "shop"])
        .current_dir(dir.path())
        .expect_stdout("1 of 1 file already in canonical form\n")
        .run();
}

#[test]
fn fmt_rewrites_each_account_and_leaves_the_accounts_file_as_written() {
    let dir = repo();
    // Unusual spacing in the list, which fmt must not touch: it is not a desired-state file.
    let list = LIST.replace("accounts:\n", "accounts:   \n");
    std::fs::write(dir.path().join("dnscron-accounts.yaml"), &list).unwrap();
    let reference = tempfile::tempdir().unwrap();
    write_repo(reference.path(), &[("acme.example.yaml", UNORDERED)]);
    Test::new()
        .args(["fmt", "."])
        .current_dir(reference.path())
        .run_for_stdout();
    Test::new()
        .arg("fmt")
        .current_dir(dir.path())
        .run_for_stdout();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("acme/acme.example.yaml")).unwrap(),
        std::fs::read_to_string(reference.path().join("acme.example.yaml")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop/shop.example.yaml")).unwrap(),
        ORDERED
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("dnscron-accounts.yaml")).unwrap(),
        list
    );
}
