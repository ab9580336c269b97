//! dnscron's stages: keep a hosting customer's DNS zones, registrar nameserver mode and cron
//! jobs in git, and make the live account match.
//!
//! Data flows one way, as typed data and typed errors: files → desired state → live snapshot →
//! plan → requests → result. Nothing here words anything for a terminal or names a
//! command-line flag: the `dnscron` binary renders this data and words every error, hint and
//! exit code. The map: docs/architecture.md.
//!
//! The public API, one line per entry point, stage by stage: each stage module re-exports its
//! entry points and the types they take and return, and everything else is crate-private
//! (`unreachable_pub` holds it). A module named here is public on purpose; every other file is
//! private to its stage.
//!
//! | stage | entry points (→ what they return) | public modules |
//! |---|---|---|
//! | load | [`config::load`], [`config::load_texts`], [`config::load_with_warnings`] ([`config::Loaded`]), [`config::yaml_texts`] → [`config::model::Desired`] or every problem as [`config::Diagnostics`] | [`config::model`]: the desired state's types |
//! | validate | [`config::revalidate`] (the loader's rules on a desired state read from elsewhere); [`config::json_schema`] | |
//! | accounts | [`config::accounts::discover`] → [`config::accounts::Accounts`] (the repository's `dnscron-accounts.yaml`) or [`config::Diagnostics`]; [`config::accounts::Accounts::select`] | [`config::accounts`] |
//! | scoped plan | [`config::changed::targets`] → [`config::changed::ChangedTargets`] | [`config::changed`] |
//! | fmt | [`config::fmt::format_texts`] → [`config::fmt::FileFormat`]s; [`config::fmt::format_source`] for one text | [`config::fmt`] |
//! | DNS rules | [`dns::RecordType`], [`dns::ZoneName`], [`dns::RecordData`] (its target hosts [`dns::Host`]); the normal forms the plan compares by: [`dns::canonical_content`], [`dns::canonical_live_content`], [`dns::wire_content`], [`dns::fold_host`], [`dns::record_name_to_relative`], [`dns::live_name_to_relative`] | |
//! | live state | [`plan::snapshot::fetch`] → [`plan::snapshot::LiveSnapshot`] or [`plan::snapshot::SnapshotError`]; the client is the `dnscron-api` crate ([`dnscron_api::ReadClient`] GETs only, [`dnscron_api::WriteClient`]) | [`plan::snapshot`] |
//! | plan | [`plan::make_plan`], [`plan::make_plan_owned`] ([`plan::MakeOptions`]) → [`plan::Planned`] or [`plan::MakePlanError`]; [`plan::diff`] ([`plan::DiffOptions`]) → [`plan::Plan`] ([`plan::PlanOptions`]) of [`plan::Change`]s and [`plan::Finding`]s, or [`plan::PlanError`]; [`plan::ReadProgress`] follows the reads; [`plan::stale_targets`] names the targets that moved since a plan | [`plan::request`]: [`plan::request::derive`], a change's HTTP request |
//! | findings | [`plan::judge_acceptances`], [`plan::mail_findings`], [`plan::schedule_findings_of`], [`plan::not_followed_terms`] (`validate` and `check` without a plan); a [`plan::Finding`] names its [`plan::FindingRecord`], measures a [`plan::Figure`] ([`plan::DmarcPolicy`]) and carries its [`plan::Acceptance`] | |
//! | plan file | [`plan_file::to_json`], [`plan_file::load`], [`plan_file::check_size`], [`plan_file::json_schema`] (one format: [`plan_file::json_schema_of`]), [`plan_file::FORMAT_VERSION`], [`plan_file::MAX_BYTES`]; several accounts: [`plan_file::accounts_to_json`], [`plan_file::load_any`] → [`plan_file::PlanFile`] ([`plan_file::AccountPlan`], [`plan_file::ACCOUNTS_FORMAT_VERSION`], refused: [`plan_file::AccountsProblem`]); errors: [`plan_file::PlanFileError`] (a refused content: [`plan_file::FromFileError`], with [`plan_file::PlanIdProblem`], [`plan_file::ApiUrlProblem`], [`plan_file::ScopeProblem`]) | |
//! | apply's workflow | [`apply::workflow::Workflow`] (read, plan, bind to the reviewed plan, run) → [`apply::ApplyReport`] or [`apply::workflow::Refusal`] (a merged apply also names what it left alone: [`apply::workflow::LeftAlone`]); [`apply::apply`] ([`apply::ApplyOptions`]) runs one plan; [`apply::Progress`] follows it, [`apply::Interrupt`] stops it | [`apply::workflow`]; [`apply::dns`]: apply's DNS checks ([`apply::dns::DnsOptions`] → [`apply::dns::DnsCheck`]) |
//! | check | [`dnscheck::check_zones`] ([`dnscheck::CheckSettings`]) → [`dnscheck::CheckReport`] ([`dnscheck::Totals`]); [`dnscheck::NameserverAddress`] or [`dnscheck::AddressParseError`]; [`dnscheck::AddressBook`], [`dnscheck::parse_resolver`], [`dnscheck::parse_resolv_conf`] | |
//! | controller's loop | [`controller::Controller`] ([`controller::Settings`], [`controller::Mode`], [`controller::StateStore`]) → [`controller::RoundReport`]s as [`controller::Event`]s, [`controller::RunEnd`]; [`controller::Controller::round`] → a [`controller::RoundReport`] and its [`controller::Requeue`]; [`controller::api_config`], [`controller::readiness_check`], [`controller::resolve_adopted`], [`controller::Webhook`], [`controller::StateLock`]; several accounts: [`controller::Identity`], [`controller::accounts::compare`], [`controller::accounts::per_account_path`] | [`controller::revision`]: [`controller::revision::probe`], [`controller::revision::read`] |
//! | import | [`import::fetch`] ([`import::Selection`]) → [`import::Fetched`]; [`import::build_zone`] → [`import::ZoneFile`] ([`import::Imported`], [`import::KeptOut`] of an [`import::Ephemeral`] kind, [`import::Unrepresentable`], [`import::LeftOut`], [`import::SourceIgnore`]); [`import::zone_from_probe`] or [`import::ProbeShapeError`]; [`import::render_zone`], [`import::render_site`], [`import::extract_sets`] → [`import::SetFile`]s of [`import::SetRecord`]s, [`import::render_set`], [`import::write_files`] → [`import::OutFile`]s or [`import::Outside`]; [`import::ImportError`] | [`import::from_files`]: other tools' files ([`import::from_files::read`], one folder per reader); [`import::baseline`]: acceptances at adoption |
//! | export | [`export::export`], [`export::export_accounts`] ([`export::Format`]) → [`export::Export`]: the files, what they leave ([`export::Left`]) and can't hold ([`export::NotExported`]); [`export::write_export`] → the paths written or [`export::ExportError`] | |
//! | adopt | [`adopt::adopt`] ([`adopt::AdoptOptions`]) → [`adopt::Adoption`]: the files to write ([`adopt::FileWrite`]), what they adopt ([`adopt::Adopted`]), what is left and why ([`adopt::Left`], [`adopt::LeftReason`]) | [`adopt`] |
//! | benchmark hooks | [`config::parse_yaml`], [`plan::snapshot::READ_CONCURRENCY`], [`controller::BUCKET_PER_MINUTE`] | |

// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![deny(clippy::wildcard_enum_match_arm)]
#![warn(unreachable_pub)]
#![warn(unnameable_types)]

pub mod adopt;
pub mod apply;
pub mod config;
pub mod controller;
pub(crate) mod cron;
pub mod dns;
pub mod dnscheck;
pub mod export;
pub(crate) mod finding;
pub mod import;
pub mod plan;
pub mod plan_file;

#[cfg(test)]
mod stage_order_tests;
