//! Client of the Hosting Customer API: wire types, pacing, retries, pagination. Its own crate so
//! that the compiler holds the boundary: the core's stages use it, and it uses none of them.
//!
//! [`ReadClient`] has only GETs (plan can't write); [`WriteClient`] wraps one and adds the
//! writes, each with a caller-given [`IdempotencyKey`]. Clones share one HTTP connection pool,
//! one rate-limit pacer and one [`Stats`].
//!
//! The public surface, one line each; everything else is crate-private (`unreachable_pub`
//! holds it):
//! - [`ReadClient`], [`RecordListing`], [`PAGE_LIMIT`]: the read-only client (plan, import, check);
//! - [`WriteClient`], [`WriteRequest`], [`WriteResponse`], [`IdempotencyKey`]: the writes (apply);
//! - [`ApiConfig`] with its hooks ([`WaitHook`], [`RetryHook`], [`ResponseHook`]), [`Budget`],
//!   [`RetryPolicy`], [`parse_base_url`], [`check_url_policy`]: how a client is built;
//! - [`Token`], [`TOKEN_ENV`]: the token, redacted everywhere;
//! - [`ApiError`] (with [`PageFault`], [`WaitTooLong`]), [`TokenError`], [`IdempotencyKeyError`]:
//!   what goes wrong, as data;
//! - [`WaitEvent`], [`RetryEvent`], [`RetryCause`], [`ResponseEvent`], [`Stats`],
//!   [`StatsSnapshot`], [`RateHeaders`], [`PACING_LOG_TARGET`], [`RETRY_LOG_TARGET`]: what a
//!   front end shows of it;
//! - [`RecordRows`], [`RecordRef`], [`RowsTooLarge`]: a zone's records, compact;
//! - [`payload`]: the wire types the stages read and write;
//! - [`openapi`]: what the client reads from the server's /openapi.json;
//! - [`untrusted`]: the one escaping of server and file text (`escape`, `json_text`, `Untrusted`);
//! - [`USER_AGENT`], [`http_client_builder`], [`error_chain`], [`deprecation_notice`]: for the
//!   controller's webhook and `doctor`.

#![warn(unreachable_pub)]
#![warn(unnameable_types)]
#![deny(clippy::wildcard_enum_match_arm)]

mod answer;
mod budget;
mod config;
mod core;
mod decode;
mod error;
mod exchange;
pub mod openapi;
mod pacer;
mod page;
mod paging;
pub mod payload;
mod read;
mod retry;
mod rows;
mod stats;
mod token;
pub mod untrusted;
mod write;

pub use budget::Budget;
pub use config::{
    ApiConfig, ResponseEvent, ResponseHook, RetryHook, WaitHook, check_url_policy, parse_base_url,
};
pub use core::{USER_AGENT, deprecation_notice, error_chain, http_client_builder};
pub use error::ApiError;
pub use pacer::{LOG_TARGET as PACING_LOG_TARGET, RateHeaders, WaitEvent, WaitTooLong};
pub use paging::PageFault;
pub use read::{PAGE_LIMIT, ReadClient, RecordListing};
pub use retry::{LOG_TARGET as RETRY_LOG_TARGET, RetryCause, RetryEvent, RetryPolicy};
pub use rows::{RecordRef, RecordRows, RowsTooLarge};
pub use stats::{Stats, StatsSnapshot};
pub use token::{TOKEN_ENV, Token, TokenError};
pub use write::{IdempotencyKey, IdempotencyKeyError, WriteClient, WriteRequest, WriteResponse};
