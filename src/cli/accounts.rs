//! `--account NAME` and the accounts of a repository (`dnscron-accounts.yaml`): which folders a
//! command reads, and which API and token each one talks to.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::cli::api_args::ApiArgs;
use crate::cli::error::{CommandError, ErrorKind};
use dnscron_api::{ApiConfig, Token, check_url_policy, parse_base_url};
use dnscron_core::config::Diagnostics;
use dnscron_core::config::accounts::{self, Account, Accounts, TokenSource, UnknownAccount};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct AccountArgs {
    /// In a repository of several accounts (dnscron-accounts.yaml at the root of PATH), only
    /// this account; repeat for several. Default: every account.
    #[arg(long = "account", value_name = "NAME")]
    pub accounts: Vec<String>,
}

/// What a command's PATHs are: the files of one account (its API from the flags), or a
/// repository of several, of which `chosen` are the ones `--account` picked.
#[derive(Debug)]
pub(crate) enum Repository {
    One {
        paths: Vec<PathBuf>,
    },
    Many {
        accounts: Accounts,
        chosen: Vec<String>,
    },
}

impl Repository {
    /// Reads `dnscron-accounts.yaml` if `paths` hold one; invalid → every problem, located.
    pub(crate) fn discover(
        paths: &[PathBuf],
        args: &AccountArgs,
    ) -> Result<Repository, RepositoryError> {
        match accounts::discover(paths).map_err(RepositoryError::Invalid)? {
            None if args.accounts.is_empty() => Ok(Repository::One {
                paths: paths.to_vec(),
            }),
            None => Err(RepositoryError::NoAccounts {
                paths: paths.to_vec(),
            }),
            Some(accounts) => {
                let chosen = accounts
                    .select(&args.accounts)
                    .map_err(RepositoryError::Unknown)?
                    .into_iter()
                    .map(|a| a.name.clone())
                    .collect();
                Ok(Repository::Many { accounts, chosen })
            }
        }
    }

    /// [`Repository::discover`] for a command that talks to the API: beside an accounts file,
    /// `--api-url`, DNSCRON_API_URL and `--token-file` are one usage error before anything is
    /// read or sent, not one refusal per account.
    pub(crate) fn discover_for_api(
        paths: &[PathBuf],
        args: &AccountArgs,
        api: &ApiArgs,
    ) -> Result<Repository, CommandError> {
        let repository =
            Repository::discover(paths, args).map_err(RepositoryError::into_command_error)?;
        if let Repository::Many { accounts, chosen } = &repository {
            refuse_api_flags(api)?;
            if chosen.len() < accounts.accounts.len() {
                super::trust::chosen_against_the_rest(accounts, chosen, api)?;
            }
        }
        Ok(repository)
    }

    /// The folders to read, each group loaded on its own: the PATHs for a repository of one,
    /// each chosen account's folder for one of several (an account's files never meet
    /// another's: record sets, `unmanaged:` and duplicates stay inside one account).
    pub(crate) fn folder_groups(&self) -> Vec<Vec<PathBuf>> {
        match self {
            Repository::One { paths } => vec![paths.clone()],
            Repository::Many { .. } => self
                .chosen()
                .into_iter()
                .map(|a| vec![a.folder.clone()])
                .collect(),
        }
    }

    /// The chosen accounts, in the file's order; none for a repository of one.
    pub(crate) fn chosen(&self) -> Vec<&Account> {
        match self {
            Repository::One { .. } => Vec::new(),
            Repository::Many { accounts, chosen } => accounts
                .accounts
                .iter()
                .filter(|a| chosen.contains(&a.name))
                .collect(),
        }
    }
}

#[derive(Debug)]
pub(crate) enum RepositoryError {
    Invalid(Diagnostics),
    Unknown(UnknownAccount),
    NoAccounts { paths: Vec<PathBuf> },
}

impl RepositoryError {
    /// Worded for the terminal; an invalid accounts file is drawn like invalid desired-state
    /// files (each problem at its place, on stderr).
    pub(crate) fn into_command_error(self) -> CommandError {
        match self {
            RepositoryError::Invalid(diags) => crate::cli::validate::report_diagnostics(&diags),
            RepositoryError::Unknown(err) => {
                let known = err.known.join(", ");
                CommandError::from_error(ErrorKind::User, err)
                    .with_hint(format!("the accounts are: {known}"))
            }
            RepositoryError::NoAccounts { paths } => CommandError::user(format!(
                "--account chooses among the accounts of {}, and {} holds none",
                accounts::ACCOUNTS_FILE,
                paths
                    .iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .with_hint(format!(
                "run from the folder that holds {}, or drop --account",
                accounts::ACCOUNTS_FILE
            )),
        }
    }
}

/// The client settings of one account: its own URL and token, the flags' waits and timeouts.
/// A URL or token file given on the command line (or DNSCRON_API_URL) is refused rather than
/// chosen over the file's: which token goes to which API is the file's to say.
pub(crate) fn api_config(account: &Account, api: &ApiArgs) -> Result<ApiConfig, CommandError> {
    // Refused once by `discover_for_api`; kept here so no path can send a flag's token.
    refuse_api_flags(api)?;
    let in_account = |err: CommandError| in_account(err, account);
    // Refusals of the URL itself point at the line that gives it.
    let at_url = |e: dnscron_api::ApiError| {
        in_account(CommandError::from(e).with_context(&api_url_place(account)))
    };
    let base_url = parse_base_url(&account.api_url).map_err(at_url)?;
    check_url_policy(&base_url, api.allow_insecure_http).map_err(|e| {
        at_url(e).with_hint(format!(
            "write https:// in account `{}`'s `api_url` ({}), or pass --allow-insecure-http if \
             this network is trusted",
            account.name,
            api_url_place(account)
        ))
    })?;
    let token = match &account.token {
        TokenSource::Env(name) => Token::from_env_var(name),
        TokenSource::File(path) => Token::from_file(path),
    }
    .map_err(|e| in_account(e.into()))?;
    let mut config = ApiConfig::new(base_url.as_str(), token).map_err(|e| in_account(e.into()))?;
    config.allow_insecure_http = api.allow_insecure_http;
    config.max_wait = api.max_wait;
    config.request_timeout = api.timeout;
    config.on_retry = Some(super::retries::account_hook(&account.name));
    Ok(config)
}

/// A URL or token file given beside the accounts file: which token goes to which API is the
/// file's to say.
pub(crate) fn refuse_api_flags(api: &ApiArgs) -> Result<(), CommandError> {
    let url = api.api_url.as_deref().is_some_and(|u| !u.trim().is_empty());
    let given: Vec<&str> = [
        (url, "--api-url or DNSCRON_API_URL"),
        (api.token_file.is_some(), "--token-file"),
    ]
    .into_iter()
    .filter_map(|(given, name)| given.then_some(name))
    .collect();
    if !given.is_empty() {
        return Err(CommandError::user(format!(
            "{} names each account's API URL and token, and {} was given beside it; \
             nothing was read or sent",
            accounts::ACCOUNTS_FILE,
            given.join(" and ")
        ))
        .with_hint(
            "unset DNSCRON_API_URL and drop --api-url and --token-file: each account's \
             `api_url` and `token_env`/`token_file` say where its token goes",
        ));
    }
    Ok(())
}

/// The files a suggested command acts on, named so that the command works where this one ran:
/// one account's folder by its path; an account of a repository by `--account NAME` (its folder
/// alone names no API URL, so `dnscron plan <its folder>` would fail).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Named<'a> {
    Folder(&'a Path),
    Account { root: &'a Path, name: &'a str },
}

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = |p: &Path| dnscron_api::untrusted::escape(&p.display().to_string()).into_owned();
        match self {
            Named::Folder(folder) => write!(f, "{}", path(folder)),
            Named::Account { root, name } if *root == Path::new(".") => {
                write!(f, "--account {name}")
            }
            Named::Account { root, name } => write!(f, "{} --account {name}", path(root)),
        }
    }
}

/// Where an account's token comes from, as a hint names it: its variable's name or its file,
/// and where the accounts file says so (`DNSCRON_TOKEN_SHOP (./dnscron-accounts.yaml:9:16)`).
pub(crate) fn token_source(account: &Account) -> String {
    let source = match &account.token {
        TokenSource::Env(name) => name.clone(),
        TokenSource::File(path) => {
            dnscron_api::untrusted::escape(&path.display().to_string()).into_owned()
        }
    };
    format!("{source} ({})", account.token_location)
}

/// Where the accounts file gives an account's API URL, as a hint names it.
pub(crate) fn api_url_place(account: &Account) -> String {
    account.api_url_location.to_string()
}

/// `err` about `account`, one of several: named by it, a hint about the token naming the
/// account's own token source instead of DNSCRON_TOKEN and --token-file.
pub(crate) fn in_account(err: CommandError, account: &Account) -> CommandError {
    err.in_account(
        &account.name,
        &token_source(account),
        &api_url_place(account),
    )
}
