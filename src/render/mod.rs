//! Every view of dnscron-core's data: text for terminals, Markdown for PR comments and job
//! summaries, JSON for machines, GitHub workflow commands, and apply's progress on stderr.

pub mod apply;
pub mod check;
pub mod check_findings;
pub mod diagnostics;
mod excerpt;
pub(crate) mod finding;
pub mod fmt;
pub mod github;
pub mod plan;
pub mod retries;
pub mod stats;
