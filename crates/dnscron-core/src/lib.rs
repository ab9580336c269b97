//! dnscron's stages: keep a hosting customer's DNS zones, registrar nameserver mode and cron
//! jobs in git, and make the live account match.
//!
//! Data flows one way, as typed data and typed errors: files → desired state → live snapshot →
//! plan → requests → result. Nothing here words anything for a terminal or names a
//! command-line flag: the `dnscron` binary renders this data and words every error, hint and
//! exit code. The map: docs/architecture.md.
//!
//! The public API, stage by stage (each module's own re-exports; its files are private):
//!
//! | stage | entry points |
//! |---|---|
//! | files → desired state | [`config::load`], [`config::load_texts`] → [`config::model::Desired`] or every problem as [`config::Diagnostics`]; [`config::json_schema`] |
//! | DNS and cron rules | [`dns::RecordType`], [`dns::ZoneName`], [`dns::RecordData`]; [`cron`]'s normal forms |
//! | live state | the `dnscron-api` crate: [`dnscron_api::ReadClient`] (GETs only), [`dnscron_api::WriteClient`], [`dnscron_api::ApiConfig`], [`dnscron_api::Token`], [`dnscron_api::ApiError`]; [`plan::snapshot::fetch`] → [`plan::snapshot::LiveSnapshot`] |
//! | plan | [`plan::make_plan`] (read, then [`plan::diff`]) → [`plan::Plan`] of typed [`plan::Change`]s; [`plan::request::derive`] is a change's HTTP request |
//! | plan file | [`plan_file::to_json`], [`plan_file::load`], [`plan_file::json_schema`], [`plan_file::FORMAT_VERSION`] |
//! | apply | [`apply::apply`] → [`apply::ApplyReport`]; [`apply::workflow::Workflow`] is the one apply every front end drives (read, plan, bind to the reviewed plan, run); [`apply::Progress`] is how a caller follows it |
//! | DNS checks | [`dnscheck::check_zones`] → [`dnscheck::CheckReport`]; [`dnscheck::ask`] |
//! | controller | [`controller::revision::probe`], [`controller::revision::read`] → [`controller::Snapshot`]; [`controller::Webhook`] |
//! | files → another tool's files | [`export::export`], [`export::export_accounts`] → [`export::Export`] (BIND or octoDNS files, what they leave out); [`export::write_export`] |
//! | live → files | [`import::fetch`], [`import::build_zone`], [`import::render_zone`], [`import::write_files`] |
//! | server text | [`dnscron_api::untrusted::escape`], [`dnscron_api::untrusted::json_text`] |

// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![deny(clippy::wildcard_enum_match_arm)]
#![warn(unreachable_pub)]

pub mod apply;
pub mod config;
pub mod controller;
pub mod cron;
pub mod dns;
pub mod dnscheck;
pub mod export;
pub(crate) mod finding;
pub mod import;
pub mod plan;
pub mod plan_file;

#[cfg(test)]
mod stage_order_tests;
