//! `dnscron check` over a repository of several accounts: each account's files are checked as
//! `check <its folder>` would, side by side, under a line naming it.

use super::{DnsEmulator, files, zone};
use crate::common::Test;

/// Two accounts declaring the same zone (different accounts' zones may share a name): `acme`'s
/// files match what the nameservers serve, `shop`'s say another address for `mail`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let in_sync = std::fs::read_to_string(files("").path().join("check.test.yaml")).unwrap();
    let drifted = in_sync.replace("content: 192.0.2.25", "content: 192.0.2.26");
    assert_ne!(in_sync, drifted);
    crate::accounts::write_repo(
        dir.path(),
        &[
            (
                "dnscron-accounts.yaml",
                &crate::accounts::two_accounts(
                    "https://api.example.net/api/v1",
                    "https://api.example.org/api/v1",
                ),
            ),
            ("acme/check.test.yaml", &in_sync),
            ("shop/check.test.yaml", &drifted),
        ],
    );
    dir
}

fn check(emu: &DnsEmulator, dir: &std::path::Path, extra: &[&str]) -> Test {
    let dns = emu.dns();
    Test::new()
        .current_dir(dir)
        .args([
            "check".to_string(),
            format!("--resolver={dns}"),
            format!("--nameserver-address=ns1.veldhost.net={dns}"),
            format!("--nameserver-address=NS2.Veldhost.NET.={dns}"),
        ])
        .args(extra)
}

#[test]
fn each_account_is_checked_as_its_folder_alone_and_the_worst_decides_the_exit() {
    let emu = DnsEmulator::start(zone());
    let dir = repo();
    let alone = |folder: &str| {
        let dns = emu.dns();
        Test::new()
            .current_dir(dir.path())
            .args([
                "check".to_string(),
                format!("./{folder}"),
                format!("--resolver={dns}"),
                format!("--nameserver-address=ns1.veldhost.net={dns}"),
                format!("--nameserver-address=NS2.Veldhost.NET.={dns}"),
            ])
            .snapshot()
    };
    let acme = alone("acme");
    let shop = alone("shop");
    assert!(acme.starts_with("exit: Some(0)"), "{acme}");
    assert!(shop.starts_with("exit: Some(2)"), "{shop}");
    let body = |snapshot: &str| crate::common::stdout_of(snapshot).to_string();
    let both = check(&emu, dir.path(), &[]).snapshot();
    assert!(both.starts_with("exit: Some(2)"), "{both}");
    assert_eq!(
        crate::common::stdout_of(&both),
        format!(
            "account `acme`\n{}account `shop`\n{}",
            body(&acme),
            body(&shop)
        )
    );
    let only_acme = check(&emu, dir.path(), &["--account", "acme"]).snapshot();
    assert!(only_acme.starts_with("exit: Some(0)"), "{only_acme}");
    assert_eq!(
        crate::common::stdout_of(&only_acme),
        format!("account `acme`\n{}", body(&acme))
    );
}

#[test]
fn json_lists_each_account_with_its_name_and_its_own_report() {
    let emu = DnsEmulator::start(zone());
    let dir = repo();
    let out = check(&emu, dir.path(), &["--format", "json"]).snapshot();
    let json: serde_json::Value = serde_json::from_str(crate::common::stdout_of(&out)).unwrap();
    assert_eq!(json["version"], 1);
    let accounts = json["accounts"].as_array().unwrap();
    let names: Vec<&str> = accounts
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["acme", "shop"]);
    assert_eq!(accounts[0]["summary"]["differences"], 0);
    assert!(accounts[1]["summary"]["differences"].as_u64().unwrap() > 0);
    assert!(accounts.iter().all(|a| a.get("version").is_none()));
}
