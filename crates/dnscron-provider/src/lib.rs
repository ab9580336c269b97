//! The Hosting Customer API (its specification, summarized in docs/api.md) as data: the
//! record types, the limits, the token scopes and the endpoints that need them, the names on
//! the wire. The client (`dnscron-api`, `dnscron-core`), the emulator (`dnscron-emulator`) and the
//! bench read these facts from here, so a change to the spec is one edit; the test that holds
//! the emulator's `/openapi.json` and the client's behaviour to this description compares data
//! (tests/it/provider.rs).
//!
//! Facts only, no behaviour: how content is read (the RFCs', by the client) or refused (the
//! sanity of a DNS service, by the emulator) stays on each side, so neither copies the other's
//! mistakes.

#![deny(clippy::wildcard_enum_match_arm)]
#![warn(unreachable_pub)]
#![warn(unnameable_types)]

mod endpoint;
pub mod limits;
mod record_type;
mod wire;

pub use endpoint::{Endpoint, Method, Scope};
pub use record_type::{RecordType, UnknownRecordType};
pub use wire::{headers, list_keys};

/// The path prefix every endpoint is under (spec, Versioning 1).
pub const BASE_PATH: &str = "/api/v1";
