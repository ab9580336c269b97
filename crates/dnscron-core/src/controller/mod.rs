//! What `dnscron controller` runs on: the revision a directory holds and where to tell a
//! person what happened (docs/architecture.md).
//!
//! [`revision`] says which revision of the files a directory holds and reads them as one
//! revision; [`webhook`] posts a line of text to a chat channel.

pub mod revision;
pub mod webhook;

pub use revision::{GitHead, Probe, Revision, RevisionError, RevisionSource, Snapshot};
pub use webhook::{Webhook, WebhookError};
