//! Where a token may go over several accounts (docs/file-format.md, "Accounts"): under
//! `--changed-since REF` an account is sent its token only where REF's accounts file already
//! sends it (`accounts::since`), and two entries never hold one token for one API.

use dnscron_api::ApiConfig;
use dnscron_api::untrusted::escape;
use dnscron_core::config::accounts::since::{Standing, standing};
use dnscron_core::config::accounts::{ACCOUNTS_FILE, Account, Accounts, TokenSource};

use crate::cli::api_args::ApiArgs;
use crate::cli::error::CommandError;
use crate::cli::{accounts, changed};

/// How a scoped plan or apply treats one account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Trust {
    /// Its entry is REF's: scoped by its files that changed.
    Scoped,
    /// Its entry changed since REF, its token going where REF sends it: planned whole.
    Whole,
    /// REF does not send its token to its API URL: what moved (`its API URL changed since
    /// `main` (was …, now …)`).
    Untrusted(String),
}

/// Why a scoped plan sends `what` (a [`Trust::Untrusted`]'s words) nothing, and what happens
/// to it instead.
pub(crate) fn not_planned(what: &str, since: &str) -> String {
    format!(
        "{what}: its token goes only where `{since}` already sends it, so nothing was sent; it \
         is planned on merge, by apply, against the reviewed files"
    )
}

/// Each chosen account's standing against the accounts file at `since`.
pub(crate) fn against(
    accounts: &Accounts,
    chosen: &[&Account],
    since: &str,
) -> Result<Vec<Trust>, CommandError> {
    let then = changed::accounts_then(accounts, since)?;
    Ok(chosen
        .iter()
        .map(|account| match &then {
            Err(problems) => Trust::Untrusted(format!(
                "{ACCOUNTS_FILE} at `{since}` does not load ({} problem(s), first: {})",
                problems.items.len(),
                problems
                    .items
                    .first()
                    .map_or_else(String::new, |d| escape(&d.message).into_owned())
            )),
            Ok(then) => match standing(account, then.as_ref()) {
                Standing::Same => Trust::Scoped,
                Standing::Changed => Trust::Whole,
                Standing::New if then.is_none() => {
                    Trust::Untrusted(format!("`{since}` has no {ACCOUNTS_FILE}"))
                }
                Standing::New => Trust::Untrusted(format!(
                    "the account is new since `{since}` (its {ACCOUNTS_FILE} has none of that \
                     name)"
                )),
                Standing::Moved { api_url, token } => {
                    Trust::Untrusted(moved(account, since, api_url, token))
                }
            },
        })
        .collect())
}

fn moved(
    account: &Account,
    since: &str,
    api_url: Option<String>,
    token: Option<TokenSource>,
) -> String {
    let url = api_url.map(|was| {
        format!(
            "its API URL changed since `{since}` (was {}, now {})",
            escape(&was),
            escape(&account.api_url)
        )
    });
    let token = token.map(|was| {
        format!(
            "its token source changed since `{since}` (was {}, now {})",
            source(&was),
            source(&account.token)
        )
    });
    match (url, token) {
        (Some(url), Some(token)) => format!("{url}, and {token}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => format!("its entry changed since `{since}`"),
    }
}

fn source(token: &TokenSource) -> String {
    match token {
        TokenSource::Env(name) => format!("`token_env: {name}`"),
        TokenSource::File(path) => format!("`token_file: {}`", escape(&path.display().to_string())),
    }
}

/// Refuses two accounts whose tokens, read, are the same secret for the same API: one live
/// account would be planned (or applied) twice, each entry believing it alone manages it.
pub(crate) fn one_account_per_token(read: &[(&Account, &ApiConfig)]) -> Result<(), CommandError> {
    match first_repeat(read, |_, _| true) {
        Some((a, b)) => Err(repeated(a, b)),
        None => Ok(()),
    }
}

/// With `--account`, a chosen entry that repeats one not chosen (one token, one API) is one live
/// account under two names, refused as if both were chosen; tokens are read for this check
/// alone, an entry whose token can't be read left out.
pub(crate) fn chosen_against_the_rest(
    all: &Accounts,
    chosen: &[String],
    api: &ApiArgs,
) -> Result<(), CommandError> {
    let configs: Vec<(&Account, ApiConfig)> = all
        .accounts
        .iter()
        .filter_map(|account| {
            accounts::api_config(account, api)
                .ok()
                .map(|config| (account, config))
        })
        .collect();
    let read: Vec<(&Account, &ApiConfig)> = configs.iter().map(|(a, c)| (*a, c)).collect();
    let counts = |a: &Account, b: &Account| chosen.contains(&a.name) || chosen.contains(&b.name);
    match first_repeat(&read, counts) {
        Some((a, b)) => Err(repeated(a, b)),
        None => Ok(()),
    }
}

/// The first two entries (in the file's order) that `counts` and that hold one secret for one
/// API (a URL's trailing `/` is no other API).
fn first_repeat<'a>(
    read: &[(&'a Account, &ApiConfig)],
    counts: impl Fn(&Account, &Account) -> bool,
) -> Option<(&'a Account, &'a Account)> {
    let api = |c: &ApiConfig| c.base_url.as_str().trim_end_matches('/').to_owned();
    for (i, (a, config_a)) in read.iter().enumerate() {
        for (b, config_b) in &read[..i] {
            if counts(b, a)
                && api(config_a) == api(config_b)
                && config_a.token.same_secret(&config_b.token)
            {
                return Some((b, a));
            }
        }
    }
    None
}

fn repeated(b: &Account, a: &Account) -> CommandError {
    CommandError::user(format!(
        "accounts `{}` ({}) and `{}` ({}) hold the same token for the same API: one account \
         would be planned twice",
        b.name, b.location, a.name, a.location
    ))
    .with_hint(format!(
        "one live account is one entry of {ACCOUNTS_FILE}: remove the entry that repeats it, or \
         give each entry the token of its own account"
    ))
}

/// [`one_account_per_token`] over the chosen accounts' tokens, read for this check alone (a
/// command that reads each account on its own thread checks them all first); an account whose
/// token can't be read is left to its own error.
pub(crate) fn one_token_each(chosen: &[&Account], api: &ApiArgs) -> Result<(), CommandError> {
    let configs: Vec<(&Account, ApiConfig)> = chosen
        .iter()
        .filter_map(|account| {
            accounts::api_config(account, api)
                .ok()
                .map(|config| (*account, config))
        })
        .collect();
    let read: Vec<(&Account, &ApiConfig)> = configs.iter().map(|(a, c)| (*a, c)).collect();
    one_account_per_token(&read)
}
