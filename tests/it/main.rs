//! The one integration-test binary (one link step instead of one per file). Each module tests one
//! command or stage; `common` holds the builders they share: `dnscron` run in a cleared
//! environment, exit status, stdout and stderr asserted in full, plan ids and times fixed by the
//! test-only variables instead of masked, git run with no system or user configuration and fixed
//! dates so that commit ids are the same everywhere. The harness turns apply's DNS checks and
//! the system resolver off for every test but those about them.
//!
//! No test waits on real time: the emulator runs in-process on 127.0.0.1:0, and waits use
//! tokio's paused clock or the emulator's counter notifications. Where a paused clock can't
//! reach, nothing is decided by time: apply's DNS check (apply/dns.rs) runs in the `dnscron`
//! process over loopback sockets, so the emulator's DNS lags by a count of questions and the
//! deadlines are either never reached or reached after the first round, which always runs.
//! Another process on its own clock (a controller running docs/controller.md's walk, the live
//! Prometheus server) is polled with a deadline.
//!
//! Other tools' readings of the same input (BIND's named-compilezone, octoDNS, Prometheus and
//! promtool) are recorded answers committed beside their inputs (Prometheus's keyed by the
//! input's SHA-256, so a changed input without a new recording fails), so `cargo test
//! --workspace` needs only Rust. `tests/record-answers.sh` records them again with the real tools; the cargo feature
//! `live-tools` compiles the tests that run the tools themselves, which fail when a tool is
//! missing (never a skip) or a recording is stale. `.ci/run` runs the default tests with those
//! tools hidden from `PATH`, then the live ones. A new comparison brings its inputs and
//! recordings, a `tests/recorders/TOOL.sh`, default tests that read them, and a live test.

// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![deny(clippy::wildcard_enum_match_arm)]
// Tests may panic on what they set up themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// .ci/run lints this binary once, with the feature `live-tools`, where the live modules use
// what the default build may leave unused: that is an error of the default build instead.
#![cfg_attr(not(feature = "live-tools"), deny(unused))]

mod accounts;
mod common;
// The planner's tests (kept apart from the per-command list below).
mod plan;

mod action;
mod adopt;
mod apply;
mod architecture_map;
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
mod export;
mod fmt;
mod github_format;
mod hostile;
mod import;
mod long_reports;
mod plan_cli;
mod provider;
mod reference;
mod release_archive;
mod retries;
mod scope;
mod show;
mod static_binary;
mod validate;
