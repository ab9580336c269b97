//! One controller over the accounts of a repository (`dnscron-accounts.yaml`,
//! docs/controller.md "Several accounts"): each account is a [`Controller`](super::Controller)
//! of its own (its client and pacer, its state file, its rounds, backoff and suspension), run
//! side by side, so one account's outage, broken files or suspension holds back no other.
//!
//! What is decided here: where each account keeps its state and its suspend file, and what an
//! edit of the accounts file does to the accounts running ([`compare`]). An account added
//! starts; one removed stops; one whose folder, API URL or token source changed keeps running
//! as it started and is reported until a restart (its state file and its pod's token mounts
//! belong to what it started with: a token must never follow a changed URL unseen).

use std::path::{Path, PathBuf};

use crate::config::accounts::{Account, Accounts};

/// `base` with the account's name before its extension: `/state/controller.json` →
/// `/state/controller.acme.json`; `/state/suspend` → `/state/suspend.acme`. Account names are
/// DNS labels (checked when the accounts file is read), so the name is a safe file name part.
pub fn per_account_path(base: &Path, account: &str) -> PathBuf {
    let stem = base
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match base.extension() {
        Some(ext) => format!("{stem}.{account}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{account}"),
    };
    base.with_file_name(name)
}

/// What of an account's entry changed: each needs a restart to take effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AccountField {
    Folder,
    ApiUrl,
    Token,
}

impl AccountField {
    /// The accounts file's key, as `/status` and the logs name it.
    pub fn key(self) -> &'static str {
        match self {
            AccountField::Folder => "folder",
            AccountField::ApiUrl => "api_url",
            AccountField::Token => "token",
        }
    }
}

/// What an edit of the accounts file does to the accounts running.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountsChange {
    /// New entries (among the chosen, when `--account` chose some): they start.
    pub added: Vec<Account>,
    /// Entries gone: they stop (the write in flight finishes first).
    pub removed: Vec<String>,
    /// Entries whose folder, API URL or token source changed: they keep running as they started
    /// until a restart; reported meanwhile.
    pub restart_required: Vec<(String, Vec<AccountField>)>,
}

impl AccountsChange {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.restart_required.is_empty()
    }
}

/// From the accounts `running` to the file's new `now`. `chosen` (the `--account` names; empty:
/// every account) bounds what starts: a controller told to run some accounts never starts
/// another one the file gains.
pub fn compare(running: &[Account], now: &Accounts, chosen: &[String]) -> AccountsChange {
    let wanted = |name: &str| chosen.is_empty() || chosen.iter().any(|c| c == name);
    let mut change = AccountsChange::default();
    for account in &now.accounts {
        match running.iter().find(|r| r.name == account.name) {
            None if wanted(&account.name) => change.added.push(account.clone()),
            None => {}
            Some(old) => {
                let fields: Vec<AccountField> = [
                    (old.folder != account.folder, AccountField::Folder),
                    (old.api_url != account.api_url, AccountField::ApiUrl),
                    (old.token != account.token, AccountField::Token),
                ]
                .into_iter()
                .filter_map(|(differs, field)| differs.then_some(field))
                .collect();
                if !fields.is_empty() {
                    change.restart_required.push((account.name.clone(), fields));
                }
            }
        }
    }
    change.removed = running
        .iter()
        .filter(|r| !now.accounts.iter().any(|a| a.name == r.name))
        .map(|r| r.name.clone())
        .collect();
    change
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::accounts::TokenSource;
    use crate::config::model::Location;

    fn account(name: &str, url: &str, env: &str) -> Account {
        Account {
            name: name.into(),
            folder: PathBuf::from(format!("./{name}")),
            api_url: url.into(),
            token: TokenSource::Env(env.into()),
            location: Location {
                file: std::sync::Arc::from(Path::new("dnscron-accounts.yaml")),
                line: 1,
                col: 1,
            },
            token_location: Location {
                file: std::sync::Arc::from(Path::new("dnscron-accounts.yaml")),
                line: 5,
                col: 16,
            },
        }
    }

    fn file(accounts: Vec<Account>) -> Accounts {
        Accounts {
            file: PathBuf::from("./dnscron-accounts.yaml"),
            root: PathBuf::from("."),
            accounts,
        }
    }

    #[test]
    fn state_and_suspend_files_carry_the_account_name() {
        assert_eq!(
            per_account_path(Path::new("/state/controller.json"), "acme"),
            PathBuf::from("/state/controller.acme.json")
        );
        assert_eq!(
            per_account_path(Path::new("/state/suspend"), "shop-staging"),
            PathBuf::from("/state/suspend.shop-staging")
        );
    }

    #[test]
    fn an_unchanged_file_changes_nothing() {
        let a = account("a", "https://a.example/api/v1", "T_A");
        assert!(compare(std::slice::from_ref(&a), &file(vec![a.clone()]), &[]).is_empty());
    }

    #[test]
    fn added_accounts_start_removed_stop_changed_wait_for_a_restart() {
        let a = account("a", "https://a.example/api/v1", "T_A");
        let b = account("b", "https://b.example/api/v1", "T_B");
        let c = account("c", "https://c.example/api/v1", "T_C");
        let mut a_moved = account("a", "https://evil.example/api/v1", "T_X");
        a_moved.folder = PathBuf::from("./elsewhere");
        let change = compare(&[a, b], &file(vec![a_moved, c.clone()]), &[]);
        assert_eq!(change.added, vec![c]);
        assert_eq!(change.removed, vec!["b".to_string()]);
        assert_eq!(
            change.restart_required,
            vec![(
                "a".to_string(),
                vec![
                    AccountField::Folder,
                    AccountField::ApiUrl,
                    AccountField::Token
                ]
            )]
        );
    }

    #[test]
    fn an_account_added_outside_the_chosen_ones_does_not_start() {
        let a = account("a", "https://a.example/api/v1", "T_A");
        let c = account("c", "https://c.example/api/v1", "T_C");
        let change = compare(
            std::slice::from_ref(&a),
            &file(vec![a.clone(), c]),
            &["a".to_string()],
        );
        assert!(change.is_empty());
    }
}
