//! The `dnscron` command line: one file per command, every renderer, all wording, hints and exit
//! codes. The stages themselves live in `dnscron-core`; the local API server in
//! `dnscron-emulator`. The map: docs/architecture.md.
//!
//! A command decides nothing a stage decides (what changes, what is safe, what converged): it
//! makes one call into the core and draws the typed result, so every front end (a command, the
//! controller) gives the same answer. The emulator and the controller's HTTP face are cargo
//! features (default on); `--no-default-features` builds a client-only binary with no HTTP
//! server crates.

// Every match over our own enums lists each variant, so a new one is a compile error wherever it
// needs a decision; `#[allow]` with a reason only on foreign `#[non_exhaustive]` enums.
#![warn(unreachable_pub)]
#![warn(unnameable_types)]
#![deny(clippy::wildcard_enum_match_arm)]

pub mod cli;
pub mod render;
