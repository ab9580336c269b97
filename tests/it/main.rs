//! The one integration-test binary (one link step instead of one per file). Each module tests one
//! command or stage; `common` holds the builders they share.

// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// .ci/run lints this binary once, with the feature `live-tools`, where the live modules use
// what the default build may leave unused: that is an error of the default build instead.
#![cfg_attr(not(feature = "live-tools"), deny(unused))]

mod common;
// The planner's tests (kept apart from the per-command list below).
mod plan;

mod action;
mod apply;
mod bench;
mod by_hand;
mod capability;
mod check;
mod ci_recipes;
mod cli_basics;
mod client;
mod config;
#[cfg(feature = "controller")]
mod controller;
mod controller_manifests;
mod doctor;
mod emulator;
mod fmt;
mod github_format;
mod hostile;
mod import;
mod long_reports;
mod plan_cli;
mod reference;
mod release_archive;
mod retries;
mod scope;
mod show;
mod static_binary;
mod validate;
