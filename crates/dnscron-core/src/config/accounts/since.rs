//! Where an account's token may go when a plan is limited to what changed since a revision.
//!
//! A pull request's files say which API each account's token is sent to, and the pull request
//! is not yet reviewed: its check may send a token only where the revision it is compared with
//! (the reviewed base) already sends it. So each account of the files now is compared with the
//! account of the same name at that revision: the same token source at the same API URL (both
//! normalized as a plan records them) is trusted; a new account, or one whose URL or token
//! source moved, is not (docs/file-format.md, "Accounts").

use super::{Account, Accounts, TokenSource};

/// How an account of the files now stands against the accounts file of a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Its entry is the one the revision holds.
    Same,
    /// Its entry changed (its folder), its token still going to the same API: its folder is
    /// no longer the one the revision's files describe, so it is planned whole.
    Changed,
    /// The revision declares no account of that name (or has no accounts file).
    New,
    /// The revision pairs its name with another API URL or token source: each is `Some` (what
    /// the revision held) when it moved.
    Moved {
        api_url: Option<String>,
        token: Option<TokenSource>,
    },
}

impl Standing {
    /// Whether the revision already sends this account's token to this account's API.
    pub fn trusted(&self) -> bool {
        match self {
            Standing::Same | Standing::Changed => true,
            Standing::New | Standing::Moved { .. } => false,
        }
    }
}

/// `account` (of the files now) against `then`, the accounts file at the revision (`None`: it
/// had none, so every account is new).
pub fn standing(account: &Account, then: Option<&Accounts>) -> Standing {
    let Some(was) = then.and_then(|t| t.accounts.iter().find(|a| a.name == account.name)) else {
        return Standing::New;
    };
    let api_url = (!same_url(&was.api_url, &account.api_url)).then(|| was.api_url.clone());
    let token = (was.token != account.token).then(|| was.token.clone());
    if api_url.is_some() || token.is_some() {
        return Standing::Moved { api_url, token };
    }
    if was.folder == account.folder {
        Standing::Same
    } else {
        Standing::Changed
    }
}

/// Two URLs as the client normalizes them (the form a plan records); written text when one
/// does not parse (then only the same text is the same URL).
fn same_url(a: &str, b: &str) -> bool {
    let normal = |u: &str| {
        dnscron_api::parse_base_url(u).map_or_else(|_| u.trim().to_string(), |u| u.to_string())
    };
    normal(a) == normal(b)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::{Path, PathBuf};

    use super::super::at_revision;
    use super::*;

    fn accounts(text: &str) -> Accounts {
        at_revision(
            text.to_string(),
            Path::new("./dnscron-accounts.yaml"),
            Path::new("."),
            "dnscron-accounts.yaml at main",
        )
        .unwrap()
    }

    fn entry(name: &str, folder: &str, url: &str, token: &str) -> String {
        format!("  - {{ name: {name}, folder: {folder}, api_url: '{url}', {token} }}\n")
    }

    const URL: &str = "https://api.example.net/api/v1";

    fn then() -> Accounts {
        accounts(&format!(
            "accounts:\n{}{}",
            entry("acme", "acme", URL, "token_env: DNSCRON_TOKEN_ACME"),
            entry("shop", "shop", URL, "token_file: secrets/shop"),
        ))
    }

    fn now(acme: &str) -> Account {
        accounts(&format!("accounts:\n{acme}")).accounts.remove(0)
    }

    #[test]
    fn a_revisions_file_loads_though_its_folders_are_gone() {
        let then = then();
        assert_eq!(then.accounts[0].folder, PathBuf::from("./acme"));
        assert_eq!(
            then.accounts[1].token,
            TokenSource::File(PathBuf::from("./secrets/shop"))
        );
    }

    #[test]
    fn a_revisions_invalid_file_is_located_under_the_name_given() {
        let err = at_revision(
            "accounts:\n  - { name: Acme, folder: acme, api_url: 'x', token_env: T }\n".into(),
            Path::new("./dnscron-accounts.yaml"),
            Path::new("."),
            "dnscron-accounts.yaml at main",
        )
        .unwrap_err();
        let at = err.items[0].location.as_ref().unwrap();
        assert_eq!(&*at.file, Path::new("dnscron-accounts.yaml at main"));
        assert_eq!(err.items.len(), 2, "the name and the URL: {err:?}");
    }

    #[test]
    fn the_same_token_at_the_same_url_is_trusted() {
        let then = then();
        let same = now(&entry("acme", "acme", URL, "token_env: DNSCRON_TOKEN_ACME"));
        assert_eq!(standing(&same, Some(&then)), Standing::Same);
        // Spelled otherwise, normalized alike (an upper-case host, the default port).
        let spelled = now(&entry(
            "acme",
            "./acme",
            "https://API.example.net:443/api/v1",
            "token_env: DNSCRON_TOKEN_ACME",
        ));
        assert_eq!(standing(&spelled, Some(&then)), Standing::Same);
        assert!(standing(&spelled, Some(&then)).trusted());
    }

    #[test]
    fn a_renamed_folder_is_trusted_and_planned_whole() {
        let then = then();
        let moved = now(&entry(
            "acme",
            "customers/acme",
            URL,
            "token_env: DNSCRON_TOKEN_ACME",
        ));
        assert_eq!(standing(&moved, Some(&then)), Standing::Changed);
        assert!(standing(&moved, Some(&then)).trusted());
    }

    #[test]
    fn a_moved_url_or_token_source_is_not_trusted() {
        let then = then();
        let other = "https://evil.example/api/v1";
        let url = now(&entry(
            "acme",
            "acme",
            other,
            "token_env: DNSCRON_TOKEN_ACME",
        ));
        assert_eq!(
            standing(&url, Some(&then)),
            Standing::Moved {
                api_url: Some(URL.into()),
                token: None
            }
        );
        let token = now(&entry("acme", "acme", URL, "token_env: DNSCRON_TOKEN_SHOP"));
        assert_eq!(
            standing(&token, Some(&then)),
            Standing::Moved {
                api_url: None,
                token: Some(TokenSource::Env("DNSCRON_TOKEN_ACME".into()))
            }
        );
        let both = now(&entry("acme", "acme", other, "token_file: secrets/shop"));
        assert!(matches!(
            standing(&both, Some(&then)),
            Standing::Moved {
                api_url: Some(_),
                token: Some(_)
            }
        ));
        assert!(!standing(&both, Some(&then)).trusted());
    }

    #[test]
    fn a_new_account_is_not_trusted_even_with_a_known_pair() {
        let then = then();
        // acme's own token and URL, under a new name: the revision never sent it as `evil`.
        let evil = now(&entry("evil", "evil", URL, "token_env: DNSCRON_TOKEN_ACME"));
        assert_eq!(standing(&evil, Some(&then)), Standing::New);
        let acme = now(&entry("acme", "acme", URL, "token_env: DNSCRON_TOKEN_ACME"));
        assert_eq!(standing(&acme, None), Standing::New);
        assert!(!Standing::New.trusted());
    }
}
