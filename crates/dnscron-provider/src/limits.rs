//! The API's numbers (spec, Limits, Pagination and Idempotency), each written once.
//!
//! Where the spec leaves a number open, the value here is the one both sides assume, and its
//! doc says so: the emulator makes those gaps configurable, and the client must work with every
//! setting (a real server announces its own rate in `X-RateLimit-Limit`).

use std::ops::RangeInclusive;

/// Requests per minute per token owner, all of one user's tokens sharing one bucket (spec,
/// Limits: Request rate).
pub const RATE_PER_MINUTE: u32 = 120;
/// How many requests may come at once. Not given by the spec: a minute's refill is assumed, by
/// the emulator's default bucket and by the client's pacer until a response shows a deeper one.
pub const RATE_BURST: u32 = RATE_PER_MINUTE;

/// `limit` of a list endpoint when the request names none (spec, Pagination 1).
pub const PAGE_SIZE_DEFAULT: u32 = 20;
/// The largest `limit` a list endpoint accepts; the client asks for it on every list.
pub const PAGE_SIZE_MAX: u32 = 100;

/// TTLs a DNS record write accepts, in seconds (spec, Limits: DNS ttl).
pub const TTL_MIN: u32 = 60;
pub const TTL_MAX: u32 = 604_800;
pub const TTL_RANGE: RangeInclusive<u32> = TTL_MIN..=TTL_MAX;

/// A record's content, in characters (spec, Limits: DNS content).
pub const CONTENT_MAX_CHARS: usize = 2000;

/// A domain name's length in characters, without the final dot, and one label's (RFC 1035
/// 2.3.4). The spec states neither; the API is a DNS service and holds the DNS's own.
pub const NAME_MAX_CHARS: usize = 253;
pub const LABEL_MAX_CHARS: usize = 63;

/// Cron jobs one site may have (spec, Limits: Cron jobs).
pub const CRON_JOBS_PER_SITE_MAX: usize = 5;
/// The programs a cron command may run: its first word (spec, Limits: "php and wp commands only").
pub const CRON_PROGRAMS: [&str; 2] = ["php", "wp"];
/// Fields of a cron schedule (spec, Scheduled tasks: "5-field cron").
pub const CRON_SCHEDULE_FIELDS: usize = 5;
/// A cron command's length in characters. Not given by the spec: the emulator's bound, which
/// it publishes in `/openapi.json` (`maxLength`).
pub const CRON_COMMAND_MAX_CHARS: usize = 1000;

/// An `Idempotency-Key`'s length: 1 to this many printable characters (spec, Idempotency 1).
pub const IDEMPOTENCY_KEY_MAX_CHARS: usize = 200;
/// How long a key replays its first response (spec, Idempotency 3).
pub const IDEMPOTENCY_WINDOW_SECS: u64 = 24 * 60 * 60;

/// Host names of `mode: custom` on PUT /domains/{domain}/nameservers (spec, Limits: Custom
/// nameservers; "outside the domain").
pub const CUSTOM_NAMESERVERS_MIN: usize = 2;
pub const CUSTOM_NAMESERVERS_MAX: usize = 6;
