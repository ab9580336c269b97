//! Live snapshot → normalized diff against the desired state → a reviewable plan.
//!
//! [`diff`] makes a [`Plan`] (the one plan model; [`crate::plan_file`] writes and reads it); the
//! `dnscron` binary renders it; `apply` binds a plan made now to a reviewed one
//! (`apply::review`) and sends the request [`request::derive`] makes for each change, with
//! [`Change::idempotency_key`]. [`snapshot`] is the live state a plan reads. `in_effect` is
//! the one rule for "already in effect", which the diff and apply share. Format and rules:
//! docs/plan.md.

// Deliberately public: the live state a plan reads, and the request a change sends.
pub mod request;
pub mod snapshot;

pub(crate) mod accept;
pub(crate) mod account;
pub(crate) mod declared;
pub(crate) mod diff;
pub(crate) mod fingerprint;
pub(crate) mod health;
pub(crate) mod held;
pub(crate) mod in_effect;
pub(crate) mod listed;
pub(crate) mod make;
pub(crate) mod model;
pub(crate) mod order;
pub(crate) mod removal;
pub(crate) mod safety;
pub(crate) mod scope;

mod cron_jobs;
mod error;
mod nameservers;
mod norm;
mod progress;
mod records;

pub use crate::finding::{Basis, DmarcPolicy, Figure, FindingCode, Severity};
pub use accept::{Looked, judge_acceptances};
pub use account::AccountCheck;
pub(crate) use cron_jobs::job_key;
pub use cron_jobs::schedule_findings_of;
pub use diff::{DiffOptions, diff};
pub use error::PlanError;
pub use fingerprint::stale_targets;
pub use health::mail::{MailDns, mail_findings, not_followed_terms};
pub use held::Held;
pub(crate) use make::account_findings;
pub use make::{MakeOptions, MakePlanError, Planned, make_plan, make_plan_owned};
pub use model::{
    Acceptance, Action, Change, Finding, FindingRecord, Plan, PlanOptions, PlanStamp, Resource,
    Status, Summary, Target, TargetKind, TargetRef, Value,
};
pub(crate) use nameservers::registry_is_hosted;
pub use progress::{ReadProgress, ReadProgressHook};
pub use safety::{Counted, Exceeded, OverLimits};
pub use scope::Scope;
