//! `dnscron apply`: convergence in every emulator gap setting, fault injection, crash safety,
//! portal steps, saved plans, output snapshots.

mod cli;
mod contract;
mod crash;
mod cron_race;
mod dns;
mod during;
mod examples;
mod failures;
mod faults;
mod generate;
mod held;
mod mass_changes;
mod pacing;
mod plan_file;
mod random;
mod reviewed;
mod reviewed_many;
mod sets;
mod signals;
mod support;
