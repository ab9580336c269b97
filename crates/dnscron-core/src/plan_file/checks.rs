//! A plan file is untrusted input: whoever can edit it (a PR, an artifact store) must not reach
//! a terminal, a request header or another API with it. Its size, `plan_id` and `api_url` are
//! checked before anything else uses them.

use dnscron_api::untrusted::Untrusted;

/// The largest plan file read. A plan that creates a 100,000-record zone from scratch writes
/// the declared record, the change and its request per record: measured 98 MB for A records
/// (983 bytes each) and 197 MB for 252-character TXT records (1,965 bytes each, the text four
/// times). 256 MiB holds either, and stops a runaway or hostile file before it is parsed.
pub const MAX_BYTES: usize = 256 * 1024 * 1024;

/// The longest `plan_id` accepted: real ids are 32 hex digits; the rest is room for ids tests
/// or tools choose.
pub(crate) const PLAN_ID_MAX: usize = 64;

/// What is wrong with a file's `plan_id`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanIdProblem {
    #[error("is empty")]
    Empty,
    #[error("has {chars} characters")]
    TooLong { chars: usize },
    #[error("contains `{}`", Untrusted(&.found.to_string()))]
    Character { found: char },
}

/// What is wrong with a file's `api_url`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApiUrlProblem {
    #[error("is empty")]
    Empty,
    #[error("`{}` is not a URL: {reason}", Untrusted(.url))]
    NotUrl { url: String, reason: String },
    #[error("`{}` is not an http or https URL with a host", Untrusted(.url))]
    NotHttp { url: String },
}

/// `plan_id` goes into Idempotency-Key headers and output: ASCII letters, digits, `-`, `_`.
pub(super) fn plan_id(id: &str) -> Result<(), PlanIdProblem> {
    if id.is_empty() {
        return Err(PlanIdProblem::Empty);
    }
    let chars = id.chars().count();
    if chars > PLAN_ID_MAX {
        return Err(PlanIdProblem::TooLong { chars });
    }
    match id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        Some(found) => Err(PlanIdProblem::Character { found }),
        None => Ok(()),
    }
}

/// `api_url` binds the plan to the API it was made against; an empty or malformed one would
/// bind it to nothing.
pub(super) fn api_url(url: &str) -> Result<(), ApiUrlProblem> {
    if url.trim().is_empty() {
        return Err(ApiUrlProblem::Empty);
    }
    if url.trim() != url {
        // The URL parser would drop them; a plan writes none, so the file was edited.
        return Err(ApiUrlProblem::NotUrl {
            url: url.to_string(),
            reason: "it has spaces at either end".into(),
        });
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| ApiUrlProblem::NotUrl {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    let http = matches!(parsed.scheme(), "http" | "https");
    if !http || parsed.host_str().is_none_or(str::is_empty) {
        return Err(ApiUrlProblem::NotHttp {
            url: url.to_string(),
        });
    }
    Ok(())
}

/// The longest `scope.since` accepted: a revision as typed (`origin/main`, a sha, `HEAD~1`).
pub(super) const SINCE_MAX: usize = 256;

/// What is wrong with a file's `scope`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScopeProblem {
    #[error("`commit` `{}` is not a git commit id (40 or 64 hexadecimal digits)", Untrusted(.0))]
    Commit(String),
    #[error("`since` has {chars} characters, more than {SINCE_MAX}")]
    SinceTooLong { chars: usize },
    #[error("`since` contains a control character")]
    SinceControl,
}

/// A scope is shown to reviewers and decides what apply reads: its commit is a commit id, its
/// revision printable text of a sane length.
pub(super) fn scope(since: &str, commit: &str) -> Result<(), ScopeProblem> {
    let hex = commit.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex || !matches!(commit.len(), 40 | 64) {
        return Err(ScopeProblem::Commit(commit.to_string()));
    }
    let chars = since.chars().count();
    if chars > SINCE_MAX {
        return Err(ScopeProblem::SinceTooLong { chars });
    }
    if since.chars().any(char::is_control) {
        return Err(ScopeProblem::SinceControl);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_accepted_and_refused() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(scope("HEAD~1", sha), Ok(()));
        assert_eq!(scope("origin/main", &"a".repeat(64)), Ok(()));
        assert_eq!(
            scope("HEAD~1", "abc"),
            Err(ScopeProblem::Commit("abc".into()))
        );
        let escape = format!("{}\u{1b}", &sha[..39]);
        assert!(matches!(
            scope("HEAD~1", &escape),
            Err(ScopeProblem::Commit(_))
        ));
        assert_eq!(
            scope(&"x".repeat(SINCE_MAX + 1), sha),
            Err(ScopeProblem::SinceTooLong {
                chars: SINCE_MAX + 1
            })
        );
        assert_eq!(
            scope("main\n# forged", sha),
            Err(ScopeProblem::SinceControl)
        );
    }

    #[test]
    fn plan_ids_accepted_and_refused() {
        assert_eq!(plan_id("0123456789abcdef0123456789abcdef"), Ok(()));
        assert_eq!(plan_id(&"a".repeat(PLAN_ID_MAX)), Ok(()));
        assert_eq!(plan_id(""), Err(PlanIdProblem::Empty));
        assert_eq!(
            plan_id(&"a".repeat(10_000)),
            Err(PlanIdProblem::TooLong { chars: 10_000 })
        );
        assert_eq!(
            plan_id("../../x"),
            Err(PlanIdProblem::Character { found: '.' })
        );
        assert_eq!(
            plan_id("id\u{1b}[2J"),
            Err(PlanIdProblem::Character { found: '\u{1b}' })
        );
        assert_eq!(
            PlanIdProblem::Character { found: '\u{1b}' }.to_string(),
            "contains `\\u{1b}`"
        );
    }

    #[test]
    fn api_urls_accepted_and_refused() {
        assert_eq!(api_url("http://127.0.0.1:8080/api/v1"), Ok(()));
        assert_eq!(api_url("https://api.example.net/v1/"), Ok(()));
        assert_eq!(api_url(""), Err(ApiUrlProblem::Empty));
        assert_eq!(api_url("  "), Err(ApiUrlProblem::Empty));
        assert!(matches!(
            api_url("not a url"),
            Err(ApiUrlProblem::NotUrl { .. })
        ));
        assert!(matches!(
            api_url("file:///etc/passwd"),
            Err(ApiUrlProblem::NotHttp { .. })
        ));
        assert!(matches!(
            api_url(" http://127.0.0.1/"),
            Err(ApiUrlProblem::NotUrl { .. })
        ));
    }
}
