//! Moving several accounts in at once: `import --all` at the repository's root imports every
//! account into its own folder from its own API, exactly as `import --all --out DIR` of that
//! account alone writes; `baseline` then accepts each account's findings as its own baseline
//! would; a token is only ever sent to its own account's URL.

use dnscron_emulator::{BackgroundEmulator, RateLimit, Seed};

use super::write_repo;
use crate::common::Test;

/// An account with one zone and one site; `token` is the only token it accepts.
fn account(token: &str, zone: &str, site: &str) -> BackgroundEmulator {
    let yaml = format!(
        "tokens: [{{token: {token}, user: u, scopes: [read]}}]\n\
         sites:\n  - slug: {site}\n\
         zones:\n  - zone: {zone}\n    records:\n\
         \x20     - {{ name: \"@\", type: A, ttl: 3600, content: 192.0.2.1 }}\n\
         \x20     - {{ name: www, type: CNAME, ttl: 300, content: {zone}. }}\n"
    );
    let mut seed = Seed::from_yaml_str(&yaml).unwrap();
    seed.rate_limit = RateLimit::off();
    dnscron_emulator::start_background(seed).unwrap()
}

fn repo(acme: &BackgroundEmulator, shop: &BackgroundEmulator) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_repo(
        dir.path(),
        &[(
            "dnscron-accounts.yaml",
            &super::two_accounts(&acme.base_url(), &shop.base_url()),
        )],
    );
    std::fs::create_dir_all(dir.path().join("acme")).unwrap();
    std::fs::create_dir_all(dir.path().join("shop")).unwrap();
    dir
}

fn in_repo(dir: &std::path::Path, args: &[&str]) -> Test {
    Test::new()
        .args(args)
        .current_dir(dir)
        .env("DNSCRON_TOKEN_ACME", "token-acme")
        .env("DNSCRON_TOKEN_SHOP", "token-shop")
        .plan_stamp()
}

fn files_under(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn import_all_writes_each_account_as_its_own_import_would_and_plan_is_clean() {
    let acme = account("token-acme", "acme.example", "acme-site");
    let shop = account("token-shop", "shop.example", "shop-site");
    let dir = repo(&acme, &shop);
    let summary = in_repo(dir.path(), &["import", "--all"]).run_for_stdout();
    assert!(
        summary.starts_with("account `acme`:\nzone acme.example: 2 records"),
        "{summary}"
    );
    assert!(
        summary.contains("account `shop`:\nzone shop.example: 2 records"),
        "{summary}"
    );
    // The careful path: each account alone, with its own token and URL.
    for (name, emu, token) in [("acme", &acme, "token-acme"), ("shop", &shop, "token-shop")] {
        let alone = tempfile::tempdir().unwrap();
        Test::new()
            .args(["import", "--all", "--out", "."])
            .api(&emu.base_url(), token)
            .current_dir(alone.path())
            .run_for_stdout();
        assert_eq!(
            files_under(&dir.path().join(name)),
            files_under(alone.path()),
            "{name}"
        );
    }
    Test::new()
        .arg("validate")
        .current_dir(dir.path())
        .expect_stdout(
            "account `acme`: valid: 1 zone, 2 records, 1 site, 0 cron jobs\n\
             account `shop`: valid: 1 zone, 2 records, 1 site, 0 cron jobs\n",
        )
        .run();
}

#[test]
fn one_accounts_import_needs_its_name_and_stays_in_its_folder() {
    let acme = account("token-acme", "acme.example", "acme-site");
    let shop = account("token-shop", "shop.example", "shop-site");
    let dir = repo(&acme, &shop);
    let refused = in_repo(dir.path(), &["import", "--zone", "acme.example"]).snapshot();
    assert!(refused.starts_with("exit: Some(1)"), "{refused}");
    assert!(
        refused.contains(
            "error: this import reads or writes one account, and 2 are chosen: acme, shop"
        ),
        "{refused}"
    );
    let outside = in_repo(
        dir.path(),
        &["import", "--account", "acme", "--all", "--out", "shop"],
    )
    .snapshot();
    assert!(
        outside.contains("error: --out shop is outside account `acme`'s folder ./acme"),
        "{outside}"
    );
    let climbing = in_repo(
        dir.path(),
        &[
            "import",
            "--account",
            "acme",
            "--all",
            "--out",
            "acme/../shop",
        ],
    )
    .snapshot();
    assert!(
        climbing.contains("is outside account `acme`'s folder"),
        "{climbing}"
    );
    assert!(files_under(&dir.path().join("shop")).is_empty());
    assert!(files_under(&dir.path().join("acme")).is_empty());
    let one = in_repo(
        dir.path(),
        &["import", "--account", "shop", "--zone", "shop.example"],
    )
    .run_for_stdout();
    assert!(
        one.contains("wrote ./shop/zones/shop.example.yaml"),
        "{one}"
    );
    assert!(files_under(&dir.path().join("acme")).is_empty());
}

#[test]
fn a_token_goes_only_to_its_own_accounts_url() {
    let acme = account("token-acme", "acme.example", "acme-site");
    let shop = account("token-shop", "shop.example", "shop-site");
    let dir = repo(&acme, &shop);
    // Each emulator accepts only its own token, so a token sent to the other URL would fail.
    in_repo(dir.path(), &["import", "--all"]).run_for_stdout();
    // The tokens swapped in the environment: each account's URL refuses the other's token.
    let swapped = Test::new()
        .args(["import", "--all"])
        .current_dir(dir.path())
        .env("DNSCRON_TOKEN_ACME", "token-shop")
        .env("DNSCRON_TOKEN_SHOP", "token-acme")
        .args(["--force"])
        .snapshot();
    assert!(swapped.starts_with("exit: Some(1)"), "{swapped}");
    assert!(swapped.contains("account `acme`"), "{swapped}");
    // A URL on the command line is refused rather than chosen over the file's.
    let flag = in_repo(
        dir.path(),
        &["import", "--all", "--api-url", &shop.base_url()],
    )
    .snapshot();
    assert!(
        flag.contains("dnscron-accounts.yaml names each account's API URL and token"),
        "{flag}"
    );
}

#[test]
fn baseline_takes_each_accounts_findings_into_its_own_folder() {
    let acme = account("token-acme", "acme.example", "acme-site");
    let shop = account("token-shop", "shop.example", "shop-site");
    let dir = repo(&acme, &shop);
    in_repo(
        dir.path(),
        &["import", "--account", "acme", "--zone", "acme.example"],
    )
    .run_for_stdout();
    in_repo(
        dir.path(),
        &["import", "--account", "shop", "--zone", "shop.example"],
    )
    .run_for_stdout();
    let out = in_repo(dir.path(), &["baseline"]).run_for_stdout();
    assert!(out.starts_with("account `acme`:\n"), "{out}");
    assert!(out.contains("account `shop`:\n"), "{out}");
    let acme_unmanaged = std::fs::read_to_string(dir.path().join("acme/unmanaged.yaml")).unwrap();
    let shop_unmanaged = std::fs::read_to_string(dir.path().join("shop/unmanaged.yaml")).unwrap();
    assert!(acme_unmanaged.contains("acme-site") && !acme_unmanaged.contains("shop-site"));
    assert!(shop_unmanaged.contains("shop-site") && !shop_unmanaged.contains("acme-site"));
    // Each account's drift job is green afterwards, as the single-account baseline makes it.
    for (name, emu, token) in [("acme", &acme, "token-acme"), ("shop", &shop, "token-shop")] {
        Test::new()
            .args(["plan", name, "--detailed-exitcode"])
            .api(&emu.base_url(), token)
            .current_dir(dir.path())
            .plan_stamp()
            .run_for_stdout();
    }
}
