//! A repository of several hosting accounts: `dnscron-accounts.yaml` at the root of the folder
//! a command is given names each account, its folder, its API and where its token comes from.
//!
//! Found before any desired-state file is read: with it, each account's folder is loaded on its
//! own (as if a command were given that folder alone), so record sets, `unmanaged:` lists and
//! duplicate checks stay inside one account, and a file can't belong to two. What the file
//! holds decides where a token may go, so it is checked whole before anything is read from an
//! API: an account's token is only ever sent to that account's `api_url`.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::diagnostics::{Diagnostic, Diagnostics, SourceFile};
use super::extract::{self, Ctx, Streamed};
use super::load::{syntax_diagnostic, walk};
use super::model::Location;
use super::raw::{self, Sp};
use super::tree::{self, Pos};

/// The file that makes a folder a repository of several accounts.
pub const ACCOUNTS_FILE: &str = "dnscron-accounts.yaml";

/// Longest account name: a DNS label's, so a name fits a metric label, a file name and a
/// Kubernetes object name.
const MAX_NAME_LEN: usize = 63;

/// The accounts of a repository, in the order the file lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accounts {
    /// `dnscron-accounts.yaml` itself.
    pub file: PathBuf,
    /// The folder that holds it; every account's folder is inside.
    pub root: PathBuf,
    pub accounts: Vec<Account>,
}

/// One hosting account of a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    /// Its folder, joined to the repository's root (`./acme` when the root is `.`).
    pub folder: PathBuf,
    /// Base URL of its API, as written (its policy, https or loopback, is checked where the
    /// client is built).
    pub api_url: String,
    pub token: TokenSource,
    /// Where the file declares it.
    pub location: Location,
    /// Where the file names its token source (the `token_env` or `token_file` value): what a
    /// refused token's hint points at.
    pub token_location: Location,
    /// Where the file gives its `api_url`: what a hint about the URL (or its refusal) points at.
    pub api_url_location: Location,
}

/// Where an account's token comes from; never the token itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TokenSource {
    /// An environment variable's name.
    Env(String),
    /// A file (absolute, or joined to the repository's root).
    File(PathBuf),
}

/// `--account NAME` named no account of the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no account `{name}` in {file}")]
pub struct UnknownAccount {
    pub name: String,
    pub file: PathBuf,
    /// The names the file declares, in its order.
    pub known: Vec<String>,
}

impl Accounts {
    /// The accounts `names` choose, in the file's order; every account when `names` is empty.
    pub fn select(&self, names: &[String]) -> Result<Vec<&Account>, UnknownAccount> {
        if let Some(unknown) = names
            .iter()
            .find(|n| !self.accounts.iter().any(|a| &a.name == *n))
        {
            return Err(UnknownAccount {
                name: unknown.clone(),
                file: self.file.clone(),
                known: self.accounts.iter().map(|a| a.name.clone()).collect(),
            });
        }
        Ok(self
            .accounts
            .iter()
            .filter(|a| names.is_empty() || names.contains(&a.name))
            .collect())
    }
}

/// The accounts file that `paths` (a command's PATH arguments) name, checked whole, or `None`
/// when no path holds one (the files then belong to the one account the command's flags name).
/// A path holds one when it is that file, or a folder with it at its root.
pub fn discover(paths: &[PathBuf]) -> Result<Option<Accounts>, Diagnostics> {
    let found: Vec<PathBuf> = paths.iter().filter_map(|p| accounts_file_of(p)).collect();
    let Some(file) = found.first() else {
        return Ok(None);
    };
    let root = file
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let root = if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    };
    let mut diags = Diagnostics::default();
    if paths.len() > 1 {
        diags.push(
            Diagnostic::general(format!(
                "`{}` declares the accounts of everything under `{}`, so it is given alone",
                file.display(),
                root.display()
            ))
            .with_hint(
                "pass only that folder: a command given it chooses among its accounts by name",
            ),
        );
        diags.sort();
        return Err(diags);
    }
    // The file that says where each token goes is compared, under `--changed-since`, with the
    // revision's file of the same name; a link would let a change point it at another file.
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
        diags.push(
            Diagnostic::general(format!(
                "`{}` is a symbolic link: the file that says where each account's token goes \
                 is a file of the repository at its own path",
                file.display()
            ))
            .with_hint("replace the link with the file it points to"),
        );
        return Err(diags);
    }
    let accounts = read(file, &root, &mut diags);
    if diags.is_empty()
        && let Some(accounts) = &accounts
    {
        check_every_file_has_an_account(accounts, &mut diags);
    }
    match accounts {
        Some(accounts) if diags.is_empty() => Ok(Some(accounts)),
        Some(_) | None => {
            diags.sort();
            Err(diags)
        }
    }
}

fn accounts_file_of(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return (path.file_name()? == ACCOUNTS_FILE).then(|| path.to_path_buf());
    }
    let file = path.join(ACCOUNTS_FILE);
    (path.is_dir() && file.is_file()).then_some(file)
}

/// The accounts file as a revision held it (`text`, its path now `file`, under `root`),
/// checked as [`discover`] checks it except that the folders it names need not exist now: what
/// it says about each account (its folder, its API URL, its token source) is what a scoped plan
/// compares the files now with (see [`since`]). `shown_as` names it in a problem's location
/// (e.g. `dnscron-accounts.yaml at main`).
pub fn at_revision(
    text: String,
    file: &Path,
    root: &Path,
    shown_as: &str,
) -> Result<Accounts, Diagnostics> {
    let mut diags = Diagnostics::default();
    let source = Arc::new(SourceFile::new(Path::new(shown_as).into(), text));
    let accounts = parse(&source, file, root, Folders::AsWritten, &mut diags);
    match accounts {
        Some(accounts) if diags.is_empty() => Ok(accounts),
        Some(_) | None => {
            diags.sort();
            Err(diags)
        }
    }
}

/// Whether an account's folder is checked on disk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Folders {
    /// It exists, inside the root (the files now).
    Exist,
    /// Joined to the root as written (a revision's file, whose folders may be gone).
    AsWritten,
}

fn read(file: &Path, root: &Path, diags: &mut Diagnostics) -> Option<Accounts> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(err) => {
            diags.push(Diagnostic::general(format!(
                "cannot read `{}`: {err}",
                file.display()
            )));
            return None;
        }
    };
    let source = Arc::new(SourceFile::new(file.into(), text));
    parse(&source, file, root, Folders::Exist, diags)
}

fn parse(
    source: &Arc<SourceFile>,
    file: &Path,
    root: &Path,
    folders: Folders,
    diags: &mut Diagnostics,
) -> Option<Accounts> {
    // No accounts document has `records:`: nothing is diverted, every node stays in the tree.
    let nodes = match tree::documents_streaming(&source.text, "records", &mut |_, _| {}) {
        Ok(nodes) => nodes,
        Err(err) => {
            diags.push(syntax_diagnostic(source, err));
            return None;
        }
    };
    let mut docs = Vec::new();
    let mut ctx = Ctx {
        source: Arc::clone(source),
        diags,
    };
    for node in nodes {
        let pos = node.pos;
        match extract::document(&mut ctx, node, Streamed::default()) {
            Some(raw::Document::Accounts(doc)) => docs.push(doc),
            Some(
                raw::Document::Zone(_)
                | raw::Document::Site(_)
                | raw::Document::RecordSet(_)
                | raw::Document::Unmanaged(_),
            ) => {
                ctx.error(
                    pos,
                    format!("`{ACCOUNTS_FILE}` holds only the `accounts:` document"),
                )
                .hint = Some("move zones, sites and record sets into an account's folder".into());
            }
            None => {}
        }
    }
    let mut checker = Checker {
        source,
        root,
        folders,
        diags,
    };
    match docs.as_slice() {
        [] if checker.diags.is_empty() => {
            checker.diags.push(
                Diagnostic::general(format!("`{}` lists no accounts", file.display()))
                    .with_hint("start it with `accounts:` and one entry per account"),
            );
            None
        }
        [doc] => checker.accounts(file, doc),
        [_, second, ..] => {
            checker
                .error(
                    second.pos,
                    format!("`{ACCOUNTS_FILE}` holds one `accounts:` document"),
                )
                .hint = Some("list every account in the first document".into());
            None
        }
        [] => None,
    }
}

struct Checker<'a> {
    source: &'a Arc<SourceFile>,
    root: &'a Path,
    folders: Folders,
    diags: &'a mut Diagnostics,
}

impl Checker<'_> {
    fn error(&mut self, pos: Pos, message: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::at(self.source, pos, message));
        let last = self.diags.items.len() - 1;
        &mut self.diags.items[last]
    }

    fn location(&self, pos: Pos) -> Location {
        Location {
            file: self.source.path.clone(),
            line: pos.line as usize,
            col: pos.col as usize,
        }
    }

    fn accounts(&mut self, file: &Path, doc: &raw::AccountsDoc) -> Option<Accounts> {
        if doc.accounts.is_empty() {
            self.error(doc.pos, "the list of accounts is empty").hint =
                Some("add an entry per account: `{ name, folder, api_url, token_env }`".into());
            return None;
        }
        let errors_before = self.diags.items.len();
        let accounts: Vec<Account> = doc
            .accounts
            .iter()
            .filter_map(|e| self.account(e))
            .collect();
        self.no_two_alike(doc, &accounts);
        (self.diags.items.len() == errors_before).then(|| Accounts {
            file: file.to_path_buf(),
            root: self.root.to_path_buf(),
            accounts,
        })
    }

    fn account(&mut self, entry: &raw::AccountEntry) -> Option<Account> {
        let name = self.name(&entry.name);
        let folder = self.folder(&entry.folder);
        let api_url = self.api_url(&entry.api_url);
        let token = self.token(entry);
        let token_pos = (entry.token_env.as_ref().map(|e| e.pos))
            .or(entry.token_file.as_ref().map(|f| f.pos))
            .unwrap_or(entry.pos);
        Some(Account {
            name: name?,
            folder: folder?,
            api_url: api_url?,
            token: token?,
            location: self.location(entry.pos),
            token_location: self.location(token_pos),
            api_url_location: self.location(entry.api_url.pos),
        })
    }

    fn name(&mut self, name: &Sp<String>) -> Option<String> {
        let value = name.value.as_str();
        let bytes = value.as_bytes();
        let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-';
        let ok = !value.is_empty()
            && value.len() <= MAX_NAME_LEN
            && bytes.iter().all(allowed)
            && !value.starts_with('-')
            && !value.ends_with('-');
        if ok {
            return Some(value.to_string());
        }
        let d = self.error(
            name.pos,
            format!("account name `{value}` is not a valid name"),
        );
        d.label = Some("lower-case letters, digits and `-`".into());
        d.hint = Some(format!(
            "write 1 to {MAX_NAME_LEN} lower-case letters, digits or `-`, not starting or ending \
             with `-` (it becomes a metric label and a file name), e.g. `acme-prod`"
        ));
        None
    }

    /// A folder inside the root, written as a relative path without `..`.
    fn folder(&mut self, folder: &Sp<String>) -> Option<PathBuf> {
        let written = Path::new(folder.value.as_str());
        let plain = !folder.value.trim().is_empty()
            && written
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
            && written
                .components()
                .any(|c| matches!(c, Component::Normal(_)));
        if !plain {
            let d = self.error(
                folder.pos,
                format!(
                    "folder `{}` is not a folder inside `{}`",
                    folder.value,
                    self.root.display()
                ),
            );
            d.label = Some("a relative path without `..`".into());
            d.hint = Some(
                "name a sub-folder of the folder that holds dnscron-accounts.yaml, e.g. \
                 `accounts/acme`"
                    .into(),
            );
            return None;
        }
        let path = self.root.join(written);
        if self.folders == Folders::AsWritten {
            return Some(path);
        }
        if !path.is_dir() {
            self.error(
                folder.pos,
                format!("folder `{}` does not exist", path.display()),
            )
            .hint =
                Some("create it with the account's zone and site files, or fix the path".into());
            return None;
        }
        // A symbolic link could lead out of the repository, where its files are no one's review.
        let inside = match (path.canonicalize(), self.root.canonicalize()) {
            (Ok(real), Ok(root)) => real.starts_with(&root) && real != root,
            (Err(_), _) | (_, Err(_)) => false,
        };
        if !inside {
            self.error(
                folder.pos,
                format!(
                    "folder `{}` leads outside `{}`",
                    path.display(),
                    self.root.display()
                ),
            )
            .hint = Some("an account's files live inside the repository: no link out".into());
            return None;
        }
        Some(path)
    }

    fn api_url(&mut self, url: &Sp<String>) -> Option<String> {
        match dnscron_api::parse_base_url(&url.value) {
            Ok(_) => Some(url.value.trim().to_string()),
            Err(err) => {
                self.error(url.pos, format!("`api_url` is not an API base URL: {err}"))
                    .hint = Some(
                    "write the API's base URL with its version prefix, e.g. \
                     https://api.example.net/api/v1"
                        .into(),
                );
                None
            }
        }
    }

    fn token(&mut self, entry: &raw::AccountEntry) -> Option<TokenSource> {
        match (&entry.token_env, &entry.token_file) {
            (Some(env), None) => self.token_env(env),
            (None, Some(file)) if !file.value.trim().is_empty() => {
                Some(TokenSource::File(self.root.join(file.value.trim())))
            }
            (None, Some(file)) => {
                self.error(file.pos, "`token_file` is empty").hint =
                    Some("name the file that holds the account's token".into());
                None
            }
            (Some(_), Some(file)) => {
                self.error(
                    file.pos,
                    "an account has `token_env` or `token_file`, not both",
                )
                .hint = Some("keep the one that holds this account's token".into());
                None
            }
            (None, None) => {
                let d = self.error(entry.pos, "an account has no `token_env` or `token_file`");
                d.label = Some("where does its token come from?".into());
                d.hint = Some(
                    "add `token_env: DNSCRON_TOKEN_<NAME>` (an environment variable's name) or \
                     `token_file: /path/to/token`; never the token itself"
                        .into(),
                );
                None
            }
        }
    }

    fn token_env(&mut self, env: &Sp<String>) -> Option<TokenSource> {
        let value = env.value.as_str();
        let ok = value
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if ok {
            return Some(TokenSource::Env(value.to_string()));
        }
        let d = self.error(
            env.pos,
            "`token_env` is the name of an environment variable, e.g. `DNSCRON_TOKEN_ACME`",
        );
        d.label = Some("letters, digits and `_`".into());
        d.hint = Some(
            "name the variable that holds the token; the token itself never goes in a file".into(),
        );
        None
    }

    /// Names, folders and token sources are each one account's: a second use names the first.
    fn no_two_alike(&mut self, doc: &raw::AccountsDoc, accounts: &[Account]) {
        let mut names: HashMap<&str, Location> = HashMap::new();
        for entry in &doc.accounts {
            let here = self.location(entry.name.pos);
            if let Some(first) = names.get(entry.name.value.as_str()) {
                let message = format!("account `{}` is listed twice", entry.name.value);
                let hint = format!("first listed at {first}: give each account its own name");
                self.error(entry.name.pos, message).hint = Some(hint);
            } else {
                names.insert(entry.name.value.as_str(), here);
            }
        }
        for (i, a) in accounts.iter().enumerate() {
            for b in &accounts[..i] {
                let (shallow, deep) =
                    if a.folder.components().count() <= b.folder.components().count() {
                        (a, b)
                    } else {
                        (b, a)
                    };
                if deep.folder.starts_with(&shallow.folder) {
                    let message = format!(
                        "accounts `{}` and `{}` share folder `{}`",
                        b.name,
                        a.name,
                        shallow.folder.display()
                    );
                    let hint = format!(
                        "a folder belongs to one account: give `{}` (at {}) a folder of its own, \
                         beside `{}`'s",
                        a.name, a.location, b.name
                    );
                    self.diags
                        .push(Diagnostic::general(message).with_hint(hint));
                }
                if a.token == b.token && same_api(&a.api_url, &b.api_url) {
                    let message = format!(
                        "accounts `{}` and `{}` read the same token from the same place for the \
                         same API",
                        b.name, a.name
                    );
                    self.diags.push(Diagnostic::general(message).with_hint(
                        "one token is one account: give each account its own `token_env` or \
                         `token_file`",
                    ));
                }
            }
        }
    }
}

/// Two API URLs as a client (and a plan) records them: `https://API.example.net:443/api/v1/`
/// is `https://api.example.net/api/v1`.
fn same_api(a: &str, b: &str) -> bool {
    match (
        dnscron_api::parse_base_url(a),
        dnscron_api::parse_base_url(b),
    ) {
        (Ok(a), Ok(b)) => a.as_str().trim_end_matches('/') == b.as_str().trim_end_matches('/'),
        (Ok(_), Err(_)) | (Err(_), Ok(_)) | (Err(_), Err(_)) => a == b,
    }
}

/// Every desired-state file under the root lies in an account's folder: one outside would be
/// read by no command, and a zone in it silently never managed.
fn check_every_file_has_an_account(accounts: &Accounts, diags: &mut Diagnostics) {
    let mut files = Vec::new();
    if let Err(err) = walk(&accounts.root, &mut files, 0) {
        diags.push(Diagnostic::general(format!(
            "cannot read directory `{}`: {err}",
            accounts.root.display()
        )));
        return;
    }
    for file in files {
        let in_an_account = accounts
            .accounts
            .iter()
            .any(|a| file.starts_with(&a.folder));
        let is_the_list = file.file_name().is_some_and(|n| n == ACCOUNTS_FILE)
            && file.parent() == Some(accounts.root.as_path());
        if !in_an_account && !is_the_list {
            diags.push(
                Diagnostic::general(format!("`{}` lies in no account's folder", file.display()))
                    .with_hint(format!(
                        "move it into the folder of the account it belongs to ({}), or add an \
                     account for it in `{}`",
                        accounts
                            .accounts
                            .iter()
                            .map(|a| a.folder.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", "),
                        accounts.file.display()
                    )),
            );
        }
    }
}

pub mod since;

#[cfg(test)]
mod tests;
