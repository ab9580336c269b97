//! Names on the wire that both sides must spell alike (spec, Errors, Limits, Idempotency,
//! Pagination and Versioning). The shapes of the bodies are not here: the client reads them
//! leniently and the emulator writes them strictly, each its own way.

/// Header names, lower-cased (HTTP header names are case-insensitive).
pub mod headers {
    pub const REQUEST_ID: &str = "x-request-id";
    pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
    pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";
    pub const RATE_LIMIT: &str = "x-ratelimit-limit";
    pub const RATE_REMAINING: &str = "x-ratelimit-remaining";
    pub const RETRY_AFTER: &str = "retry-after";
    pub const DEPRECATION: &str = "deprecation";
}

/// Keys of the result arrays of the list endpoints (spec, Pagination 2).
pub mod list_keys {
    pub const SITES: &str = "sites";
    pub const CRON_JOBS: &str = "cron_jobs";
    pub const DOMAINS: &str = "domains";
    pub const ZONES: &str = "zones";
    pub const RECORDS: &str = "records";
}
