//! The drift CronJob over a repository of several accounts
//! (examples/ci/kubernetes/dnscron-drift-cronjob-accounts.yaml): its header creates every
//! ConfigMap and Secret it reads and never puts a token on a command line, it keeps the single
//! account CronJob's least privilege, and its container, run with its volumes built as the
//! kubelet builds them from those ConfigMaps, plans both accounts of [`super::accounts`]: exit 0
//! in line, 2 when one account drifted, 1 when one can't be read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::accounts::{change_live, main, shop_apex_moved, story};
use super::kubernetes::{header_commands, missing, provided, referenced};
use super::snapshot;
use super::{Files, Story};
use crate::common::repo_root;

const RECIPE: &str = "examples/ci/kubernetes/dnscron-drift-cronjob-accounts.yaml";

fn recipe() -> (String, Value) {
    let text = std::fs::read_to_string(repo_root().join(RECIPE)).unwrap();
    let doc = serde_saphyr::from_str(&text).unwrap();
    (text, doc)
}

fn pod(doc: &Value) -> &Value {
    doc.pointer("/spec/jobTemplate/spec/template/spec").unwrap()
}

#[test]
fn the_header_creates_every_configmap_and_secret_the_accounts_cronjob_reads() {
    let (text, doc) = recipe();
    let mut created: Vec<String> = header_commands(&text)
        .iter()
        .flat_map(|c| provided(c))
        .collect();
    created.sort();
    created.dedup();
    assert_eq!(
        created,
        [
            "configmap dnscron-accounts <dir dns/dnscron-accounts.yaml>",
            "configmap dnscron-acme <dir dns/acme>",
            "configmap dnscron-acme-sets <dir dns/acme/sets>",
            "configmap dnscron-acme-sites <dir dns/acme/sites>",
            "configmap dnscron-acme-zones <dir dns/acme/zones>",
            "configmap dnscron-shop <dir dns/shop>",
            "configmap dnscron-shop-sets <dir dns/shop/sets>",
            "configmap dnscron-shop-sites <dir dns/shop/sites>",
            "configmap dnscron-shop-zones <dir dns/shop/zones>",
            "secret dnscron acme",
            "secret dnscron shop",
        ]
    );
    assert_eq!(missing(&text), Vec::<String>::new());
    assert_eq!(referenced(&doc).len(), 11, "{:?}", referenced(&doc));
    // The refused form: a header without its Secret line leaves both tokens missing.
    let without: String = text
        .lines()
        .filter(|l| !l.contains("kubectl create secret"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        missing(&without),
        ["secret dnscron acme", "secret dnscron shop"]
    );
}

#[test]
fn the_accounts_cronjob_never_gives_a_token_on_a_command_line_and_keeps_least_privilege() {
    let (text, doc) = recipe();
    let secrets: Vec<Vec<String>> = header_commands(&text)
        .into_iter()
        .filter(|c| c.get(2).map(String::as_str) == Some("secret"))
        .collect();
    assert_eq!(
        secrets,
        [[
            "kubectl",
            "create",
            "secret",
            "generic",
            "dnscron",
            "--from-file=acme=acme",
            "--from-file=shop=shop"
        ]
        .map(String::from)
        .to_vec()]
    );
    for account in ["acme", "shop"] {
        let prompt = format!(
            "(umask 077 && read -rs -p '{account} read token: ' t && printf '%s' \"$t\" > {account})"
        );
        assert!(text.contains(&prompt), "{prompt}");
    }
    assert_eq!(
        super::rules::cronjob_facts(&doc),
        super::rules::LEAST_PRIVILEGE
    );
    let container = &pod(&doc)["containers"][0];
    // The only variables are the tokens, each from its account's key; no API URL, no token file.
    let env: Vec<String> = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let r = e.pointer("/valueFrom/secretKeyRef").unwrap();
            format!("{} <- {}/{}", e["name"], r["name"], r["key"])
        })
        .collect();
    assert_eq!(
        env,
        [
            "\"DNSCRON_TOKEN_ACME\" <- \"dnscron\"/\"acme\"",
            "\"DNSCRON_TOKEN_SHOP\" <- \"dnscron\"/\"shop\""
        ]
    );
    let args = container["args"].to_string();
    assert!(
        !args.contains("--token-file") && !args.contains("--api-url"),
        "{args}"
    );
    // Every mount read-only, and none inside another (a mount in a ConfigMap volume fails).
    let mounts: Vec<&str> = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .inspect(|m| assert_eq!(m["readOnly"], true, "{m}"))
        .map(|m| m["mountPath"].as_str().unwrap())
        .collect();
    for a in &mounts {
        for b in &mounts {
            assert!(a == b || !b.starts_with(&format!("{a}/")), "{b} inside {a}");
        }
    }
}

/// A folder as the kubelet's atomic writer fills a ConfigMap (or projected) volume: the keys in
/// a timestamped hidden folder, `..data` a link to it, each key a link through `..data`.
fn atomic_volume(into: &Path, files: &[PathBuf]) {
    let stamp = into.join("..2026_01_02_03_04_05.000000001");
    std::fs::create_dir_all(&stamp).unwrap();
    std::os::unix::fs::symlink(stamp.file_name().unwrap(), into.join("..data")).unwrap();
    for file in files {
        let name = file.file_name().unwrap();
        assert!(
            !stamp.join(name).exists(),
            "{} twice in the volume",
            file.display()
        );
        std::fs::copy(file, stamp.join(name)).unwrap();
        std::os::unix::fs::symlink(Path::new("..data").join(name), into.join(name)).unwrap();
    }
}

/// The pod's `/dns` as the cluster shows it, made in `into` from the header's `kubectl create
/// configmap NAME --from-file=PATH` run in `repo` (a folder's regular files directly in it, or
/// the one file) and the container's mounts: the accounts file by `subPath` (a plain file), each
/// account's folder a projected volume of its ConfigMaps (an optional one not created is
/// skipped).
fn cluster_dns(repo: &Path, into: &Path) {
    let (text, doc) = recipe();
    let maps: Vec<(String, PathBuf)> = header_commands(&text)
        .into_iter()
        .filter(|argv| argv.get(2).map(String::as_str) == Some("configmap") && argv.len() == 5)
        .filter_map(|argv| {
            let path = argv[4].strip_prefix("--from-file=")?;
            Some((argv[3].clone(), repo.join(path)))
        })
        .collect();
    let files_of = |name: &str| -> Vec<PathBuf> {
        let (_, path) = maps.iter().find(|(n, _)| n == name).unwrap();
        if path.is_file() {
            return vec![path.clone()];
        }
        let Ok(entries) = std::fs::read_dir(path) else {
            return Vec::new();
        };
        entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect()
    };
    let pod = pod(&doc);
    let volume = |name: &str| {
        pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()
            .clone()
    };
    for mount in pod["containers"][0]["volumeMounts"].as_array().unwrap() {
        let at = mount["mountPath"].as_str().unwrap();
        let local = into.join(at.strip_prefix("/dns/").unwrap());
        let volume = volume(mount["name"].as_str().unwrap());
        if let Some(key) = mount["subPath"].as_str() {
            let map = volume["configMap"]["name"].as_str().unwrap();
            let file = files_of(map)
                .into_iter()
                .find(|f| f.file_name().unwrap() == key)
                .unwrap();
            std::fs::create_dir_all(local.parent().unwrap()).unwrap();
            std::fs::copy(file, &local).unwrap();
            continue;
        }
        let mut files = Vec::new();
        for source in volume
            .pointer("/projected/sources")
            .unwrap()
            .as_array()
            .unwrap()
        {
            let name = source["configMap"]["name"].as_str().unwrap();
            let found = files_of(name);
            if found.is_empty() {
                assert_eq!(source["configMap"]["optional"], true, "{name}");
            }
            files.extend(found);
        }
        atomic_volume(&local, &files);
    }
}

/// The CronJob's container as the cluster runs it: its args with `/dns` mapped to `dns`, each
/// token from the Secret's key (`secret`: account → token) in the variable its env entry names.
fn cronjob(story: &Story, dns: &Path, secret: &[(&str, &str)]) -> crate::common::Test {
    let (_, doc) = recipe();
    let container = &pod(&doc)["containers"][0];
    let args: Vec<String> = container["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| match a.as_str().unwrap() {
            "/dns" => dns.display().to_string(),
            other => other.to_string(),
        })
        .collect();
    let resolver = story.emulator.dns_addr().expect("acme's DNS listener");
    let mut test = crate::common::Test::new()
        .args(args)
        .env("DNSCRON_SYSTEM_RESOLVER", resolver.to_string());
    for entry in container["env"].as_array().unwrap() {
        let key = entry["valueFrom"]["secretKeyRef"]["key"].as_str().unwrap();
        let (_, token) = secret.iter().find(|(k, _)| *k == key).unwrap();
        test = test.env(entry["name"].as_str().unwrap(), token);
    }
    test
}

/// The cluster's view of main: the repository's files through the ConfigMaps and volumes.
fn cluster(story: &Story, files: &Files) -> PathBuf {
    let repo = story.commit("cluster-repo", files);
    let dns = story.world.dir.path().join("cluster/dns");
    cluster_dns(&repo, &dns);
    dns
}

const SECRET: [(&str, &str); 2] = [("acme", "acme-read-token"), ("shop", "shop-read-token")];

#[test]
fn the_accounts_cronjob_exits_0_in_line_2_when_one_account_drifted_and_1_when_one_cannot_be_read() {
    let story = story();
    let dns = cluster(&story, &main(&story));
    // The volume holds what the kubelet makes: links through `..data`, hidden folders.
    assert!(dns.join("acme/..data").is_symlink());
    assert!(dns.join("acme/acme.example.yaml").is_symlink());
    let in_line = cronjob(&story, &dns, &SECRET).run_for_stdout();
    assert!(in_line.contains("Accounts: 2 planned."), "{in_line}");
    change_live(&story, &shop_apex_moved(main(&story)));
    let shown = cronjob(&story, &dns, &SECRET).snapshot();
    snapshot!("accounts_cronjob_drift", shown);
    let wrong = [("acme", "acme-read-token"), ("shop", "acme-read-token")];
    let out = cronjob(&story, &dns, &wrong).snapshot();
    assert!(out.starts_with("exit: Some(1)\n"), "{out}");
    assert!(out.contains("account `shop`"), "{out}");
}
