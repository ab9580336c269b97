//! dnscron: keep a hosting customer's DNS zones, registrar nameserver mode and cron jobs in git,
//! and make the live account match.
//!
//! Data flows one way: files (`config`) → desired state → live snapshot (`api`, `plan::snapshot`)
//! → plan (`plan`) → requests (`apply`) → result, as typed data and typed errors. The `dnscron`
//! binary renders that data and words every error, hint and flag; `dnscron-emulator` serves the
//! API locally for tests and the demo. The map: docs/architecture.md.

pub mod api;
pub mod apply;
pub mod config;
pub mod cron;
pub mod dns;
pub mod dnscheck;
pub mod import;
pub mod plan;
pub mod plan_file;
pub mod untrusted;
