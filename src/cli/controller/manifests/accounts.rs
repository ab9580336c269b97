//! The kit of a controller over a repository of several accounts (`--accounts-file`): one
//! Secret, one key per account (its name), given to the pod as `dnscron-accounts.yaml` says
//! each token comes: an environment variable (`token_env`) from the Secret's key, or a file
//! (`token_file`) at its path, the files of one folder projected into one read-only volume.
//! No API URL comes from the cluster (the file names each one; the controller refuses
//! `DNSCRON_API_URL` beside it) and no token file is named on the command line.
//!
//! The single-account kit is the template; this rewrites its token and URL parts, each found
//! whole (a template that changed under it is this module's bug, caught by its tests).

use std::collections::BTreeMap;
use std::path::{Component, Path};

use dnscron_core::config::accounts::{Accounts, TokenSource};

/// Where the pod's own files are: a token folder must be none of them.
const RESERVED: [&str; 4] = ["/repo", "/state", "/tmp", "/var/run/secrets/dnscron"];

/// How the pod gets each account's token, checked for the manifest.
#[derive(Debug, Default)]
pub(super) struct Tokens {
    /// `(variable, account)`.
    env: Vec<(String, String)>,
    /// Folder → `(file name, account)`.
    files: BTreeMap<String, Vec<(String, String)>>,
    names: Vec<String>,
}

/// Every token source as the manifest can hold it, or why one can't be.
pub(super) fn tokens(accounts: &Accounts) -> Result<Tokens, String> {
    let mut tokens = Tokens::default();
    for account in &accounts.accounts {
        tokens.names.push(account.name.clone());
        match &account.token {
            TokenSource::Env(var) => tokens.env.push((var.clone(), account.name.clone())),
            TokenSource::File(path) => {
                let (dir, file) = token_file(&account.name, path)?;
                tokens
                    .files
                    .entry(dir)
                    .or_default()
                    .push((file, account.name.clone()));
            }
        }
    }
    Ok(tokens)
}

/// An absolute path in plain characters (it goes into YAML as it is), outside the pod's own
/// folders: a token never lives in the repository's checkout or on the state claim.
fn token_file(account: &str, path: &Path) -> Result<(String, String), String> {
    let text = path.to_str().unwrap_or_default();
    let plain = |c: char| c.is_ascii_alphanumeric() || "-._/".contains(c);
    let normal = path
        .components()
        .skip(1)
        .all(|c| matches!(c, Component::Normal(_)));
    let (Some(dir), Some(file)) = (path.parent(), path.file_name()) else {
        return Err(format!("account `{account}`: token_file has no folder"));
    };
    let dir = dir.to_str().unwrap_or_default().to_owned();
    if !path.is_absolute() || !normal || !text.chars().all(plain) || dir == "/" {
        return Err(format!(
            "account `{account}`: token_file `{}` must be an absolute path in a folder of its own, \
             of letters, digits and - . _ / (a Secret mounted in the pod)",
            path.display()
        ));
    }
    if let Some(reserved) = RESERVED
        .iter()
        .find(|r| dir == **r || dir.starts_with(&format!("{r}/")))
    {
        return Err(format!(
            "account `{account}`: token_file `{}` is under {reserved}, which the pod uses for \
             its own files",
            path.display()
        ));
    }
    Ok((dir, file.to_str().unwrap_or_default().to_owned()))
}

/// `kit` (the single-account manifests, filled) rewritten for `tokens`; the Secret is `name`.
pub(super) fn rewrite(kit: &str, name: &str, tokens: &Tokens) -> String {
    let from_files: String = tokens
        .names
        .iter()
        .map(|n| format!(" --from-file={n}={n}"))
        .collect();
    let files: String = tokens.names.iter().map(|n| format!(" {n}")).collect();
    let prompts: String = tokens
        .names
        .iter()
        .map(|n| {
            format!("#   (umask 077 && read -rs -p '{n} token: ' t && printf '%s' \"$t\" > {n})\n")
        })
        .collect();
    let header_old = format!(
        "#   kubectl create configmap dnscron --from-literal=api-url=https://api.example.net/api/v1\n\
         #   (umask 077 && read -rs -p 'apply token: ' t && printf '%s' \"$t\" > token)\n\
         #   kubectl create secret generic {name} --from-file=token=token && rm token\n"
    );
    let header_new = format!(
        "# (each account's API URL comes from dnscron-accounts.yaml; its token from the Secret's\n\
         # key named after the account):\n\
         {prompts}#   kubectl create secret generic {name}{from_files} &&{files_rm}\n",
        files_rm = files.replacen(' ', " rm ", 1)
    );
    let webhook_old = format!(
        "#   kubectl create secret generic {name} --from-file=token=token \\\n\
         #     --from-file=webhook-url=webhook-url && rm token webhook-url\n"
    );
    let webhook_new = format!(
        "#   kubectl create secret generic {name}{from_files} \\\n\
         #     --from-file=webhook-url=webhook-url && rm{files} webhook-url\n"
    );
    let args_old = "            - --token-file\n            - /var/run/secrets/dnscron/token\n";
    let env_old = "          env:\n            - name: DNSCRON_API_URL\n              valueFrom:\n                configMapKeyRef: { name: dnscron, key: api-url }\n";
    let env_new: String = match tokens.env.is_empty() {
        true => String::new(),
        false => std::iter::once(
            "          # Tokens named by token_env in dnscron-accounts.yaml, each from its account's key.\n          env:\n"
                .to_owned(),
        )
        .chain(tokens.env.iter().map(|(var, account)| {
            format!(
                "            - name: {var}\n              valueFrom:\n                secretKeyRef: {{ name: {name}, key: {account} }}\n"
            )
        }))
        .collect(),
    };
    let mount_old =
        "            - { name: secrets, mountPath: /var/run/secrets/dnscron, readOnly: true }\n";
    let mounts_new: String = std::iter::once(mount_old.to_owned())
        .chain(tokens.files.keys().enumerate().map(|(i, dir)| {
            format!(
                "            - {{ name: tokens-{}, mountPath: {dir}, readOnly: true }}\n",
                i + 1
            )
        }))
        .collect();
    let token_source = format!(
        "              - secret:\n                  name: {name}\n                  items: [{{ key: token, path: token }}]\n"
    );
    let webhook_source = format!(
        "              - secret:\n                  name: {name}\n                  items: [{{ key: webhook-url, path: webhook-url }}]\n                  optional: true\n"
    );
    let volumes_new: String = std::iter::once(webhook_source.clone())
        .chain(tokens.files.values().enumerate().map(|(i, files)| {
            let items: Vec<String> = files
                .iter()
                .map(|(file, account)| format!("{{ key: {account}, path: {file} }}"))
                .collect();
            format!(
                "        # Tokens named by token_file in dnscron-accounts.yaml, each from its account's key.\n        - name: tokens-{}\n          projected:\n            sources:\n              - secret:\n                  name: {name}\n                  items: [{}]\n",
                i + 1,
                items.join(", ")
            )
        }))
        .collect();
    let volumes_comment_old = "        # The token is required: without it the pod does not start. The webhook URL is\n        # optional: without the key its file is absent and no webhook is sent.\n";
    let volumes_comment_new = "        # The webhook URL is optional: without the key its file is absent and no webhook is\n        # sent. Each account's token is required: without it the pod does not start.\n";
    let sources_old = "The API URL comes from the same\n# ConfigMap as the drift CronJob's, the token from a Secret mounted as a file.";
    let sources_new = "Each account's API URL comes\n# from dnscron-accounts.yaml, its token from the Secret's key named after the account.";
    let replacements = [
        (sources_old, sources_new),
        (header_old.as_str(), header_new.as_str()),
        (webhook_old.as_str(), webhook_new.as_str()),
        (args_old, ""),
        (env_old, env_new.as_str()),
        (mount_old, mounts_new.as_str()),
        (token_source.as_str(), ""),
        (webhook_source.as_str(), volumes_new.as_str()),
        (volumes_comment_old, volumes_comment_new),
    ];
    let mut out = kit.to_owned();
    for (old, new) in replacements {
        debug_assert_eq!(out.matches(old).count(), 1, "{old}");
        out = out.replacen(old, new, 1);
    }
    out.replace(
        "keeps the account in step with the\n# repository's",
        "keeps each account of dnscron-accounts.yaml in\n# step with the repository's",
    )
}
