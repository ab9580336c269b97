//! `dnscron controller`: a long-running reconciler (docs/controller.md). The core decides
//! everything a round does (what revision the folder holds, what to apply, what is drift, when
//! to wait); the binary adds the signals, the HTTP endpoints, the logs and the webhook.
//!
//! One round does one thing, the most urgent first: a new revision's changes (bound to the last
//! converged revision, as `apply --reviewed` is to a reviewed plan), else the next part of the
//! drift sweep, sized to the room in the API budget so that a sweep of a large account is
//! spread over rounds and never keeps a new revision waiting.

mod alerts;
mod backoff;
mod report;
pub mod revision;
mod round;
mod run;
mod state;
mod targets;
pub mod webhook;

pub use backoff::{Backoff, FIRST_WAIT, LONGEST_WAIT};
pub use report::{
    AlertKind, Event, Pending, RoundError, RoundOutcome, RoundReport, Status, Transition, Trigger,
    WaitReason, Work,
};
pub use revision::{GitHead, Probe, Revision, RevisionError, RevisionSource, Snapshot};
pub use round::{Controller, DEFAULT_INTERVAL, Mode, Settings};
pub use run::{OnceOutcome, RunEnd};
pub use state::{Converged, STATE_VERSION, StateError, StateStore};
pub use webhook::{Webhook, WebhookError};
