//! Hints in a repository of several accounts point at commands that work there (`--account
//! NAME`, not a folder that names no API) and at the account's own `api_url` line and token
//! source, not at flags that don't apply; an `api_url` a command would refuse is a warning in
//! `validate` and a located refusal at run time.

use super::plan::{SHOP_TOKEN, two};
use super::{two_accounts, write_repo};
use crate::common::{Test, assert_cli_snapshot};

#[test]
fn import_and_baseline_suggest_the_account_not_its_folder_and_the_suggestion_works() {
    let t = two();
    // A fresh repository: the accounts file alone, each account's files from import.
    for file in [
        "acme/acme.example.yaml",
        "acme/mail.acme.example.yaml",
        "shop/shop.example.yaml",
    ] {
        std::fs::remove_file(t.dir.path().join(file)).unwrap();
    }
    let imported = t.dnscron(&["import", "--all"]).run_for_stdout();
    assert!(
        imported.contains(
            "next: `dnscron validate --account acme` and `dnscron plan --account acme` (it shows \
             no changes);\n  to start the drift job green, `dnscron baseline --account acme`"
        ),
        "{imported}"
    );
    assert!(!imported.contains("dnscron plan ./acme"), "{imported}");
    // What it suggests runs where it ran; the folder alone names no API URL.
    t.dnscron(&["plan", "--account", "acme", "--detailed-exitcode"])
        .expect_status(0)
        .run_for_stdout();
    t.dnscron(&["plan", "./acme"])
        .expect_status(1)
        .expect_stderr(
            "error: no API URL given\nhint: pass --api-url URL or set DNSCRON_API_URL (it \
             includes /api/v1)\n",
        )
        .run();
    let baseline = t.dnscron(&["baseline", "."]).run_for_stdout();
    assert!(
        baseline.contains(
            "Next: review and commit the files; `dnscron plan --account shop \
             --detailed-exitcode` exits 0 until something changes."
        ),
        "{baseline}"
    );
    // The accounts' root named as a path stays in the suggestion.
    let root = t.dir.path().to_str().unwrap();
    let baseline = Test::new()
        .args(["baseline", root])
        .env("DNSCRON_TOKEN_ACME", super::plan::ACME_TOKEN)
        .env("DNSCRON_TOKEN_SHOP", SHOP_TOKEN)
        .run_for_stdout();
    assert!(
        baseline.contains(&format!(
            "`dnscron plan {root} --account shop --detailed-exitcode`"
        )),
        "{baseline}"
    );
    // One account's folder keeps its path.
    let alone = t
        .alone(&t.shop, SHOP_TOKEN, &["baseline", "./shop"])
        .run_for_stdout();
    assert!(
        alone.contains("`dnscron plan ./shop --detailed-exitcode`"),
        "{alone}"
    );
}

#[test]
fn url_and_token_hints_name_the_accounts_own_lines() {
    let t = two();
    // acme's URL without its /api/v1 prefix; shop's token from a file with a space in it.
    let acme_url = t.acme.base_url();
    let root = acme_url.trim_end_matches("/api/v1");
    write_repo(
        t.dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &format!(
                    "accounts:\n  - name: acme\n    folder: acme\n    api_url: {root}\n    \
                     token_env: DNSCRON_TOKEN_ACME\n  - name: shop\n    folder: shop\n    \
                     api_url: {}\n    token_file: shop.token\n",
                    t.shop.base_url()
                ),
            ),
            ("shop.token", "tok en\n"),
        ],
    );
    assert_cli_snapshot!(t.dnscron(&["plan"]).expect_status(1));
    let doctor = t.dnscron(&["doctor"]).snapshot();
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(doctor);
    });
    assert!(!doctor.contains("--api-url"), "{doctor}");
    assert!(!doctor.contains("--token-file"), "{doctor}");
}

#[test]
fn a_plain_http_api_url_is_a_validate_warning_and_a_located_refusal() {
    let t = two();
    write_repo(
        t.dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &two_accounts("http://192.0.2.10/api/v1", &t.shop.base_url()),
        )],
    );
    // Valid files: exit 0, the warning at the line.
    assert_cli_snapshot!(t.dnscron(&["validate"]));
    assert_cli_snapshot!(t.dnscron(&["plan", "--account", "acme"]).expect_status(1));
    let doctor = t.dnscron(&["doctor", "--account", "acme"]).snapshot();
    assert!(
        !doctor.lines().any(|l| l.trim() == "hint:"),
        "no empty hint: {doctor}"
    );
    insta::with_settings!({ filters => crate::common::filters() }, {
        insta::assert_snapshot!(doctor);
    });
    // https and loopback http are no warning.
    write_repo(
        t.dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &two_accounts("https://api.example.net/api/v1", &t.shop.base_url()),
        )],
    );
    let valid = t.dnscron(&["validate"]).snapshot();
    assert!(!valid.contains("warning"), "{valid}");
    assert!(!valid.contains("api_url"), "{valid}");
}
