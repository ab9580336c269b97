//! `dnscron doctor`: is this machine ready to run dnscron against the API? Each check prints
//! `ok` or `fail` (with a hint); exit 1 when any fails. Sends only GETs and the probe, which the
//! spec defines as a dry run that changes nothing. In a repository of several accounts
//! (`dnscron-accounts.yaml` in the current folder) every chosen account is checked, side by
//! side, with its own URL and token.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::cli::accounts::{AccountArgs, Repository, api_config, api_url_place, token_source};
use crate::cli::api_args::ApiArgs;
use crate::cli::error::{
    CommandError, CommandResult, ErrorKind, Outcome, account_hint, account_url_hint, api_hint,
};
use crate::cli::side_by_side::{Part, join_all};
use crate::cli::{runtime, write_stdout};
use dnscron_api::{ApiConfig, ApiError, ReadClient, WriteClient, deprecation_notice, openapi};
use dnscron_core::config::accounts::Account;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub api: ApiArgs,
    #[command(flatten)]
    pub account: AccountArgs,
}

/// Attempts per request: enough to ride out one network blip, few enough that an unreachable
/// URL is reported within a second rather than after the full backoff.
const DOCTOR_ATTEMPTS: u32 = 2;

#[derive(Debug, PartialEq, Eq)]
struct Check {
    ok: bool,
    text: String,
    hint: Option<String>,
}

fn ok(text: impl Into<String>) -> Check {
    Check {
        ok: true,
        text: text.into(),
        hint: None,
    }
}

/// A failed check; an empty hint is none (no `hint:` line with nothing after it).
fn fail(text: impl Into<String>, hint: impl Into<String>) -> Check {
    Check {
        ok: false,
        text: text.into(),
        hint: Some(hint.into()).filter(|h: &String| !h.trim().is_empty()),
    }
}

/// One account's checks, under its heading in a repository of several.
struct AccountChecks {
    name: Option<String>,
    heading: Option<String>,
    checks: Vec<Check>,
}

pub(crate) fn run(args: DoctorArgs) -> CommandResult {
    let repository = Repository::discover_for_api(&[PathBuf::from(".")], &args.account, &args.api)?;
    let sections = match &repository {
        Repository::One { .. } => {
            let mut config = args.api.into_config()?;
            config.retry.max_attempts = DOCTOR_ATTEMPTS;
            let client = WriteClient::new(config)?;
            let (mut checks, answered) = runtime::block_on(run_checks(&client, None))?;
            if answered {
                checks.push(deprecation());
            }
            vec![AccountChecks {
                name: None,
                heading: None,
                checks,
            }]
        }
        Repository::Many { .. } => {
            let chosen = repository.chosen();
            // Two entries of one live account: a problem of the file, shown beside the checks.
            let one_token = super::trust::one_token_each(&chosen, &args.api).err();
            let (mut sections, answered) = runtime::block_on(accounts_checks(&chosen, &args.api))?;
            let mut every = Vec::new();
            if let Some(err) = one_token {
                every.push(fail(err.message_text(), err.hints().join("; ")));
            }
            // The Deprecation header is the API's, noted by whichever account's answer carried it.
            if answered {
                every.push(deprecation());
            }
            if !every.is_empty() {
                sections.push(AccountChecks {
                    name: None,
                    heading: Some("every account".to_string()),
                    checks: every,
                });
            }
            sections
        }
    };
    write_stdout(&render_sections(&sections))?;
    if sections.iter().flat_map(|s| &s.checks).all(|c| c.ok) {
        Ok(Outcome::Success)
    } else {
        Err(CommandError::new(
            ErrorKind::AlreadyReported,
            "doctor found problems",
        ))
    }
}

/// Every chosen account checked side by side, each with its own client (its own bucket);
/// whether any account's API answered.
async fn accounts_checks(chosen: &[&Account], api: &ApiArgs) -> (Vec<AccountChecks>, bool) {
    let parts: Vec<Part<'_, (AccountChecks, bool)>> = chosen
        .iter()
        .map(|account| {
            Box::pin(async move {
                let heading = Some(format!(
                    "account `{}` at {}, token in {}",
                    account.name,
                    account.api_url,
                    token_source(account)
                ));
                let (checks, answered) = match api_config(account, api).and_then(client_of) {
                    Ok(client) => run_checks(&client, Some(account)).await,
                    Err(err) => {
                        // The heading names the account already.
                        let text = err.message_text();
                        let prefix = format!("account `{}`: ", account.name);
                        let text = text.strip_prefix(&prefix).unwrap_or(&text);
                        let check = fail(format!("no client: {text}"), err.hints().join("; "));
                        (vec![check], false)
                    }
                };
                let checks = AccountChecks {
                    name: Some(account.name.clone()),
                    heading,
                    checks,
                };
                (checks, answered)
            }) as Part<'_, _>
        })
        .collect();
    let done = join_all(parts).await;
    let answered = done.iter().any(|(_, answered)| *answered);
    (
        done.into_iter().map(|(checks, _)| checks).collect(),
        answered,
    )
}

fn client_of(mut config: ApiConfig) -> Result<WriteClient, CommandError> {
    config.retry.max_attempts = DOCTOR_ATTEMPTS;
    Ok(WriteClient::new(config)?)
}

/// The checks of one API; `account` names where its token comes from in a hint. Whether it
/// answered: only then can its answers have carried a Deprecation header.
async fn run_checks(client: &WriteClient, account: Option<&Account>) -> (Vec<Check>, bool) {
    let read = client.read();
    let url = read.base_url().to_string();
    let mut checks = Vec::new();
    if !connection_and_token(read, &url, account, &mut checks).await {
        return (checks, false);
    }
    checks.push(rate_headroom(read));
    checks.extend(openapi_checks(read).await);
    checks.push(scopes(client).await);
    (checks, true)
}

/// The base URL and the token, from one `GET /sites?limit=1`. False when nothing else can be
/// checked.
async fn connection_and_token(
    read: &ReadClient,
    url: &str,
    account: Option<&Account>,
    checks: &mut Vec<Check>,
) -> bool {
    let err = match read.sites_page(1).await {
        Ok(_) => {
            checks.push(ok(format!("the API answers at {url}")));
            checks.push(ok("the token is accepted (GET /sites?limit=1)"));
            return true;
        }
        Err(err) => err,
    };
    match &err {
        ApiError::Transport { message, .. } => checks.push(fail(
            format!("the API at {url} does not answer: {message}"),
            "check --api-url / DNSCRON_API_URL (it includes the /api/v1 prefix), DNS, proxies and firewalls",
        )),
        ApiError::Status { status: 404, .. } | ApiError::NoEndpoint { .. } => {
            checks.push(ok(format!("a server answers at {url}")));
            checks.push(fail(
                format!("GET /sites answered 404: {url} is not the API's base URL"),
                "check --api-url / DNSCRON_API_URL: the base URL includes the version prefix, \
                 e.g. https://api.example.net/api/v1",
            ));
        }
        ApiError::Status {
            status: 401 | 403, ..
        } => {
            checks.push(ok(format!("the API answers at {url}")));
            checks.push(fail(
                format!("the token is refused: {}", first_line(&err)),
                api_hint(&err).unwrap_or_default().into_owned(),
            ));
        }
        ApiError::Status { .. } | ApiError::NoAnswer { .. } | ApiError::Cut { .. } | ApiError::TooLarge { .. } | ApiError::NotJson { .. } | ApiError::Redirect { .. } | ApiError::Decode { .. } | ApiError::WaitExceeded { .. } | ApiError::InsecureUrl { .. } | ApiError::InvalidUrl { .. } | ApiError::UrlWithCredentials | ApiError::Pagination { .. } | ApiError::Client { .. } => checks.push(fail(
            format!("GET /sites failed: {}", first_line(&err)),
            api_hint(&err).unwrap_or("retry later; quote the request_id to the provider".into()),
        )),
    }
    // Over several accounts, a hint names the account's own `api_url` line and token source,
    // not the flags that don't apply to it.
    if let Some(account) = account {
        for check in checks.iter_mut() {
            if let Some(hint) = check.hint.take() {
                let hint = account_url_hint(hint, &account.name, &api_url_place(account));
                let hints = account_hint(hint, &account.name, &token_source(account));
                check.hint = Some(hints.join("; "));
            }
        }
    }
    false
}

fn first_line(err: &ApiError) -> String {
    err.to_string()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

fn rate_headroom(read: &ReadClient) -> Check {
    let headers = read.last_rate_headers().unwrap_or_default();
    match (headers.remaining, headers.limit) {
        (Some(0), _) => fail(
            "rate limit: no requests left in the bucket right now",
            "another client of the same user is using the shared budget; runs will wait for it (up to --max-wait)",
        ),
        (Some(remaining), Some(limit)) => ok(format!(
            "rate limit: {remaining} of {limit} requests left (shared by every token of this user)"
        )),
        (Some(remaining), None) => ok(format!("rate limit: {remaining} requests left")),
        (None, _) => {
            ok("rate limit: the server sent no X-RateLimit headers (dnscron won't pace requests)")
        }
    }
}

async fn openapi_checks(read: &ReadClient) -> Vec<Check> {
    let doc = match read.openapi().await {
        Ok(doc) => doc,
        Err(err) => {
            let text = format!("/openapi.json can't be read: {}", first_line(&err));
            return vec![fail(
                text,
                "without it dnscron sends `veldhost` for hosted nameserver mode; check the base URL",
            )];
        }
    };
    let version = match openapi::api_version(&doc) {
        Some(v) => ok(format!(
            "API version {v} (info.version of /openapi.json; the spec's prose says 1.3, its file 1.2: both work)"
        )),
        None => fail(
            "/openapi.json has no info.version",
            "the server's description is unusual; dnscron still works with API v1",
        ),
    };
    let mode = match openapi::hosted_mode_value(&doc) {
        Some(v) => ok(format!(
            "hosted nameserver mode is sent as `{v}` (the nameserver `mode` enum)"
        )),
        None => fail(
            "/openapi.json has no nameserver `mode` enum",
            format!(
                "dnscron falls back to `{}` when switching a domain to hosted; if the API refuses it, set the mode in the portal",
                openapi::DEFAULT_HOSTED_MODE
            ),
        ),
    };
    vec![version, mode]
}

/// `read` is always on; `dns` shows in the answer to the probe (a dry run); `manage` and
/// `deploy` only guard writes, so they can't be seen without changing something.
async fn scopes(client: &WriteClient) -> Check {
    let zone = match client.read().list_zones().await {
        Ok(zones) => zones.first().map(|z| z.zone.clone()),
        Err(_) => None,
    };
    let domain = zone.unwrap_or_else(|| "example.com".into());
    let dns = match client.probe_zone(&domain).await {
        Ok(_) => "dns: yes".to_string(),
        Err(e) if matches!(e.status(), Some(404)) => "dns: yes".to_string(),
        Err(e) if matches!(e.status(), Some(403)) => "dns: no".to_string(),
        Err(e) => format!("dns: unknown ({})", first_line(&e)),
    };
    ok(format!(
        "token scopes: read: yes, {dns} (from a probe, which changes nothing); manage and deploy \
         can't be checked without a write. plan needs read; apply needs read, dns and manage"
    ))
}

fn deprecation() -> Check {
    match deprecation_notice() {
        None => ok("no Deprecation header"),
        Some(value) => fail(
            format!("the API announced that v1 is deprecated (Deprecation: {value})"),
            "v1 keeps working for at least 12 months after; check the API changelog for the sunset date and upgrade dnscron",
        ),
    }
}

fn render_sections(sections: &[AccountChecks]) -> String {
    let mut out = String::new();
    for section in sections {
        if let Some(heading) = &section.heading {
            let _ = writeln!(out, "{}", dnscron_api::untrusted::escape(heading));
        }
        render_checks(&section.checks, &mut out);
    }
    let checks: Vec<&Check> = sections.iter().flat_map(|s| &s.checks).collect();
    let failed = checks.iter().filter(|c| !c.ok).count();
    let failing: Vec<&str> = sections
        .iter()
        .filter(|s| s.checks.iter().any(|c| !c.ok))
        .filter_map(|s| s.name.as_deref())
        .collect();
    let _ = match (failed, failing.as_slice()) {
        (0, _) => writeln!(out, "doctor: all {} checks passed", checks.len()),
        (_, []) => writeln!(out, "doctor: {failed} of {} checks failed", checks.len()),
        (_, names) => writeln!(
            out,
            "doctor: {failed} of {} checks failed, in account(s) {}",
            checks.len(),
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    out
}

fn render_checks(checks: &[Check], out: &mut String) {
    // A check's text quotes what the server said (versions, headers, error messages).
    for c in checks {
        let text = dnscron_api::untrusted::escape(&c.text);
        let _ = writeln!(out, "{:<5} {text}", if c.ok { "ok" } else { "fail" });
        if let Some(hint) = &c.hint {
            let _ = writeln!(out, "      hint: {hint}");
        }
    }
}
