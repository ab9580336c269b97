//! Live snapshot → normalized diff against the desired state → a reviewable plan.

pub mod snapshot;
