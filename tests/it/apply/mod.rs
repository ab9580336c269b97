//! `dnscron apply`: convergence in every emulator gap setting, fault injection, crash safety,
//! portal steps, saved plans, output snapshots.

mod cli;
mod crash;
mod cron_race;
mod dns;
mod examples;
mod failures;
mod faults;
mod generate;
mod random;
mod reviewed;
mod signals;
mod support;
