//! Every view of dnscron-core's data: text for terminals, Markdown for PR comments and job
//! summaries, JSON for machines, GitHub workflow commands, and apply's progress on stderr.

pub mod apply;
pub(crate) mod check;
pub(crate) mod check_findings;
pub mod diagnostics;
mod excerpt;
pub(crate) mod finding;
pub(crate) mod fmt;
pub(crate) mod github;
pub mod plan;
pub(crate) mod retries;
pub(crate) mod stats;
