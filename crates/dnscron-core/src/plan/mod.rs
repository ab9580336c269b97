//! Live snapshot → normalized diff against the desired state → a reviewable plan.
//!
//! `diff::diff` makes a [`Plan`] (the one plan model, also the plan file); the `dnscron` binary
//! renders it; `apply` reads it back with [`file::load`], binds a plan made now to it
//! (`apply::review`) and sends the request [`request::derive`] makes for each change, with
//! [`Change::idempotency_key`]. Format and rules: docs/plan.md.

pub mod diff;
pub mod file;
pub mod fingerprint;
pub mod health;
pub mod make;
pub mod model;
pub mod order;
pub mod request;
pub mod safety;
pub mod snapshot;

mod cron_jobs;
mod error;
mod nameservers;
mod norm;
mod records;

pub use cron_jobs::job_key;
pub use diff::{DiffOptions, diff};
pub use error::PlanError;
pub use make::{MakeOptions, MakePlanError, Planned, make_plan, make_plan_owned};
pub use model::{
    Action, Change, Finding, Plan, PlanOptions, PlanStamp, Resource, Severity, Status, Summary,
    Target, TargetKind, TargetRef, Value,
};
pub use nameservers::registry_is_hosted;
