//! Client of the Hosting Customer API: wire types, pacing, retries, pagination. Its own crate so
//! that the compiler holds the boundary: the core's stages use it, and it uses none of them.
//!
//! [`ReadClient`] has only GETs (plan can't write); [`WriteClient`] wraps one and adds the
//! writes, each with a caller-given [`IdempotencyKey`]. Clones share one HTTP connection pool,
//! one rate-limit [`pacer`] and one [`Stats`].

#![warn(unreachable_pub)]
#![deny(clippy::wildcard_enum_match_arm)]

mod answer;
mod budget;
mod config;
mod core;
mod decode;
mod error;
mod exchange;
pub mod openapi;
pub mod pacer;
mod page;
mod paging;
pub mod payload;
mod read;
pub mod retry;
mod rows;
mod stats;
mod token;
pub mod untrusted;
mod write;

pub use budget::Budget;
pub use config::{
    ApiConfig, DEFAULT_MAX_WAIT, ResponseEvent, ResponseHook, RetryHook, WaitHook,
    check_url_policy, parse_base_url,
};
pub use core::{USER_AGENT, deprecation_notice};
pub use core::{error_chain, http_client_builder};
pub use error::ApiError;
pub use pacer::WaitEvent;
pub use paging::PageFault;
pub use read::{PAGE_LIMIT, ReadClient, RecordListing};
pub use retry::{RetryCause, RetryEvent, RetryPolicy};
pub use rows::{RecordRef, RecordRows};
pub use stats::{Stats, StatsSnapshot};
pub use token::{TOKEN_ENV, Token, TokenError};
pub use write::{IdempotencyKey, IdempotencyKeyError, WriteClient, WriteRequest, WriteResponse};
