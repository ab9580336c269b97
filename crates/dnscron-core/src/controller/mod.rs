//! `dnscron controller`: a long-running reconciler (docs/controller.md). The core decides
//! everything a round does (what revision the folder holds, what to apply, what is drift, when
//! to wait); the binary adds the signals, the HTTP endpoints, the logs and the webhook.
//!
//! One round does one thing, the most urgent first: a new revision's changes (bound to the last
//! converged revision, as `apply --reviewed` is to a reviewed plan), else the next part of the
//! drift sweep, sized to the room in the API budget so that a sweep of a large account is
//! spread over rounds and never keeps a new revision waiting.

pub mod accounts;
mod alerts;
mod backoff;
mod lock;
mod report;
mod requeue;
// Deliberately public: the folder's revision (probe, read) that a front end reads between rounds.
pub mod revision;
mod revision_round;
mod round;
mod run;
mod state;
mod sweep;
mod targets;
pub(crate) mod webhook;

pub use backoff::LONGEST_WAIT;
pub use lock::{LockError, StateLock};
pub use report::{
    AlertKind, Broken, Event, KeptOut, KeptOutReason, Pending, RoundError, RoundOutcome,
    RoundReport, Status, Transition, Trigger, WaitReason, Work,
};
pub use requeue::Requeue;
pub use revision::{
    AdoptError, GitHead, Probe, Revision, RevisionError, RevisionSource, Snapshot, resolve_adopted,
};
pub use round::{Controller, DEFAULT_INTERVAL, Identity, Mode, Settings, readiness_check};
pub use run::{OnceOutcome, RunEnd};
pub use state::{Converged, Start, StateError, StateStore};
pub use webhook::{Webhook, WebhookError};

/// The API's request limit the spec gives every user (`api::pacer`'s own bucket): a
/// controller's `--api-share` is a share of it.
pub const BUCKET_PER_MINUTE: u32 = dnscron_provider::limits::RATE_PER_MINUTE;

/// The API client's settings for a controller spending `share_percent` of a bucket of
/// `bucket_per_minute`: that budget over any rolling minute, and 429s waited out however many
/// come (a storm is the bucket at work; only the total wait, `max_wait`, bounds them), since a
/// long-running process that gave up on them would only come back later to the same bucket.
pub fn api_config(
    mut config: dnscron_api::ApiConfig,
    share_percent: u8,
    bucket_per_minute: u32,
) -> dnscron_api::ApiConfig {
    config.budget = Some(dnscron_api::Budget::share(share_percent, bucket_per_minute));
    config.retry.max_rate_limited = u32::MAX;
    config
}
