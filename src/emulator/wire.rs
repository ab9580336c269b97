//! The emulator's wire format, written from the API specification (sections Errors,
//! Pagination, Idempotency and Limits), never from the client's `api::wire`: a field name the
//! client misreads must not be copied into the server, or every end-to-end test would agree
//! with the mistake.

use std::collections::BTreeMap;

use serde::Serialize;

/// The uniform body of every 4xx and 5xx response (spec, Errors).
#[derive(Debug, Serialize)]
pub struct ErrorEnvelope<'a> {
    pub error: ErrorBody<'a>,
}

#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub message: &'a str,
    /// Per-field messages; the spec names it for `validation_error` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<&'a BTreeMap<String, Vec<String>>>,
    /// Same value as the `X-Request-Id` header.
    pub request_id: &'a str,
    /// The portal step of a 409 `conflict` (spec: "these responses add continue_url").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continue_url: Option<&'a str>,
}

/// `meta` of every list response (spec, Pagination 2): `next_cursor` is left out on the last
/// page, where `has_more` is false.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Meta {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub has_more: bool,
}

/// Header names as the spec spells them, lower-cased (HTTP header names are case-insensitive).
pub mod headers {
    pub const REQUEST_ID: &str = "x-request-id";
    pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
    pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";
    pub const RATE_LIMIT: &str = "x-ratelimit-limit";
    pub const RATE_REMAINING: &str = "x-ratelimit-remaining";
    pub const RETRY_AFTER: &str = "retry-after";
}

/// Keys of the result arrays of list endpoints (spec, Resources and Endpoints).
pub mod list_keys {
    pub const SITES: &str = "sites";
    pub const CRON_JOBS: &str = "cron_jobs";
    pub const DOMAINS: &str = "domains";
    pub const ZONES: &str = "zones";
    pub const RECORDS: &str = "records";
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The emulator is the server: its rules come from the spec. Any client-side module used
    /// here would let a misread rule pass on both sides unnoticed.
    const CLIENT_MODULES: [&str; 9] = [
        "api", "apply", "plan", "config", "dns", "cron", "import", "cli", "{",
    ];

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn emulator_takes_nothing_from_the_client() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/emulator");
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        files.sort();
        assert!(files.len() > 10, "found only {files:?}");
        // Built at run time so that this file does not match its own patterns.
        let crate_path = ["crate", "::"].concat();
        let forbidden: Vec<String> = CLIENT_MODULES
            .iter()
            .map(|m| format!("{crate_path}{m}"))
            .chain([["super", "::super", "::super"].concat()])
            .collect();
        let mut uses = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                let compact: String = code.split_whitespace().collect();
                if forbidden.iter().any(|f| compact.contains(f.as_str())) {
                    uses.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
        assert_eq!(uses, Vec::<String>::new());
    }
}
