//! The Kubernetes recipe's header says how to create every ConfigMap and Secret the CronJob
//! reads, with the keys it reads, and never puts the token on a command line.

use serde_json::Value;

use crate::common::repo_root;

const RECIPE: &str = "examples/ci/kubernetes/dnscron-drift-cronjob.yaml";

/// The `kubectl create …` commands of the header comment, as words (`\` continuations joined).
/// The controller's manifest has such a header too (tests/it/controller_manifests/).
pub(crate) fn header_commands(text: &str) -> Vec<Vec<String>> {
    let header: String = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join("\n")
        .replace("\\\n", " ");
    header
        .lines()
        .filter(|l| l.starts_with("kubectl create "))
        .map(|l| {
            let command = l.split(" | ").next().unwrap_or_default();
            let command = command.split(" && ").next().unwrap_or_default();
            command.split_whitespace().map(str::to_string).collect()
        })
        .collect()
}

/// What one `kubectl create configmap|secret generic NAME --from-…` provides: `kind name key`,
/// or `kind name <dir DIR>` for a folder (every file a key, mounted whole).
pub(crate) fn provided(argv: &[String]) -> Vec<String> {
    let (kind, rest) = match argv.get(2).map(String::as_str) {
        Some("configmap") => ("configmap", &argv[3..]),
        Some("secret") if argv.get(3).map(String::as_str) == Some("generic") => {
            ("secret", &argv[4..])
        }
        other => panic!("unexpected kubectl create {other:?}: {argv:?}"),
    };
    let name = &rest[0];
    rest[1..]
        .iter()
        .filter(|w| !w.starts_with("--dry-run") && !w.starts_with("-o") && *w != "yaml")
        .map(|w| {
            if let Some(literal) = w.strip_prefix("--from-literal=") {
                let key = literal.split('=').next().unwrap_or_default();
                format!("{kind} {name} {key} (literal)")
            } else if let Some(file) = w.strip_prefix("--from-file=") {
                match file.split_once('=') {
                    Some((key, _)) => format!("{kind} {name} {key}"),
                    None => format!("{kind} {name} <dir {file}>"),
                }
            } else {
                panic!("unexpected word {w:?} in {argv:?}")
            }
        })
        .collect()
}

/// What the CronJob reads: `kind name key`, or `kind name <whole>` for a ConfigMap volume
/// without `items`.
pub(super) fn referenced(doc: &Value) -> Vec<String> {
    let pod = doc.pointer("/spec/jobTemplate/spec/template/spec").unwrap();
    let mut out = Vec::new();
    for c in pod["containers"].as_array().unwrap() {
        for env in c["env"].as_array().into_iter().flatten() {
            for (kind, at) in [
                ("configmap", "/valueFrom/configMapKeyRef"),
                ("secret", "/valueFrom/secretKeyRef"),
            ] {
                if let Some(r) = env.pointer(at) {
                    out.push(format!(
                        "{kind} {} {}",
                        r["name"].as_str().unwrap(),
                        r["key"].as_str().unwrap()
                    ));
                }
            }
        }
    }
    for volume in pod["volumes"].as_array().unwrap() {
        let projected = volume
            .pointer("/projected/sources")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|source| source.get("configMap"));
        for cm in volume.get("configMap").into_iter().chain(projected) {
            assert!(cm.get("items").is_none(), "{volume}");
            out.push(format!(
                "configmap {} <whole>",
                cm["name"].as_str().unwrap()
            ));
        }
        if let Some(secret) = volume.get("secret") {
            for item in secret["items"].as_array().unwrap() {
                out.push(format!(
                    "secret {} {}",
                    secret["secretName"].as_str().unwrap(),
                    item["key"].as_str().unwrap()
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_header_creates_every_configmap_and_secret_the_cronjob_reads() {
    let text = std::fs::read_to_string(repo_root().join(RECIPE)).unwrap();
    let doc: Value = serde_saphyr::from_str(&text).unwrap();
    let commands = header_commands(&text);
    let mut created: Vec<String> = commands.iter().flat_map(|c| provided(c)).collect();
    created.sort();
    created.dedup();
    assert_eq!(
        created,
        [
            "configmap dnscron api-url (literal)",
            "configmap dnscron-dns <dir dns>",
            "configmap dnscron-sets <dir dns/sets>",
            "configmap dnscron-sites <dir dns/sites>",
            "configmap dnscron-zones <dir dns/zones>",
            "secret dnscron read-token",
        ]
    );
    assert_eq!(
        referenced(&doc),
        [
            "configmap dnscron api-url",
            "configmap dnscron-dns <whole>",
            "configmap dnscron-sets <whole>",
            "configmap dnscron-sites <whole>",
            "configmap dnscron-zones <whole>",
            "secret dnscron read-token",
        ]
    );
    // The folders are the layout `import` writes (examples/dns/ has no sets/ folder: its set
    // is beside its zones).
    for dir in ["dns", "dns/zones", "dns/sites"] {
        assert!(repo_root().join("examples").join(dir).is_dir(), "{dir}");
    }
}

/// The files the CronJob's volume shows, made as a cluster would from the header's `kubectl
/// create configmap NAME --from-file=DIR` run in `repo` (each a ConfigMap of the regular files
/// directly in DIR, as kubectl reads a folder) and the volume's projected sources (each at the
/// volume's root; an optional one that was not created is skipped). Two files of one name fail
/// the test, as the names the recipe promises distinct.
pub fn projected_files(repo: &std::path::Path, into: &std::path::Path) {
    let text = std::fs::read_to_string(repo_root().join(RECIPE)).unwrap();
    let doc: Value = serde_saphyr::from_str(&text).unwrap();
    let mut maps: Vec<(String, std::path::PathBuf)> = Vec::new();
    for argv in header_commands(&text) {
        if argv.get(2).map(String::as_str) != Some("configmap") || argv.len() != 5 {
            continue;
        }
        if let Some(dir) = argv[4].strip_prefix("--from-file=") {
            maps.push((argv[3].clone(), repo.join(dir)));
        }
    }
    let pod = doc.pointer("/spec/jobTemplate/spec/template/spec").unwrap();
    let sources = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "files")
        .and_then(|v| v.pointer("/projected/sources"))
        .and_then(Value::as_array)
        .unwrap();
    std::fs::create_dir_all(into).unwrap();
    for source in sources {
        let name = source["configMap"]["name"].as_str().unwrap();
        let (_, dir) = maps.iter().find(|(n, _)| n == name).unwrap();
        if !dir.is_dir() {
            assert_eq!(source["configMap"]["optional"], true, "{name}");
            continue;
        }
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                let target = into.join(path.file_name().unwrap());
                assert!(!target.exists(), "{} twice in the volume", target.display());
                std::fs::copy(&path, target).unwrap();
            }
        }
    }
}

#[test]
fn the_token_is_never_given_on_a_command_line() {
    let text = std::fs::read_to_string(repo_root().join(RECIPE)).unwrap();
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
            "--from-file=read-token=read-token"
        ]
        .map(String::from)
        .to_vec()]
    );
    assert!(
        text.contains(
            "(umask 077 && read -rs -p 'read token: ' t && printf '%s' \"$t\" > read-token)"
        ),
        "the token file is written by `read -s` under umask 077"
    );
}

/// What the CronJob reads that the header's commands don't create.
pub(super) fn missing(text: &str) -> Vec<String> {
    let doc: Value = serde_saphyr::from_str(text).unwrap();
    let created: Vec<String> = header_commands(text)
        .iter()
        .flat_map(|c| provided(c))
        .collect();
    referenced(&doc)
        .into_iter()
        .filter(|wanted| {
            let (object, key) = wanted.rsplit_once(' ').unwrap();
            !created.iter().any(|c| {
                c.strip_prefix(&format!("{object} ")).is_some_and(|rest| {
                    let rest = rest.trim();
                    rest.trim_end_matches(" (literal)") == key
                        || (key == "<whole>" && rest.starts_with("<dir "))
                })
            })
        })
        .collect()
}

/// Both forms of the rule: the shipped header leaves nothing out; without its Secret line the
/// token is reported missing.
#[test]
fn a_header_that_forgets_an_object_is_caught() {
    let text = std::fs::read_to_string(repo_root().join(RECIPE)).unwrap();
    assert_eq!(missing(&text), Vec::<String>::new());
    let without: String = text
        .lines()
        .filter(|l| !l.contains("kubectl create secret"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(missing(&without), ["secret dnscron read-token"]);
}
