//! The plan file lives in [`crate::plan_file`]; these paths stay for existing callers.

pub use crate::plan_file::{load, to_json};
