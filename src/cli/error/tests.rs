use std::io;
use std::path::PathBuf;
use std::time::Duration;

use super::*;
use dnscron_api::WaitTooLong;

/// A library-style error whose message may or may not quote its source.
#[derive(Debug, thiserror::Error)]
#[error("{text}")]
struct Layer {
    text: String,
    #[source]
    source: Option<Box<Layer>>,
}

fn layer(text: &str, source: Option<Layer>) -> Layer {
    Layer {
        text: text.into(),
        source: source.map(Box::new),
    }
}

#[test]
fn every_outcome_and_error_kind_has_its_exit_code() {
    let outcomes = [
        (Outcome::Success, 0),
        (Outcome::ChangesPresent, 2),
        (Outcome::NeedsHumanStep, 3),
        (Outcome::DnsDiffers, 2),
        (Outcome::Unformatted, 1),
    ];
    for (outcome, code) in outcomes {
        assert_eq!(exit_code(&Ok(outcome)), code, "{outcome:?}");
    }
    let kinds = [
        (ErrorKind::User, 1),
        (ErrorKind::Config, 1),
        (ErrorKind::Api, 1),
        (ErrorKind::Stale, 1),
        (ErrorKind::HeldByFinding, 4),
        (ErrorKind::AlreadyReported, 1),
        (ErrorKind::BrokenPipe, 0),
        (ErrorKind::DnsUnreachable, 1),
        (ErrorKind::Internal, 1),
        (ErrorKind::Interrupted { signal: 2 }, 130),
        (ErrorKind::Interrupted { signal: 15 }, 143),
    ];
    for (kind, code) in kinds {
        assert_eq!(
            exit_code(&Err(CommandError::new(kind, "x"))),
            code,
            "{kind:?}"
        );
    }
}

#[test]
fn a_closed_stdout_exits_0_and_other_io_errors_are_the_users() {
    let pipe = CommandError::from(io::Error::from(io::ErrorKind::BrokenPipe));
    assert_eq!(pipe.kind, ErrorKind::BrokenPipe);
    assert_eq!(exit_code(&Err(pipe)), 0);

    let denied = CommandError::from(io::Error::other("permission denied"));
    assert_eq!(denied.kind, ErrorKind::User);
    assert_eq!(denied.to_string(), "error: permission denied");
    assert_eq!(exit_code(&Err(denied)), 1);
}

#[test]
fn the_report_prints_each_cause_the_message_does_not_already_quote() {
    let inner = layer("connection reset by peer", None);
    let middle = layer("reading GET /sites: connection reset by peer", Some(inner));
    let outer = layer("loading the account failed", Some(middle));
    let err = CommandError::from_error(ErrorKind::Api, outer).with_hint("retry later");
    assert_eq!(
        err.to_string(),
        "error: loading the account failed\n\
         caused by: reading GET /sites: connection reset by peer\n\
         hint: retry later"
    );
}

#[test]
fn a_message_that_quotes_its_source_prints_no_cause() {
    let err = CommandError::from(TokenError::File {
        path: PathBuf::from("/nonexistent/token"),
        source: io::Error::other("no such file"),
    });
    assert_eq!(
        err.to_string(),
        "error: cannot read the token file /nonexistent/token: no such file\n\
         hint: check the path given to --token-file"
    );
}

#[test]
fn a_cli_message_keeps_the_library_error_as_its_cause() {
    let err = CommandError::with_cause(
        ErrorKind::User,
        "cannot read the plan file plan.json",
        io::Error::other("is a directory"),
    );
    assert_eq!(
        err.to_string(),
        "error: cannot read the plan file plan.json\ncaused by: is a directory"
    );
    assert_eq!(
        err.error().source().map(|s| s.to_string()),
        Some("is a directory".into())
    );
}

#[test]
fn flags_are_named_by_the_cli_not_by_the_library() {
    let missing = TokenError::Missing;
    assert_eq!(
        missing.to_string(),
        "no API token: DNSCRON_TOKEN is not set and no token file was given"
    );
    assert_eq!(
        CommandError::from(missing).to_string(),
        "error: no API token: set DNSCRON_TOKEN or pass --token-file\n\
         hint: create a token in the portal under API tokens"
    );

    let insecure = ApiError::InsecureUrl {
        url: "http://api.example.net/".into(),
    };
    assert_eq!(
        insecure.to_string(),
        "refusing to send the API token over plain http to http://api.example.net/"
    );
    assert_eq!(
        CommandError::from(insecure).to_string(),
        "error: refusing to send the API token over plain http to http://api.example.net/: use \
         https://, or pass --allow-insecure-http if this network is trusted"
    );

    let wait = ApiError::WaitExceeded {
        method: "GET".into(),
        path: "/sites".into(),
        source: WaitTooLong {
            needed: Duration::from_secs(3600),
            waited: Duration::ZERO,
            max_wait: Duration::from_secs(60),
        },
    };
    let err = CommandError::from(wait);
    assert_eq!(err.kind, ErrorKind::Api);
    assert_eq!(
        err.to_string(),
        "error: GET /sites: the rate limit would need a wait of 3600s more after 0ns already (the \
         longest wait allowed is 60s)\n\
         hint: another client of the same user may be using the rate-limit budget: retry later or \
         raise --max-wait"
    );
}

#[test]
fn every_apply_result_has_its_exit_code() {
    use crate::cli::apply::ending;
    use dnscron_core::apply::{ApplyResult, ErrorInfo};
    let results = [
        (ApplyResult::Converged, 0),
        (ApplyResult::NoChanges, 0),
        (ApplyResult::AlreadyApplied, 0),
        (
            ApplyResult::NeedsPortalStep {
                change_id: 1,
                continue_url: "https://portal.example/continue/1".into(),
            },
            3,
        ),
        (
            ApplyResult::Failed {
                change_id: 1,
                error: ErrorInfo::internal("boom"),
            },
            1,
        ),
        (ApplyResult::Differs { remaining: vec![] }, 1),
        (
            ApplyResult::VerifyFailed {
                error: ErrorInfo::internal("boom"),
            },
            1,
        ),
        (
            ApplyResult::NotVisible {
                unseen: vec![],
                waited_secs: 7.0,
            },
            1,
        ),
        // Without a signal recorded (the library's own interrupt flag), as for SIGINT.
        (ApplyResult::Interrupted, 130),
        (ApplyResult::CronIndexMoved { change_id: 1 }, 1),
    ];
    for (result, code) in results {
        let ended = ending(&result);
        if let Err(err) = &ended {
            // The apply report already said what went wrong.
            assert!(
                matches!(
                    err.kind,
                    ErrorKind::AlreadyReported | ErrorKind::Interrupted { .. }
                ),
                "{result:?}"
            );
        }
        assert_eq!(exit_code(&ended), code, "{result:?}");
    }
}

#[test]
fn an_accounts_token_hints_name_its_token_source_and_leave_the_rest() {
    let token = "DNSCRON_TOKEN_SHOP (./dnscron-accounts.yaml:9:16)";
    let hint = |h: &str| account_hint(h.to_string(), "shop", token);
    assert_eq!(
        hint(UNAUTHORIZED_HINT),
        [
            "check account `shop`'s token in DNSCRON_TOKEN_SHOP (./dnscron-accounts.yaml:9:16): it may be expired or revoked"
        ]
    );
    assert_eq!(
        hint(FORBIDDEN_HINT),
        [
            "account `shop`'s token in DNSCRON_TOKEN_SHOP (./dnscron-accounts.yaml:9:16) lacks a scope or this site is not pinned to it: edit the token in the portal under API tokens"
        ]
    );
    // A 403 whose endpoint names its scope keeps saying which, then whose token it is.
    let scoped = forbidden_hint("POST", "/dns/example.com/records").unwrap();
    assert!(
        scoped.starts_with("this token lacks the `dns` scope"),
        "{scoped}"
    );
    assert_eq!(
        hint(&scoped),
        [
            scoped.clone(),
            format!("that is account `shop`'s token in {token}")
        ]
    );
    let site = forbidden_hint("GET", "/sites/shop/cron").unwrap();
    assert_eq!(hint(&site).len(), 2, "{site}");
    // Hints not about the token are the account's as they are.
    assert_eq!(hint(RATE_LIMIT_HINT), [RATE_LIMIT_HINT]);
    // The API's URL is the account's `api_url`, never a flag the accounts file refuses.
    assert_eq!(
        hint("check --api-url / DNSCRON_API_URL and the network"),
        ["check account `shop`'s api_url in dnscron-accounts.yaml and the network"]
    );
    assert_eq!(
        hint(NO_ENDPOINT_HINT),
        [
            "check account `shop`'s api_url in dnscron-accounts.yaml: it includes the version prefix, e.g. https://api.example.net/api/v1 (`dnscron doctor` checks it)"
        ]
    );
    // One account's error keeps its own hint.
    let one = CommandError::user("x").with_hint(UNAUTHORIZED_HINT);
    assert_eq!(one.hints, [UNAUTHORIZED_HINT]);
    let named = one.in_account("shop", token);
    assert_eq!(named.message_text(), "account `shop`: x");
    assert_eq!(named.hints, hint(UNAUTHORIZED_HINT));
}
