//! The `dnscron` command line: one file per command, every renderer, all wording, hints and exit
//! codes. The stages themselves live in `dnscron-core`; the local API server in
//! `dnscron-emulator`. The map: docs/architecture.md.

pub mod cli;
pub mod render;
