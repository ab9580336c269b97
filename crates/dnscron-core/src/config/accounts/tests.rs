#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use super::*;

/// A repository in a temporary folder: `files` are (relative path, text).
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const ZONE: &str = "zone: example.com\nrecords: []\n";

const TWO: &str = "\
accounts:
  - name: acme
    folder: acme
    api_url: https://api.example.net/api/v1
    token_env: DNSCRON_TOKEN_ACME
  - name: shop-staging
    folder: customers/shop
    api_url: https://api.example.net/api/v1
    token_file: /run/secrets/shop/token
";

fn messages(err: Diagnostics) -> Vec<String> {
    err.items
        .iter()
        .map(|d| match &d.location {
            Some(at) => format!("{}:{}: {}", at.line, at.col, d.message),
            None => d.message.clone(),
        })
        .collect()
}

fn discover_in(dir: &Path) -> Result<Option<Accounts>, Diagnostics> {
    discover(&[dir.to_path_buf()])
}

#[test]
fn a_folder_without_the_file_is_one_account() {
    let dir = repo(&[("example.com.yaml", ZONE)]);
    assert_eq!(discover_in(dir.path()).unwrap(), None);
}

#[test]
fn two_accounts_with_their_folders_and_token_sources() {
    let dir = repo(&[
        (ACCOUNTS_FILE, TWO),
        ("acme/example.com.yaml", ZONE),
        ("customers/shop/shop.example.yaml", "zone: shop.example\n"),
    ]);
    let accounts = discover_in(dir.path()).unwrap().unwrap();
    assert_eq!(accounts.root, dir.path());
    let summary: Vec<(&str, PathBuf, &TokenSource)> = accounts
        .accounts
        .iter()
        .map(|a| (a.name.as_str(), a.folder.clone(), &a.token))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "acme",
                dir.path().join("acme"),
                &TokenSource::Env("DNSCRON_TOKEN_ACME".into())
            ),
            (
                "shop-staging",
                dir.path().join("customers/shop"),
                &TokenSource::File("/run/secrets/shop/token".into())
            ),
        ]
    );
    assert_eq!(accounts.accounts[1].location.line, 6);
    // Each token source where its value is written, for a refused token's hint.
    let at = |a: &Account| (a.token_location.line, a.token_location.col);
    assert_eq!(at(&accounts.accounts[0]), (5, 16));
    assert_eq!(at(&accounts.accounts[1]), (9, 17));
    // Naming the file itself is the same as naming its folder.
    let by_file = discover(&[dir.path().join(ACCOUNTS_FILE)])
        .unwrap()
        .unwrap();
    assert_eq!(by_file.accounts, accounts.accounts);
}

#[test]
fn select_chooses_by_name_in_the_files_order_and_refuses_an_unknown_one() {
    let dir = repo(&[
        (ACCOUNTS_FILE, TWO),
        ("acme/a.yaml", ZONE),
        ("customers/shop/s.yaml", ZONE),
    ]);
    let accounts = discover_in(dir.path()).unwrap().unwrap();
    let names = |chosen: Vec<&Account>| chosen.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(accounts.select(&[]).unwrap()),
        ["acme", "shop-staging"]
    );
    assert_eq!(
        names(
            accounts
                .select(&["shop-staging".into(), "acme".into()])
                .unwrap()
        ),
        ["acme", "shop-staging"]
    );
    let err = accounts
        .select(&["acme".into(), "prod".into()])
        .unwrap_err();
    assert_eq!(err.name, "prod");
    assert_eq!(err.known, ["acme", "shop-staging"]);
}

#[test]
fn the_file_is_given_alone() {
    let dir = repo(&[(ACCOUNTS_FILE, TWO), ("acme/a.yaml", ZONE)]);
    let err = discover(&[dir.path().to_path_buf(), dir.path().join("acme")]).unwrap_err();
    assert!(messages(err)[0].contains("so it is given alone"));
}

#[test]
fn every_entry_is_checked_and_located() {
    let text = "\
accounts:
  - name: Acme_Prod
    folder: ../elsewhere
    api_url: not a url
    token_env: DNSCRON TOKEN
  - name: b
    folder: /etc
    api_url: https://u:p@api.example.net/api/v1
    token_env: B
    token_file: b.token
  - name: c
    folder: missing
    api_url: https://api.example.net/api/v1
  - name: d
    folder: d
    api_url: https://api.example.net/api/v1
    token_file: ''
    colour: blue
";
    let dir = repo(&[(ACCOUNTS_FILE, text), ("d/a.yaml", ZONE)]);
    let got = messages(discover_in(dir.path()).unwrap_err());
    let expected_starts = [
        "2:11: account name `Acme_Prod` is not a valid name",
        "3:13: folder `../elsewhere` is not a folder inside",
        "4:14: `api_url` is not an API base URL",
        "5:16: `token_env` is the name of an environment variable",
        "7:13: folder `/etc` is not a folder inside",
        "8:14: `api_url` is not an API base URL",
        "10:17: an account has `token_env` or `token_file`, not both",
        "11:5: an account has no `token_env` or `token_file`",
        "12:13: folder `",
        "17:17: `token_file` is empty",
        "18:5: unknown key `colour` in an account",
    ];
    assert_eq!(got.len(), expected_starts.len(), "{got:#?}");
    for (got, want) in got.iter().zip(expected_starts) {
        assert!(got.starts_with(want), "{got} ≠ {want}…");
    }
    assert!(got[8].ends_with("does not exist"), "{}", got[8]);
}

#[test]
fn names_folders_and_tokens_are_each_one_accounts() {
    let text = "\
accounts:
  - { name: a, folder: shared, api_url: 'https://api.example.net/api/v1', token_env: A }
  - { name: a, folder: other, api_url: 'https://api.example.net/api/v1', token_env: B }
  - { name: c, folder: shared/inner, api_url: 'https://api.example.net/api/v1', token_env: C }
  - { name: d, folder: fourth, api_url: 'https://api.example.net/api/v1', token_env: A }
  - { name: e, folder: fifth, api_url: 'https://api.other.example/api/v1', token_env: A }
";
    let dir = repo(&[
        (ACCOUNTS_FILE, text),
        ("shared/inner/z.yaml", ZONE),
        ("other/z.yaml", ZONE),
        ("fourth/z.yaml", ZONE),
        ("fifth/z.yaml", ZONE),
    ]);
    let got = messages(discover_in(dir.path()).unwrap_err());
    assert!(
        got.iter()
            .any(|m| m.starts_with("3:13: account `a` is listed twice")),
        "{got:#?}"
    );
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(got.iter().any(|m| m
        == &format!(
            "accounts `a` and `c` share folder `{}`",
            dir.path().join("shared").display()
        )));
    // The same variable for another API is another account's token; for the same API, the same.
    assert!(
        got.iter().any(|m| m
            == "accounts `a` and `d` read the same token from the same place for the same API")
    );
}

/// One API written two ways (a host's case, its default port) is one API: the same variable for
/// both is one token, refused; another host is another API.
#[test]
fn one_api_written_two_ways_is_one_api() {
    let text = "\
accounts:
  - { name: a, folder: first, api_url: 'https://api.example.net/api/v1', token_env: A }
  - { name: b, folder: second, api_url: 'https://API.Example.net:443/api/v1', token_env: A }
  - { name: c, folder: third, api_url: 'https://api2.example.net/api/v1', token_env: A }
";
    let dir = repo(&[
        (ACCOUNTS_FILE, text),
        ("first/z.yaml", ZONE),
        ("second/z.yaml", ZONE),
        ("third/z.yaml", ZONE),
    ]);
    let got = messages(discover_in(dir.path()).unwrap_err());
    assert_eq!(
        got,
        ["accounts `a` and `b` read the same token from the same place for the same API"],
        "{got:#?}"
    );
}

#[test]
fn a_file_outside_every_accounts_folder_is_refused() {
    let dir = repo(&[
        (ACCOUNTS_FILE, TWO),
        ("acme/a.yaml", ZONE),
        ("customers/shop/s.yaml", ZONE),
        ("customers/stray.yaml", ZONE),
        (".github/workflows/ci.yml", "on: push\n"),
        ("README.md", "# not yaml\n"),
    ]);
    let got = messages(discover_in(dir.path()).unwrap_err());
    assert_eq!(
        got,
        [format!(
            "`{}` lies in no account's folder",
            dir.path().join("customers/stray.yaml").display()
        )]
    );
}

#[test]
fn the_file_holds_one_accounts_document_and_nothing_else() {
    let dir = repo(&[
        (
            ACCOUNTS_FILE,
            &format!("{TWO}---\nzone: example.com\n---\n{TWO}"),
        ),
        ("acme/a.yaml", ZONE),
        ("customers/shop/s.yaml", ZONE),
    ]);
    let got = messages(discover_in(dir.path()).unwrap_err());
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with("11:1: `dnscron-accounts.yaml` holds only the `accounts:` document")
    );
    assert!(got[1].starts_with("13:1: `dnscron-accounts.yaml` holds one `accounts:` document"));
    let empty = repo(&[(ACCOUNTS_FILE, "accounts: []\n")]);
    assert_eq!(
        messages(discover_in(empty.path()).unwrap_err()),
        ["1:1: the list of accounts is empty"]
    );
    let broken = repo(&[(ACCOUNTS_FILE, "accounts: [\n")]);
    assert!(messages(discover_in(broken.path()).unwrap_err())[0].contains("invalid YAML"));
}

#[cfg(unix)]
#[test]
fn a_folder_linked_out_of_the_repository_is_refused() {
    let outside = repo(&[("z.yaml", ZONE)]);
    let dir = repo(&[(
        ACCOUNTS_FILE,
        "accounts:\n  - { name: a, folder: out, api_url: 'https://api.example.net/api/v1', token_env: A }\n",
    )]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    let got = messages(discover_in(dir.path()).unwrap_err());
    assert!(got[0].starts_with("2:24: folder `"), "{got:?}");
    assert!(got[0].contains("leads outside"), "{got:?}");
}

#[test]
fn an_accounts_document_among_the_desired_state_files_is_located() {
    let dir = repo(&[("acme/accounts.yaml", TWO), ("acme/a.yaml", ZONE)]);
    let err = crate::config::load(&[dir.path().join("acme")]).unwrap_err();
    let got = messages(err);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0]
            .starts_with("1:1: an `accounts:` document is read only from `dnscron-accounts.yaml`")
    );
}
