//! The one user-facing error type, after jj's `cli/src/command_error.rs`. Library errors carry
//! data and say what happened; this file alone decides each one's kind, words what to do about
//! it (flag names live here, never in the library), and [`exit_code`] alone maps how a command
//! ended to the process exit code.

use std::borrow::Cow;
use std::error::Error;
use std::fmt::{self, Write as _};

use dnscron_api::{ApiError, TokenError};
use dnscron_core::config::changed::ChangedError;
use dnscron_core::controller::AdoptError;
use dnscron_core::dnscheck::{DiscoverError, ResolveError};
use dnscron_core::import::{ImportError, Outside};
use dnscron_core::plan::MakePlanError;
use dnscron_core::plan::PlanError;
use dnscron_core::plan::snapshot::SnapshotError;
use dnscron_core::plan_file::{FromFileError, PlanFileError};
use dnscron_provider::{Endpoint, Scope};

pub type BoxError = Box<dyn Error + Send + Sync>;

/// How a command ended when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// Changes are present and `--detailed-exitcode` was given (drift detection).
    ChangesPresent,
    /// Apply stopped at a change a human has to make in the portal.
    NeedsHumanStep,
    /// `check`: a nameserver serves something other than the files say.
    DnsDiffers,
    /// `fmt --check`: a file is not in canonical form.
    Unformatted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad flags, a missing token, a missing file: the user can fix it.
    User,
    /// The desired-state files are invalid.
    Config,
    /// The API answered with an error or could not be reached.
    Api,
    /// A saved plan no longer matches the live state.
    Stale,
    /// Apply refused a plan that holds a change: an error finding the files give is about what
    /// it writes, and no `accept:` accepts it. Nothing was sent.
    HeldByFinding,
    /// The details were already printed (e.g. every validation error); print nothing more.
    AlreadyReported,
    /// stdout was closed by the reader (`dnscron plan | head`): not a failure.
    BrokenPipe,
    /// A nameserver could not be asked (`check`): the check did not run for it.
    DnsUnreachable,
    /// A bug in dnscron.
    Internal,
    /// Apply stopped on a signal (2 SIGINT, 15 SIGTERM) and reported; exits 128 + the signal,
    /// as a shell reports a process the signal ended.
    Interrupted { signal: u8 },
}

pub type CommandResult = Result<Outcome, CommandError>;

/// The process exit code of every command (docs/apply.md, docs/ci.md): decided here only.
pub fn exit_code(result: &CommandResult) -> u8 {
    match result {
        Ok(Outcome::Success) => 0,
        Ok(Outcome::Unformatted) => 1,
        Ok(Outcome::ChangesPresent | Outcome::DnsDiffers) => 2,
        Ok(Outcome::NeedsHumanStep) => 3,
        Err(err) => match err.kind {
            ErrorKind::BrokenPipe => 0,
            ErrorKind::HeldByFinding => 4,
            ErrorKind::Interrupted { signal } => 128u8.saturating_add(signal),
            ErrorKind::User
            | ErrorKind::Config
            | ErrorKind::Api
            | ErrorKind::Stale
            | ErrorKind::AlreadyReported
            | ErrorKind::DnsUnreachable
            | ErrorKind::Internal => 1,
        },
    }
}

#[derive(Debug)]
pub struct CommandError {
    pub kind: ErrorKind,
    /// Its `Display` is the message; its sources are the cause chain.
    error: BoxError,
    /// What to do about it; printed as `hint: …` lines.
    hints: Vec<String>,
}

/// A message of the CLI's own, possibly about a library error.
#[derive(Debug)]
struct Message {
    text: String,
    cause: Option<BoxError>,
    /// `text` is the CLI's wording of `cause` itself, so the chain goes on from the cause's
    /// own source instead of repeating it.
    words_cause: bool,
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Error for Message {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        let cause: &(dyn Error + 'static) = self.cause.as_deref()?;
        if self.words_cause {
            cause.source()
        } else {
            Some(cause)
        }
    }
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self::message(kind, message.into(), None, false)
    }

    pub fn user(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::User, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// A library error whose own `Display` is the message.
    pub fn from_error(kind: ErrorKind, error: impl Into<BoxError>) -> Self {
        CommandError {
            kind,
            error: error.into(),
            hints: Vec::new(),
        }
    }

    /// A message of the CLI's about what `cause` was doing; the cause follows in the chain.
    pub fn with_cause(
        kind: ErrorKind,
        message: impl Into<String>,
        cause: impl Into<BoxError>,
    ) -> Self {
        Self::message(kind, message.into(), Some(cause.into()), false)
    }

    /// `{context}: {cause}`, keeping `cause` as the source.
    pub fn quoting(kind: ErrorKind, context: &str, cause: impl Into<BoxError>) -> Self {
        let cause = cause.into();
        Self::with_cause(kind, format!("{context}: {cause}"), cause)
    }

    /// The CLI's wording of `error` itself (it names a flag, say); the chain goes on from
    /// `error`'s source.
    fn worded(kind: ErrorKind, message: String, error: impl Into<BoxError>) -> Self {
        Self::message(kind, message, Some(error.into()), true)
    }

    fn message(kind: ErrorKind, text: String, cause: Option<BoxError>, words_cause: bool) -> Self {
        Self::from_error(
            kind,
            Message {
                text,
                cause,
                words_cause,
            },
        )
    }

    /// `{context}: {message}`, same kind, hints and causes (which account an error is about,
    /// in a command over several).
    pub fn with_context(self, context: &str) -> Self {
        let text = format!("{context}: {}", self.error);
        CommandError {
            kind: self.kind,
            error: Box::new(Message {
                text,
                cause: Some(self.error),
                words_cause: true,
            }),
            hints: self.hints,
        }
    }

    /// `account `NAME`: {message}`, for an error about one account of several, its hints
    /// about the token naming that account's own token source (`account_hint`).
    pub fn in_account(self, name: &str, token: &str) -> Self {
        let mut out = self.with_context(&format!("account `{name}`"));
        out.hints = std::mem::take(&mut out.hints)
            .into_iter()
            .flat_map(|hint| account_hint(hint, name, token))
            .collect();
        out
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    fn with_hint_opt(self, hint: Option<&str>) -> Self {
        match hint {
            Some(hint) => self.with_hint(hint),
            None => self,
        }
    }

    /// What happened, without causes or hints.
    pub fn message_text(&self) -> String {
        self.error.to_string()
    }

    pub fn hints(&self) -> &[String] {
        &self.hints
    }

    /// The error that was turned into this one (a library error, or the CLI's own message).
    pub fn error(&self) -> &(dyn Error + Send + Sync + 'static) {
        &*self.error
    }

    /// The message, a `caused by: …` line for each source whose text the lines above don't
    /// already contain (most library messages quote their source), and the hints.
    pub fn body(&self) -> String {
        let mut out = self.error.to_string();
        let mut source = self.error.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            if !out.contains(&text) {
                let _ = write!(out, "\ncaused by: {text}");
            }
            source = cause.source();
        }
        for hint in &self.hints {
            let _ = write!(out, "\nhint: {hint}");
        }
        out
    }
}

/// The report on stderr: `error: ` and the [`CommandError::body`].
impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.body())
    }
}

impl From<std::io::Error> for CommandError {
    fn from(err: std::io::Error) -> Self {
        let kind = if err.kind() == std::io::ErrorKind::BrokenPipe {
            ErrorKind::BrokenPipe
        } else {
            ErrorKind::User
        };
        CommandError::from_error(kind, err)
    }
}

impl From<TokenError> for CommandError {
    fn from(err: TokenError) -> Self {
        let (out, hint) = match &err {
            TokenError::Missing => (
                CommandError::worded(
                    ErrorKind::User,
                    "no API token: set DNSCRON_TOKEN or pass --token-file".into(),
                    err,
                ),
                "create a token in the portal under API tokens",
            ),
            TokenError::MissingVar { .. } => (
                CommandError::from_error(ErrorKind::User, err),
                "set it to the account's token from the portal (dnscron-accounts.yaml's \
                 `token_env` names it)",
            ),
            TokenError::Empty { .. } | TokenError::InvalidCharacter { .. } => (
                CommandError::from_error(ErrorKind::User, err),
                "set DNSCRON_TOKEN or pass --token-file with the token from the portal",
            ),
            TokenError::File { .. } => (
                CommandError::from_error(ErrorKind::User, err),
                "check the path given to --token-file",
            ),
        };
        out.with_hint(hint)
    }
}

impl From<ApiError> for CommandError {
    fn from(err: ApiError) -> Self {
        let hint = api_hint(&err);
        let out = match &err {
            ApiError::InsecureUrl { .. } => CommandError::worded(
                ErrorKind::User,
                format!(
                    "{err}: use https://, or pass --allow-insecure-http if this network is trusted"
                ),
                err,
            ),
            ApiError::UrlWithCredentials => CommandError::worded(
                ErrorKind::User,
                format!("{err}; pass the token in DNSCRON_TOKEN or --token-file"),
                err,
            ),
            ApiError::InvalidUrl { .. } => CommandError::from_error(ErrorKind::User, err),
            ApiError::Status { .. }
            | ApiError::Transport { .. }
            | ApiError::NoAnswer { .. }
            | ApiError::Cut { .. }
            | ApiError::TooLarge { .. }
            | ApiError::NotJson { .. }
            | ApiError::Redirect { .. }
            | ApiError::NoEndpoint { .. }
            | ApiError::Decode { .. }
            | ApiError::WaitExceeded { .. }
            | ApiError::Pagination { .. }
            | ApiError::Client { .. } => CommandError::from_error(ErrorKind::Api, err),
        };
        out.with_hint_opt(hint.as_deref())
    }
}

impl From<AdoptError> for CommandError {
    fn from(err: AdoptError) -> Self {
        let hint = adopt_hint(&err);
        CommandError::from_error(ErrorKind::User, err).with_hint(hint)
    }
}

/// What to do about `--adopt-revision`'s id, refused at the start or by a round (the folder
/// moved before the first round applied it).
pub fn adopt_hint(err: &AdoptError) -> &'static str {
    match err {
        AdoptError::Moved { .. } => {
            "the folder's new revision was named by nobody, so the controller writes nothing and retries: review that revision's whole difference (`dnscron plan` over DIR) and restart with --adopt-revision naming it, or without --adopt-revision to take it as the base"
        }
        AdoptError::Ambiguous { .. } => {
            "give more of the commit's hex digits, so that only it starts with them"
        }
        AdoptError::NotAnId { .. }
        | AdoptError::NotFound { .. }
        | AdoptError::NotTheDigest { .. }
        | AdoptError::NotCurrent { .. }
        | AdoptError::Revision(_) => {
            "pass the id the logs or /status name for the folder's revision (7 or more of its hex digits), or drop --adopt-revision to take the folder's revision as the base"
        }
    }
}

/// What the user can do about an API error, wherever it surfaces (also `doctor`'s checks).
pub fn api_hint(err: &ApiError) -> Option<Cow<'static, str>> {
    Some(Cow::Borrowed(match err {
        ApiError::Status {
            status: 403,
            method,
            path,
            ..
        } => {
            if let Some(hint) = forbidden_hint(method, path) {
                return Some(Cow::Owned(hint));
            }
            return status_hint(403, err.needs_portal_step()).map(Cow::Borrowed);
        }
        ApiError::Status { status, .. } => {
            return status_hint(*status, err.needs_portal_step()).map(Cow::Borrowed);
        }
        ApiError::WaitExceeded { .. } => RATE_LIMIT_HINT,
        ApiError::Transport { .. } => "check --api-url / DNSCRON_API_URL and the network",
        ApiError::NoAnswer { .. } | ApiError::Cut { .. } => {
            "the API or a proxy in front of it is overloaded or failing: retry later, or raise \
             --timeout if answers are just slow"
        }
        ApiError::TooLarge { .. } => {
            "a 100-row page of the API is far smaller: check --api-url / DNSCRON_API_URL and any \
             proxy in between, and quote the request_id to the provider"
        }
        ApiError::NotJson { .. } => {
            "something other than the API answered (a login page, a captive portal, a proxy): \
             check --api-url / DNSCRON_API_URL and the network path"
        }
        ApiError::Redirect { .. } => {
            "set --api-url / DNSCRON_API_URL to the API's final URL (with https:// and /api/v1); \
             the token is never sent after a redirect"
        }
        ApiError::NoEndpoint { .. } => NO_ENDPOINT_HINT,
        // The error's own text says all there is to do, or (the URL errors) `From` words it.
        ApiError::Decode { .. }
        | ApiError::InsecureUrl { .. }
        | ApiError::InvalidUrl { .. }
        | ApiError::UrlWithCredentials
        | ApiError::Pagination { .. }
        | ApiError::Client { .. } => return None,
    }))
}

/// A 403's hint from the provider's data: which scope the endpoint needs, and whether the site
/// may not be pinned to the token. `None`: the endpoint is not one the spec lists, or it needs
/// the `read` scope every token has and names no site (the generic hint says all there is).
fn forbidden_hint(method: &str, path: &str) -> Option<String> {
    let endpoint = Endpoint::of_request(method, path)?;
    let route = format!("{} {}", endpoint.method().as_str(), endpoint.path());
    let site = endpoint.path().contains("{slug}");
    match endpoint.scope()? {
        Scope::Read => site.then(|| {
            format!(
                "{READ_SCOPE} that {route} needs, so this site is not pinned to the token: add it \
                 to the token in the portal under API tokens"
            )
        }),
        scope @ (Scope::Deploy | Scope::Manage | Scope::Dns) => {
            let pinned = if site {
                ", or this site is not pinned to it"
            } else {
                ""
            };
            Some(format!(
                "{SCOPE_LACKED}{scope}` scope that {route} needs{pinned}: edit the token in the \
                 portal under API tokens"
            ))
        }
    }
}

const RATE_LIMIT_HINT: &str = "another client of the same user may be using the rate-limit \
     budget: retry later or raise --max-wait";

const NO_ENDPOINT_HINT: &str = "check --api-url / DNSCRON_API_URL: it includes the version \
     prefix, e.g. https://api.example.net/api/v1 (`dnscron doctor` checks it)";

const UNAUTHORIZED_HINT: &str =
    "check the token in DNSCRON_TOKEN or --token-file (it may be expired or revoked)";

const FORBIDDEN_HINT: &str = "the token lacks a scope or this site is not pinned to it: edit the \
     token in the portal under API tokens";

/// A token for another account: the files' zones are not in the zone list of the API it reached.
const ANOTHER_TOKEN: &str = "check that the token (DNSCRON_TOKEN or --token-file; in \
     dnscron-accounts.yaml, the account's token_env or token_file) is the one of the account at \
     this API URL";

/// How `forbidden_hint`'s two hints begin: each is about the token, so an account's names it.
const SCOPE_LACKED: &str = "this token lacks the `";
const READ_SCOPE: &str = "every token has the `read` scope";

/// One hint of an error about account `name` of several, worded for that account's token
/// source `token` (its variable or file, and where the accounts file names it) when the hint
/// is about the token: a 401's, a 403's, a zone list that looks like another account's; and
/// for the account's `api_url` when it is about the API's URL (a connection refused, a
/// redirect). Any other hint is returned as it is.
pub fn account_hint(hint: String, name: &str, token: &str) -> Vec<String> {
    let whose = format!("account `{name}`'s token in {token}");
    if hint == UNAUTHORIZED_HINT {
        return vec![format!("check {whose}: it may be expired or revoked")];
    }
    if hint == FORBIDDEN_HINT {
        return vec![format!(
            "{whose} lacks a scope or this site is not pinned to it: edit the token in the \
             portal under API tokens"
        )];
    }
    if hint.contains(ANOTHER_TOKEN) {
        let check = format!("check that {whose} is the one of the account at this API URL");
        return vec![hint.replace(ANOTHER_TOKEN, &check)];
    }
    if hint.starts_with(SCOPE_LACKED) || hint.starts_with(READ_SCOPE) {
        return vec![hint, format!("that is {whose}")];
    }
    // The accounts file names each account's URL (and refuses the flag and the variable).
    let url = format!(
        "account `{name}`'s api_url in {}",
        dnscron_core::config::accounts::ACCOUNTS_FILE
    );
    let hint = ["check", "set"].iter().fold(hint, |hint, verb| {
        hint.replace(&format!("{verb} {API_URL_FLAGS}"), &format!("{verb} {url}"))
    });
    vec![hint]
}

/// How the hints about the API's URL name it for a command of one account.
const API_URL_FLAGS: &str = "--api-url / DNSCRON_API_URL";

/// What to do about an HTTP error status, from the status alone (apply's report keeps the
/// status, not the error): the same hint for a 401 whether a read or a write got it.
pub fn status_hint(status: u16, continue_url: Option<&str>) -> Option<&'static str> {
    Some(match status {
        401 => UNAUTHORIZED_HINT,
        403 => FORBIDDEN_HINT,
        409 if continue_url.is_some() => {
            "a human has to finish this step in the portal at the continue_url, then re-run"
        }
        429 => RATE_LIMIT_HINT,
        status if status >= 500 => {
            "the service failed; retry later and quote the request_id if it persists"
        }
        _ => return None,
    })
}

impl From<SnapshotError> for CommandError {
    fn from(err: SnapshotError) -> Self {
        let (kind, hint) = match &err {
            SnapshotError::NotListed { .. } => return not_listed(err),
            SnapshotError::MissingZone { .. } => (
                ErrorKind::Config,
                Some(
                    "check the zone name in the file, or add the zone to the account in the \
                     portal (DNS), or remove the file",
                ),
            ),
            SnapshotError::MissingDomain { .. } => (
                ErrorKind::Config,
                Some(
                    "registrar nameservers can only be managed for a domain registered in this \
                     account: remove the `nameservers` key or register/transfer the domain",
                ),
            ),
            SnapshotError::MissingSite { .. } => (
                ErrorKind::Config,
                Some(
                    "check the slug (as listed by GET /sites) and that the token is pinned to \
                     this site (portal, API tokens), or remove the file",
                ),
            ),
            SnapshotError::Api { source, .. } | SnapshotError::Listing { source, .. } => {
                let hint = api_hint(source);
                return CommandError::from_error(ErrorKind::Api, err)
                    .with_hint_opt(hint.as_deref());
            }
            SnapshotError::Internal(_) => (ErrorKind::Internal, None),
        };
        CommandError::from_error(kind, err).with_hint_opt(hint)
    }
}

/// The files' zones against the account's zone list: all missing is another account's token,
/// some missing are named with their files.
fn not_listed(err: SnapshotError) -> CommandError {
    let (api_url, declared, missing) = match &err {
        SnapshotError::NotListed {
            api_url,
            declared,
            missing,
        } => (api_url, *declared, missing),
        SnapshotError::MissingZone { .. }
        | SnapshotError::MissingDomain { .. }
        | SnapshotError::MissingSite { .. }
        | SnapshotError::Api { .. }
        | SnapshotError::Listing { .. }
        | SnapshotError::Internal(_) => return CommandError::from_error(ErrorKind::Internal, err),
    };
    let url = dnscron_api::untrusted::escape(api_url);
    let hints = not_listed_hints(missing.len(), declared);
    let out = if let ([(zone, at)], 1) = (missing.as_slice(), declared) {
        CommandError::worded(
            ErrorKind::Config,
            format!(
                "{at}: the account at {url} has no DNS zone `{zone}` (it is not in the zone list, \
                 GET /dns); nothing was written"
            ),
            err,
        )
    } else if missing.len() == declared {
        CommandError::worded(
            ErrorKind::User,
            format!(
                "none of the {declared} zones the files declare is in the account's zone list at \
                 {url} (GET /dns): is the token another account's? Nothing was written"
            ),
            err,
        )
    } else {
        let named: Vec<String> = missing
            .iter()
            .map(|(zone, at)| format!("\n  {at}: `{zone}`"))
            .collect();
        CommandError::worded(
            ErrorKind::Config,
            format!(
                "{} of the {declared} zones the files declare {} not in the account's zone list \
                 at {url} (GET /dns):{}",
                missing.len(),
                if missing.len() == 1 { "is" } else { "are" },
                named.concat()
            ),
            err,
        )
    };
    hints.into_iter().fold(out, CommandError::with_hint)
}

/// What to do when `missing` of the `declared` zones are not in the account's zone list (also
/// the controller's round error): none listed is another account's token; one zone alone
/// missing reads as a typo or a zone not made yet as much as a wrong token.
pub fn not_listed_hints(missing: usize, declared: usize) -> Vec<String> {
    if (missing, declared) == (1, 1) {
        return vec![
            "check the zone name in the file, or add the zone to the account in the portal \
             (DNS), or remove the file"
                .to_owned(),
            format!("if the account holds it, {ANOTHER_TOKEN}"),
        ];
    }
    if missing == declared {
        return vec![ANOTHER_TOKEN.to_owned()];
    }
    vec![
        "check the zone names in the files, or add the zones to the account in the portal \
         (DNS), or remove their files"
            .to_owned(),
    ]
}

impl From<PlanError> for CommandError {
    fn from(err: PlanError) -> Self {
        let (kind, hint) = match &err {
            PlanError::MissingLive { kind, .. } => (
                ErrorKind::User,
                format!(
                    "check the name, or create the {kind} in the portal first (dnscron never creates or deletes whole {kind}s)"
                ),
            ),
            PlanError::IncompleteSnapshot { .. } => (
                ErrorKind::Internal,
                "this is a bug in dnscron; please report it with the command you ran".into(),
            ),
            PlanError::Unsafe(_) => (
                ErrorKind::User,
                "if these changes are intended, approve them for this plan alone: run again with --allow-mass-changes (in a pull request planned by the dnscron plan recipe: add the label dnscron:allow-mass-changes after the last push); leave the zone's `safety:` limits as they are, they guard every later plan".into(),
            ),
        };
        CommandError::from_error(kind, err).with_hint(hint)
    }
}

impl From<PlanFileError> for CommandError {
    fn from(err: PlanFileError) -> Self {
        let hint = match &err {
            PlanFileError::BadPlanFile { .. } | PlanFileError::UnsupportedFormat { .. } => {
                "make a new plan with `dnscron plan --out FILE` using this version of dnscron"
                    .into()
            }
            PlanFileError::PlanFile { problem, .. } => plan_file_hint(problem),
            PlanFileError::OfAccounts => "nothing was sent. Give it with the folder that holds \
                 dnscron-accounts.yaml (`dnscron apply --reviewed FILE PATH`), where each account \
                 is bound to its own plan"
                .into(),
        };
        CommandError::from_error(ErrorKind::User, err).with_hint(hint)
    }
}

/// A plan file refused for what it holds: nothing was sent, and the way out is a fresh plan.
fn plan_file_hint(problem: &FromFileError) -> String {
    match problem {
        FromFileError::TooLarge { limit } => format!(
            "nothing was sent. A plan file is what `dnscron plan --out FILE` writes (one that creates a 100,000-record zone is about 100 MB, under the {} MiB cap): check that this file is one; a larger plan can be made in parts, with some of the files as PATH",
            limit / (1024 * 1024)
        ),
        FromFileError::UnsupportedFormat { .. }
        | FromFileError::Request(_)
        | FromFileError::Desired(_)
        | FromFileError::RequestDiffers { .. }
        | FromFileError::PlanId(_)
        | FromFileError::ApiUrl(_)
        | FromFileError::Scope(_)
        | FromFileError::Accounts(_) => "nothing was sent. The file was changed after `dnscron plan --out FILE` wrote it: make a new plan, have it reviewed, and apply that".into(),
    }
}

impl From<MakePlanError> for CommandError {
    fn from(err: MakePlanError) -> Self {
        match err {
            MakePlanError::Snapshot(e) => e.into(),
            MakePlanError::Plan(e) => e.into(),
        }
    }
}

impl From<ChangedError> for CommandError {
    fn from(err: ChangedError) -> Self {
        let hint = match &err {
            ChangedError::GitMissing { .. } => {
                "--changed-since asks git which files changed: install git and put it on PATH, or plan without --changed-since (everything the files declare is read)".to_string()
            }
            ChangedError::NotARepository { .. } => {
                "--changed-since compares the files with a git commit: run it in a clone of the repository that holds them, or plan without --changed-since".to_string()
            }
            ChangedError::UnknownRevision { since, .. } => format!(
                "name a commit, branch or tag the clone has; fetch `{since}` first if it is remote (in GitHub Actions, `actions/checkout` with `fetch-depth: 0`)"
            ),
            ChangedError::Git { args, .. } => {
                format!("run `git {args}` in the repository to see why, or plan without --changed-since")
            }
            ChangedError::OldFileInvalid { commit, .. } => format!(
                "the targets a file declared at {commit} are needed to plan only what changed: pick a later revision for --changed-since, or plan without it"
            ),
        };
        let kind = match &err {
            ChangedError::OldFileInvalid { .. } => ErrorKind::Config,
            ChangedError::GitMissing { .. }
            | ChangedError::NotARepository { .. }
            | ChangedError::UnknownRevision { .. }
            | ChangedError::Git { .. } => ErrorKind::User,
        };
        CommandError::from_error(kind, err).with_hint(hint)
    }
}

impl From<ImportError> for CommandError {
    fn from(err: ImportError) -> Self {
        let (kind, hint) = match &err {
            ImportError::NoSuchZone { .. } => (
                ErrorKind::User,
                Some(
                    "check the zone name; `dnscron import --all` imports every zone of the account, and `--probe DOMAIN` reads a zone hosted elsewhere",
                ),
            ),
            ImportError::NoSuchSite { .. } => (
                ErrorKind::User,
                Some(
                    "check the slug as GET /sites lists it, and that the token is pinned to the site (portal, API tokens)",
                ),
            ),
            ImportError::Api { source, .. } => {
                let hint = api_hint(source);
                return CommandError::from_error(ErrorKind::Api, err)
                    .with_hint_opt(hint.as_deref());
            }
            ImportError::ProbeShape(_) => (
                ErrorKind::Api,
                Some(
                    "the server's probe answer has an unexpected shape; report it with the request id",
                ),
            ),
            ImportError::Exists { .. } => (
                ErrorKind::User,
                Some(
                    "nothing was written; pass --force to overwrite, or choose another --out directory",
                ),
            ),
            ImportError::UnsafeSlug { .. } => (
                ErrorKind::Api,
                Some(
                    "import writes sites/<slug>.yaml, so it takes only slugs a site file can declare (lower-case letters, digits, `-` and `_`); report this slug to the hosting provider, and import the other sites with --site SLUG",
                ),
            ),
            ImportError::OutsideOut { .. } => (
                ErrorKind::User,
                Some(
                    "remove the symlink or the odd path from the --out directory, or choose another --out directory",
                ),
            ),
            ImportError::Write { .. } => (
                ErrorKind::User,
                Some("check that the --out directory is writable"),
            ),
        };
        let error = match &err {
            ImportError::OutsideOut { path, why } => {
                let text = format!(
                    "refusing to write {}: {}; nothing was written",
                    path.display(),
                    outside_out(why)
                );
                CommandError::worded(kind, text, err)
            }
            ImportError::NoSuchZone { .. }
            | ImportError::NoSuchSite { .. }
            | ImportError::Api { .. }
            | ImportError::ProbeShape(_)
            | ImportError::Exists { .. }
            | ImportError::UnsafeSlug { .. }
            | ImportError::Write { .. } => CommandError::from_error(kind, err),
        };
        error.with_hint_opt(hint)
    }
}

/// Why a path is refused, naming the flag that chose the output directory.
fn outside_out(why: &Outside) -> String {
    match why {
        Outside::NotPlain { relative } => format!(
            "the path {} is not a plain path inside --out",
            relative.display()
        ),
        Outside::LeadsOutside {
            step,
            resolved,
            root,
        } => format!(
            "{} leads to {}, outside --out {}",
            step.display(),
            resolved.display(),
            root.display()
        ),
        Outside::Dangling { .. } => why.to_string(),
    }
}

/// A nameserver host without an address, and the flag that gives it one. Reports quote it.
pub fn unresolved(err: &ResolveError) -> String {
    match err {
        ResolveError::NotMapped { host } => format!(
            "nameserver `{host}` has no --nameserver-address and the system resolver is turned off; add --nameserver-address {host}=IP[:PORT]"
        ),
        ResolveError::Lookup { host, reason } => format!(
            "the system resolver could not find nameserver `{host}`: {reason}; check the name, or give its address with --nameserver-address {host}=IP[:PORT]"
        ),
    }
}

/// A zone whose nameservers could not be found, and how to name a resolver or the
/// nameservers. `check`'s report quotes it.
pub fn undiscovered(err: &DiscoverError) -> String {
    match err {
        DiscoverError::NoResolver { .. } => format!(
            "{err}; give one with --resolver IP[:PORT], or list the zone's nameservers with `nameservers: {{mode: custom, hosts: [...]}}`"
        ),
        DiscoverError::SystemResolverOff { zone } => format!(
            "no --resolver given and the system resolver is turned off; give --resolver IP[:PORT], or list {zone}'s nameservers with `nameservers: {{mode: custom, hosts: [...]}}`"
        ),
        DiscoverError::NoAnswer { .. } => format!(
            "{err}; check that the zone is delegated, or give a resolver that knows it with --resolver IP[:PORT]"
        ),
    }
}

/// What to do about a switch refused as not ready; after the refusal's own message.
pub const NOT_READY_HINT: &str = "load the zone on them, then run apply again, or pass --allow-unready-nameservers to switch anyway";

/// What to do when a reviewed plan no longer holds against the live account (an apply's
/// `changed_since_review`).
pub const CHANGED_SINCE_REVIEW_HINT: &str = "the live account (someone edited it, another plan changed the same thing first, or it is another account at the same URL) or the files applied are not what the plan was reviewed against: make a new plan (`dnscron plan --out FILE`), have it reviewed, and apply that";

/// What to do when reviewed changes are for targets the apply did not read (an apply's
/// `changed_since_review`, `not_read`): the live account is not the cause.
pub const NOT_READ_HINT: &str = "apply reads only what the files given as PATH declare (within --changed-since, when given): pass the files the reviewed plan was made of, or make a new plan of these files (`dnscron plan --out FILE`), have it reviewed, and apply that";

/// What to do when someone changed a change of the plan again during the apply.
pub const CHANGED_DURING_APPLY_HINT: &str = "someone changed the account while apply ran and dnscron did not revert it: find out who, then run `dnscron plan` to see what the files would do now";

/// What to do after a cron delete reached another job (someone is changing the site's jobs).
pub const CRON_INDEX_MOVED_HINT: &str = "someone is changing this site's cron jobs: check them in the portal, then run apply again (it lists the jobs right before each delete; docs/apply.md, \"Cron deletes\")";

mod export;
mod import_from;
mod refusal;
pub use export::not_exported;
pub use import_from::not_imported;
pub use refusal::Refused;

#[cfg(test)]
mod tests;
