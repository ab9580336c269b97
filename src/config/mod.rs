//! Desired-state files: YAML → validated [`model::Desired`].

pub mod model;
