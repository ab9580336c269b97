//! Live snapshot → normalized diff against the desired state → a reviewable plan.
//!
//! `diff::diff` makes a [`Plan`]; `render::{text, json, markdown}` show it; `apply` reads it back
//! with [`Plan::from_json`], checks [`fingerprint::stale_targets`] and sends each change's
//! `request` with [`Change::idempotency_key`]. Format and rules: docs/plan.md.

pub mod diff;
pub mod fingerprint;
pub mod make;
pub mod model;
pub mod order;
pub mod render;
pub mod safety;
pub mod snapshot;

mod cron;
mod error;
mod nameservers;
mod norm;
mod records;

pub use cron::job_key;
pub use diff::{DiffOptions, diff};
pub use error::PlanError;
pub use make::{MakeOptions, MakePlanError, Planned, make_plan};
pub use model::{
    Action, Change, Finding, Plan, Request, Resource, Severity, Status, Summary, Target,
    TargetKind, TargetRef, Value,
};
pub use nameservers::registry_is_hosted;
